"""The JSON API under ``/api/v1``: the same actions as the pages, for bots and other clients.

Create and join answer a bearer token for the new seat; every other call sends it as
``Authorization: Bearer <token>``. Bearer tokens are not ambient credentials (a browser
never sends them by itself), so the API is exempt from the CSRF check that guards the
cookie-based forms. Errors are ``{"error": ..., "rule": ...}`` with a 4xx status.
"""
from __future__ import annotations

from flask import Blueprint, jsonify, request, url_for

from card_db import describe as card_describe
from card_db import store as card_store

from .. import actions, fights, rulesearch, store
from ..db import get_db, get_store
from ..referee.profiles import DEFAULT_PROFILE, OPTIONS, PROFILES
from ..referee.rules import LANGUAGES, RULES, Refused
from ..referee.history import describe
from ..referee.table import UNDOABLE
from . import cards, limits, pages, seating
from .openapi import spec
from .render import base_url
from .security import csrf

bp = Blueprint("api", __name__, url_prefix="/api/v1")
csrf.exempt(bp)


def body() -> dict:
    """The request's JSON object, or a clear 400."""
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise Refused("The body must be a JSON object (Content-Type: application/json).", status=400)
    return data


def seat_answer(state, seat: str, token: str, status: int):
    tokens = store.tokens(get_store(), state.id)
    return jsonify({
        "table": state.public(),
        "seat": seat,
        "token": token,
        "join_url": base_url() + url_for("pages.join", token=tokens["join"]),
        "spectator_url": base_url() + url_for("pages.spectate", token=tokens["spectator"]),
    }), status


@bp.get("/openapi.json")
def openapi():
    return jsonify(spec())


@bp.get("/profiles")
def profiles():
    return jsonify({"default": DEFAULT_PROFILE, "profiles": [p.as_dict() for p in PROFILES.values()], "options": OPTIONS})


def _rule_args() -> tuple[str, str | None]:
    """``?lang=`` (default English) and ``?profile=`` for the rule answers, checked."""
    lang = request.args.get("lang", "en")
    if lang not in LANGUAGES:
        raise Refused("lang must be one of: {names}.", status=400, names=", ".join(LANGUAGES))
    profile_id = request.args.get("profile") or None
    if profile_id is not None and profile_id not in PROFILES:
        raise Refused("profile must be one of: {names}.", status=400, names=", ".join(PROFILES))
    return lang, profile_id


@bp.get("/rules")
def rules():
    """Every rule entry in ``lang``, cited in ``profile``'s book when given."""
    lang, profile_id = _rule_args()
    return jsonify({"rules": [r.as_dict(lang, profile_id) for r in RULES.values()]})


@bp.get("/rules/search")
def rules_search():
    """Plain-language search: the entries that answer ``q``, best first."""
    lang, profile_id = _rule_args()
    query = request.args.get("q", "")
    if not query.strip():
        raise Refused("Ask something: q is empty.", status=400)
    if len(query) > rulesearch.QUERY_MAX:
        raise Refused("The question can be at most {max} characters.", status=400, max=rulesearch.QUERY_MAX)
    limit = request.args.get("limit", "5")
    if not limit.isdigit() or not 1 <= int(limit) <= 20:
        raise Refused("limit must be a whole number from 1 to 20.", status=400)
    return jsonify({"query": query, "language": lang, "profile": profile_id,
                    "results": rulesearch.search(query, lang, profile_id, int(limit))})


@bp.get("/rules/<rule_id>")
def rule(rule_id: str):
    lang, profile_id = _rule_args()
    if rule_id not in RULES:
        raise Refused("There is no rule {rule_id!r}.", status=404, rule_id=rule_id)
    return jsonify(RULES[rule_id].as_dict(lang, profile_id))


@bp.get("/health")
def health():
    """For a proxy or a monitor: the process answers and its databases read."""
    get_db().execute("SELECT 1").fetchone()
    get_store().execute("SELECT 1").fetchone()
    return jsonify({"status": "ok"})


@bp.post("/tables")
@limits.creating
def create_table():
    data = body()
    host = data.get("host")
    if not isinstance(host, dict):
        raise Refused("'host' must be an object with 'name' and 'sex'.", status=400)
    state, seat, token = actions.create_table(data.get("name"), data.get("profile", DEFAULT_PROFILE),
                                              host.get("name"), host.get("sex"), data.get("options"))
    return seat_answer(state, seat, token, 201)


@bp.post("/join/<join_token>")
@limits.joining
def join(join_token: str):
    data = body()
    state, seat, token = actions.join(join_token, data.get("name"), data.get("sex"))
    return seat_answer(state, seat, token, 201)


@bp.get("/tables/<table_id>")
def table(table_id: str):
    seat = seating.bearer_seat(table_id)
    return jsonify({"table": store.load(get_store(), table_id).public(), "seat": seat.seat})


@bp.post("/tables/<table_id>/actions")
def act(table_id: str):
    seat = seating.bearer_seat(table_id)
    data = body()
    action = data.get("action")
    if not isinstance(action, str):
        raise Refused("'action' must name an action.", status=400)
    state, seq = actions.perform(table_id, seat.seat, action, data, request.headers.get("Idempotency-Key"))
    return jsonify({"table": state.public(), "event": _event_json(table_id, seq)})


@bp.get("/tables/<table_id>/charity")
def charity(table_id: str):
    """End of turn: how many of ``hand`` cards must go, and to whom (nothing is recorded)."""
    seat = seating.bearer_seat(table_id)
    return jsonify(pages.charity_answer(table_id, seat.seat))


@bp.get("/tables/<table_id>/history")
def history(table_id: str):
    seating.bearer_seat(table_id)
    db = get_store()
    names = store.names(db, table_id)
    return jsonify({"events": [_recorded_json(rec, names) for rec in store.history(db, table_id)]})


@bp.get("/tables/<table_id>/house-rulings")
def house_rulings(table_id: str):
    """Every action the host let through against a rule, with the rule and who ruled."""
    seating.bearer_seat(table_id)
    db = get_store()
    names = store.names(db, table_id)
    profile_id = store.load(db, table_id).profile_id
    return jsonify({"rulings": [ruling_json(rec, names, profile_id) for rec in store.house_rulings(db, table_id)]})


def ruling_json(rec, names: dict, profile_id: str) -> dict:
    """A house ruling, its rule cited in the table's edition's book as the history page cites it
    (#13: it cited the 1.6 book at every table)."""
    override = rec.payload["override"]
    rule = RULES[override["rule"]]
    return {"seq": rec.seq, "rule": rule.id, "rule_title": rule.title, "citation": rule.cite_for(profile_id),
            "waived": override["waived"], "by": override["by"], "by_name": names.get(override["by"]),
            "summary": describe(rec.event, names), "reason": rec.reason, "created_at": rec.created_at,
            "undone_by": rec.undone_by}


@bp.post("/tables/<table_id>/history/<int:seq>/undo")
def undo(table_id: str, seq: int):
    seat = seating.bearer_seat(table_id)
    data = request.get_json(silent=True) if request.content_length else {}
    if not isinstance(data, dict):
        raise Refused("The body must be a JSON object or empty.", status=400)
    state, new_seq = actions.undo(table_id, seat.seat, seq, data)
    return jsonify({"table": state.public(), "event": _event_json(table_id, new_seq)})


@bp.get("/cards")
def cards_search():
    """Search by any name in any language; without ``q`` nothing is listed (use export for all)."""
    args = cards.search_args()
    return jsonify({"cards": [
        {"id": r["hit"].card_id, "name": r["card"]["names"]["en"], "matched": r["hit"].name, "lang": r["hit"].lang,
         "score": r["hit"].score, "deck": r["card"]["deck"], "kind": r["card"]["kind"],
         "summary": card_describe.headline(r["card"])}
        for r in cards.find(args)]})


@bp.get("/cards/<card_id>")
def card_detail(card_id: str):
    card = card_store.get(get_db(), card_id)
    if card is None:
        raise Refused("There is no card {card_id!r}.", status=404, card_id=card_id)
    return jsonify({"card": card})


@bp.post("/combat/evaluate")
def combat_evaluate():
    """Judge a complete fight statelessly (no table, no token): totals, outcome, rewards, escapes."""
    return jsonify(fights.evaluate(get_db(), body()))


@bp.get("/spectate/<token>")
def spectate(token: str):
    db = get_store()
    return jsonify({"table": store.load(db, store.table_for_spectator(db, token)).public()})


def _event_json(table_id: str, seq: int) -> dict:
    db = get_store()
    return _recorded_json(store.event(db, table_id, seq), store.names(db, table_id))


def _recorded_json(rec: store.Recorded, names: dict[str, str]) -> dict:
    return {
        "seq": rec.seq, "kind": rec.kind, "actor": rec.actor, "payload": rec.payload, "reason": rec.reason,
        "at": rec.created_at, "undoes": rec.undoes, "undone_by": rec.undone_by,
        "undoable": rec.kind in UNDOABLE and rec.undone_by is None,
        "text": describe(rec.event, names),
    }
