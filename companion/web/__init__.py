"""The web layer: pages and htmx fragments, the JSON API, and the live streams.

Views read the request, call the action layer or the store, and render; none of them
holds a rule check or SQL of its own.
"""
from __future__ import annotations

from flask import Flask


def register(app: Flask) -> None:
    from . import api, cards, limits, operator, pages, pwa, scan, security, streams

    limits.init_app(app)  # a client over its budget is answered before anything else is checked
    security.init_app(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(streams.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(cards.bp)
    app.register_blueprint(scan.bp)
    app.register_blueprint(scan.api)
    app.register_blueprint(operator.bp)
    app.register_blueprint(pwa.bp)
