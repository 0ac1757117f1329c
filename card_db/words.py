"""The game's words: races, classes, slots and sexes, in one place.

The card schema, the referee, the pages and the API all read these. The base game's words
are listed here; an expansion's cards may bring more races and classes (a card of kind
``race`` or ``class`` names one by its id), so a race or class is any word of the shape
:data:`WORD_PATTERN`, and :data:`RACES`/:data:`CLASSES` are the ones the base set knows and
the pages offer without a card.
"""
from __future__ import annotations

import re

#: The races of the base set; a character with none is human.
RACES = ("elf", "dwarf", "halfling")
HUMAN = "human"
#: The classes of the base set.
CLASSES = ("warrior", "wizard", "cleric", "thief")
#: Where an item is worn or held; ``none`` for items without a slot.
SLOTS = ("headgear", "armor", "footgear", "one_hand", "two_hands", "none")
#: How many hands a hand slot takes.
HANDS = {"one_hand": 1, "two_hands": 2}
SEXES = ("male", "female")
#: The shape of a race or class id (an expansion's race card may add one).
WORD_PATTERN = "^[a-z][a-z0-9_-]{0,39}$"
_WORD = re.compile(WORD_PATTERN)


def is_word(value: object) -> bool:
    """Whether ``value`` can name a race or class (a base one, or one an expansion's card adds)."""
    return isinstance(value, str) and bool(_WORD.match(value))
