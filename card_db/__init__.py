"""The card database: every kind of Munchkin card with the numbers the referee computes with.

No Flask in here: the app, the CLI and the referee all use it. ``schema`` says what a
card record is (a JSON Schema, so imported files are checked field by field), ``store``
keeps cards in the app's SQLite database (its own recorded migrations), ``search`` finds
cards by any of their names in any language while forgiving typos and accents, and
``formats`` reads and writes JSON and CSV. The base game ships in ``data/``.
"""
