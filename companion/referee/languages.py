"""The languages the rule entries are written in: the rulebooks' languages, English the reference.

A constant of its own, so that what only needs the list (the command line's ``--lang``
choices) does not load the rule entries of every language with it.
"""
LANGUAGES = ("en", "de", "fr", "nl", "it", "ru")
