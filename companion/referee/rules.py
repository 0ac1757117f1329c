"""The rule entries: every rule the referee enforces and every rule players argue about.

Each entry has a stable id, a title and a statement in our own words (in every supported
language), the editions and sections it comes from, the editions that differ and related
entries. A refusal always names one, so a phone can say *why* an action is illegal and
where the book says so. The data lives in ``rulebook/``: ``structure.toml`` for sources and
links, one ``<language>.toml`` per language for the words.
"""
from __future__ import annotations

import tomllib
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from .languages import LANGUAGES, N_  # noqa: F401 (N_ is the engine's mark, imported from here)
from .profiles import DEFAULT_PROFILE, PROFILES

RULEBOOK = Path(__file__).with_name("rulebook")
KINDS = ("enforced", "dispute", "reference")


@dataclass(frozen=True)
class Rule:
    """One rule entry; ``title``/``summary`` are English, :func:`localized` gives other languages."""

    id: str
    kind: str
    title: str
    summary: str
    sources: dict = field(hash=False)  # profile id -> section of that edition's book
    differs: dict = field(hash=False)  # profile id -> how that edition differs (English)
    related: tuple = ()

    @property
    def citation(self) -> str:
        """The citation in the default edition's book (1.6), or the first book that has the rule."""
        return self.cite_for(DEFAULT_PROFILE)

    @property
    def citations(self) -> list[str]:
        """Every book the entry comes from, with its section."""
        return [cite(profile_id, section) for profile_id, section in self.sources.items()]

    def cite_for(self, profile_id: str) -> str:
        """The citation in the given edition's book, else in the first book that has the rule."""
        profile_id = profile_id if profile_id in self.sources else next(iter(self.sources))
        return cite(profile_id, self.sources[profile_id])

    def as_dict(self, lang: str = "en", profile_id: str | None = None) -> dict:
        words = localized(self.id, lang)
        return {"id": self.id, "kind": self.kind, "title": words["title"], "summary": words["text"],
                "citation": self.cite_for(profile_id) if profile_id else self.citation,
                "sources": [{"profile": p, "citation": cite(p, s)} for p, s in self.sources.items()],
                "differs": [{"profile": p, "note": note} for p, note in words["differs"].items()],
                "related": list(self.related), "language": lang}


def cite(profile_id: str, section: str) -> str:
    return f"{PROFILES[profile_id].book}, {section}"


def _load(name: str) -> dict:
    with open(RULEBOOK / name, "rb") as fh:
        return tomllib.load(fh)


#: The words of every entry per language: ``TEXTS[lang][rule_id] = {title, text, differs, terms}``.
TEXTS: dict[str, dict[str, dict]] = {
    lang: {rid: {"title": e["title"], "text": e["text"], "differs": e.get("differs", {}), "terms": e.get("terms", "")}
           for rid, e in _load(f"{lang}.toml").items()}
    for lang in LANGUAGES if (RULEBOOK / f"{lang}.toml").exists()
}


def _rules() -> dict[str, Rule]:
    structure = _load("structure.toml")
    english = TEXTS["en"]
    out = {}
    for rid, s in structure.items():
        assert s["kind"] in KINDS, rid
        out[rid] = Rule(id=rid, kind=s["kind"], title=english[rid]["title"], summary=english[rid]["text"],
                        sources=dict(s["sources"]), differs={p: english[rid]["differs"].get(p, "") for p in s.get("differs", [])},
                        related=tuple(s.get("related", ())))
    return out


RULES: dict[str, Rule] = _rules()


def localized(rule_id: str, lang: str) -> dict:
    """An entry's words in ``lang``, falling back to English where a language lacks it."""
    return TEXTS.get(lang, {}).get(rule_id) or TEXTS["en"][rule_id]


#: The rules the host may override for one action (a house ruling): the checks written with
#: :func:`refuse`. Checks that keep the game state coherent (the level floor, rewards, the
#: fight's order) cannot be overridden.
OVERRIDABLE = ("level.win-by-kill", "items.big", "race.one", "class.one", "items.not-in-combat", "turn.own",
               "halfling.double", "level.causes", "turn.door", "turn.trouble-or-loot", "combat.run-away",
               "quest.combat", "quest.flee", "combat.objection")


class Refused(Exception):
    """An action the rules (or the table's roles) forbid.

    ``rule`` is the id of the entry in :data:`RULES` that forbids it, or ``None`` when the
    refusal is about the request itself (an unknown player, a name already taken) rather
    than about a rule of the game. ``status`` is the HTTP status the web layer answers with.
    The message is English with ``{placeholders}`` filled from ``params``, so that the web
    layer can show it in the phone's language (the template is the catalogue's key).
    """

    def __init__(self, message: str, rule: str | None = None, status: int = 422, **params):
        text = message.format(**params) if params else message
        super().__init__(text)
        self.template = message  # the English message with {placeholders}: the key for translations
        self.params = params
        self.message = text
        self.rule = RULES[rule] if rule else None
        self.status = status
        self.profile_id: str | None = None  # the table's edition, when a table refused: cited in its book

    def as_dict(self) -> dict:
        data: dict = {"error": self.message, "rule": self.rule.id if self.rule else None}
        if self.rule:
            data["citation"] = self.rule.cite_for(self.profile_id) if self.profile_id else self.rule.citation
            data["citations"] = self.rule.citations
            data["rule_summary"] = self.rule.summary
        return data


#: Rules the host has waived for the decision being made, and those a check actually waived.
_waived: ContextVar[frozenset] = ContextVar("waived", default=frozenset())
_used: ContextVar[list | None] = ContextVar("used", default=None)


def refuse(message: str, rule: str, status: int = 422, **params) -> None:
    """Refuse with ``rule`` unless the host has waived it for this decision (a house ruling).

    Only checks after which the action still makes sense call this (a second class, a
    card giving the winning level, …); checks that protect the state itself raise
    :class:`Refused` directly and cannot be waived.
    """
    if rule in _waived.get():
        used = _used.get()
        if used is not None and rule not in used:
            used.append(rule)
        return
    raise Refused(message, rule=rule, status=status, **params)


@contextmanager
def waiving(rules):
    """Within the block, :func:`refuse` lets ``rules`` through; yields the list of those it did."""
    used: list = []
    tokens = (_waived.set(frozenset(rules)), _used.set(used))
    try:
        yield used
    finally:
        _used.reset(tokens[1])
        _waived.reset(tokens[0])
