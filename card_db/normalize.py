"""Folding names so that "Wutend", "wütend" and "WÜTEND" meet, in every script.

Cyrillic ё and й fold to е and и through the same accent stripping.
"""
from __future__ import annotations

import re
import unicodedata

_SPECIAL = str.maketrans({"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d"})
_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)


def fold(text: str) -> str:
    """Lower-case, accent-free, punctuation-free, single-spaced form of ``text``.

    Latin letters lose their accents (ü → u, é → e), ß becomes ss, Cyrillic ё/й fold to
    е/и; apostrophes and hyphens become spaces ("Butt-Kicking" → "butt kicking").
    """
    text = unicodedata.normalize("NFKD", text.casefold())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.translate(_SPECIAL)
    return " ".join(_NON_WORD.sub(" ", text).replace("_", " ").split())


def variants(name: str) -> set[str]:
    """The folded keys a name is found by: plain, and German umlauts spelt out (ü → ue)."""
    keys = {fold(name)}
    lowered = name.casefold()
    if any(ch in lowered for ch in "äöü"):
        keys.add(fold(lowered.replace("ä", "ae").replace("ö", "oe").replace("ü", "ue")))
    return keys
