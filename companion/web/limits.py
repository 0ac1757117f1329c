"""Rate limits per client on what creates things: opening tables and joining them.

A stranger on the network could otherwise open tables without end or try join tokens in a
loop. Flask-Limiter (a well-kept extension made for this) counts requests per client
address in each process's memory and answers ``429`` with ``Retry-After``. The pages and
the JSON API share one budget per kind. Loopback is trusted by default (the host's own
laptop, local benchmarks and tests); behind a reverse proxy, ``TRUSTED_PROXIES`` makes the
client's address the one the proxy forwarded, so the limit applies to each client and not
to the proxy (see docs/deploy.md).
"""
from __future__ import annotations

from flask import Flask, current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

LOOPBACK = ("127.0.0.1", "::1")

limiter = Limiter(key_func=get_remote_address, storage_uri="memory://", headers_enabled=True)


def init_app(app: Flask) -> None:
    app.config.setdefault("RATE_LIMIT_CREATE", "20 per 10 minutes")
    app.config.setdefault("RATE_LIMIT_JOIN", "60 per 10 minutes")
    app.config.setdefault("RATE_LIMIT_TRUST_LOOPBACK", True)

    @app.after_request  # registered before the limiter's own: runs after it has added its headers
    def retry_after_only_when_refused(response):
        """``Retry-After`` on a refusal only: the limiter puts the window's reset on every answer of
        a limited route, and a client told "retry after 600 s" on its 201 may well wait."""
        if response.status_code not in (429, 503):
            response.headers.pop("Retry-After", None)
        return response

    limiter.init_app(app)

    @limiter.request_filter
    def trusted() -> bool:
        return bool(current_app.config["RATE_LIMIT_TRUST_LOOPBACK"]) and request.remote_addr in LOOPBACK


#: Opening a table (page and API share the budget).
creating = limiter.shared_limit(lambda: current_app.config["RATE_LIMIT_CREATE"], scope="create",
                                methods=["POST"])
#: Taking a seat with a join token (page and API share the budget).
joining = limiter.shared_limit(lambda: current_app.config["RATE_LIMIT_JOIN"], scope="join", methods=["POST"])
