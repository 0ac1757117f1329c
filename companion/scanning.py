"""Card scanning for the app and the CLI: the vision index in the data directory, tied to the
card database (enrolled ids are its cards' where a name is one; answers carry the cards' names).

``vision/`` knows pixels and ids only; this module adds the names, the languages and the
checks against the card database, once, for the web views and the ``companion vision`` CLI.
"""
from __future__ import annotations

import threading
from pathlib import Path

from rapidfuzz import fuzz, process

from card_db import search as card_search
from card_db import store as card_store
from card_db.normalize import fold
from vision import enroll as vision_enroll
from vision import image as vision_image
from vision import recognize as vision_recognize
from vision import title as vision_title
from vision.index import Index, check_card_id

_indexes: dict[Path, Index] = {}
_lock = threading.Lock()
MISSPELT = 0.85                  # a name this alike a card's (RapidFuzz ratio, 0..1) is warned of as misspelt


def index_for(data_dir: str | Path) -> Index:
    """The process-wide index of ``data_dir``/vision (it reloads itself when the file changes)."""
    root = (Path(data_dir) / "vision").resolve()
    with _lock:
        if root not in _indexes:
            _indexes[root] = Index(root)
        return _indexes[root]


def card_name(card: dict | None, lang: str = "en") -> str | None:
    if not card:
        return None
    names = card.get("names") or {}
    return names.get(lang) or names.get("en") or next(iter(names.values()), card["id"])


def name_matcher(conn):
    """Card ids for a title read from a photo: every name of every card in every language,
    accents folded, compared whole (RapidFuzz ratio), best first with similarity 0..1."""
    names = card_search.index_for(conn, "vision")

    def match(text: str) -> list[tuple[str, float]]:
        key = fold(text)
        if len(key) < 3:
            return []
        best: dict[str, float] = {}
        for _, score, i in process.extract(key, names.keys, scorer=fuzz.ratio, limit=8):
            card_id = names.card_ids[i]
            best[card_id] = max(best.get(card_id, 0.0), score / 100)
        return sorted(best.items(), key=lambda kv: -kv[1])
    return match


def _titles_can_name(conn, index: Index) -> bool:
    """Whether reading a photo's title may name its card: titles name cards of the card
    database, so not when every enrolled card is one the database does not know (cards of
    another game, enrolled with ``--any-id``): there a title read could only name a
    Munchkin card that is not on that table, and reading costs ~25 ms a try."""
    ids = index.refresh().ids
    if not ids:
        return True
    known = set(card_search.index_for(conn, "vision").card_ids)
    return any(card_id in known for card_id in ids)


def recognize(conn, index: Index, data: bytes, lang: str = "en", read_titles: bool = True) -> dict:
    """The recognition answer as a dict, each candidate with the card's name and deck.

    The title is read as well (fallback and tie-breaker) when the ``[ocr]`` extra is
    installed, ``read_titles`` is true and a title may name a card (``_titles_can_name``);
    with the extra and ``read_titles``, the text where twins differ is read for any card
    that agrees little there (``vision.recognize._read_where_twins_differ``). Raises
    ``vision.image.ImageError`` for bytes that are not a usable image, ``vision.gate.Busy``
    when this process has all the photos it recognises at once in hand already.
    """
    reader = vision_title.reader() if read_titles else None
    names = name_matcher(conn) if reader and _titles_can_name(conn, index) else None
    result = vision_recognize.recognize(data, index, reader, names).as_dict()
    for cand in result["candidates"]:
        card = card_store.get(conn, cand["card_id"])
        cand["name"] = card_name(card, lang)
        cand["deck"] = card.get("deck") if card else None
        cand["kind"] = card.get("kind") if card else None
    result["name"] = result["candidates"][0]["name"] if result["card_id"] else None
    return result


def read_references(index: Index) -> int:
    """Read, once, the text where twins differ on every enrolled reference that has such a
    place (``vision.recognize.read_references``; with the ``[ocr]`` extra only): what a
    recognition compares with the photo is then kept, not read per photo. Returns how many
    references were read now."""
    reader = vision_title.reader()
    return vision_recognize.read_references(index, reader) if reader else 0


def another_game(conn, names: list[str]) -> bool:
    """Whether most of ``names`` (files named by hand) are no card of the card database, by
    id or folded (``card_slug``): another game's deck, whose names are all to be taken as
    they are — one of them that happens to fold to a Munchkin card's id (its "Net Troll")
    is that game's card, and ``recognize`` must answer with its own name."""
    return 2 * sum(database_id(conn, name) is not None for name in names) < len(names)


def unknown_names(conn, ids: list[str]) -> list[tuple[str, str | None]]:
    """The ``ids`` that are no card of the card database, each with the id of the card whose
    name (in any language, accents folded) it is most like when that is at least
    ``MISSPELT`` alike (``Boots of Buttkicking``: a file named with a letter wrong, which the
    operator should rename), else ``None``: for the warning after an enrolment. A name that
    is only *like* a card's is never taken for it: another game's "Tiny Scrolls" is not
    Munchkin's "Tiny Scroll"."""
    unknown = [card_id for card_id in ids if card_store.get(conn, card_id) is None]
    if not unknown:
        return []
    match = name_matcher(conn)
    answers = []
    for card_id in unknown:
        close = [cid for cid, score in match(card_id) if score >= MISSPELT]
        answers.append((card_id, close[0] if close else None))
    return answers


class EnrollProblems(ValueError):
    """Nothing was enrolled; ``problems`` lists (source, message) for every bad input."""

    def __init__(self, problems: list[tuple[str, str]]):
        super().__init__(f"{len(problems)} problem(s); nothing enrolled")
        self.problems = problems


def card_slug(name: str) -> str:
    """The card-database id a name given by hand would be (``Net Troll``, ``net_troll`` →
    ``net-troll``): folded (``card_db.normalize.fold``), its words joined by hyphens."""
    return fold(name).replace(" ", "-")


def database_id(conn, name: str) -> str | None:
    """The card of the card database a file's name stands for: the name itself when it is an
    id, else the id it folds to (``card_slug``); None when neither is a card."""
    return next((card_id for card_id in (name, card_slug(name)) if card_store.get(conn, card_id) is not None), None)


def enroll(conn, index: Index, sources: dict[str, tuple[str, bytes]], kind: str = "auto",
           any_id: bool = False) -> list[str]:
    """Enrol ``sources`` ({card id: (where it came from, image bytes)}) all or nothing.

    A card id is a card of the card database: its id, or a name that is one once folded
    (``Net Troll`` or ``Net-Troll`` for ``net-troll``: a file named by hand, ``card_slug``).
    Any other name — another game's card, a card the database lacks — is the card's id as
    it is given (``vision.index.check_card_id``); ``unknown_names`` says which they were and
    whether one looks like a card's name misspelt. With ``any_id`` every name is taken as it
    is given, folded or not. Every image must hold a card. Returns the ids enrolled; raises
    ``EnrollProblems`` naming each bad source, or ``vision.gate.Busy`` (nothing enrolled)
    when this process is busy with other images. Enrolments from several processes at once
    all land (see ``vision.index``).
    """
    problems: list[tuple[str, str]] = []
    refs, photos = {}, {}
    for card_id, (where, data) in sources.items():
        known = None if any_id else database_id(conn, card_id)
        if known is not None:
            if known != card_id and (known in sources or known in refs):
                problems.append((where, f"another image is named {known!r} already"))
                continue
            card_id = known
        else:
            try:
                check_card_id(card_id)
            except ValueError as exc:
                problems.append((where, str(exc)))
                continue
        try:
            refs[card_id], photos[card_id] = vision_enroll.reference(data, index, kind), data
        except (vision_enroll.EnrollError, vision_image.ImageError) as exc:
            problems.append((where, str(exc)))
    if problems:
        raise EnrollProblems(problems)
    refs = vision_enroll.agreeing(refs, photos, index.thumbnails(without=refs), kind)
    try:
        index.add(refs)
    except ValueError as exc:
        raise EnrollProblems([("card ids", str(exc))]) from None
    return list(refs)
