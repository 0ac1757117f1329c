"""Server-sent events: each phone's board, pushed whenever its table changes.

A stream first sends the current board (so a phone that slept or lost Wi-Fi catches up
the moment its EventSource reconnects), then one message per new table version. Each
message carries the version as its SSE ``id``. A ``ping`` event between them lets dead
connections fail, tells proxies the link is alive and tells the page it is (a comment would
not reach the page's script: a silently dead link is noticed by the quiet, ``quiet_ms``),
and every stream ends after ``STREAM_MAX_SECONDS``
so the browser reconnects and nothing waits forever on a phone that vanished.

A waiting stream holds no database connection (the process's feed reads for all of them),
and streams are capped per table and per process: past a cap the answer is ``503`` with
``Retry-After``, and the phone's EventSource simply tries again later, while pages and taps
keep their room (companion/serving.py).

Phones get the board as HTML (``event: board``, swapped by htmx's SSE extension); API
clients get the table state as JSON (``event: state``).
"""
from __future__ import annotations

import json
import re
import time

from flask import Blueprint, Response, current_app, request, stream_with_context

from .. import store
from ..db import close_db, get_store
from . import seating
from .render import board

bp = Blueprint("streams", __name__)


_LINE_BREAKS = re.compile(r"\s*\n\s*")


@bp.app_context_processor
def helpers():
    """``quiet_ms``: how long a page may hear nothing on its stream before it stops trusting it
    (two and a half pings and 2 s; app.js)."""
    return {"quiet_ms": int((2.5 * current_app.config["STREAM_KEEPALIVE_SECONDS"] + 2) * 1000)}


def _sse(event: str, data: str, version: int) -> str:
    """One SSE message. HTML line breaks (and the indentation after them) become single
    spaces, which HTML renders the same (the boards hold no <pre> or <textarea>): one
    ``data:`` line instead of hundreds, and a quarter fewer bytes to every phone."""
    return f"id: {version}\nevent: {event}\ndata: {_LINE_BREAKS.sub(' ', data).strip()}\n\n"


def _known_version() -> int | None:
    """The version the client already shows: ``Last-Event-ID`` on reconnect, else ``?v=``."""
    raw = request.headers.get("Last-Event-ID") or request.args.get("v")
    try:
        return int(raw) if raw else None
    except ValueError:
        return None


def event_stream(table_id: str, render, still_allowed, spectator: bool = False) -> Response:
    """Stream ``render(state)`` for ``table_id`` at every new version.

    ``render`` returns ``(event_name, data)``; ``still_allowed(state)`` is checked at each
    version so a removed player's stream ends. The first message is skipped when the
    client says it already shows the current version. A table's spectators have a cap of
    their own beside its players' (``MAX_STREAMS_PER_TABLE`` each): a spectator link shared
    widely filled the table's streams and shut its own players out (2026-11-30).
    """
    config = current_app.config
    known = _known_version()
    feed = current_app.extensions["companion.live"]
    counted = f"{table_id} spectators" if spectator else table_id
    if not feed.opened(counted, config["MAX_STREAMS_PER_TABLE"], config["MAX_OPEN_STREAMS"]):
        return busy()

    @stream_with_context
    def generate():
        try:
            yield from _versions(feed, table_id, known, render, still_allowed, config)
        finally:
            feed.closed(counted)

    response = Response(generate(), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"  # tell a reverse proxy not to buffer the stream
    return response


def busy() -> Response:
    """Too many live streams: come back shortly (the phone's EventSource retries by itself)."""
    response = Response("Too many live connections right now; retrying shortly.\n", status=503, mimetype="text/plain")
    response.headers["Retry-After"] = str(current_app.config["STREAM_RETRY_AFTER"])
    return response


def _versions(feed, table_id: str, known: int | None, render, still_allowed, config):
    """The stream's messages: the board at every new version, keep-alives in between."""
    close_db()  # the request's own connection is not kept while the stream waits
    deadline = time.monotonic() + config["STREAM_MAX_SECONDS"]
    yield "retry: 1000\n\n"
    sent = known
    cursor = feed.cursor(table_id)
    while True:
        state = feed.load(table_id)
        if not still_allowed(state):
            yield _sse("gone", "You no longer have a seat at this table.", state.version)
            return
        if state.version != sent:
            try:
                name, data = render(state)
            except Exception:  # never kill every phone's stream over one bad render
                current_app.logger.exception("rendering version %s of table %s failed", state.version, table_id)
                yield ": this version could not be shown\n\n"
            else:
                yield _sse(name, data, state.version)
            finally:
                close_db()  # rendering may have opened one
            sent = state.version
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        wait = min(config["STREAM_KEEPALIVE_SECONDS"], remaining)
        new_cursor = feed.wait(table_id, cursor, wait)
        if new_cursor is None:  # the app is shutting down
            return
        if new_cursor == cursor:
            yield "event: ping\ndata: -\n\n"  # an event, not a comment: the page hears it (app.js)
        cursor = new_cursor


@bp.get("/t/<table_id>/stream")
def table_stream(table_id: str):
    """The board of the phone's own seat (cookie), or of a bearer token's seat."""
    seat = seating.cookie_seat(table_id)
    if seat is None and seating.cookie_removed(table_id):  # removed while this phone slept: tell it
        return Response("retry: 30000\n\n" + _sse("gone", "You no longer have a seat at this table.", 0),
                        mimetype="text/event-stream", headers={"Cache-Control": "no-store"})
    if seat is None:
        seat = seating.bearer_seat(table_id).seat
    return event_stream(table_id, lambda state: ("board", board(state, seat)),
                        lambda state: seat in state.players)


@bp.get("/w/<token>/stream")
def spectator_stream(token: str):
    table_id = store.table_for_spectator(get_store(), token)
    return event_stream(table_id, lambda state: ("board", board(state, None)), lambda state: True, spectator=True)


@bp.get("/api/v1/tables/<table_id>/stream")
def api_stream(table_id: str):
    seat = seating.bearer_seat(table_id).seat
    return event_stream(table_id, lambda state: ("state", json.dumps(state.public())),
                        lambda state: seat in state.players)


