"""What a card record is: one JSON Schema for every kind of card in the base game and its
expansions, holding the numbers the referee computes with, not only text.

Validation reports every problem with the record it is in (position and id) and the field
path, so a player fixing an import file knows exactly where to look.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .words import CLASSES, HUMAN, RACES, SEXES, SLOTS, WORD_PATTERN

LANGUAGES = ("en", "de", "nl", "it", "ru", "fr")
DECKS = ("door", "treasure")
DOOR_KINDS = ("monster", "curse", "monster_enhancer", "race", "class", "special")
TREASURE_KINDS = ("item", "one_shot", "go_up_a_level", "special")
KINDS = tuple(dict.fromkeys(DOOR_KINDS + TREASURE_KINDS))

_text = {"type": "string", "minLength": 1, "maxLength": 2000}
_names = {
    "type": "object",
    "properties": {lang: {"type": "string", "minLength": 1, "maxLength": 80} for lang in LANGUAGES},
    "required": ["en"],
    "additionalProperties": False,
}
_texts = {"type": "object", "properties": {lang: _text for lang in LANGUAGES}, "additionalProperties": False}
_who = {  # a race, class or sex a bonus, penalty or restriction is about
    "type": "object",
    # the base set's words, or an expansion's (a race or class card of that id)
    "properties": {"race": {"type": "string", "pattern": WORD_PATTERN, "examples": [*RACES, HUMAN]},
                   "class": {"type": "string", "pattern": WORD_PATTERN, "examples": list(CLASSES)},
                   "sex": {"enum": list(SEXES)}},
    "minProperties": 1, "maxProperties": 1, "additionalProperties": False,
}
_int = {"type": "integer", "minimum": -100, "maximum": 100}
_effect = {  # what a curse or a monster's Bad Stuff does (companion/referee/effects.py performs it)
    "type": "object",
    "properties": {
        "type": {"enum": ["combat_bonus", "run_away_bonus", "die_bonus", "lose_levels", "level_to", "lose_item",
                          "change_sex", "lose_race", "lose_class", "death", "items_only", "other"],
                 "description": "items_only: in a fight only the items in use in ``slot`` count (Malign Mirror); "
                                "die_bonus: added to every die the character rolls — Run Away, a Thief's theft "
                                "(Chicken on Your Head)"},
        "value": _int,
        "slot": {"enum": list(SLOTS)},
        "until": {"enum": ["next_combat", "removed", "next_run_away"]},
        "big": {"type": "boolean", "description": "lose_item: only Big items (true) or only small ones (false)"},
        "count": {"type": "integer", "minimum": 1, "maximum": 10, "description": "lose_item: how many"},
        "pick": {"enum": ["target", "caster", "best", "all"],
                 "description": "lose_item: who picks, the biggest bonus, or every matching item"},
        "all": {"type": "boolean", "description": "lose_race/lose_class: every one, not one of the victim's choice"},
        "race": {"type": "string", "pattern": WORD_PATTERN},
        "class": {"type": "string", "pattern": WORD_PATTERN},
        "lowest": {"type": "boolean", "description": "level_to: the level of the lowest-level player"},
        "who": _who, "unless": _who,
        "else_levels": {"type": "integer", "minimum": 1, "maximum": 10,
                        "description": "levels lost instead when there is nothing to take"},
        "lost_with": {"enum": list(SLOTS), "description": "a lasting curse that goes when the character loses the "
                                                          "item in use in this slot (Chicken on Your Head: headgear)"},
    },
    "required": ["type"], "additionalProperties": False,
}

CARD_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Munchkin card",
    "type": "object",
    "required": ["id", "deck", "kind", "names", "set"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$", "maxLength": 80},
        "deck": {"enum": list(DECKS)},
        "kind": {"enum": list(KINDS)},
        "set": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"},
        "copies": {"type": "integer", "minimum": 1, "maximum": 20, "default": 1},
        "names": _names,
        # other names a card is known by (a category such as "Go Up a Level", an older printing)
        "aka": {"type": "object", "additionalProperties": False, "properties": {
            lang: {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 80}} for lang in LANGUAGES}},
        "text": _texts,
        "monster": {
            "type": "object", "additionalProperties": False,
            "required": ["level", "treasures"],
            "properties": {
                "level": {"type": "integer", "minimum": 0, "maximum": 100},
                "treasures": {"type": "integer", "minimum": 0, "maximum": 20},
                "levels": {"type": "integer", "minimum": 1, "maximum": 5, "default": 1},
                "undead": {"type": "boolean", "default": False},
                "modifiers": {"type": "array", "items": {
                    "type": "object", "required": ["against", "value"], "additionalProperties": False,
                    "properties": {"against": _who, "value": _int}}},
                # lets a fleeing character go without a roll: of this level or below (any level if
                # unsaid), only such a character (who), never such a character (unless: Squidzilla's Elves)
                "will_not_pursue": {"type": "object", "additionalProperties": False, "minProperties": 1, "properties": {
                    "max_level": {"type": "integer", "minimum": 1, "maximum": 20}, "who": _who, "unless": _who}},
                "run_away_modifier": _int,
                "no_escape": {"type": "boolean", "description": "cannot be run away from: a lost fight is its Bad Stuff, "
                                                                "no roll (Crabs)"},
                "escape_levels_lost": {"type": "integer", "minimum": 1, "maximum": 5,
                                       "description": "levels lost by whoever runs from it, even on an escape (Mr. Bones)"},
                "no_help": {"type": "boolean", "description": "nobody may help against it (Gazebo)"},
                "level_only": {"type": "boolean", "description": "the players fight with their Level alone: no items, "
                                                                 "curses, one-shots or powers count for them (Ghoulfiends)"},
                "no_level": {"type": "boolean", "description": "the players' Levels do not count against it, only "
                                                               "their bonuses (Insurance Salesman)"},
                # the fighter may let it by and call the fight off (no level, no treasure, no Bad Stuff): any
                # fighter, only such a character (who), never such a character (unless: the Stoned Golem's Halflings)
                "may_pass": {"type": "object", "additionalProperties": False,
                             "properties": {"who": _who, "unless": _who}},
                # a character of this race, class or sex is not fought: the monster leaves and they take
                # `treasures` treasures instead of its own, no level (Amazon: females); `optional`: they may
                # choose it, fighter or helper (Wannabe Vampire: a Cleric chases it off)
                "treasure_instead": {"type": "object", "additionalProperties": False, "required": ["who", "treasures"],
                                     "properties": {"who": _who, "treasures": {"type": "integer", "minimum": 0, "maximum": 20},
                                                    "optional": {"type": "boolean", "default": False}}},
                # what the fighter suffers as the monster joins the fight, before any fighting (Tongue Demon:
                # discard an item — the fighter's choice when there are several)
                "before_fight": {"type": "array", "items": _effect},
                # an item given up lets its owner go without a die, even from a monster nobody escapes: one
                # that is one of these things (is_a: Pit Bull, a wand, staff or pole thrown to distract it)
                # or worth this much gold or more (min_gold: the Floating Nose)
                "escape_with_item": {"type": "object", "additionalProperties": False, "minProperties": 1,
                                     "properties": {"is_a": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                                                    "min_gold": {"type": "integer", "minimum": 0, "maximum": 10000}}},
                # more treasures when a character of this race, class or sex kills it, fighter or helper,
                # counted once (Potted Plant: an Elf draws one more)
                "extra_treasures": {"type": "array", "items": {"type": "object", "required": ["who", "value"],
                                                                "additionalProperties": False,
                                                                "properties": {"who": _who, "value": {"type": "integer", "minimum": 1, "maximum": 10}}}},
                # more levels for a kill made the way the card names: `alone` — no helper and no bonus
                # for the players, their Level only (Pukachu); `fire` — a fire attack counts for the
                # players, an item or one-shot marked `fire` (Large Angry Chicken)
                "extra_levels": {"type": "object", "additionalProperties": False, "required": ["value", "when"],
                                 "properties": {"value": {"type": "integer", "minimum": 1, "maximum": 5},
                                                "when": {"enum": ["alone", "fire"]}}},
                "bad_stuff": {"type": "object", "additionalProperties": False, "properties": {
                    "text": _texts, "levels_lost": {"type": "integer", "minimum": 0, "maximum": 10},
                    "death": {"type": "boolean"}, "effects": {"type": "array", "items": _effect}}},
            },
        },
        "curse": {
            "type": "object", "additionalProperties": False, "required": ["timing"],
            "properties": {"timing": {"enum": ["immediate", "persistent"]},
                           "effects": {"type": "array", "items": _effect}},
        },
        "enhancer": {
            "type": "object", "additionalProperties": False,
            "properties": {"level_change": _int, "treasure_change": _int, "mate": {"type": "boolean"}},
        },
        "item": {
            "type": "object", "additionalProperties": False, "required": ["bonus", "slot", "gold"],
            "properties": {
                "bonus": _int, "slot": {"enum": list(SLOTS)}, "big": {"type": "boolean", "default": False},
                "gold": {"type": "integer", "minimum": 0, "maximum": 10000},
                "usable_by": {"type": "array", "items": _who},
                "not_usable_by": {"type": "array", "items": _who},
                "run_away_bonus": _int,
                "door_curse_immune": {"type": "boolean", "description": "curses from the door its wearer kicks open "
                                                                        "do not act on them (Sandals of Protection)"},
                "fire": {"type": "boolean", "description": "a fire or flame attack while it counts in a fight "
                                                           "(Staff of Napalm; a monster's extra_levels when: fire)"},
                "is_a": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"},
                         "description": "what the item is, for a card that names such things (staff, pole: "
                                        "a monster's escape_with_item)"},
                # a different bonus while the wearer is of this race, class or sex (Horny Helmet: +3 for Elves)
                "bonus_if": {"type": "array", "items": {"type": "object", "required": ["who", "value"],
                                                         "properties": {"who": _who, "value": _int},
                                                         "additionalProperties": False}},
            },
        },
        "one_shot": {
            "type": "object", "additionalProperties": False, "required": ["gold"],
            "properties": {"bonus": _int, "either_side": {"type": "boolean", "default": True},
                           "gold": {"type": "integer", "minimum": 0, "maximum": 10000},
                           "usable_by": {"type": "array", "items": _who,
                                         "description": "for the players' side only if the fighter or the helper is one"},
                           "run_away_bonus": _int,
                           # what a one-shot does besides a bonus, in a fight or out of one
                           "cancels_curse": {"type": "boolean", "description": "removes a curse from a player (Wishing Ring)"},
                           "steal_levels": {"type": "integer", "minimum": 1, "maximum": 5,
                                            "description": "levels taken from another player by the one who plays it"},
                           "draw_treasures": {"type": "integer", "minimum": 1, "maximum": 10,
                                              "description": "Treasures the player draws at the table (Hoard!)"},
                           "fire": {"type": "boolean", "description": "a fire or flame attack when played for the "
                                                                      "players (Flaming Poison Potion)"},
                           # what a one-shot does to a fight besides a bonus (the card beats the rules)
                           "doubles_strength": {"type": "boolean",
                                                "description": "doubles the combat strength of the fighter or helper "
                                                               "who plays it, before anyone else's help (Doppleganger)"},
                           "rids_of": {"enum": ["one", "all"],
                                       "description": "monsters it sends out of the fight without a kill: one, whose "
                                                      "treasure stays for the players (Polymorph Potion, Magic Lamp), "
                                                      "or all of them, taking their treasure: the fight is over "
                                                      "(Friendship Potion)"},
                           "escapes": {"type": "integer", "minimum": 1, "maximum": 2,
                                       "description": "up to this many of the fighter and the helper get away from "
                                                      "every monster with no die when they run away (Instant Wall)"},
                           "transfers_fight": {"type": "boolean",
                                               "description": "played by the fighter: another player must fight the "
                                                              "monsters in their place (Transferral Potion)"},
                           "on_escape_roll": {"enum": ["escape", "set", "again"],
                                              "description": "what it does to a die just rolled to run away: escape "
                                                             "— a failed roll escapes anyway (Invisibility Potion); "
                                                             "set — the player's own die becomes the number they "
                                                             "name (Loaded Die); again — someone who escaped by a "
                                                             "die rolls again for that monster (Flask of Glue)"},
                           "own_turn": {"type": "boolean",
                                        "description": "played only on the turn of the player who plays it (Magic Lamp)"}},
        },
        "levels": {"type": "integer", "minimum": 1, "maximum": 5},
        "not_for_highest": {"type": "boolean", "description": "Go Up a Level: not for the highest-level player, nor "
                                                              "one tied for it (Whine at the GM)"},
        "discards_item": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$",
                          "description": "Go Up a Level: played only while an item of this card id is in play, "
                                         "which goes to the discards (Kill the Hireling)"},
        "rulings": {"type": "array", "items": {
            "type": "object", "required": ["question", "answer"], "additionalProperties": False,
            "properties": {"question": _text, "answer": _text,
                           "rule": {"type": "string", "description": "id of the referee's rule entry, if there is one"},
                           "citation": {"type": "string", "description": "edition and section the answer follows"}}}},
        "sources": {"type": "array", "items": {
            "type": "object", "required": ["facts", "checked"], "additionalProperties": False,
            "properties": {"facts": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                           "checked": {"type": "string", "minLength": 3}}}},
    },
    "allOf": [
        {"if": {"properties": {"kind": {"const": "monster"}}}, "then": {"required": ["monster"]}},
        {"if": {"properties": {"kind": {"const": "curse"}}}, "then": {"required": ["curse"]}},
        {"if": {"properties": {"kind": {"const": "monster_enhancer"}}}, "then": {"required": ["enhancer"]}},
        {"if": {"properties": {"kind": {"const": "item"}}}, "then": {"required": ["item"]}},
        {"if": {"properties": {"kind": {"const": "one_shot"}}}, "then": {"required": ["one_shot"]}},
        {"if": {"properties": {"kind": {"const": "go_up_a_level"}}}, "then": {"required": ["levels"]}},
        {"if": {"properties": {"deck": {"const": "door"}}},
         "then": {"properties": {"kind": {"enum": list(DOOR_KINDS)}}}},
        {"if": {"properties": {"deck": {"const": "treasure"}}},
         "then": {"properties": {"kind": {"enum": list(TREASURE_KINDS)}}}},
    ],
}


@cache
def _validator():
    """The card schema's validator, built on first use: jsonschema takes ~50 ms to import,
    which a command that reads cards without checking any (``companion vision``) need not pay."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(CARD_SCHEMA)


@cache
def _part_validator(path: tuple[str, ...]):
    from jsonschema import Draft202012Validator

    part = CARD_SCHEMA
    for key in path:
        part = part["properties"][key]
    return Draft202012Validator(part)


def part_problem(path: tuple[str, ...], value) -> str | None:
    """What is wrong with ``value`` typed in as the card schema's part at ``path`` — a curse's
    effects (``("curse", "effects")``), a monster's Bad Stuff (``("monster", "bad_stuff")``) —
    the first problem, located, or None. The referee performs only the effects it knows and
    counts only numbers: what the schema would refuse in a card file is refused typed in too,
    rather than reaching it."""
    errors = sorted(_part_validator(path).iter_errors(value), key=lambda e: list(map(str, e.absolute_path)))
    if not errors:
        return None
    where = ".".join([path[-1], *(str(part) for part in errors[0].absolute_path)])
    return f"{where}: {_message(errors[0])}"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one record of an import, located precisely."""

    index: int  # position of the record in the file (0-based)
    card_id: str | None
    field: str  # dotted path inside the record, "" for the record itself
    message: str

    def __str__(self) -> str:
        where = f"record {self.index + 1}" + (f" ({self.card_id})" if self.card_id else "")
        return f"{where}, {self.field or 'record'}: {self.message}"


def validate(records: list) -> list[Problem]:
    """Every problem in ``records``: schema errors, and ids used twice."""
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for index, record in enumerate(records):
        card_id = record.get("id") if isinstance(record, dict) and isinstance(record.get("id"), str) else None
        for error in sorted(_validator().iter_errors(record), key=lambda e: list(map(str, e.absolute_path))):
            field = ".".join(str(part) for part in error.absolute_path)
            problems.append(Problem(index, card_id, field, _message(error)))
        if card_id:
            if card_id in seen:
                problems.append(Problem(index, card_id, "id", f"the id is already used by record {seen[card_id] + 1}"))
            seen.setdefault(card_id, index)
    return problems


def _message(error) -> str:
    if error.validator == "required":
        return error.message.replace("is a required property", "is required")
    if error.validator == "enum":
        return f"{error.instance!r} is not one of {', '.join(map(str, error.validator_value))}"
    if error.validator == "additionalProperties":
        return error.message.replace("Additional properties are not allowed", "unknown field(s)")
    return error.message
