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

from card_db.schema import KINDS

from . import store
from .db import get_db
from .fights import card_of
from .referee import sheet
from .referee.profiles import OPTIONS
from .referee.rules import Refused
from .referee.table import ACTIONS, TableState

REASON_MAX = 140

_ITEM_FIELDS = {"name": str, "bonus": int, "slot": str, "big": bool, "gold": int, "run_away_bonus": int}

#: Parameters each action accepts and their types (values arrive as strings from forms;
#: ``list`` takes repeated form fields or a JSON list, ``dict`` only comes from JSON).
PARAMS: dict[str, dict[str, type]] = {
    "level.up": {"seat": str, "card": str},
    "level.down": {"seat": str},
    "level.kill": {"seat": str, "levels": int},
    "sex.set": {"seat": str, "sex": str},
    "player.remove": {"seat": str},
    "host.transfer": {"seat": str},
    "race.add": {"seat": str, "race": str},
    "race.remove": {"seat": str, "race": str},
    "class.add": {"seat": str, "class": str},
    "class.remove": {"seat": str, "class": str},
    "half_breed.add": {"seat": str},
    "half_breed.remove": {"seat": str},
    "super_munchkin.add": {"seat": str},
    "super_munchkin.remove": {"seat": str},
    "item.add": {"seat": str, "card": str, "item": dict, "only_for": str, **_ITEM_FIELDS},
    "item.use": {"seat": str, "uid": str},
    "item.carry": {"seat": str, "uid": str},
    "item.remove": {"seat": str, "uid": str},
    "item.sell": {"seat": str, "uids": list, "double": str},
    "item.give": {"seat": str, "uid": str, "to": str},
    "curse.add": {"seat": str, "card": str, "curse": dict, "name": str, "combat_bonus": int},
    "curse.remove": {"seat": str, "uid": str},
    "character.die": {"seat": str},
    "combat.start": {},
    "combat.end": {},
    "combat.monster.add": {"card": str, "monster": dict, "name": str, "level": int, "treasures": int, "levels": int,
                           "undead": bool, "against": str, "against_bonus": int},
    "combat.enhancer.add": {"monster": str, "card": str, "enhancer": dict},
    "combat.oneshot.add": {"side": str, "card": str, "one_shot": dict, "name": str, "bonus": int},
    "combat.help.ask": {"seat": str, "promise": str},
    "combat.help.accept": {},
    "combat.help.decline": {},
    "combat.power": {"power": str, "cards": int},
    "combat.backstab": {"target": str},
    "combat.eliminate": {"monster": str, "charm": bool},
    "combat.claim": {},
    "combat.resolve": {},
    "combat.flee": {"fighter_rolls": list, "helper_rolls": list, "fighter_reroll": str, "helper_reroll": str,
                    "order": list},
    "turn.end": {},
    "settings.objection": {"seconds": str},
    "settings.profile": {"profile": str, "options": dict, **{key: bool for key in OPTIONS if key != "top_level"},
                         "top_level": int},
}
assert PARAMS.keys() == ACTIONS.keys()
_TRUE, _FALSE = {"1", "true", "on", "yes"}, {"0", "false", "off", "no"}


def _feed():
    return current_app.extensions["companion.live"]


def _int(value, what: str) -> int | None:
    if value in (None, ""):
        return None
    if isinstance(value, bool):
        raise Refused("{what} must be a whole number.", status=400, what=what)
    try:
        return int(value)
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
    """The action's parameters from ``raw``, typed; unknown parameters are refused."""
    if action not in PARAMS:
        raise Refused("Unknown action {action!r}; known: {names}.", status=400, action=action, names=', '.join(PARAMS))
    spec = PARAMS[action]
    extra = set(raw) - set(spec) - {"action", "reason", "expected_version", "csrf_token", "override"}
    if extra:
        raise Refused("Unknown parameter(s) for {action}: {names}.", status=400, action=action, names=', '.join(sorted(extra)))
    params = {}
    override = raw.get("override")
    if override not in (None, ""):
        if not isinstance(override, str):
            raise Refused("override must be the id of a rule.", status=400)
        params["override"] = override
    for key, kind in spec.items():
        if kind is list:
            value = raw.getlist(key) if hasattr(raw, "getlist") else raw.get(key)
            if value in (None, []):
                continue
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value) or len(value) > 50:
                raise Refused("{key} must be a list of at most 50 texts.", status=400, key=key)
            params[key] = value
            continue
        value = raw.get(key)
        if value in (None, ""):
            continue
        if kind is int:
            params[key] = _int(value, key)
        elif kind is bool:
            if isinstance(value, bool):
                params[key] = value
            elif isinstance(value, str) and value.lower() in _TRUE | _FALSE:
                params[key] = value.lower() in _TRUE
            else:
                raise Refused("{key} must be true or false.", status=400, key=key)
        elif kind is dict:
            if not isinstance(value, dict):
                raise Refused("{key} must be an object.", status=400, key=key)
            params[key] = value
        elif not isinstance(value, str):
            raise Refused("{key} must be text.", status=400, key=key)
        else:
            params[key] = value
    return params


def _dice(raw: list[str] | None, label: str) -> list[int]:
    """The real die's numbers as typed, or the app's own die (one roll per possible monster)."""
    if not raw:
        return [secrets.randbelow(6) + 1 for _ in range(10)]
    rolls = []
    for value in raw:
        for part in str(value).replace(",", " ").split():
            if part not in ("1", "2", "3", "4", "5", "6"):
                raise Refused("{label}: a die shows 1 to 6, not {part!r}.", status=400, label=label, part=part)
            rolls.append(int(part))
    return rolls


def _fight_params(action: str, params: dict) -> dict:
    """Card ids and form fields into the monsters, enhancers and one-shots the referee takes."""
    if action == "combat.monster.add":
        if params.get("card"):
            card = card_of(get_db(), params["card"], ("monster",))
            return {"monster": {"name": card["names"]["en"], "card_id": card["id"], **card["monster"]}}
        return {"monster": params.get("monster") or {k: params[k] for k in (
            "name", "level", "treasures", "levels", "undead", "against", "against_bonus") if k in params}}
    if action == "combat.enhancer.add":
        enhancer = params.get("enhancer") or {}
        if params.get("card"):
            card = card_of(get_db(), params["card"], ("monster_enhancer",))
            enhancer = {"name": card["names"]["en"], "card_id": card["id"], **card["enhancer"]}
        return {"monster": params.get("monster"), "enhancer": enhancer}
    if action == "combat.oneshot.add":
        shot = params.get("one_shot") or {k: params[k] for k in ("name", "bonus") if k in params}
        if params.get("card"):
            card = card_of(get_db(), params["card"], ("one_shot",))
            shot = {"name": card["names"]["en"], "card_id": card["id"], "bonus": card["one_shot"].get("bonus", 0)}
        return {"side": params.get("side"), "one_shot": shot}
    if action in ("combat.claim", "combat.resolve"):
        return {**params, "_now": time.time()}
    if action == "combat.flee":
        out = {"fighter_rolls": _dice(params.get("fighter_rolls"), "fighter"),
               "helper_rolls": _dice(params.get("helper_rolls"), "helper")}
        if params.get("order"):
            out["order"] = params["order"]
        for role in ("fighter", "helper"):  # the Halfling's second roll: typed, or the app's die
            reroll = params.get(f"{role}_reroll")
            if reroll:
                out[f"{role}_reroll"] = _dice([reroll] if reroll != "app" else None, role)[0]
        return out
    return params


def _from_cards(action: str, params: dict) -> dict:
    """Resolve ``card`` ids and form fields into what the referee takes (items, curses, the fight,
    settings)."""
    if action.startswith("combat."):
        return _fight_params(action, params)
    if action == "settings.objection":
        try:
            return {"seconds": float(params.get("seconds", ""))}
        except ValueError:
            raise Refused("seconds must be a number.", status=400) from None
    if action == "settings.profile":
        flat = {k: v for k, v in params.items() if k in OPTIONS}
        out = {k: v for k, v in params.items() if k in ("profile", "override")}
        out["options"] = params.get("options", flat)
        return out
    if action not in ("item.add", "curse.add"):
        return params
    rest = {k: v for k, v in params.items() if k in ("seat",)}
    card_id = params.get("card")
    if card_id and action == "item.add":
        card = card_of(get_db(), card_id, ("item",))
        return {**rest, "item": {"name": card["names"]["en"], "card_id": card_id, **card["item"]}}
    if card_id:  # the referee refuses a curse that does not stay (rule curses.lasting)
        card = card_of(get_db(), card_id, KINDS)
        curse = card.get("curse") or {"timing": "immediate"}
        return {**rest, "curse": {"name": card["names"]["en"], "card_id": card_id, "timing": curse["timing"],
                                  "effects": list(curse.get("effects", []))}}
    if action == "item.add":
        item = params.get("item") or {k: params[k] for k in _ITEM_FIELDS if k in params}
        if params.get("only_for"):
            item = {**item, "usable_by": [sheet.parse_who(params["only_for"], "only_for")]}
        return {**rest, "item": item}
    curse = params.get("curse")
    if curse is None:
        curse = {"name": params.get("name", "")}
        if params.get("combat_bonus"):
            curse["effects"] = [{"type": "combat_bonus", "value": params["combat_bonus"], "until": "removed"}]
    return {**rest, "curse": curse}


def options_from(raw: Mapping) -> dict | None:
    """A profile's options from a JSON ``options`` object or from form fields (one per option)."""
    if "options" in raw:
        return raw.get("options")
    flat = parse_params("settings.profile", {k: v for k, v in raw.items() if k in OPTIONS})
    return flat or None


def create_table(name, profile_id, host_name, host_sex, options=None):
    """Open a table with its creator as host, under a rule profile and its options: ``(state, seat, token)``."""
    state, seat, token = store.create_table(get_db(), name, profile_id, host_name, host_sex, options)
    return state, seat, token


def join(join_token: str, name, sex):
    """Seat a new player; wakes the table's phones so the newcomer appears everywhere."""
    state, seat, token = store.join_table(get_db(), join_token, name, sex)
    _feed().notify(state.id)
    return state, seat, token


def perform(table_id: str, actor: str, action: str, raw: Mapping) -> tuple[TableState, int]:
    """Run the named action for the player in seat ``actor``; returns ``(state, seq)``."""
    params = _from_cards(action, parse_params(action, raw))
    state, seq = store.act(get_db(), table_id, actor, action, params,
                           reason=_reason(raw.get("reason")),
                           expected_version=_int(raw.get("expected_version"), "expected_version"))
    _feed().notify(table_id)
    return state, seq


def undo(table_id: str, actor: str, seq, raw: Mapping) -> tuple[TableState, int]:
    """Undo change ``seq`` of the table's history, if ``actor`` may and the rules allow."""
    target = _int(seq, "seq")
    if target is None:
        raise Refused("Which change should be undone?", status=400)
    if not 1 <= target <= 2**53:
        raise Refused("There is no such change in this table's history.", status=404)
    state, new_seq = store.undo(get_db(), table_id, actor, target, reason=_reason(raw.get("reason")),
                                expected_version=_int(raw.get("expected_version"), "expected_version"))
    _feed().notify(table_id)
    return state, new_seq
