"""The one action layer shared by the htmx pages and the JSON API.

Every change a phone or an API client can make goes through a function here: the input
(form fields or JSON, already decoded) is coerced and checked, the store records it as
one event after the referee's verdict, and the table's live streams are woken. The pages
and the API differ only in how they read the request and render the answer, never in
the checks.
"""
from __future__ import annotations

import secrets
import time
from collections.abc import Mapping

from flask import current_app

from card_db.schema import DOOR_KINDS, KINDS

from . import store
from .db import get_db, get_store
from .fights import card_of
from .referee import catalogue, played, sheet
from .referee.fight import typed_dice
from .referee.profiles import OPTIONS
from .referee.rules import Refused
from .referee.table import TableState

REASON_MAX = 140

_ITEM_FIELDS = ("name", "bonus", "slot", "big", "gold", "run_away_bonus")
_MONSTER_FIELDS = ("name", "level", "treasures", "levels", "undead", "against", "against_bonus")


def _feed():
    return current_app.extensions["companion.live"]


def _int(value, what: str) -> int | None:
    if value in (None, ""):
        return None
    if isinstance(value, bool) or isinstance(value, float) and not value.is_integer():  # (2.9 was version 2)
        raise Refused("{what} must be a whole number.", status=400, what=what)
    try:
        return int(value)  # (a form sends "12")
    except (TypeError, ValueError):
        raise Refused("{what} must be a whole number.", status=400, what=what) from None


def _reason(value) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise Refused("The reason must be text.", status=400)
    value = " ".join(value.split())
    if len(value) > REASON_MAX:
        raise Refused("The reason can be at most {REASON_MAX} characters.", status=400, REASON_MAX=REASON_MAX)
    return value or None


def parse_params(action: str, raw: Mapping) -> dict:
    """The action's parameters from ``raw``, typed and checked as the catalogue declares them."""
    return catalogue.parse(action, raw)


def _dice(raw: list[str] | None) -> list[int]:
    """The real die's numbers as typed (:func:`fights.typed_dice`), or the app's own die (one roll
    per possible monster)."""
    return typed_dice(raw) if raw else [secrets.randbelow(6) + 1 for _ in range(10)]


def _monster(params: dict) -> dict | None:
    """The monster of a fight action: a card, a typed-in object, or form fields; ``None`` if none."""
    if params.get("card"):
        card = card_of(get_db(), params["card"], ("monster",))
        return {"name": card["names"]["en"], "card_id": card["id"], **card["monster"]}
    return params.get("monster") or ({k: params[k] for k in _MONSTER_FIELDS if k in params} or None)


def _fight_params(action: str, params: dict) -> dict:
    """Card ids and form fields into the monsters, enhancers and one-shots the referee takes."""
    if action in ("combat.monster.add", "combat.start", "turn.trouble", "turn.door"):
        rest = {k: v for k, v in params.items() if k in ("found", "override")}
        if action == "turn.door" and params.get("found") == "curse":
            return {**rest, "curse": _curse(params)}
        if action == "turn.door" and params.get("found") == "other":  # a door card for the hand (neither a monster nor a curse)
            if params.get("card"):
                card_of(get_db(), params["card"], tuple(k for k in DOOR_KINDS if k not in ("monster", "curse")))
            return rest
        monster = _monster(params)
        if action == "combat.monster.add":
            return {**rest, "monster": monster or {}}
        return {**rest, **({"monster": monster} if monster else {})}
    if action == "combat.enhancer.add":
        enhancer = params.get("enhancer") or {}
        if params.get("card"):
            card = card_of(get_db(), params["card"], ("monster_enhancer",))
            enhancer = {"name": card["names"]["en"], "card_id": card["id"], **card["enhancer"]}
        return {"monster": params.get("monster"), "enhancer": enhancer}
    if action == "combat.oneshot.add":
        shot = params.get("one_shot") or {k: params[k] for k in ("name", "bonus") if k in params}
        if params.get("card"):
            shot = played.one_shot(card_of(get_db(), params["card"], ("one_shot",)))
        return {"side": params.get("side"), "one_shot": shot}
    if action in ("combat.claim", "combat.resolve"):
        return {**params, "_now": time.time()}
    if action == "combat.flee":
        out = {"fighter_rolls": _dice(params.get("fighter_rolls")), "helper_rolls": _dice(params.get("helper_rolls")),
               "_app_dice": [role for role in ("fighter", "helper") if not params.get(f"{role}_rolls")]}
        if params.get("order"):
            out["order"] = params["order"]
        for role in ("fighter", "helper"):  # items given up to a monster whose card lets one go for them
            if params.get(f"{role}_gives"):
                out[f"{role}_gives"] = params[f"{role}_gives"]
        for role in ("fighter", "helper"):  # the Halfling's second roll: typed, or the app's die
            reroll = params.get(f"{role}_reroll")
            if reroll:
                out[f"{role}_reroll"] = _dice([reroll] if reroll != "app" else None)[0]
        return out
    return params


def _from_cards(action: str, params: dict) -> dict:
    """Resolve ``card`` ids and form fields into what the referee takes (items, curses, the fight,
    settings)."""
    if action.startswith("combat.") or action in ("turn.trouble", "turn.door"):
        return _fight_params(action, params)
    if action == "card.play":
        card = card_of(get_db(), params["card"], KINDS) if params.get("card") else None
        if card is None:
            raise Refused("Which card? card is required.", status=400)
        return {**params, "_card": card}
    if action == "level.up" and params.get("card") not in (None, "", "divine_intervention"):
        return {**params, "_card": card_of(get_db(), params["card"], ("go_up_a_level",))}  # its own limits checked
    if action == "settings.objection" and "seconds" not in params:
        raise Refused("seconds must be a number.", status=400)
    if action not in ("item.add", "curse.add"):
        return params
    rest = {k: v for k, v in params.items() if k == "seat"}
    if action == "item.add":
        if params.get("card"):
            card = card_of(get_db(), params["card"], ("item",))
            return {**rest, "item": {"name": card["names"]["en"], "card_id": card["id"], **card["item"]}}
        item = params.get("item") or {k: params[k] for k in _ITEM_FIELDS if k in params}
        if params.get("only_for"):
            item = {**item, "usable_by": [sheet.parse_who(params["only_for"], "only_for")]}
        return {**rest, "item": item}
    return {**rest, "curse": _curse(params)}


def _curse(params: dict) -> dict:
    """A curse from its card (every effect the card data names), typed in, or from form fields."""
    if params.get("card"):
        return played.curse(card_of(get_db(), params["card"], ("curse",)))
    curse = params.get("curse")
    if curse is None:
        curse = {"name": params.get("name", "")}
        if params.get("combat_bonus"):
            curse["effects"] = [{"type": "combat_bonus", "value": params["combat_bonus"], "until": "removed"}]
    return curse


def options_from(raw: Mapping) -> dict | None:
    """A profile's options from a JSON ``options`` object or from form fields (one per option)."""
    if "options" in raw:
        return raw.get("options")
    flat = parse_params("settings.profile", {k: v for k, v in raw.items() if k in OPTIONS})
    return flat or None


def create_table(name, profile_id, host_name, host_sex, options=None):
    """Open a table with its creator as host, under a rule profile and its options: ``(state, seat, token)``."""
    _sweep_idle_tables()
    state, seat, token = store.create_table(get_store(), name, profile_id, host_name, host_sex, options)
    return state, seat, token


def _sweep_idle_tables() -> None:
    """Delete the tables idle past ``TABLE_IDLE_DAYS``, at most once every
    ``TABLE_IDLE_SWEEP_SECONDS`` in this process, when a table is opened: a server left
    running for months would otherwise keep every game until its next start."""
    config, extensions = current_app.config, current_app.extensions
    last = extensions.get("companion.swept_at")
    if not config["TABLE_IDLE_DAYS"] or last is not None and time.monotonic() - last < config["TABLE_IDLE_SWEEP_SECONDS"]:
        return
    extensions["companion.swept_at"] = time.monotonic()
    store.expire_idle(get_store(), float(config["TABLE_IDLE_DAYS"]))


def join(join_token: str, name, sex):
    """Seat a new player; wakes the table's phones so the newcomer appears everywhere."""
    state, seat, token = store.join_table(get_store(), join_token, name, sex)
    _feed().notify(state.id)
    return state, seat, token


def idempotency_key(raw: str | None) -> str | None:
    """The request's ``Idempotency-Key`` header, checked: 1 to 128 visible ASCII characters."""
    if raw is None:
        return None
    if not 1 <= len(raw) <= 128 or not all(33 <= ord(c) <= 126 for c in raw):
        raise Refused("The Idempotency-Key header must be 1 to 128 visible ASCII characters.", status=400)
    return raw


def perform(table_id: str, actor: str, action: str, raw: Mapping, key: str | None = None) -> tuple[TableState, int]:
    """Run the named action for the player in seat ``actor``; returns ``(state, seq)``.

    ``key`` (the ``Idempotency-Key`` header) makes a retried request apply once."""
    parsed = parse_params(action, raw)
    params = _from_cards(action, parsed)
    if "override" in parsed:
        params["override"] = parsed["override"]
    params.setdefault("_now", time.time())  # when it came: a win that stood unopposed is not reopened (combat.objection)
    state, seq = store.act(get_store(), table_id, actor, action, params,
                           reason=_reason(raw.get("reason")),
                           expected_version=_int(raw.get("expected_version"), "expected_version"),
                           idempotency_key=idempotency_key(key))
    _feed().notify(table_id)
    return state, seq


def undo(table_id: str, actor: str, seq, raw: Mapping) -> tuple[TableState, int]:
    """Undo change ``seq`` of the table's history, if ``actor`` may and the rules allow."""
    target = _int(seq, "seq")
    if target is None:
        raise Refused("Which change should be undone?", status=400)
    if not 1 <= target <= 2**53:
        raise Refused("There is no such change in this table's history.", status=404)
    state, new_seq = store.undo(get_store(), table_id, actor, target, reason=_reason(raw.get("reason")),
                                expected_version=_int(raw.get("expected_version"), "expected_version"))
    _feed().notify(table_id)
    return state, new_seq
