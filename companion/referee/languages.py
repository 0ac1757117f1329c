"""The languages the rule entries are written in: the rulebooks' languages, English the reference;
and the mark of an English text kept in a variable for translation.

A module of its own, so that what only needs the list (the command line's ``--lang`` choices)
does not load the rule entries of every language with it, and the rule profiles can mark their
names without importing the rules.
"""
LANGUAGES = ("en", "de", "fr", "nl", "it", "ru")


def N_(message: str) -> str:
    """Marks an engine message kept in a variable for translation (``scripts/i18n`` extracts it)."""
    return message
