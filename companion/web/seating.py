"""Who is asking: the seat a phone holds (signed cookie) or an API client's bearer token.

The cookie is Flask's signed, HttpOnly session; it maps table ids to seat tokens so one
phone can sit at several tables. A token only ever opens its own table: every lookup
checks that the seat belongs to the table in the URL.
"""
from __future__ import annotations

from flask import request, session

from .. import store
from ..db import get_store
from ..referee.rules import Refused


def remember(table_id: str, token: str) -> None:
    """Keep this phone's seat at ``table_id`` in its cookie (survives reloads and sleep)."""
    seats = dict(session.get("seats", {}))
    seats[table_id] = token
    session["seats"] = seats
    session.permanent = True


def cookie_seat(table_id: str) -> str | None:
    """The seat this browser holds at ``table_id``, or ``None``."""
    token = session.get("seats", {}).get(table_id)
    if not token:
        return None
    seat = store.seat_for_token(get_store(), token)
    return seat.seat if seat and seat.table_id == table_id else None


def cookie_removed(table_id: str) -> bool:
    """Whether this browser held a seat at ``table_id`` that the host has taken away."""
    token = session.get("seats", {}).get(table_id)
    return bool(token) and store.was_removed(get_store(), table_id, token)


def bearer_seat(table_id: str | None = None) -> store.Seat:
    """The seat named by ``Authorization: Bearer …``; 401 without one, 403 for another table."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Refused("This needs a seat token: send 'Authorization: Bearer <token>' from create or join.", status=401)
    seat = store.seat_for_token(get_store(), token.strip())
    if seat is None or (table_id is not None and seat.table_id != table_id):
        raise Refused("This token does not hold a seat at this table.", status=403)
    return seat


def my_tables() -> list[str]:
    return list(session.get("seats", {}))
