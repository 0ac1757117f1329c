"""The one action layer shared by the htmx pages and the JSON API.

Every change a phone or an API client can make goes through a function here: the input
(form fields or JSON, already decoded) is coerced and checked, the store records it as
one event after the referee's verdict, and the table's live streams are woken. The pages
and the API differ only in how they read the request and render the answer, never in
the checks.
"""
from __future__ import annotations

from collections.abc import Mapping

from flask import current_app

from . import store
from .db import get_db
from .referee.rules import Refused
from .referee.table import ACTIONS, TableState

REASON_MAX = 140

#: Parameters each action accepts and their types (values arrive as strings from forms).
PARAMS: dict[str, dict[str, type]] = {
    "level.up": {"seat": str},
    "level.down": {"seat": str},
    "level.kill": {"seat": str, "levels": int},
    "sex.set": {"seat": str, "sex": str},
    "player.remove": {"seat": str},
    "host.transfer": {"seat": str},
}
assert PARAMS.keys() == ACTIONS.keys()


def _feed():
    return current_app.extensions["companion.live"]


def _int(value, what: str) -> int | None:
    if value in (None, ""):
        return None
    if isinstance(value, bool):
        raise Refused(f"{what} must be a whole number.", status=400)
    try:
        return int(value)
    except (TypeError, ValueError):
        raise Refused(f"{what} must be a whole number.", status=400) from None


def _reason(value) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise Refused("The reason must be text.", status=400)
    value = " ".join(value.split())
    if len(value) > REASON_MAX:
        raise Refused(f"The reason can be at most {REASON_MAX} characters.", status=400)
    return value or None


def parse_params(action: str, raw: Mapping) -> dict:
    """The action's parameters from ``raw``, typed; unknown parameters are refused."""
    if action not in PARAMS:
        raise Refused(f"Unknown action {action!r}; known: {', '.join(PARAMS)}.", status=400)
    spec = PARAMS[action]
    extra = set(raw) - set(spec) - {"action", "reason", "expected_version", "csrf_token"}
    if extra:
        raise Refused(f"Unknown parameter(s) for {action}: {', '.join(sorted(extra))}.", status=400)
    params = {}
    for key, kind in spec.items():
        value = raw.get(key)
        if value in (None, ""):
            continue
        if kind is int:
            params[key] = _int(value, key)
        elif not isinstance(value, str):
            raise Refused(f"{key} must be text.", status=400)
        else:
            params[key] = value
    return params


def create_table(name, profile_id, host_name, host_sex):
    """Open a table with its creator as host: ``(state, seat, token)``."""
    state, seat, token = store.create_table(get_db(), name, profile_id, host_name, host_sex)
    return state, seat, token


def join(join_token: str, name, sex):
    """Seat a new player; wakes the table's phones so the newcomer appears everywhere."""
    state, seat, token = store.join_table(get_db(), join_token, name, sex)
    _feed().notify(state.id)
    return state, seat, token


def perform(table_id: str, actor: str, action: str, raw: Mapping) -> tuple[TableState, int]:
    """Run the named action for the player in seat ``actor``; returns ``(state, seq)``."""
    params = parse_params(action, raw)
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
    state, new_seq = store.undo(get_db(), table_id, actor, target, reason=_reason(raw.get("reason")),
                                expected_version=_int(raw.get("expected_version"), "expected_version"))
    _feed().notify(table_id)
    return state, new_seq
