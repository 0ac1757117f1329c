"""Munchkin Quest's character sheet and map: the board game's facts the referee checks.

The character keeps its board-game data in the ``quest`` part of the sheet (health,
move/action tokens, gold, the cards in hand as counts, the gear and the room it stands in),
changed by the sheet's operations with dotted fields (``quest.health``). The map is the
table's ``board``: the rooms explored and how they are joined, the monsters and where they
stand, the items and gold dropped in each room, whether the Boss has fallen. Board
operations (``{"op": "board", "key", "id", "from", "to"}``) set one entry, so undo swaps
``from`` and ``to`` like every other operation.

Everything here is pure: functions read plain dicts and answer operations or refuse with
the rule (Munchkin Quest, seed summary) that forbids the change.
"""
from __future__ import annotations

import copy

from card_db.words import HANDS

from .rules import N_, Refused, refuse

ENTRANCE = "entrance"
#: Where an item may be on a Quest character: worn (counts in combat), on the belt (potions and
#: scrolls, usable in combat) or in the backpack (carried, counts for nothing).
PLACES = ("worn", "belt", "backpack")
#: What an item is: the four worn slots, anything else worn in any number, or a potion/scroll for the belt.
QUEST_SLOTS = ("headgear", "armor", "footgear", "one_hand", "two_hands", "other", "potion")
ONE_EACH = ("headgear", "armor", "footgear")


#: The rule entry behind each line of the Quest sheet and each mark of a monster in a fight: the
#: phone links the line's name (the mark) to it.
SHEET_RULES = {"level": "quest.level-floor", "health": "quest.death", "tokens": "quest.turn", "gold": "quest.level.buy",
               "cards": "quest.charity", "room": "quest.map", "worn": "quest.gear.slots", "belt": "quest.gear",
               "backpack": "quest.backpack", "big": "quest.big", "start": "quest.start", "owner": "quest.monster-owner",
               "dreadful": "quest.dreadful"}


# --- the character ---------------------------------------------------------------------------

def new_character(numbers, room: str = ENTRANCE) -> dict:
    """A character's board-game data at the start (level 1 is the sheet's)."""
    return {"health": numbers.health, "tokens": numbers.tokens, "gold": numbers.gold, "dxm": numbers.hand[0],
            "treasure": numbers.hand[1], "gear": [], "room": room, "bought_turn": 0, "searched": []}


def q(p: dict) -> dict:
    """The ``quest`` part of a character dict."""
    return p.get("quest") or {}


def set_op(seat: str, p: dict, key: str, to) -> dict:
    """The operation setting ``quest.<key>`` of ``p`` to ``to``."""
    return {"op": "set", "seat": seat, "field": f"quest.{key}", "from": copy.deepcopy(q(p).get(key)), "to": to}


def bigs_over(p: dict, numbers) -> int:
    """Big items beyond the free one: each costs a move/action token a turn."""
    return max(0, sum(1 for i in q(p).get("gear", []) if i.get("big")) - numbers.big_free)


def tokens_per_turn(p: dict, numbers) -> int:
    return max(0, numbers.tokens - bigs_over(p, numbers))


def strength(p: dict) -> dict:
    """The character's fighting strength without the die: level, what is worn and lasting curses, with
    the reason the rest does not count (quest.gear), and the curses waiting for the next fight."""
    lines = [{"source": "Level", "value": p["level"]}]
    not_counting = []
    for item in q(p).get("gear", []):
        if item["where"] == "worn":
            if item.get("bonus"):
                lines.append({"source": item["name"], "value": item["bonus"], "uid": item["uid"]})
        elif item.get("bonus"):
            not_counting.append({"source": item["name"], "uid": item["uid"], "rule": "quest.gear",
                                 "reason": "in the backpack, not worn" if item["where"] == "backpack"
                                 else "on the belt: counts when used in a fight"})
    lines += curse_lines(p)
    return {"total": sum(line["value"] for line in lines), "lines": lines, "not_counting": not_counting,
            "pending": curse_lines(p, next_combat=True)}


def curse_lines(p: dict, next_combat: bool = False) -> list[dict]:
    """The combat bonuses of the character's curses (Mort: curses stay in play, and a fight counts every
    bonus): the lasting ones, or with ``next_combat`` those waiting for the next fight, which count in
    the fight going on when they are played (Autres) and are then gone."""
    out = []
    for curse in p.get("curses", []):
        for effect in curse.get("effects", []):
            if effect.get("type") == "combat_bonus" and effect.get("value") and \
                    (effect.get("until") == "next_combat") == next_combat:
                out.append({"source": curse["name"], "value": effect["value"], "uid": curse["uid"]})
    return out


def flag(raw: dict, key: str, where: str = "") -> bool:
    """A yes/no word of something typed in (a monster's ``dreadful``, an item's ``big``): true or false,
    or the words a form sends; absent is no. Anything else is refused, not read as yes (``bool("no")``
    is true: a monster sent with ``"dreadful": "false"`` was dreadful)."""
    value = raw.get(key)
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("", "0", "false", "off", "no", "1", "true", "on", "yes"):
        return value.strip().lower() in ("1", "true", "on", "yes")
    raise Refused("{key} must be true or false.", status=400, key=where + key)


def text_of(raw: dict, key: str):
    """A text typed in, or ``None`` when it is not text (a list, an object, a number): a name sent as
    ``["Orc"]`` must be refused, not kept as the text "['Orc']"."""
    value = raw.get(key)
    return value.strip() if isinstance(value, str) else None


def new_item(raw: dict, uid: str) -> dict:
    """A Quest item typed in or from a card: name, slot, bonus, Big, gold value; checked."""
    if not isinstance(raw, dict):
        raise Refused("item must be an object.", status=400)
    name = text_of(raw, "name")
    if not name or len(name) > 60:
        raise Refused("An item needs a name of at most 60 characters.", status=400)
    slot = raw.get("slot") or "other"
    if slot not in QUEST_SLOTS:
        raise Refused("slot must be one of: {names}.", status=400, names=", ".join(QUEST_SLOTS))
    out = {"uid": uid, "name": name, "slot": slot, "big": flag(raw, "big")}
    for key, low, high in (("bonus", -20, 20), ("gold", 0, 10000)):
        value = raw.get(key) or 0
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise Refused("{key} must be a whole number from {low} to {high}.", status=400, key=key, low=low, high=high)
        out[key] = value
    return out


def wear_problem(gear: list[dict], item: dict) -> tuple[str, dict] | None:
    """Why ``item`` cannot be worn next to what is worn (quest.gear.slots), or ``None``."""
    worn = [i for i in gear if i["where"] == "worn" and i["uid"] != item["uid"]]
    if item["slot"] == "potion":
        return N_("{name} is a potion or scroll: it goes on the belt, not worn."), {"name": item["name"]}
    if item["slot"] in ONE_EACH:
        taken = [i["name"] for i in worn if i["slot"] == item["slot"]]
        if taken:
            return N_("{name}: only one {word} can be worn ({names})."), {"name": item["name"], "word": item["slot"],
                                                                           "names": ", ".join(taken)}
    if item["slot"] in HANDS and sum(HANDS.get(i["slot"], 0) for i in worn) + HANDS[item["slot"]] > 2:
        return N_("{name}: one two-handed weapon or two one-handed ones, no more."), {"name": item["name"]}
    return None


def in_the_way(gear: list[dict], item: dict) -> list[dict]:
    """The worn items that keep ``item`` from being worn: the one in its slot (headgear, armor,
    footgear), or the weapons in hand for a weapon that needs more hands than are free."""
    worn = [i for i in gear if i["where"] == "worn" and i["uid"] != item["uid"]]
    if item["slot"] in ONE_EACH:
        return [i for i in worn if i["slot"] == item["slot"]]
    if item["slot"] in HANDS:
        return [i for i in worn if i["slot"] in HANDS]
    return []


def place_for(gear: list[dict], item: dict, asked: str | None, backpack: int) -> str:
    """Where a new or moved item goes: the place asked for, checked, or worn when it fits, else the backpack."""
    if asked is None:
        asked = "belt" if item["slot"] == "potion" else "worn" if wear_problem(gear, item) is None else "backpack"
    if asked == "worn":
        problem = wear_problem(gear, item)
        if problem:
            refuse(problem[0], rule="quest.gear.slots", **problem[1])
    elif asked == "belt" and item["slot"] != "potion":
        raise Refused("Only potions and scrolls go on the belt.", rule="quest.gear.slots", status=409)
    elif asked == "backpack":
        inside = [i["name"] for i in gear if i["where"] == "backpack" and i["uid"] != item["uid"]]
        if len(inside) >= backpack:
            raise Refused("The backpack holds {n} cards and is full ({names}).", rule="quest.backpack", status=409,
                          n=backpack, names=", ".join(inside))
    return asked


def gear_item(p: dict, uid) -> dict:
    found = next((i for i in q(p).get("gear", []) if i["uid"] == uid), None)
    if found is None:
        raise Refused("There is no such item on this character.", status=404)
    return found


# --- the map ---------------------------------------------------------------------------------

def new_board() -> dict:
    """The map at the start: only the Entrance, where the Boss waits."""
    return {"rooms": {ENTRANCE: {"name": "Entrance", "market": False}}, "joins": {}, "monsters": {}, "dropped": {},
            "boss": {"beaten": False}}


def board_op(board: dict, key: str, entry: str, to) -> dict:
    """The operation setting ``board[key][entry]`` to ``to`` (``None`` removes it)."""
    return {"op": "board", "key": key, "id": entry, "from": copy.deepcopy((board.get(key) or {}).get(entry)),
            "to": copy.deepcopy(to)}


def apply_board_op(board: dict, op: dict) -> None:
    holder = board.setdefault(op["key"], {})
    if holder.get(op["id"]) != op["from"]:
        raise Refused("The map has changed since.", status=409)
    if op["to"] is None:
        holder.pop(op["id"], None)
    else:
        holder[op["id"]] = copy.deepcopy(op["to"])


def join_key(a: str, b: str) -> str:
    return "|".join(sorted((a, b)))


def adjacent(board: dict, a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` or a room joined to it (no wall between): who may help, trade or be fled to."""
    return a == b or join_key(a, b) in (board.get("joins") or {})


def passage_cost(board: dict, a: str, b: str) -> int:
    """The move/action tokens crossing the passage between the joined rooms ``a`` and ``b`` costs:
    what exploring through it cost (a junction's kind sets its price, and it keeps it), 1 for a
    passage recorded without one (a board written before the price was kept holds ``True``: 1 as an int)."""
    return int((board.get("joins") or {}).get(join_key(a, b), 1))


def neighbours(board: dict, room: str) -> list[str]:
    return sorted(other for key in (board.get("joins") or {}) for pair in [key.split("|")] if room in pair
                  for other in pair if other != room)


def room_of(board: dict, room: str) -> dict:
    found = (board.get("rooms") or {}).get(room)
    if found is None:
        raise Refused("There is no room {room!r} on the map.", status=404, room=room)
    return found


def monsters_in(board: dict, room: str) -> list[dict]:
    return [m for m in (board.get("monsters") or {}).values() if m["room"] == room]


def room_name(board: dict, room: str) -> str:
    return ((board.get("rooms") or {}).get(room) or {}).get("name", room)


#: What a Quest monster typed in may say.
MONSTER_KEYS = frozenset({"name", "level", "bonus", "dice", "levels", "treasures", "dreadful", "owner", "bad_stuff",
                          "boss"})


def new_monster(raw: dict, uid: str, room: str, seats) -> dict:
    """A monster on the map from typed-in numbers: level (at least 1), bonus, dice, levels and treasures
    a kill gives, dreadful, its owner (the colour of its stand) and its Bad Stuff."""
    if not isinstance(raw, dict):
        raise Refused("monster must be an object.", status=400)
    unknown = sorted(set(raw) - MONSTER_KEYS)
    if unknown:  # a word mistyped would be a number silently left out
        raise Refused("A monster has no {key!r}; it has: {known}.", status=400, key=unknown[0],
                      known=", ".join(sorted(MONSTER_KEYS)))
    name = text_of(raw, "name")
    if not name or len(name) > 80:
        raise Refused("A monster needs a name of at most 80 characters.", status=400)
    out = {"uid": uid, "name": name, "room": room}
    for key, low, high, default in (("level", 1, 100, None), ("bonus", -50, 50, 0), ("dice", 1, 6, 1),
                                    ("levels", 1, 5, 1), ("treasures", 0, 20, 1)):
        value = raw.get(key, default)
        if key == "level" and isinstance(value, int) and not isinstance(value, bool) and value < 1:
            raise Refused("Nothing takes a monster below level 1 in Munchkin Quest.", rule="quest.level-floor", status=400)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise Refused("The monster's {key} must be a whole number from {low} to {high}.", status=400, key=key,
                          low=low, high=high)
        out[key] = value
    out["dreadful"] = flag(raw, "dreadful")
    if out["dreadful"]:
        out["levels"] = max(out["levels"], 2)
    owner = raw.get("owner")
    if owner not in (None, "") and (not isinstance(owner, str) or owner not in seats):
        raise Refused("The owner must be a seat at this table (the colour of the monster's stand).", status=400)
    out["owner"] = owner or None
    out["bad_stuff"] = bad_stuff_of(raw.get("bad_stuff"))
    if flag(raw, "boss"):
        out["boss"] = True
    return out


def bad_stuff_of(raw) -> dict:
    """A Quest Bad Stuff: health, levels and gold lost, the worn slot whose item is lost, death, or words
    the table applies by hand."""
    if raw in (None, ""):
        return {}
    if isinstance(raw, str):
        return {"text": raw[:200]}
    if not isinstance(raw, dict):
        raise Refused("bad_stuff must be an object or a text.", status=400)
    out = {}
    for key, high in (("health", 4), ("levels", 9), ("gold", 10000)):
        value = raw.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
            raise Refused("bad_stuff.{key} must be a whole number from 0 to {high}.", status=400, key=key, high=high)
        if value:
            out[key] = value
    if raw.get("lose"):
        if raw["lose"] not in ONE_EACH + ("hands", "worn"):
            raise Refused("bad_stuff.lose must be one of: {names}.", status=400,
                          names=", ".join(ONE_EACH + ("hands", "worn")))
        out["lose"] = raw["lose"]
    if flag(raw, "death", "bad_stuff."):
        out["death"] = True
    if raw.get("text"):
        if not isinstance(raw["text"], str):
            raise Refused("{key} must be text.", status=400, key="bad_stuff.text")
        out["text"] = raw["text"][:200]
    return out


def bad_stuff_parts(p: dict, bad: dict, profile) -> tuple[list[tuple[str, object]], bool]:
    """What ``bad`` takes from the character ``p`` (pairs of what and how much), and whether any of it
    could apply. A Bad Stuff in words only counts as applying (the table does it by hand), and so does
    one nobody described: every monster card has one, and the players apply it as the card says
    (they say when it cannot apply: ``not_applicable``)."""
    parts: list[tuple[str, object]] = []
    if not bad:
        return parts, True
    if bad.get("death"):
        return [("death", True)], True
    if bad.get("health"):
        parts.append(("health", bad["health"]))
    if bad.get("levels") and p["level"] > profile.min_level:
        parts.append(("levels", min(bad["levels"], p["level"] - profile.min_level)))
    if bad.get("gold") and q(p).get("gold", 0) > 0:
        parts.append(("gold", min(bad["gold"], q(p)["gold"])))
    if bad.get("lose"):
        worn = [i for i in q(p).get("gear", []) if i["where"] == "worn"
                and (bad["lose"] == "worn" or i["slot"] == bad["lose"]
                     or (bad["lose"] == "hands" and i["slot"] in HANDS))]
        if worn:
            parts.append(("item", worn[0]))
    applies = bool(parts) or (bool(bad.get("text")) and not any(k in bad for k in ("health", "levels", "gold", "lose")))
    return parts, applies
