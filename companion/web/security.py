"""Who may ask, headers every answer carries, and errors that never leak a stack trace.

Before any view runs, the operator's views are refused to everybody else (see
``web.operator``) and form posts are checked for their CSRF token.

The Content-Security-Policy allows scripts and styles from this server only (no inline
script, no CDN), and the page may not be framed. Errors under ``/api/`` answer JSON
``{"error": ...}``, htmx requests a toast, pages a short HTML page. Unexpected exceptions
are logged on the server and the client gets a generic message.
"""
from __future__ import annotations

import math

from flask import Flask, jsonify, make_response, render_template, request
from flask_babel import gettext
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.exceptions import HTTPException

from .. import i18n
from ..referee.rules import Refused
from ..store import NotFound
from .render import is_htmx

#: Flask-WTF's CSRF protection: checked here for form posts to real routes (``init_app``);
#: the JSON API and the scan upload API exempt their blueprints.
csrf = CSRFProtect()

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


def wants_json() -> bool:
    return request.path.startswith("/api/")


def error_response(message: str, status: int, **extra):
    """The error as JSON (API), as a toast for htmx, or as a short page.

    htmx gets the toast with ``HX-Retarget: #feedback``: it is shown at the bottom of the
    phone's screen (static/app.js swaps error answers), never in place of what was tapped."""
    if wants_json():
        return jsonify({"error": message, **extra}), status
    if is_htmx():
        response = make_response(render_template("_error_toast.html", message=message, status=status, **extra))
        response.headers["HX-Retarget"] = "#feedback"
        response.headers["HX-Reswap"] = "innerHTML"
        return response, status
    return render_template("error.html", message=message, status=status, **extra), status


def upload_limit(max_bytes: int):
    """Let a view accept a body of up to ``max_bytes`` (the app's default limit is small).

    Applied before the CSRF check reads the form, which is where the limit bites.
    """
    def mark(view):
        view.max_content_length = max_bytes
        return view
    return mark


def init_app(app: Flask) -> None:
    from . import operator

    @app.before_request
    def guard():
        """Rights first, then the CSRF token.

        A view marked :func:`operator.operator_only` answers 403 to anybody but the operator
        before its body is read. Form posts and htmx requests to the pages need the CSRF
        token; the JSON API uses bearer tokens instead; a request that matches no route gets
        its 404/405 first."""
        view = app.view_functions.get(request.endpoint) if request.endpoint else None
        if getattr(view, "operator_only", False) and not operator.is_operator():
            return operator.refusal()
        if getattr(view, "max_content_length", None):  # uploads: raise the limit before the form is parsed
            request.max_content_length = view.max_content_length
        if (request.method in ("POST", "PUT", "PATCH", "DELETE") and request.url_rule is not None
                and not request.path.startswith("/api/")):
            csrf.protect()

    @app.after_request
    def headers(response):
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")  # join tokens stay out of Referer
        response.headers.setdefault("X-Frame-Options", "DENY")
        if response.mimetype == "text/html":
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    @app.errorhandler(Refused)
    def refused(exc: Refused):
        body = exc.as_dict()
        body.pop("error")
        return error_response(exc.message if wants_json() else i18n.refusal_text(exc), exc.status, **body)

    @app.errorhandler(NotFound)
    def not_found(exc: NotFound):
        return error_response(str(exc), 404)

    @app.errorhandler(CSRFError)
    def csrf_error(exc: CSRFError):
        return error_response(gettext("The form was stale or forged (CSRF check failed). Reload the page and try again."), 400)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        messages = {413: gettext("The request is too large.")}
        if exc.code == 429:  # the limit's window: the longest the client may have to wait
            window = getattr(getattr(exc, "limit", None), "limit", None)
            minutes = max(1, math.ceil(window.get_expiry() / 60)) if window is not None else 10
            messages[429] = gettext("Too many new tables or joins from this device; try again within %(minutes)d "
                                    "min.", minutes=minutes)
        body, status = error_response(messages.get(exc.code, exc.description or exc.name), exc.code or 500)
        response = make_response(body, status)
        for name, value in exc.get_headers():  # e.g. Allow on 405 (RFC 9110)
            if name.lower() != "content-type":
                response.headers[name] = value
        return response

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        app.logger.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(gettext("Something went wrong on the server; nothing was changed."), 500)
