"""How `companion serve` serves: one event-driven process holds thousands of phones.

Every phone keeps a live stream (server-sent events) open all evening. With a thread per
connection (gunicorn's gthread worker) 64 phones used up every thread and the server
stopped answering. Here gunicorn runs its **gevent** worker: each connection is a greenlet
(a few kilobytes), so an open stream that waits for the next change costs no thread, and
one process keeps answering taps and new joins with thousands of streams open. gevent is
gunicorn's own, long-maintained answer for long-lived connections; Flask, htmx and the
synchronous code stay as they are (see docs/architecture.md, "Serving").

- :func:`prepare` patches the standard library for gevent *before* the app is built, so the
  locks and conditions the app creates yield instead of blocking the process.
- Half-sent requests (slowloris) are cut: gunicorn's async worker reads each request within
  its keep-alive time (``KEEPALIVE``), every socket read or write waits at most
  ``SOCKET_TIMEOUT`` seconds, and a request's body must arrive within ``BODY_SECONDS`` and
  a second for every ``BODY_RATE`` bytes (:class:`BodyDeadline`): a body sent a byte every
  few seconds held its connection for ever, and ten thousand of them froze the server.
- Streams are capped per process (:func:`stream_cap`) below the connection limit, so a
  flood of streams gets ``503`` with ``Retry-After`` while pages and taps still have room.
"""
from __future__ import annotations

import resource
import time

#: Worker processes: two, so that rendering the boards of a busy evening uses both cores of
#: a small machine (measured in docs/benchmarks.md: a tap's answer p95 58 ms with one, 11 ms
#: with two at 100 tables x 6 phones); live updates cross between them through the event log.
WORKERS = 2
#: Open connections per worker process.
CONNECTIONS = 5000
#: Connections kept free for pages, taps and joins when the streams are at their cap.
RESERVED = 500
#: Seconds to read a request's head (and idle between requests on a kept-alive connection).
KEEPALIVE = 5
#: Seconds a single socket read or write may wait (a phone that stopped reading is let go).
SOCKET_TIMEOUT = 30
#: A request's body must have arrived this many seconds after its head ...
BODY_SECONDS = 10
#: ... and one more second for every this many bytes it is long (16 KiB/s: a tap's form at
#: once, the browser's 0.3 MB photo within 30 s, the largest photo taken, 12 MB, within 13 min).
BODY_RATE = 16 * 1024


class BodyDeadline:
    """WSGI middleware: a request body that does not arrive in time (``BODY_SECONDS`` and a
    second per ``BODY_RATE`` bytes) is answered ``408`` and its connection closed. Every read
    of the body runs under a gevent timeout for what is left of that time — the socket's own
    timeout bounds one receive only, and gunicorn's ``read(n)`` receives until it has ``n``
    bytes, a byte a second included; the body is then marked failed, so gunicorn does not
    reuse the connection. Only under gunicorn (``gunicorn.socket``)."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        length = environ.get("CONTENT_LENGTH") or ""
        if "gunicorn.socket" in environ and length.isdigit() and int(length):
            environ["wsgi.input"] = _Timed(environ["wsgi.input"], BODY_SECONDS + int(length) / BODY_RATE)
        return self.app(environ, start_response)


class _Timed:
    """A request body whose reads end by a deadline (see :class:`BodyDeadline`)."""

    def __init__(self, body, seconds: float):
        self._body = body
        self._deadline = time.monotonic() + seconds

    def _timed(self, read, *args):
        from gevent import Timeout
        from werkzeug.exceptions import RequestTimeout  # (not at import: `companion` commands load this module)

        try:
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise RequestTimeout()
            with Timeout(left, RequestTimeout()):
                return read(*args)
        except RequestTimeout:
            self._body.failed = True  # the rest is never read: gunicorn closes the connection
            raise

    def read(self, *args):
        return self._timed(self._body.read, *args)

    def readline(self, *args):
        return self._timed(self._body.readline, *args)

    def readlines(self, *args):
        return self._timed(self._body.readlines, *args)

    def __iter__(self):
        return iter(self.readline, b"")


def prepare() -> None:
    """Make the standard library cooperative (gevent) and allow one file per connection."""
    from gevent import monkey

    monkey.patch_all()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = CONNECTIONS * 2 + 256
    if hard == resource.RLIM_INFINITY or hard >= wanted:
        target = wanted
    else:
        target = hard
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def stream_cap(connections: int) -> int:
    """How many live streams one process accepts: the connections minus those kept for taps."""
    return max(10, connections - max(RESERVED, connections // 10))


def _finish_timers() -> None:
    """Let the timers that building the app started run out before the workers are forked.

    The rate limiter's memory store starts a 10 ms expiry timer when it is made; under gevent
    that thread is a greenlet, and one still pending when gunicorn forks is run again in each
    worker, where the thread table was reset, and prints a ``KeyError`` traceback at every
    start."""
    import threading

    for thread in threading.enumerate():
        if isinstance(thread, threading.Timer):
            thread.join(timeout=1)


def run(app, bind: str, workers: int, connections: int) -> None:
    """Serve ``app`` with gunicorn's gevent worker until stopped."""
    _finish_timers()
    from gunicorn.app.base import BaseApplication
    from gunicorn.workers.base_async import AsyncWorker
    from gunicorn.workers.ggevent import GeventWorker

    class Worker(GeventWorker):
        """gunicorn's gevent worker, with a timeout on every socket operation of a connection
        (gunicorn's own sets each connection blocking without one)."""

        def handle(self, listener, client, addr):
            client.settimeout(SOCKET_TIMEOUT)
            AsyncWorker.handle(self, listener, client, addr)

    class Server(BaseApplication):
        def load_config(self):
            self.cfg.set("bind", bind)
            self.cfg.set("workers", workers)
            self.cfg.set("worker_class", Worker)
            self.cfg.set("worker_connections", connections)
            self.cfg.set("timeout", 60)
            self.cfg.set("graceful_timeout", 5)
            self.cfg.set("keepalive", KEEPALIVE)
            self.cfg.set("accesslog", None)
            self.cfg.set("control_socket_disable", True)  # several servers may run on one machine

        def load(self):
            return app

    app.wsgi_app = BodyDeadline(app.wsgi_app)
    Server().run()
