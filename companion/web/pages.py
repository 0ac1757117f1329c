"""The phone pages: create a table, join by QR code, play, history, spectate.

One URL answers with the full page or, for htmx (``HX-Request``), with the partial it
swaps; such answers say ``Vary: HX-Request``. Every form works without JavaScript too:
a plain POST is answered with a redirect (success) or the full page with the refusal.
"""
from __future__ import annotations

from dataclasses import asdict

from flask import Blueprint, abort, redirect, render_template, request, url_for
from flask_babel import gettext

from card_db.words import CLASSES, RACES, SLOTS

from .. import actions, i18n, rulesearch, store
from ..db import get_store
from ..qr import svg as qr_svg
from ..referee import sheet
from ..referee.profiles import DEFAULT_PROFILE, PROFILES
from ..referee.rules import OVERRIDABLE, RULES, Refused
from ..referee.table import SEXES, UNDOABLE, dice_kept, may_undo, playable_now
from . import limits, seating
from .cards import find
from .render import action_button, board, board_context, invite_context, is_htmx, vary

bp = Blueprint("pages", __name__)


@bp.app_context_processor
def helpers():
    return {"qr_svg": qr_svg, "SEXES": SEXES, "RACES": RACES, "CLASSES": CLASSES, "SLOTS": SLOTS,
            "action": action_button}


@bp.get("/")
def home():
    db = get_store()
    mine = []
    for table_id in seating.my_tables():
        seat = seating.cookie_seat(table_id)
        if seat:
            state = store.load(db, table_id)
            mine.append({"id": table_id, "name": state.name, "me": state.players[seat].name})
    return render_template("home.html", profiles=PROFILES.values(), default_profile=DEFAULT_PROFILE,
                           mine=mine, form={}, error=None)


@bp.post("/tables")
@limits.creating
def create():
    form = request.form
    try:
        state, seat, token = actions.create_table(
            form.get("name", ""), form.get("profile", DEFAULT_PROFILE), form.get("player_name", ""), form.get("sex"),
            actions.options_from(form))
    except Refused as exc:
        return render_template("home.html", profiles=PROFILES.values(), default_profile=DEFAULT_PROFILE,
                               mine=[], form=form, error=i18n.refusal_text(exc)), exc.status
    seating.remember(state.id, token)
    return redirect(url_for("pages.table", table_id=state.id), 303)


@bp.route("/j/<token>", methods=["GET", "POST"])
@limits.joining
def join(token: str):
    db = get_store()
    table_id = store.table_for_join(db, token)
    if seating.cookie_seat(table_id):
        return redirect(url_for("pages.table", table_id=table_id), 303)
    state = store.load(db, table_id)
    error = None
    if request.method == "POST":
        try:
            state, seat, seat_token = actions.join(token, request.form.get("name", ""), request.form.get("sex"))
        except Refused as exc:
            error = exc
        else:
            seating.remember(state.id, seat_token)
            return redirect(url_for("pages.table", table_id=state.id), 303)
    status = error.status if error else 200
    return render_template("join.html", state=state, token=token, error=error, form=request.form), status


class RemovedFromTable(Exception):
    """This phone's player was removed from the table by its host (answered with its own page)."""

    def __init__(self, table_id: str):
        super().__init__(table_id)
        self.table_id = table_id


@bp.app_errorhandler(RemovedFromTable)
def removed(exc: RemovedFromTable):
    """A removed player's own page, not an error inside the board: a tap from the board
    (htmx) takes the whole phone there (``HX-Redirect``), a page or a plain form shows it."""
    if is_htmx():
        response = vary("", 200)
        response.headers["HX-Redirect"] = url_for("pages.table", table_id=exc.table_id)
        return response
    state = store.load(get_store(), exc.table_id)
    return vary(render_template("removed.html", table_name=state.name), 410)


def seat_or_403(table_id: str) -> str:
    seat = seating.cookie_seat(table_id)
    if seat is None:
        store.load(get_store(), table_id)  # 404 for a table that does not exist
        if seating.cookie_removed(table_id):
            raise RemovedFromTable(table_id)
        abort(403, gettext("This phone has no seat at this table. Scan the table's QR code to join."))
    return seat


@bp.get("/t/<table_id>")
def table(table_id: str):
    seat = seat_or_403(table_id)
    state = store.load(get_store(), table_id)
    if is_htmx():
        return vary(board(state, seat))
    return vary(render_template("table.html", **board_context(state, seat), **invite_context(table_id)))


def _answer(table_id: str, seat: str, work, action: str | None = None):
    """Run ``work`` (an action) and answer as the request wants: partial, page or redirect.

    A refusal the host may override carries the action and its form fields, so the host's
    phone can offer to send the same action again as a house ruling.
    """
    notice = None
    status = 200
    try:
        state, seq = work()
        recorded = store.event(get_store(), table_id, seq)
        notice = {"kind": "done", "seq": seq, "text": i18n.history_line(recorded.event, store.names(get_store(), table_id)),
                  "can_undo": _offers_undo(state, seat, recorded)}
    except Refused as exc:
        state = store.load(get_store(), table_id)
        notice = {"kind": "refused", "text": i18n.refusal_text(exc), "rule": exc.rule}
        if action and exc.rule and exc.rule.id in OVERRIDABLE and seat == state.host and "override" not in request.form:
            fields = [(k, v) for k, v in request.form.items(multi=True) if k not in ("csrf_token", "reason")]
            notice["retry"] = {"action": action, "fields": fields}
        status = exc.status
    if is_htmx():
        return vary(board(state, seat, notice), status)
    if status == 200:
        return redirect(url_for("pages.table", table_id=table_id), 303)
    return vary(render_template("table.html", **board_context(state, seat, notice), **invite_context(table_id)), status)


def _offers_undo(state, seat: str, recorded) -> bool:
    """Whether this phone is offered Undo for a change: one of a kind that can be undone (a die
    rolled is not taken back), by its author or the host, and not an escape whose die it may not
    take back (the referee's rules: may_undo, dice_kept)."""
    return recorded.kind in UNDOABLE and may_undo(state, seat, recorded.actor) and not dice_kept(state, seat, recorded.event)


@bp.post("/t/<table_id>/act/<action>")
def act(table_id: str, action: str):
    seat = seat_or_403(table_id)
    return _answer(table_id, seat, lambda: actions.perform(table_id, seat, action, request.form,
                                                                       request.headers.get("Idempotency-Key")), action)


@bp.get("/t/<table_id>/pick")
def pick(table_id: str):
    """Cards a player can use now, as they type, each with what it does: items, races and classes
    on the sheet, curses and Go Up a Level on any player, a monster into the fight (or to fight
    on your turn), enhancers (one button per monster) and one-shots (either side)."""
    seat = seat_or_403(table_id)
    state = store.load(get_store(), table_id)
    query = request.args.get("q", "")
    if len(query) > 100:
        raise Refused("The search text can be at most 100 characters.", status=400)
    results = [r for r in find({"query": query, "deck": None, "kind": None, "limit": 30})
               if playable_now(r["card"], state, seat)][:8] if query.strip() else []
    template = "_pick_results.html" if is_htmx() else "pick.html"
    return vary(render_template(template, state=state, query=query, results=results, me_seat=seat))


def charity_answer(table_id: str, seat: str) -> dict:
    """The Charity verdict for ``?hand=N`` cards in this seat's hand (pages and API alike)."""
    state = store.load(get_store(), table_id)
    try:
        hand = int(request.args.get("hand", ""))
    except ValueError:
        raise Refused("hand must be the number of cards in your hand.", status=400) from None
    players = {s: asdict(p) for s, p in state.players.items()}
    result = sheet.charity(players, seat, hand, state.profile)
    result["shares"] = [{**share, "name": state.players[share["seat"]].name} for share in result["shares"]]
    if state.profile.quest:  # the board game's own Charity (the same five cards)
        result["rule"] = "quest.charity"
    result["citation"] = RULES[result["rule"]].cite_for(state.profile_id)
    return result


@bp.get("/t/<table_id>/charity")
def charity(table_id: str):
    seat = seat_or_403(table_id)
    return vary(render_template("_charity.html", result=charity_answer(table_id, seat)))


@bp.post("/t/<table_id>/undo/<int:seq>")
def undo(table_id: str, seq: int):
    seat = seat_or_403(table_id)
    if request.form.get("from") == "history":
        try:
            actions.undo(table_id, seat, seq, request.form)
        except Refused as exc:
            return _history_page(table_id, seat, {"kind": "refused", "text": i18n.refusal_text(exc), "rule": exc.rule}, exc.status)
        return redirect(url_for("pages.history", table_id=table_id), 303)
    return _answer(table_id, seat, lambda: actions.undo(table_id, seat, seq, request.form))


def _history_page(table_id: str, seat: str | None, notice=None, status: int = 200):
    db = get_store()
    state = store.load(db, table_id)
    names = store.names(db, table_id)
    entries = [
        {"rec": rec, "text": i18n.history_line(rec.event, names), "who": names.get(rec.actor, "") if rec.actor else "",
         "can_undo": rec.undone_by is None and _offers_undo(state, seat, rec)}
        for rec in store.history(db, table_id, limit=500)
    ]
    rulings = [{"rec": rec, "text": i18n.history_line(rec.event, names), "rule": RULES[rec.payload["override"]["rule"]]}
               for rec in store.house_rulings(db, table_id)]
    template = "_history.html" if is_htmx() else "history.html"
    return vary(render_template(template, state=state, entries=entries, rulings=rulings, seat=seat, notice=notice),
                status)


@bp.get("/t/<table_id>/history")
def history(table_id: str):
    seat = seat_or_403(table_id)
    return _history_page(table_id, seat)


@bp.get("/w/<token>")
def spectate(token: str):
    db = get_store()
    state = store.load(db, store.table_for_spectator(db, token))
    return render_template("spectate.html", token=token, **board_context(state, None))


PROFILE_NAMES = {p.id: p.name for p in PROFILES.values()}


def _rule_profile() -> str | None:
    """The edition a rules page cites first (``?profile=``; a table links with its own)."""
    profile_id = request.args.get("profile")
    return profile_id if profile_id in PROFILES else None


@bp.get("/rules")
def rules():
    """Every entry, and plain-language search over them in the phone's language."""
    query = request.args.get("q", "").strip()[:rulesearch.QUERY_MAX]
    profile_id = _rule_profile()
    lang = i18n.language()
    results = rulesearch.search(query, lang, profile_id) if query else []
    if is_htmx():
        return vary(render_template("_rule_results.html", query=query, results=results, profile_id=profile_id,
                                    profile_names=PROFILE_NAMES))
    entries = [rule.as_dict(lang, profile_id) for rule in RULES.values()]
    return vary(render_template("rules.html", query=query, results=results, entries=entries, profile_id=profile_id,
                                profile_names=PROFILE_NAMES))


@bp.get("/rules/<rule_id>")
def rule(rule_id: str):
    if rule_id not in RULES:
        abort(404, gettext("There is no such rule."))
    profile_id = _rule_profile()
    lang = i18n.language()
    entry = RULES[rule_id].as_dict(lang, profile_id)
    related = [RULES[r].as_dict(lang) for r in RULES[rule_id].related]
    return vary(render_template("rule.html", rule=entry, related=related, profile_id=profile_id,
                                profile_names=PROFILE_NAMES))


def back():
    """A redirect to the page a footer form came from (its ``next`` field; only paths on this site)."""
    target = request.form.get("next") or "/"
    if not target.startswith("/") or target.startswith("//"):
        target = "/"
    return redirect(target, 303)


@bp.post("/lang")
def set_language():
    """Remember this phone's language (a cookie) and go back where it was."""
    lang = request.form.get("lang")
    if lang not in i18n.LANGUAGES:
        raise Refused("Unknown language.", status=400)
    response = back()
    response.set_cookie(i18n.COOKIE, lang, max_age=i18n.COOKIE_MAX_AGE, samesite="Lax", httponly=True)
    return response

