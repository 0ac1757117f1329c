"""Scan a card: a phone photo in, the recognised card (and its alternatives) out.

The table page's scan button posts the photo here (downscaled in the browser first) and gets
the ``_scan_result.html`` partial with one-tap buttons to use the card; without JavaScript
the same form posts and gets a full page. ``POST /api/v1/vision/recognize`` answers the same
recognition as JSON for other clients. Hostile uploads (empty, truncated, not an image, too
many pixels, too small or too thin, too many bytes) answer a clear 4xx; the bytes read are
bounded and the header is checked before anything is decoded (see ``vision.image``). When
the process already has its few photos in hand (``vision.gate``) the answer is 503 with
``Retry-After``: the phone tries again, the server does not pile photos up in memory.
"""
from __future__ import annotations

from flask import Blueprint, abort, current_app, jsonify, render_template, request, send_file
from flask_babel import gettext
from flask_babel import lazy_gettext as _l

from card_db import store as card_store
from vision import gate as vision_gate
from vision import image as vision_image
from vision import index as vision_index

from .. import i18n, scanning, store
from ..db import get_db, get_store
from ..referee.rules import Refused
from ..referee.table import playable_now
from .cards import card_page
from .operator import operator_only
from .pages import seat_or_403
from .render import is_htmx, vary
from .security import csrf, upload_limit

bp = Blueprint("scan", __name__)
api = Blueprint("scan_api", __name__, url_prefix="/api/v1")
csrf.exempt(api)

#: Why an upload is refused (``ImageError.reason``, or ``busy``) and the status that answers it.
STATUS = {"empty": 400, "corrupt": 400, "not_an_image": 415, "too_large": 413, "too_many_pixels": 413,
          "too_small": 422, "bad_aspect": 422, "busy": 503, "index_outdated": 503}
#: The exceptions that refuse an upload; each has a ``reason`` from ``STATUS``.
REFUSALS = (vision_image.ImageError, vision_gate.Busy, vision_index.OutdatedIndex)
#: What a phone reads for each reason (the API answers the reason code and the English message).
#: A reason not listed here shows the exception's English message, which names the limits.
REASON_TEXT = {
    "no_card": _l("No card found in the photo: hold the phone above the card so that all of it is in the picture."),
    "too_blurry": _l("The photo is too blurry to tell the card: hold still, or move a little further away."),
    "cut_off": _l("Part of the card is outside the photo: hold the phone so that all of the card is in the "
                  "picture."),
    "no_confident_match": _l("This card is not one the app knows well enough to name (not enrolled, or the photo is "
                             "too poor). Choose from the suggestions or search by name."),
    "nothing_enrolled": _l("No card images are enrolled yet: the server's operator teaches the scanner from a "
                           "card's page."),
    "empty": _l("The upload is empty."),
    "corrupt": _l("The image could not be decoded."),
    "not_an_image": _l("This is not a JPEG, PNG or WebP image."),
    "too_large": _l("The image is too large (at most 12 MB)."),
    "too_many_pixels": _l("The image has too many pixels (at most 40 megapixels): send a smaller photo."),
    "too_small": _l("The image is too small to show a card (at least 32 pixels each way)."),
    "bad_aspect": _l("The image is too long and thin to be a photo of a card (at most 8 to 1)."),
    "busy": _l("The scanner is busy with other photos; try again in a moment."),
    "index_outdated": _l("The scanner's card images were enrolled with an earlier version of the app: the server's "
                         "operator runs `companion vision rebuild` once."),
}


def reason_text(reason: str | None, fallback: str = "") -> str:
    return str(REASON_TEXT[reason]) if reason in REASON_TEXT else fallback


def refusal(exc: Exception) -> tuple[int, dict]:
    """The status and headers answering ``exc``, one of ``REFUSALS`` (busy: when to try again)."""
    headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, vision_gate.Busy) else {}
    return STATUS.get(exc.reason, 400), headers


UPLOAD_LIMIT = vision_image.MAX_BYTES + 64 * 1024  # the photo and a few form fields


def read_upload() -> bytes:
    """The photo: the multipart field ``photo``, or the raw body sent as ``image/*``."""
    upload = request.files.get("photo")
    if upload is not None:
        data = upload.read(vision_image.MAX_BYTES + 1)
    elif request.mimetype.startswith("image/") or request.mimetype == "application/octet-stream":
        data = request.get_data(cache=False)
    elif request.mimetype == "multipart/form-data":
        raise vision_image.ImageError("empty", "Attach the photo as the form field 'photo'.")
    else:
        raise vision_image.ImageError("not_an_image", "Send the photo as multipart/form-data (field 'photo') "
                                                      "or as the body with Content-Type image/jpeg, image/png or image/webp.")
    if len(data) > vision_image.MAX_BYTES:
        raise vision_image.ImageError("too_large", f"The image is larger than {vision_image.MAX_BYTES // 2 ** 20} MB.")
    return data


def recognise(data: bytes, lang: str = "en") -> dict:
    index = scanning.index_for(current_app.config["DATA_DIR"])
    return scanning.recognize(get_db(), index, data, lang=lang)


@bp.route("/t/<table_id>/scan", methods=["GET", "POST"])
@upload_limit(UPLOAD_LIMIT)
def table_scan(table_id: str):
    """GET: the scan form on its own page. POST: recognise the photo and offer its uses."""
    seat = seat_or_403(table_id)
    db = get_db()
    state = store.load(get_store(), table_id)
    answer, error, status, headers = None, None, 200, {}
    if request.method == "POST":
        try:
            answer = recognise(read_upload())
        except REFUSALS as exc:
            error, (status, headers) = reason_text(exc.reason, str(exc)), refusal(exc)
    results = []
    for cand in (answer or {}).get("candidates", []):
        card = card_store.get(db, cand["card_id"])
        if card is not None:
            results.append({"card": card, "hit": {"name": i18n.card_name(card)}, "confidence": cand["confidence"],
                            "usable": playable_now(card, state, seat)})
    if answer and answer.get("reason"):
        answer = {**answer, "message": reason_text(answer["reason"], answer["message"])}
    context = {"state": state, "seat": seat, "me_seat": seat, "answer": answer, "error": error, "results": results}
    template = "_scan_result.html" if is_htmx() else "scan.html"
    response = vary(render_template(template, **context), status)
    response.headers.update(headers)
    return response


@bp.post("/cards/<card_id>/enroll")
@operator_only
@upload_limit(UPLOAD_LIMIT)
def enroll_card(card_id: str):
    """Teach the scanner this card from a photo (or scan) of it; answers the card page.
    The scanner's pictures serve every table, so this is the operator's alone."""
    db = get_db()
    if card_store.get(db, card_id) is None:
        raise Refused("There is no card {card_id!r}.", status=404, card_id=card_id)
    index = scanning.index_for(current_app.config["DATA_DIR"])
    try:
        scanning.enroll(db, index, {card_id: ("photo", read_upload())})
    except REFUSALS as exc:
        return (card_page(card_id, enroll_notice={"kind": "refused", "text": reason_text(exc.reason, str(exc))}),
                *refusal(exc))
    except scanning.EnrollProblems as exc:
        return card_page(card_id, enroll_notice={"kind": "refused", "text": exc.problems[0][1]}), 400
    return card_page(card_id, enroll_notice={"kind": "done", "text": gettext("The scanner knows this card now.")})


@bp.get("/cards/<card_id>/learned.png")
@operator_only
def learned(card_id: str):
    """The picture the scanner learned for this card (its reference, straightened and grey):
    the operator sees at once whether a photo taught it the card or a piece of the table."""
    index = scanning.index_for(current_app.config["DATA_DIR"])
    if card_store.get(get_db(), card_id) is None or not index.enrolled(card_id):
        abort(404)
    return send_file(index.reference_path(card_id), mimetype="image/png", max_age=0)


@api.post("/vision/recognize")
@upload_limit(UPLOAD_LIMIT)
def api_recognize():
    """Recognise the card in a photo; ``?lang=`` names the cards in that language (else English)."""
    lang = request.args.get("lang", "en")[:8]
    try:
        return jsonify(recognise(read_upload(), lang=lang))
    except REFUSALS as exc:
        return jsonify({"error": str(exc), "reason": exc.reason}), *refusal(exc)
