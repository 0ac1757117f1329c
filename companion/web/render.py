"""Rendering a table for one viewer: the board partial and the context it needs."""
from __future__ import annotations

from flask import current_app, render_template, request, url_for

from .. import store
from ..db import get_db
from ..referee.rules import RULES
from ..referee.table import TableState


def base_url() -> str:
    return (current_app.config.get("PUBLIC_URL") or request.host_url).rstrip("/")


def board_context(state: TableState, seat: str | None, notice: dict | None = None) -> dict:
    """What the board shows ``seat`` (``None`` for a spectator)."""
    players = [p.as_dict() for p in state.players.values()]
    me = state.players.get(seat) if seat else None
    return {
        "state": state,
        "profile": state.profile,
        "players": players,
        "me": me.as_dict() if me else None,
        "is_host": seat is not None and seat == state.host,
        "winner": state.players.get(state.winner) if state.winner else None,
        "notice": notice,
        "rules": RULES,
    }


def invite_context(table_id: str) -> dict:
    """The join and spectator URLs (for the invitation's QR code; seated players only)."""
    tokens = store.tokens(get_db(), table_id)
    return {
        "join_url": base_url() + url_for("pages.join", token=tokens["join"]),
        "spectator_url": base_url() + url_for("pages.spectate", token=tokens["spectator"]),
    }


def board(state: TableState, seat: str | None, notice: dict | None = None) -> str:
    return render_template("_board.html", **board_context(state, seat, notice))
