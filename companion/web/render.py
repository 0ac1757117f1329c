"""Rendering a table for one viewer: the board partial and the context it needs."""
from __future__ import annotations

import time
from collections import OrderedDict

from flask import current_app, g, make_response, render_template, request, url_for
from flask_babel import gettext
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup, escape

from .. import i18n, store
from ..db import get_store
from ..referee import fight as fights
from ..referee import quest, quest_table, sheet
from ..referee.profiles import PROFILES
from ..referee.rules import RULES
from ..referee.table import TableState


#: The rule entry behind each line of the card game's sheet: the phone links the line's name to it.
#: Only links, so kept here and not in the engine, whose modules name the rules they check (Munchkin
#: Quest's sheet has its own map, ``quest.SHEET_RULES``).
SHEET_RULES = {"level": "level.causes", "strength": "combat.compare", "races": "race.one", "items": "items.slots",
               "big": "items.big", "curses": "curses.lasting"}


def is_htmx() -> bool:
    return request.headers.get("HX-Request") == "true"


def vary(body, status: int = 200):
    """An HTML answer that differs by ``HX-Request`` (full page or partial), by cookie (seat,
    language) and by the browser's language."""
    response = make_response(body, status)
    response.headers["Vary"] = "HX-Request, Cookie, Accept-Language"
    return response


def base_url() -> str:
    return (current_app.config.get("PUBLIC_URL") or request.host_url).rstrip("/")


class _Recent:
    """A small per-process memory of what was worked out for a table's version, oldest
    forgotten first: every phone of a table is sent the same version at about the same time."""

    def __init__(self, kept: int):
        self.kept, self.items = kept, OrderedDict()

    def get(self, key, make):
        if key in self.items:
            self.items.move_to_end(key)
            return self.items[key]
        value = self.items[key] = make()
        if len(self.items) > self.kept:
            self.items.popitem(last=False)
        return value


#: What a version of a table is, for everyone: the players' numbers and the fight's verdict.
_FACTS = _Recent(1024)
#: The fragments every phone shows alike, per version and language: each player's facts
#: (name, level, strength, …) and the rules summary. No seat and no token is in them.
_FRAGMENTS = _Recent(2048)


def _facts(state: TableState) -> dict:
    def make():
        if state.board is not None:  # Munchkin Quest: its own fight
            verdict = quest_table.verdict(state) if state.combat else None
        else:
            verdict = fights.verdict(state) if state.combat else None
        return {"players": [p.as_dict() for p in state.players.values()], "verdict": verdict}

    return _FACTS.get((state.id, state.version), make)


def _fragments(state: TableState, context: dict) -> dict:
    """The shared fragments, rendered once per table version and language, not once per phone."""
    def make():
        return {"facts": {p["seat"]: Markup(render_template("_player_facts.html", p=p, **context))
                          for p in context["players"]},
                "rules_summary": Markup(render_template("_profile.html", **context))}

    return _FRAGMENTS.get((state.id, state.version, i18n.language()), make)


def board_context(state: TableState, seat: str | None, notice: dict | None = None) -> dict:
    """What the board shows ``seat`` (``None`` for a spectator)."""
    facts = _facts(state)
    # a claimed win whose totals or rewards changed since is to be claimed again (``claim_standing``)
    claim = fights.claim_standing(state) if state.board is None else None
    common = {  # the same on every phone: the shared fragments see only this
        # Munchkin Quest: the map's questions; the card game: the rule behind each line of the sheet
        **(quest_context(state) if state.board is not None else {"sheet_rules": SHEET_RULES}),
        **facts,
        "objection_seconds": fights.objection_seconds(state),
        "claim": claim,
        "claim_remaining": max(0.0, fights.objection_seconds(state) - (time.time() - claim["at"])) if claim else 0.0,
        "state": state,
        "profile": state.profile,
        "winner": state.players.get(state.winner) if state.winner else None,
        "winner_names": [state.players[s].name for s in state.winners if s in state.players],
        "profile_label": i18n.profile_label({"profile": state.profile_id, "options": state.settings.get("options")}),
        "profiles": PROFILES.values(),
        "last_change": last_change(state),
        "rules": RULES,
    }
    me = next((p for p in facts["players"] if p["seat"] == seat), None) if seat else None
    return {**common, **_fragments(state, common), "me": me, "is_host": seat is not None and seat == state.host,
            "notice": notice, "loot": sheet.loot(facts["players"], seat) if me else [],
            "fight_names": i18n.fight_names(state) if state.combat and i18n.language() != "en" else {}}


#: The newest change of recently seen table versions, with the table's names: each change
#: is read once per process, not once for every phone that is sent the board.
_LAST_CHANGES = _Recent(512)


def last_change(state: TableState) -> dict | None:
    """The table's newest change as one line in the phone's language, for the table feed
    ("what just happened", on every phone): what it says, who made it and when."""
    if not state.version:
        return None

    def read():
        db = get_store()
        try:
            return store.event(db, state.id, state.version), store.names(db, state.id)
        except store.NotFound:
            return None, {}

    recorded, names = _LAST_CHANGES.get((state.id, state.version), read)
    if recorded is None:
        return None
    return {"seq": recorded.seq, "text": i18n.history_line(recorded.event, names), "at": recorded.created_at,
            "who": names.get(recorded.actor, "") if recorded.actor else ""}


def quest_context(state: TableState) -> dict:
    """What the Quest templates ask about the map: room names (the Entrance in the phone's language),
    neighbours, monsters in a room, adjacency, what a passage costs, the dice a fight still needs and who gives each; and
    the rule entry behind each line of the sheet (``quest.SHEET_RULES``)."""
    board = state.board

    def room_name(room: str) -> str:
        return gettext("Entrance") if room == quest.ENTRANCE else quest.room_name(board, room)

    missing = quest_table.missing_dice(state.combat) if state.combat else []
    return {"room_name": room_name, "sheet_rules": quest.SHEET_RULES, "neighbours": lambda room: quest.neighbours(board, room),
            "monsters_in": lambda room: quest.monsters_in(board, room),
            "adjacent": lambda a, b: quest.adjacent(board, a, b),
            "passage_cost": lambda a, b: quest.passage_cost(board, a, b),
            "rolls_for": lambda seat, who: quest_table.rolls_for(state, seat, state.combat, who),
            "roller": lambda who: quest_table.roller(state, state.combat, who),
            "missing_dice": [state.players[m].name if m in state.players else m
                             for m in (state.combat[m] if m in ("fighter", "helper") else m for m in missing)]}


def invite_context(table_id: str) -> dict:
    """The join and spectator URLs (for the invitation's QR code; seated players only)."""
    tokens = store.tokens(get_store(), table_id)
    return {
        "join_url": base_url() + url_for("pages.join", token=tokens["join"]),
        "spectator_url": base_url() + url_for("pages.spectate", token=tokens["spectator"]),
    }


def board(state: TableState, seat: str | None, notice: dict | None = None) -> str:
    return render_template("_board.html", **board_context(state, seat, notice))


def _tap_id(name: str, params: dict | None) -> str:
    """An id naming what the button does (action and parameters; a second identical button gets
    ``-2``): the board's morph keeps an element whose id it finds again, so a tap held while the
    last one's answer is on its way (static/app.js) is sent from a button that is still there,
    and one whose button the answer took away is known to be gone."""
    key = "-".join([name, *(f"{k}-{v}" for k, v in (params or {}).items())])
    key = "tap-" + "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "_" for c in key)
    seen = g.setdefault("tap_ids", {})
    seen[key] = seen.get(key, 0) + 1
    return key if seen[key] == 1 else f"{key}-{seen[key]}"


def action_button(state: TableState, name: str, label: str, params: dict | None = None, cls: str = "",
                  aria: str | None = None) -> Markup:
    """One button that posts one named action: with htmx it morphs the board, without it posts a form.

    Written in Python rather than as a Jinja macro because a board holds dozens of them and
    is rendered for every phone at every change (see docs/benchmarks.md).
    """
    urls = g.setdefault("action_urls", {})  # a board builds the same few URLs dozens of times
    if (state.id, name) not in urls:
        urls[state.id, name] = escape(url_for("pages.act", table_id=state.id, action=name))
    url = urls[state.id, name]
    csrf = g.get("action_csrf") or g.setdefault("action_csrf", escape(generate_csrf()))  # once per board
    hidden = "".join(f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">' for k, v in (params or {}).items())
    if aria and label.lower() not in aria.lower():
        aria = f"{label}: {aria}"  # what the button says comes first in its name (WCAG 2.5.3, Label in Name)
    aria_attr = f' aria-label="{escape(aria)}"' if aria else ""
    return Markup(
        f'<form id="{_tap_id(name, params)}" method="post" action="{url}" hx-post="{url}" hx-target="#board" '
        f'hx-ext="morph" hx-swap="morph:innerHTML">'
        f'<input type="hidden" name="csrf_token" value="{csrf}">{hidden}'
        f'<button type="submit" class="{escape(cls)}"{aria_attr} data-action="{escape(name)}">{escape(label)}</button></form>'
    )
