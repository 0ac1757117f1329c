"""Card pages: type-ahead search, a phone-sized card page, and import/export of players' cards."""
from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, render_template, request
from flask_babel import gettext

from card_db import describe, formats
from card_db import search as card_search
from card_db import store as card_store
from card_db.schema import DECKS, KINDS

from .. import scanning
from .. import store as table_store
from ..db import get_db, get_store
from ..referee.rules import RULES, Refused
from ..referee.table import escape_targets, playable_now
from . import seating
from .operator import operator_only
from .render import is_htmx, vary
from .security import upload_limit

bp = Blueprint("cards", __name__)

IMPORT_MAX_BYTES = 1024 * 1024


def search_args() -> dict:
    """``q``, ``deck``, ``kind`` and ``limit`` from the query string, checked."""
    deck = request.args.get("deck") or None
    kind = request.args.get("kind") or None
    if deck is not None and deck not in DECKS:
        raise Refused("deck must be one of: {names}.", status=400, names=', '.join(DECKS))
    if kind is not None and kind not in KINDS:
        raise Refused("kind must be one of: {names}.", status=400, names=', '.join(KINDS))
    try:
        limit = int(request.args.get("limit", 20))
    except ValueError:
        raise Refused("limit must be a whole number.", status=400) from None
    if not 1 <= limit <= 100:
        raise Refused("limit must be between 1 and 100.", status=400)
    query = request.args.get("q", "")
    if len(query) > 100:
        raise Refused("The search text can be at most 100 characters.", status=400)
    return {"query": query, "deck": deck, "kind": kind, "limit": limit}


def find(args: dict) -> list[dict]:
    """Search results with each card's record, for pages and the API alike."""
    db = get_db()
    hits = card_search.search(db, args["query"], deck=args["deck"], kind=args["kind"], limit=args["limit"],
                              cache_key=current_app.config["DATABASE"])
    return [{"hit": hit, "card": card_store.get(db, hit.card_id)} for hit in hits]


@bp.app_template_filter("card_headline")
def card_headline(card: dict) -> str:
    return describe.headline(card, gettext)


@bp.get("/cards")
def search_page():
    args = search_args()
    results = find(args) if args["query"].strip() else []
    context = {"args": args, "results": results, "kinds": KINDS, "decks": DECKS, "count": card_store.count(get_db())}
    return vary(render_template("_card_results.html" if is_htmx() else "cards.html", **context))


@bp.get("/cards/<card_id>")
def card_page(card_id: str, enroll_notice: dict | None = None):
    card = card_store.get(get_db(), card_id)
    if card is None:
        abort(404, f"There is no card {card_id!r}. Search for it by name instead.")
    learned = scanning.index_for(current_app.config["DATA_DIR"]).taught_at(card_id)  # in the picture's address
    return render_template("card.html", card=card, facts=describe.facts(card, gettext), related=related_rules(card),
                           use_at=usable_tables(card), learned=learned,
                           enroll_notice=enroll_notice)


def usable_tables(card: dict) -> list[dict]:
    """One-tap uses of this card at the tables this phone sits at: ``[{name, uses: [...]}]``.

    Every kind plays through ``card.play``: items, races and classes on the sheet, curses and
    Go Up a Level on a chosen player, monsters into the fight, enhancers on a chosen monster,
    one-shots for either side — or, for one that acts out of a fight, on a chosen curse (Wishing
    Ring: every curse of every player), from a chosen player (Steal a Level), or just played (Hoard!).
    """
    out = []
    for table_id in seating.my_tables():
        seat = seating.cookie_seat(table_id)
        if not seat:
            continue
        state = table_store.load(get_store(), table_id)
        if not playable_now(card, state, seat):
            continue
        uses = card_uses(card, state, seat)
        if uses:
            out.append({"id": table_id, "name": state.name, "uses": uses})
    return out


@bp.app_template_global()
def card_uses(card: dict, state, seat: str) -> list[dict]:
    """The buttons that play ``card`` at this table now: ``[{action, label, params}]`` (the card page's,
    and the pick list's for the cards it does not spell out itself)."""
    kind = card["kind"]
    if kind == "one_shot" and card["one_shot"].get("on_escape_roll"):  # a die just rolled to run away
        return _escape_roll_uses(card, state, seat)
    if kind in ("curse", "go_up_a_level") or card["id"] == "divine-intervention":
        return [{"action": "card.play", "label": gettext("Me") if p.seat == seat else p.name, "params": {"seat": p.seat}}
                for p in state.players.values() if not p.dead]
    if kind == "monster_enhancer":
        return [{"action": "card.play", "label": gettext("On %(monster)s", monster=m["name"]), "params": {"monster": m["uid"]}}
                for m in state.combat["monsters"] if not m["eliminated"]]
    if kind == "one_shot" and card["one_shot"].get("cancels_curse"):
        return [{"action": "card.play", "label": gettext("%(curse)s on %(name)s", curse=c["name"], name=p.name),
                 "params": {"seat": p.seat, "uid": c["uid"]}} for p in state.players.values() for c in p.curses]
    if kind == "one_shot" and card["one_shot"].get("transfers_fight"):  # who must fight in the player's place
        return [{"action": "card.play", "label": p.name, "params": {"seat": p.seat}}
                for p in state.players.values() if not p.dead and p.seat != seat]
    if kind == "one_shot" and card["one_shot"].get("steal_levels"):
        return [{"action": "card.play", "label": gettext("From %(name)s", name=p.name), "params": {"seat": p.seat}}
                for p in state.players.values() if not p.dead and p.seat != seat]
    if kind == "one_shot" and card["one_shot"].get("escapes") and state.combat["helper"]:  # Instant Wall
        fight = state.combat
        return [{"action": "card.play", "label": gettext("Both"), "params": {"role": "both"}}] + \
            [{"action": "card.play", "label": state.players[fight[role]].name, "params": {"role": role}}
             for role in ("fighter", "helper")]
    if kind == "one_shot" and card["one_shot"].get("rids_of") == "one":  # Polymorph Potion, Magic Lamp
        return [{"action": "card.play", "label": gettext("On %(monster)s", monster=m["name"]), "params": {"monster": m["uid"]}}
                for m in state.combat["monsters"] if not m["eliminated"]]
    if kind == "one_shot" and (card["one_shot"].get("draw_treasures") or card["one_shot"].get("rids_of")
                               or card["one_shot"].get("doubles_strength") or card["one_shot"].get("escapes")):
        return [{"action": "card.play", "label": gettext("Play it"), "params": {}}]
    if kind == "one_shot":
        return [{"action": "card.play", "label": gettext("For the players") if side == "players" else gettext("For the monsters"),
                 "params": {"side": side}} for side in ("players", "monsters")]
    if kind == "monster":
        return [{"action": "card.play", "label": gettext("Into the fight") if state.combat else gettext("Fight it"), "params": {}}]
    return [{"action": "card.play", "label": gettext("Add to my sheet"), "params": {}}]


def _escape_roll_uses(card: dict, state, seat: str) -> list[dict]:
    """A button per roll of the escape just rolled that the card may act on: the player's own failed
    rolls (Invisibility Potion), their own dice made a 6 (Loaded Die; the API takes any number), anyone's
    escape by a die to roll again (Flask of Glue, the app's die)."""
    out = []
    for e in escape_targets(state, card, seat):
        params = {"role": e["role"], "monster": e["uid"]}
        if card["one_shot"]["on_escape_roll"] == "set":
            out.append({"action": "card.play", "label": gettext("%(monster)s: make it a 6", monster=e["monster"]),
                        "params": {**params, "die": 6}})
        else:
            out.append({"action": "card.play", "label": gettext("%(name)s: %(monster)s", name=e["who"],
                                                                monster=e["monster"]), "params": params})
    return list({str(u["params"]): u for u in out}.values())  # (a Mate's copy: one button for its monster)


#: The referee's rules that matter for a kind of card, beyond those its rulings name.
RULES_BY_KIND = {
    "go_up_a_level": ["level.win-by-kill", "level.floor"],
    "monster": ["level.win-by-kill", "game.won"],
    "curse": ["level.floor"],
}


def related_rules(card: dict) -> list:
    ids = [r["rule"] for r in card.get("rulings", []) if r.get("rule")] + RULES_BY_KIND.get(card["kind"], [])
    if card["kind"] == "curse" and not any(e.get("type") == "lose_levels" for e in card["curse"].get("effects", [])):
        ids.remove("level.floor")
    return [RULES[i] for i in dict.fromkeys(ids) if i in RULES]


@bp.route("/cards/import", methods=["GET", "POST"])
@operator_only
@upload_limit(IMPORT_MAX_BYTES + 16 * 1024)
def import_page():
    """Add cards to the database every table reads: the operator's alone."""
    if request.method == "GET":
        return render_template("cards_import.html", problems=None, imported=None, error=None)
    upload = request.files.get("file")
    error, problems, imported = None, None, None
    if upload is None or not upload.filename:
        error = "Choose a JSON or CSV file to import."
    else:
        data = upload.read(IMPORT_MAX_BYTES + 1)
        if len(data) > IMPORT_MAX_BYTES:
            error = f"The file is larger than {IMPORT_MAX_BYTES // 1024} KiB."
        else:
            try:
                records = formats.parse(data, formats.detect(upload.filename, data))
                imported = card_store.import_cards(get_db(), records)
            except formats.FormatError as exc:
                error = f"{upload.filename}: {exc}"
            except card_store.InvalidCards as exc:
                problems = exc.problems
    status = 200 if imported is not None else 400
    return render_template("cards_import.html", problems=problems, imported=imported, error=error), status


@bp.get("/cards/export.<fmt>")
def export(fmt: str):
    if fmt not in ("json", "csv"):
        abort(404)
    origin = request.args.get("origin") or None
    if origin not in (None, "bundled", "imported"):
        raise Refused("origin must be bundled or imported.", status=400)
    records = card_store.export(get_db(), origin=origin)
    body = formats.to_json(records) if fmt == "json" else formats.to_csv(records)
    mimetype = "application/json" if fmt == "json" else "text/csv"
    name = f"cards-{origin or 'all'}.{fmt}"
    return Response(body, mimetype=mimetype, headers={"Content-Disposition": f'attachment; filename="{name}"'})
