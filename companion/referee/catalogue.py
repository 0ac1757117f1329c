"""The action catalogue: every change a phone or an API client can ask for, declared once.

Each :class:`Action` states its parameters (types and limits), who may ask for it, in which
phases of the turn, whether the character it touches must be alive, and the function that
decides it. Everything else reads this: :func:`parse` turns form fields or JSON into typed
parameters (and refuses what is not declared), :func:`check` applies the guards before the
decision, :func:`allowed` tells the pages which buttons to offer now, and
:func:`json_schema` writes the OpenAPI description of each action. Undo needs nothing
here: every event records operations that :mod:`companion.referee.table` inverts.

Deciding functions register themselves with :func:`decides` in the module that holds
their rule (the table, the turn, the fight).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from card_db.words import CLASSES, RACES, SEXES, SLOTS, WORD_PATTERN

from .profiles import GAMES
from .quest import ENTRANCE as Q_ENTRANCE, PLACES, QUEST_SLOTS
from .rules import N_, OVERRIDABLE, Refused, refuse

#: Who may ask for an action.
ANYONE = "anyone"  # any seated player (on any character when the action takes ``seat``)
OWN = "own"  # the player on their own character; the host on anyone's
HOST = "host"  # the host only
TURN = "turn"  # the player whose turn it is
TURN_OR_HOST = "turn_or_host"
FIGHT = "fight"  # decided by the fight itself (fighter, helper or anyone, per action)
WHO = (ANYONE, OWN, HOST, TURN, TURN_OR_HOST, FIGHT)

#: The phases of a turn in either game (see :mod:`companion.referee.turn`).
PHASES = ("start", "door", "fight", "charity", "actions", "monsters")
CARD_GAME, QUEST = "munchkin", "munchkin-quest"

#: Parameters every action accepts besides its own.
COMMON = ("action", "reason", "expected_version", "csrf_token", "override")
_TRUE, _FALSE = {"1", "true", "on", "yes"}, {"0", "false", "off", "no"}


@dataclass(frozen=True)
class Param:
    """One parameter: ``kind`` is int, number, str, bool, list (of texts) or object."""

    kind: str
    doc: str
    min: float | None = None
    max: float | None = None
    enum: tuple | None = None
    pattern: str | None = None
    max_length: int = 200

    def schema(self) -> dict:
        out: dict = {"description": self.doc}
        if self.kind == "list":
            out.update(type="array", maxItems=50, items={"type": ["string", "integer"], "maxLength": self.max_length})
        elif self.kind == "object":
            out["type"] = "object"
        elif self.kind == "number":
            out["type"] = "number"
        else:
            out["type"] = {"int": "integer", "str": "string", "bool": "boolean"}[self.kind]
        if self.enum:
            out["enum"] = list(self.enum)
        if self.pattern:
            out["pattern"] = self.pattern
        if self.kind == "str" and not self.enum:
            out["maxLength"] = self.max_length
        if self.min is not None:
            out["minimum"] = self.min
        if self.max is not None:
            out["maximum"] = self.max
        return out

    def coerce(self, key: str, value):
        """``value`` (a form string or a JSON value) as this parameter's type, checked."""
        if self.kind == "list":
            if not isinstance(value, list) or len(value) > 50 or not all(
                    isinstance(v, str) or isinstance(v, int) and not isinstance(v, bool) for v in value):
                raise Refused("{key} must be a list of at most 50 texts.", status=400, key=key)
            return [str(v) for v in value]  # dice may come as numbers: [1, 6] is ["1", "6"]
        if self.kind == "object":
            if not isinstance(value, dict):
                raise Refused("{key} must be an object.", status=400, key=key)
            return value
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
                return value.lower() in _TRUE
            raise Refused("{key} must be true or false.", status=400, key=key)
        if self.kind in ("int", "number"):
            value = _number(key, value, whole=self.kind == "int")
            if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
                raise Refused("{key} must be from {low:g} to {high:g}.", status=400, key=key, low=self.min, high=self.max)
            return value
        if not isinstance(value, str):
            raise Refused("{key} must be text.", status=400, key=key)
        if len(value) > self.max_length:
            raise Refused("{key} can be at most {max} characters.", status=400, key=key, max=self.max_length)
        if self.enum and value not in self.enum:
            raise Refused("{key} must be one of: {names}.", status=400, key=key, names=", ".join(self.enum))
        return value


def _number(key: str, value, whole: bool):
    if isinstance(value, bool):
        raise Refused("{key} must be a whole number.", status=400, key=key)
    try:
        number = int(value) if whole else float(value)
    except (TypeError, ValueError):
        if whole:
            raise Refused("{key} must be a whole number.", status=400, key=key) from None
        raise Refused("{key} must be a number.", status=400, key=key) from None
    if not whole and number != number:  # NaN
        raise Refused("{key} must be a number.", status=400, key=key)
    if isinstance(value, float) and whole and value != int(value):
        raise Refused("{key} must be a whole number.", status=400, key=key)
    return number


@dataclass
class Action:
    """One action a player can ask for, with everything that decides whether and how."""

    name: str
    summary: str
    params: dict[str, Param]
    who: str
    phases: tuple[str, ...] | None = None  # the turn phases it belongs to; None: any time
    needs_fight: bool = False
    alive: bool = False  # the character it touches must be alive (the dead get no cards and no levels)
    plays_card: bool = False  # the player asking plays a card from the hand: not while dead (the hand was looted)
    in_game: bool = True  # refused once the game is won
    game: str | None = None  # the game family it belongs to (profiles' ``game``); None: both
    decide: Callable | None = field(default=None, repr=False)

    def __post_init__(self):
        assert self.who in WHO, self.name
        assert self.phases is None or set(self.phases) <= set(PHASES), self.name


def _seat(doc: str = "Whose character (default: your own).") -> Param:
    return Param("str", doc, max_length=40)


SEAT = _seat()
SEAT_ANYONE = _seat("The player it is played on (default: yourself); anyone may play it on anyone.")
UID = Param("str", "The item, curse or pending choice on the sheet (its uid).", max_length=40)
CARD = Param("str", "A card id from /api/v1/cards.", max_length=80)
_ITEM = {"name": Param("str", "item.add by hand: the item's name.", max_length=80),
         "bonus": Param("int", "item.add by hand: combat bonus.", -100, 100),
         "slot": Param("str", "item.add by hand: where it is worn or held.", enum=SLOTS),
         "big": Param("bool", "item.add by hand: a Big item."),
         "gold": Param("int", "item.add by hand: value in gold pieces.", 0, 10000),
         "run_away_bonus": Param("int", "item.add by hand: bonus to Run Away.", -10, 10),
         "only_for": Param("str", "item.add by hand: usable only by this race, class or sex (race:elf, class:wizard, sex:female).",
                           max_length=40)}
_MONSTER = {"card": CARD,
            "monster": Param("object", "A monster typed in: name, level, treasures, levels, undead, modifiers, bad_stuff "
                                       "(the card schema's monster part)."),
            "name": Param("str", "A monster typed in: its name.", max_length=80),
            "level": Param("int", "A monster typed in: its level.", 0, 100),
            "treasures": Param("int", "A monster typed in: treasures it gives.", 0, 20),
            "levels": Param("int", "A monster typed in: levels a kill gives.", 1, 5),
            "undead": Param("bool", "A monster typed in: Undead."),
            "against": Param("str", "A monster typed in: who it has a bonus against (race:elf, class:cleric, sex:male).",
                             max_length=40),
            "against_bonus": Param("int", "A monster typed in: that bonus.", -100, 100)}
_CURSE = {"card": CARD,
          "curse": Param("object", "A curse typed in: name and effects (the card schema's curse part)."),
          "name": Param("str", "A curse typed in: its name.", max_length=60),
          "combat_bonus": Param("int", "A curse typed in: a lasting combat bonus (negative).", -20, 20)}
_DICE = Param("list", "The real die's numbers as rolled (1-6 each); leave out to let the app roll.")

CATALOGUE: dict[str, Action] = {}


def _declare(name: str, summary: str, who: str, params: dict | None = None, **rest) -> None:
    CATALOGUE[name] = Action(name, summary, dict(params or {}), who, **rest)


# --- levels and the character -----------------------------------------------------------------
_declare("level.up", "Go Up a Level: a card played on anyone at any time; never the winning level "
         "(classic rules: Divine Intervention may give it).", ANYONE,
         {"seat": SEAT_ANYONE, "card": Param("str", "The Go Up a Level card's id, or divine_intervention.", max_length=80)},
         alive=True, plays_card=True)
_declare("level.down", "Lose a level because a card says so (your own character); on someone else only as "
         "the host's correction, a house ruling.", OWN, {"seat": SEAT}, alive=True)
_declare("level.kill", "Refused: a kill gives levels only through a fight the players won (combat.resolve); "
         "the host may correct a count as a house ruling.", OWN,
         {"seat": SEAT, "levels": Param("int", "Levels the kill gave.", 1, 2)}, alive=True)
_declare("sex.set", "Change the character's sex.", OWN, {"seat": SEAT, "sex": Param("str", "The new sex.", enum=SEXES)})
_declare("race.add", "Play a race card; a second one needs Half-Breed.", OWN,
         {"seat": SEAT, "race": Param("str", f"The race ({', '.join(RACES)} or an expansion's).", pattern=WORD_PATTERN,
                                      max_length=40)}, alive=True)
_declare("race.remove", "Discard a race (allowed at any time).", OWN,
         {"seat": SEAT, "race": Param("str", "The race.", pattern=WORD_PATTERN, max_length=40)})
_declare("class.add", "Play a class card; a second one needs Super Munchkin.", OWN,
         {"seat": SEAT, "class": Param("str", f"The class ({', '.join(CLASSES)} or an expansion's).", pattern=WORD_PATTERN,
                                       max_length=40)}, alive=True)
_declare("class.remove", "Discard a class (allowed at any time).", OWN,
         {"seat": SEAT, "class": Param("str", "The class.", pattern=WORD_PATTERN, max_length=40)})
_declare("half_breed.add", "Play Half-Breed on your race (with one race you are half human).", OWN, {"seat": SEAT}, alive=True)
_declare("half_breed.remove", "Discard Half-Breed.", OWN, {"seat": SEAT})
_declare("super_munchkin.add", "Play Super Munchkin on your class.", OWN, {"seat": SEAT}, alive=True)
_declare("super_munchkin.remove", "Discard Super Munchkin.", OWN, {"seat": SEAT})
_declare("item.add", "Put an item into play (from the card database or typed in); in use if it fits, else carried.", OWN,
         {"seat": SEAT, "card": CARD, "item": Param("object", "An item typed in (the card schema's item part)."), **_ITEM},
         alive=True)
_declare("item.use", "Put a carried item to use; what it displaces is turned to carried.", OWN, {"seat": SEAT, "uid": UID})
_declare("item.carry", "Turn an item sideways: carried, not in use.", OWN, {"seat": SEAT, "uid": UID})
_declare("item.remove", "An item leaves play (lost, discarded for a power, ...).", OWN, {"seat": SEAT, "uid": UID})
_declare("item.sell", "Sell items on your turn: 1,000 gold a level, no change, never the winning level.", OWN,
         {"seat": SEAT, "uids": Param("list", "The items sold.", max_length=40),
          "double": Param("str", "The one item a Halfling sells at double price (its uid).", max_length=40)}, alive=True)
_declare("item.give", "Give an item to another player (it goes into their play).", OWN,
         {"seat": SEAT, "uid": UID, "to": Param("str", "The receiving seat.", max_length=40)})
_declare("item.steal", "A Thief discards a card to try to steal a small item another player has in play: a die "
         "of 4 or more takes it (into the Thief's play), less and the Thief is caught and loses a level; never while either is "
         "in a fight.", OWN,
         {"seat": SEAT, "target": Param("str", "The player stolen from (their seat).", max_length=40), "uid": UID,
          "die": Param("int", "The die as rolled (1-6); leave out to let the app roll.", 1, 6)}, alive=True)
_declare("curse.add", "Curse a player (anyone may curse anyone): what acts at once is done on the sheet, a "
         "\"next combat\" effect waits for that fight, a lasting one stays until removed.", ANYONE,
         {"seat": SEAT_ANYONE, **_CURSE}, alive=True, plays_card=True)
_declare("curse.remove", "A lasting curse is removed.", OWN, {"seat": SEAT, "uid": UID})
_declare("choice.make", "Pick what a curse or Bad Stuff takes when the card lets someone choose "
         "(the victim, or the curse's caster).", ANYONE,
         {"uid": UID, "picks": Param("list", "The items (uids), race or class chosen.", max_length=40)})
_declare("character.die", "Death: the stuff goes, the edition says what stays; no cards and no levels until the "
         "next player's turn.", OWN, {"seat": SEAT}, alive=True)
_declare("card.play", "Play a card by its id (from a search or a scan): the card's kind says what it does "
         "(item, race, class, curse on a player, Go Up a Level, monster, enhancer, one-shot, Half-Breed, ...); a one-shot "
         "that cancels a curse, steals a level or draws cards is played in or out of a fight.", ANYONE,
         {"card": CARD, "seat": SEAT_ANYONE,
          "monster": Param("str", "An enhancer: the monster of the fight it goes on (uid); a card that sends one "
                                  "off or acts on an escape roll: which monster (uid).", max_length=40),
          "side": Param("str", "A one-shot: the side it helps.", enum=("players", "monsters")),
          "uid": Param("str", "A card that cancels a curse (Wishing Ring): the curse on the player's sheet (its uid; "
                              "unsaid when they have only one).", max_length=40),
          "role": Param("str", "Instant Wall: who gets away with no die when running away — the fighter, the helper "
                               "or both (default: everyone in the fight). Invisibility Potion, Loaded Die, Flask of "
                               "Glue: whose escape roll, just made (default: the player's own; for the Glue, the "
                               "only one who escaped by a die).", enum=("fighter", "helper", "both")),
          "die": Param("int", "Loaded Die: the number the die just rolled shows now; Flask of Glue: the new roll "
                              "(leave out to let the app roll).", 1, 6)},
         plays_card=True)
_declare("dice.roll", "Roll dice for the table; everyone sees the result.", ANYONE,
         {"count": Param("int", "How many dice.", 1, 10), "sides": Param("int", "Sides of each die.", 2, 20)}, in_game=False)

# --- the turn ----------------------------------------------------------------------------------
_declare("turn.first", "Host only, before the first door: who begins — the app rolls a die for every player "
         "(highest begins, ties roll again), or the host names the player as a ruling.", HOST,
         {"seat": Param("str", "The player the host chooses to begin.", max_length=40),
          "roll": Param("bool", "Roll for it (the books' way).")})
_declare("seats.order", "Host only: the seat order play follows.", HOST,
         {"order": Param("list", "Every seat once, in playing order.", max_length=40)})
_declare("turn.door", "Kick open the door, once a turn: a monster starts the fight, a curse acts on you, "
         "anything else goes to your hand.", TURN,
         {"found": Param("str", "What the door showed.", enum=("monster", "curse", "other")), **_MONSTER,
          "curse": _CURSE["curse"]}, phases=("start",), alive=False)
_declare("combat.start", "Fight a monster on your turn: from the door (before it is opened) or, after an empty "
         "door, by looking for trouble; one fight a turn. The monster may come with it.", TURN, dict(_MONSTER),
         phases=("start", "door"))
_declare("turn.trouble", "Look for trouble: after a door without a monster, fight a monster from your hand.", TURN,
         dict(_MONSTER), phases=("door",))
_declare("turn.loot", "Loot the room: after a door without a monster, draw a face-down card instead of fighting.",
         TURN, phases=("door",))
_declare("turn.end", "End your turn after the door and its fight (or looting): Charity is checked when you give "
         "your hand's size; the next player's turn begins and the dead come back as new characters.", TURN_OR_HOST,
         {"hand": Param("int", "Cards in your hand now, for Charity.", 0, 100)})

# --- the fight ---------------------------------------------------------------------------------
_declare("combat.end", "Call the fight off without rewards (the fighter or the host).", FIGHT, needs_fight=True)
_declare("combat.monster.add", "Add a monster to the fight (a Wandering Monster joins this turn's fight).", ANYONE,
         dict(_MONSTER), needs_fight=True, plays_card=True)
_declare("combat.enhancer.add", "Play a monster enhancer on one monster of the fight (Mate copies it all).", ANYONE,
         {"monster": Param("str", "The monster's uid in the fight.", max_length=40), "card": CARD,
          "enhancer": Param("object", "An enhancer typed in: name, level_change, treasure_change, mate.")},
         needs_fight=True, plays_card=True)
_declare("combat.oneshot.add", "Play a one-shot for the players or for the monsters.", ANYONE,
         {"side": Param("str", "The side it helps.", enum=("players", "monsters")), "card": CARD,
          "one_shot": Param("object", "A one-shot typed in: name, bonus."),
          "name": Param("str", "A one-shot typed in: its name.", max_length=80),
          "bonus": Param("int", "A one-shot typed in: its bonus.", -100, 100)}, needs_fight=True, plays_card=True)
_declare("combat.help.ask", "The fighter asks one player for help, noting what was promised.", FIGHT,
         {"seat": Param("str", "The player asked.", max_length=40),
          "promise": Param("str", "What the helper was promised.", max_length=140)}, needs_fight=True)
_declare("combat.help.accept", "The player asked accepts to help.", FIGHT, needs_fight=True)
_declare("combat.help.decline", "Refuse to help, or stop helping.", FIGHT, needs_fight=True)
_declare("combat.power", "Fighter or helper: Berserking (Warrior), Turning (Cleric) or Flight (Wizard), 1 to 3 cards; "
         "a second Flight adds to the first, up to 3 cards in all.",
         FIGHT, {"power": Param("str", "The power.", enum=("berserk", "turning", "flight")),
                 "cards": Param("int", "Cards discarded for it.", 1, 3)}, needs_fight=True)
_declare("combat.backstab", "A Thief backstabs the fighter or the helper (-2), once per victim.", FIGHT,
         {"target": Param("str", "Who is backstabbed.", enum=("fighter", "helper"))}, needs_fight=True, plays_card=True)
_declare("combat.eliminate", "A monster leaves the fight without being killed (treasure, no level).", FIGHT,
         {"monster": Param("str", "The monster's uid in the fight.", max_length=40),
          "charm": Param("bool", "The Wizard's Charm did it."),
          "instead": Param("bool", "Its card lets this fighter or helper send it off for treasure instead "
                                   "(treasure_instead: the Wannabe Vampire and a Cleric).")},
         needs_fight=True, plays_card=True)
_declare("combat.claim", "Claim the win: the objection window opens.", FIGHT, needs_fight=True)
_declare("combat.resolve", "After the objection window: the fighter and helper take the levels, the treasures "
         "are drawn; the fight ends.", FIGHT, needs_fight=True)
_declare("combat.flee", "Run away: a roll per monster per fleeing player (the app's die or the real one); Bad Stuff "
         "of each monster that catches someone is applied.", FIGHT,
         {"fighter_rolls": _DICE, "helper_rolls": _DICE,
          "fighter_reroll": Param("str", "A Halfling's second roll (1.6, 1.71): a number, or app.", max_length=3),
          "helper_reroll": Param("str", "A Halfling's second roll (1.6, 1.71): a number, or app.", max_length=3),
          "order": Param("list", "The monsters' uids in the order the players flee them.", max_length=40),
          "fighter_gives": Param("list", "Items the fighter gives up instead of a die, each as monster uid:item uid "
                                         "(escape_with_item: a pole for the Pit Bull, 200 gold for the Floating Nose).",
                                 max_length=81),
          "helper_gives": Param("list", "The same for the helper.", max_length=81)},
         needs_fight=True)

# --- the table ---------------------------------------------------------------------------------
_declare("player.remove", "Host only: remove a player from the table.", HOST, {"seat": Param("str", "The seat.", max_length=40)},
         in_game=False)
_declare("host.transfer", "Host only: hand the host role to another player.", HOST,
         {"seat": Param("str", "The seat.", max_length=40)}, in_game=False)
_declare("settings.objection", "Host only: seconds to wait for objections before rewards (the books say about 2.6).",
         HOST, {"seconds": Param("number", "The objection window.", 0, 30)}, in_game=False)


#: Actions of the card game only: Munchkin Quest has its own sheet, map and fight.
for _name in ([n for n in CATALOGUE if n.split(".")[0] in ("race", "class", "half_breed", "super_munchkin", "item")]
              + ["level.kill", "character.die", "card.play", "choice.make", "turn.door", "combat.start", "turn.trouble",
                 "turn.loot", "combat.monster.add", "combat.enhancer.add", "combat.power", "combat.backstab",
                 "combat.eliminate", "combat.claim", "combat.resolve", "combat.flee"]):
    CATALOGUE[_name].game = CARD_GAME

# --- Munchkin Quest (the board game) -----------------------------------------------------------
_ROOM = Param("str", "A room of the map (its id, e.g. entrance, r12).", max_length=40)
_DIE = Param("int", "A die as rolled (1-6); leave out to let the app roll.", 1, 6)
_Q_MONSTER = Param("object", "The monster: name, level (1+), bonus, dice (how many it rolls, default 1), levels, "
                             "treasures, dreadful, owner (the seat of its stand's colour), bad_stuff ({health, levels, "
                             "gold, lose: headgear|armor|footgear|hands|worn, death, text}).")
_Q_FLAT = {"monster_name": Param("str", "A monster from a form: its name (instead of monster).", max_length=80),
           "monster_level": Param("int", "A monster from a form: its level.", 1, 100),
           "monster_bonus": Param("int", "A monster from a form: its bonus.", -50, 50),
           "monster_dice": Param("int", "A monster from a form: how many dice it rolls.", 1, 6),
           "monster_dreadful": Param("bool", "A monster from a form: dreadful."),
           "monster_owner": Param("str", "A monster from a form: its owner's seat.", max_length=40),
           "monster_bad_health": Param("int", "A monster from a form: health its Bad Stuff takes.", 0, 4)}
_Q_ITEM = {"name": Param("str", "The item's name.", max_length=60),
           "slot": Param("str", "headgear, armor, footgear, one_hand, two_hands, other (trinket, clothing, gadget: "
                                "any number) or potion (potions and scrolls, on the belt).",
                         enum=QUEST_SLOTS),
           "bonus": Param("int", "Its bonus in a fight when worn.", -20, 20),
           "big": Param("bool", "A Big item (the second one costs a move/action token a turn)."),
           "gold": Param("int", "Its value in gold.", 0, 10000)}
_PLACE = Param("str", "Where it goes: worn, belt (potions, scrolls) or backpack (2 cards).",
               enum=PLACES)


def _quest(name: str, summary: str, who: str, params: dict | None = None, **rest) -> None:
    _declare(name, summary, who, params, game=QUEST, **rest)


_quest("quest.draw", "Draw the turn's DxM card; a character starting the turn in a room with a monster fights it "
       "at once.", TURN, phases=("start",), alive=True)
_quest("quest.move", "Move to an adjacent explored room for what its passage cost to explore (move/action tokens); a "
       "monster there means a fight at once.",
       TURN, {"room": _ROOM, "cost": Param("int", "Move/action tokens it costs this time, when a card says otherwise "
                                                  "(default: what exploring through the passage cost).", 0, 3)},
       phases=("actions",), alive=True)
_quest("quest.explore", "Explore through a free junction: a new room (its tile's name) joined to yours, always with a "
       "monster, and the fight at once. The colour die names the monster's owner, who draws a DxM card.", TURN,
       {"name": Param("str", "The new room's name (its tile).", max_length=60), "market": Param("bool", "The room has a market."),
        "monster": _Q_MONSTER, **_Q_FLAT,
        "cost": Param("int", "Move/action tokens it costs (the tile says; default 1).", 0, 3)},
       phases=("actions",), alive=True)
_quest("quest.search", "Search the room: 1 move/action token and 1d6 on the search table; not with a monster in the "
       "room, not twice in one room a turn. Pick up dropped things too.", TURN,
       {"die": _DIE, "modifier": Param("int", "Modifiers to the roll.", -10, 10),
        "found": Param("str", "What the table gave, in a few words.", max_length=80),
        "pick": Param("list", "Dropped things in the room to pick up (their uids).", max_length=40)},
       phases=("actions",), alive=True)
_quest("quest.market", "Trade at the room's market (1 move/action token); not with a monster in the room.", TURN,
       {"gold": Param("int", "Gold gained (a sale) or spent (a purchase, negative); unsaid with uids: what the "
                             "items sold are worth.", -10000, 10000),
        "what": Param("str", "What was bought or sold.", max_length=80),
        "uids": Param("list", "Items of your gear sold: they leave the sheet.", max_length=40)},
       phases=("actions",), alive=True)
_quest("quest.monsters", "End the moves and actions: Charity (hand of 5 at most) and the colour die; the monsters move. "
       "After a death (the turn went straight to the monsters' move) it records the colour die alone, once.",
       TURN_OR_HOST, {"hand": Param("int", "Cards in your hand now, for Charity (unsaid: the DxM and Treasure cards "
                                            "the app counts).", 0, 100),
                      "dxm_given": Param("int", "Of the cards Charity takes, how many are DxM cards (the rest are "
                                                "Treasure; unsaid: DxM first).", 0, 100),
                      "colour": Param("str", "The seat whose colour the die showed (that player draws a DxM card).",
                                      max_length=40)}, phases=("actions", "monsters"))
_quest("quest.monster.move", "The monsters' move, a room at a time: a monster goes to an adjacent explored room, or "
       "through the Entrance (never stopping there) out to the room beyond it; never back into a room it has been in "
       "during this move.", ANYONE,
       {"monster": Param("str", "The monster's uid on the map.", max_length=40),
        "room": Param("str", "The room it goes to (beyond the Entrance when it goes through it).", max_length=40),
        "through": Param("str", "entrance: it passes through the Entrance without stopping, out by the opposite door "
                                "into room.", enum=(Q_ENTRANCE,))},
       phases=("monsters",))
_quest("quest.monster.place", "Put a monster on the map (a search, a card): it stands in a room; in the room of a "
       "fight going on it joins the fight.", ANYONE,
       {"monster": _Q_MONSTER, **_Q_FLAT, "room": _ROOM})
_quest("quest.room.join", "Record a passage between two explored rooms (the tiles changed).", TURN_OR_HOST,
       {"room": _ROOM, "to": _ROOM,
        "cost": Param("int", "Move/action tokens crossing it costs (its junction says; default 1).", 0, 3)})
_quest("quest.boss", "Fight the Boss: at the Entrance, at level 10 (the game is won by beating it).", TURN,
       {"monster": _Q_MONSTER, **_Q_FLAT}, phases=("actions",), alive=True)
_quest("quest.heal", "Heal: lose a level to get back 3 health (never above 4, never below level 1).", OWN,
       {"seat": SEAT}, alive=True)
_quest("quest.level.buy", "Buy a level for 1,000 gold in coins or items, once a turn, on your turn, not during a fight; "
       "never level 10.",
       OWN, {"seat": SEAT, "uids": Param("list", "Items in play sold for it (their gold value first, coins make up "
                                               "the rest; no change).", max_length=40)}, alive=True)
_quest("quest.health", "Health lost or regained by a card; no health left is death.", OWN,
       {"seat": SEAT, "change": Param("int", "Health lost (negative) or regained.", -8, 8)}, alive=True)
_quest("quest.gold", "Gold found, paid or lost by a card.", OWN,
       {"seat": SEAT, "change": Param("int", "Gold gained or lost (negative).", -100000, 100000)}, alive=True)
_quest("quest.cards", "Cards drawn into the hand or played from it (the app keeps the counts).", OWN,
       {"seat": SEAT, "dxm": Param("int", "DxM cards drawn (or played, negative).", -20, 20),
        "treasure": Param("int", "Treasure cards drawn (or played, negative).", -20, 20)}, alive=True)
_quest("quest.item.add", "Put an item into play: worn if it fits, on the belt, or in the backpack.", OWN,
       {"seat": SEAT, **_Q_ITEM, "item": Param("object", "The item as an object (name, slot, bonus, big, gold)."),
        "place": _PLACE}, alive=True)
_quest("quest.item.move", "Wear an item, put it on the belt or in the backpack; not while fighting.", OWN,
       {"seat": SEAT, "uid": UID, "place": _PLACE})
_quest("quest.item.drop", "Drop an item in your room (anyone there may pick it up).", OWN, {"seat": SEAT, "uid": UID})
_quest("quest.item.give", "Give or trade an item to a player in the same or an adjacent room; not while fighting.",
       OWN, {"seat": SEAT, "uid": UID, "to": Param("str", "The receiving seat.", max_length=40)})
_quest("quest.item.use", "Use a potion or scroll from the belt in a fight: its bonus for the side chosen, and it is gone.",
       FIGHT, {"uid": UID, "side": Param("str", "The side it helps.", enum=("players", "monsters"))}, needs_fight=True)
_quest("quest.die", "Die by choice: the hand is discarded, gold and items are dropped in the room, DxM cards and "
       "curses stay, one level is lost; the turn goes to the monsters' move; back with 4 health, 3 tokens and "
       "300 gold next turn.", OWN, {"seat": SEAT}, alive=True)
_quest("quest.fight.monster", "Another monster joins the fight (several monsters always fight together).", ANYONE,
       {"monster": _Q_MONSTER, **_Q_FLAT}, needs_fight=True)
_quest("quest.fight.ignore", "A monster that ignores the fighter (its card says when) stays out of the fight, in its "
       "room; with none left there is no fight. Never the Boss.", FIGHT,
       {"monster": Param("str", "The monster's uid in the fight.", max_length=40)}, needs_fight=True)
_quest("quest.fight.dice", "The fight's dice: a d6 for the fighter and the helper, the monsters' dice (their owners "
       "roll them); leave one out and roll=true for the app's die.", FIGHT,
       {"fighter_die": _DIE, "helper_die": _DIE,
        "monster_dice": Param("list", "The monsters' dice as rolled, in the fight's order (1-6 each).", max_length=3),
        "roll": Param("bool", "The app rolls every die not given.")}, needs_fight=True)
_quest("quest.fight.resolve", "Settle the fight on its dice: won, the levels and treasures; lost (ties go to the "
       "monsters), 1 health and then flee.", FIGHT, needs_fight=True)
_quest("quest.fight.flee", "Flee a lost fight: a d6 per monster, 1-4 applies its Bad Stuff (one that cannot apply "
       "costs 1 more health); fleeing costs no token. Run by the fighter, the helper or the host; each player types "
       "only their own dice (the host anyone's), the app rolls the rest.", FIGHT,
       {"fighter_rolls": _DICE, "helper_rolls": _DICE, "room": Param("str", "The adjacent explored room fled to.", max_length=40),
        "not_applicable": Param("list", "Monsters (uids) whose Bad Stuff in words cannot apply to the one caught.",
                                max_length=40)}, needs_fight=True)


def declare_profile_params(options: Mapping[str, str], top_range: tuple[int, int], profiles) -> None:
    """``settings.profile`` takes the profile and its options (declared by :mod:`.profiles`)."""
    params = {"profile": Param("str", "The new edition (rule profile).", enum=tuple(profiles)),
              "options": Param("object", "The options: " + "; ".join(f"{k}: {v}" for k, v in options.items())),
              **{key: Param("bool", doc) for key, doc in options.items() if key != "top_level"},
              "top_level": Param("int", options["top_level"], top_range[0], top_range[1])}
    _declare("settings.profile", "Host only: change the edition (rule profile) and its options; recorded.", HOST, params,
             in_game=False)


def decides(*names: str):
    """Register the decorated function as the decision of the named actions: ``f(state, actor, action, params)``."""
    def register(function):
        for name in names:
            CATALOGUE[name].decide = function
        return function
    return register


def check(state, actor: str, declared: Action, params: dict) -> str | None:
    """Apply the action's guards; answers the seat of the character it touches (if it takes ``seat``).

    Refusals that are rules of the game go through :func:`~.rules.refuse` where the host may
    let them through as a house ruling (playing out of turn); the others protect the table.
    """
    if declared.game and declared.game != state.profile.game:
        raise Refused("{action} is not part of {game}.", status=409, action=declared.name, game=GAMES[state.profile.game])
    if declared.in_game and state.winners:
        winner = state.players[state.winners[0]].name if state.winners[0] in state.players else "Someone"
        raise Refused("The game is over: {winner} has won.", rule="game.won", status=409, winner=winner)
    turn_seat = state.turn["seat"] if state.turn else None
    if declared.who == HOST and actor != state.host:
        raise Refused("Only the host can do that.", rule="table.host", status=403)
    if declared.who == TURN and turn_seat not in (None, actor):
        refuse(TURN_ONLY.get(declared.name, TURN_OWN), rule="turn.own", name=state.players[turn_seat].name)
    if declared.who == TURN_OR_HOST and actor not in (turn_seat, state.host) and turn_seat is not None:
        raise Refused("It is {name}'s turn: only they or the host can end it.", rule="turn.own", status=403,
                      name=state.players[turn_seat].name)
    if declared.needs_fight and not state.combat:
        raise Refused("No fight is on: the player whose turn it is starts one.", rule="turn.own", status=409)
    if declared.name in TURN_ONLY and actor in state.players and state.players[actor].dead:
        raise Refused("{name} is dead: no door, no fight and no cards until the next player's turn begins; "
                      "end the turn.", rule="death.state", status=409, name=state.players[actor].name)
    if _dead_with_no_cards(state, actor, declared) and not _on_the_roll_that_killed(state, actor, params):
        raise Refused("{name} is dead: no cards and no levels until the next player's turn begins.",
                      rule="death.state", status=409, name=state.players[actor].name)
    seat = None
    if "seat" in declared.params and declared.who in (OWN, ANYONE):
        seat = params.get("seat") or actor
        if seat not in state.players:
            raise Refused("There is no such player at this table.", status=404)
        if declared.who == OWN and seat != actor and actor != state.host:
            raise Refused("Only the host can change another player's character.", rule="table.host", status=403)
        if declared.alive and state.players[seat].dead:
            raise Refused("{name} is dead: no cards and no levels until the next player's turn begins.",
                          rule="death.state", status=409, name=state.players[seat].name)
    return seat


def _dead_with_no_cards(state, actor: str, declared: Action) -> bool:
    """Whether ``actor`` would play a card while dead: the hand went to the looters and the new character
    comes back with none (1.6 and 1.71, Death), so a dead player plays nothing on anyone. (Munchkin Quest
    keeps its own death: the DxM cards stay.)"""
    return (declared.plays_card and state.profile.game == CARD_GAME and actor in state.players
            and state.players[actor].dead)


def _on_the_roll_that_killed(state, actor: str, params: dict) -> bool:
    """Whether ``actor``, dead, plays a card on the very escape roll that killed them, right after it
    (``on_escape_roll``: an Invisibility Potion, a Loaded Die on their own die): the card acts before the
    Bad Stuff, which the app has already applied. The card's own checks follow (table._after_escape_roll).
    A Flask of Glue is for someone who escaped, never the dead's to play."""
    card = params.get("_card") or {}
    record = (state.turn or {}).get("escape")
    return bool((card.get("one_shot") or {}).get("on_escape_roll") in ("escape", "set") and record and record["version"] == state.version
                and actor in (record["fight"]["fighter"], record["fight"]["helper"]))


#: What the refusal says when someone else plays what belongs to the turn's player.
TURN_OWN = N_("It is {name}'s turn: only they can do that.")
TURN_ONLY = {"turn.door": N_("It is {name}'s turn: only they kick open the door."),
             "combat.start": N_("It is {name}'s turn: you fight a monster from the door only on your own turn."),
             "turn.trouble": N_("It is {name}'s turn: only they may look for trouble."),
             "turn.loot": N_("It is {name}'s turn: only they loot the room.")}


def allowed(state, actor: str | None, name: str) -> bool:
    """Whether the pages should offer ``name`` to ``actor`` now (the guards without parameters)."""
    if actor is None or actor not in state.players:
        return False
    declared = CATALOGUE[name]
    if declared.game and declared.game != state.profile.game:
        return False
    if declared.in_game and state.winners:
        return False
    turn = state.turn or {}
    if declared.who == HOST and actor != state.host:
        return False
    if declared.who == TURN and turn.get("seat") != actor:
        return False
    if declared.who == TURN_OR_HOST and actor not in (turn.get("seat"), state.host):
        return False
    if declared.needs_fight and not state.combat:
        return False
    if declared.name in TURN_ONLY and state.players[actor].dead:
        return False
    if _dead_with_no_cards(state, actor, declared):
        return False
    if declared.phases and turn.get("phase", "start") not in declared.phases:
        return False
    if declared.alive and "seat" in declared.params and declared.who == OWN and state.players[actor].dead:
        return False
    return True


def action(name: object) -> Action:
    if not isinstance(name, str) or name not in CATALOGUE:
        raise Refused("Unknown action {action!r}; known: {names}.", status=400, action=name, names=", ".join(CATALOGUE))
    return CATALOGUE[name]


def parse(name: str, raw: Mapping) -> dict:
    """The action's parameters from ``raw`` (form fields or JSON), typed and checked; unknown ones refused."""
    declared = action(name)
    extra = set(raw) - set(declared.params) - set(COMMON)
    if extra:
        raise Refused("Unknown parameter(s) for {action}: {names}.", status=400, action=name, names=", ".join(sorted(extra)))
    params: dict = {}
    override = raw.get("override")
    if override not in (None, ""):
        if not isinstance(override, str) or override not in OVERRIDABLE:
            raise Refused("override must be one of: {known}.", status=400, known=", ".join(sorted(OVERRIDABLE)))
        params["override"] = override
    for key, param in declared.params.items():
        if param.kind == "list" and hasattr(raw, "getlist"):
            value = raw.getlist(key)
        else:
            value = raw.get(key)
        if value in (None, "", []):
            continue
        params[key] = param.coerce(key, value)
    return params


def json_schema(name: str) -> dict:
    """The JSON body of one action, for the OpenAPI document."""
    declared = CATALOGUE[name]
    return {"type": "object", "title": name, "description": f"{declared.summary} (who: {declared.who}"
            + (f"; game: {declared.game}" if declared.game else "")
            + (f"; turn phases: {', '.join(declared.phases)}" if declared.phases else "") + ")",
            "required": ["action"], "additionalProperties": False,
            "properties": {"action": {"const": name},
                           **{key: param.schema() for key, param in declared.params.items()},
                           "reason": {"type": "string", "maxLength": 140, "description": "Why (shown in the history)."},
                           "expected_version": {"type": "integer", "description": "Refuse with 409 if the table "
                                                "has changed since this version."},
                           "override": {"enum": list(OVERRIDABLE), "description": "Host only: let this action "
                                        "through against that rule, once (a house ruling)."}}}
