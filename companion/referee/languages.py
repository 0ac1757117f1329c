"""The languages the rule entries are written in: the rulebooks' languages, English the reference;
and the mark of an English text kept in a variable for translation.

A module of its own, so that what only needs the list (the command line's ``--lang`` choices)
does not load the rule entries of every language with it, and the rule profiles can mark their
names without importing the rules. And the filling of a message with numbers as the reader's
language writes them (``fill``).
"""
import string
from collections.abc import Callable

LANGUAGES = ("en", "de", "fr", "nl", "it", "ru")


def N_(message: str) -> str:
    """Marks an engine message kept in a variable for translation (``scripts/i18n`` extracts it)."""
    return message


class _Numbers(string.Formatter):
    """``str.format``, but a number given a thousands separator (``{gold:,}``) or written
    as it comes (``{seconds:g}``) is written by ``number``: the reader's language's way."""

    def __init__(self, number: Callable[[float], str]):
        self.number = number

    def format_field(self, value, format_spec: str) -> str:
        if format_spec in (",", "g") and isinstance(value, (int, float)) and not isinstance(value, bool):
            return self.number(value)
        return super().format_field(value, format_spec)


def fill(template: str, params: dict, number: Callable[[float], str] | None = None) -> str:
    """``template.format(**params)``; with ``number`` (the phone's language's, e.g. Babel's
    ``format_decimal``) its numbers as that language writes them: "{gold:,} gold" is
    "1.500 Gold" on a German phone, not "1,500" — which a German reads as one and a half."""
    return template.format(**params) if number is None else _Numbers(number).vformat(template, (), params)
