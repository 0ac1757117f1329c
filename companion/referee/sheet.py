"""The character sheet: race, class, items and lasting curses, and what actually counts.

A character is plain data (see :class:`Character`). Every change to it is a list of small
*operations* (add or remove a race, an item or a curse, turn an item to use or to carried,
set Half-Breed, change the level by a delta). :func:`apply_ops` performs them,
:func:`invert_ops` gives the operations that undo them, and :func:`check` lists what a
character breaks; a change (or an undo) is refused when it *adds* a violation. Losing the
Dwarf race is the one change allowed to leave too many Big items: the sheet then says
which must go, and nothing else may make it worse. Losing a race or class turns the
items it allowed sideways (carried).

:func:`strength` totals the combat strength with a line per source, and for every item
that does not count, the reason and the rule.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from card_db.words import CLASSES, HANDS, RACES, SEXES, SLOTS, is_word

from .levels import change_level
from .profiles import Profile
from .rules import RULES, N_, Refused, refuse



@dataclass(frozen=True)
class Violation:
    """A rule the character breaks: ``template`` is the English message with ``{placeholders}``."""

    rule: str
    template: str
    params: tuple = ()  # (name, value) pairs, so that violations compare and hash

    @property
    def message(self) -> str:
        return self.template.format(**dict(self.params))


def races_of(p: dict) -> list[str]:
    """The character's races, as the rules count them: none means human, and Half-Breed with
    one race means half that race and half human (German rules 2003, Halb-Blut und Super
    Munchkin; Dutch rules 2001, Halfbloed en Super Munchkin), so ``["elf", "human"]``.
    With two races the character is half one, half the other, and not human."""
    races = list(p.get("races") or [])
    if not races:
        return ["human"]
    if p.get("half_breed") and len(races) == 1:
        return races + ["human"]
    return races


def is_(p: dict, who: dict) -> bool:
    """Whether the character is of the race, class or sex ``who`` names (``{"class": "cleric"}``)."""
    (key, value), = who.items()
    if key == "race":
        return value in races_of(p)
    if key == "class":
        return value in p.get("classes", [])
    return p.get("sex") == value


def restriction(p: dict, item: dict) -> dict | None:
    """Why the character cannot use ``item`` right now: ``{"only_for": [...]}`` or
    ``{"not_for": [...]}`` (conditions like ``{"class": "cleric"}``), or ``None``."""
    allowed = item.get("usable_by") or []
    if allowed and not any(is_(p, who) for who in allowed):
        return {"only_for": allowed}
    banned = [who for who in item.get("not_usable_by") or [] if is_(p, who)]
    if banned:
        return {"not_for": banned}
    return None


def restriction_problem(p: dict, item: dict) -> str | None:
    """:func:`restriction` in English words ("only for Clerics"), or ``None``."""
    found = restriction(p, item)
    if found is None:
        return None
    if "only_for" in found:
        return f"only for {describe_who(found['only_for'])}"
    return f"not for {describe_who(found['not_for'])}"


PLURALS = {"elf": "Elves", "dwarf": "Dwarves", "halfling": "Halflings", "human": "Humans", "warrior": "Warriors",
           "wizard": "Wizards", "cleric": "Clerics", "thief": "Thieves", "male": "male characters",
           "female": "female characters"}


def describe_who(entries: list[dict]) -> str:
    """``[{"class": "cleric"}, {"race": "elf"}]`` → "Clerics or Elves"."""
    return " or ".join(PLURALS.get(value, value) for who in entries for value in who.values())


def big_allowance(p: dict) -> int | None:
    """How many Big items the character may have; ``None`` for any number (Dwarf)."""
    return None if "dwarf" in p.get("races", []) else 1


SLOT_TAKEN = {"headgear": N_("Only one headgear can be in use ({names})."),
              "armor": N_("Only one armor can be in use ({names})."),
              "footgear": N_("Only one footgear can be in use ({names}).")}


def check(p: dict) -> list[Violation]:
    """Every rule the character breaks as it stands."""
    out: list[Violation] = []
    races, classes = p.get("races", []), p.get("classes", [])
    if len(set(races)) != len(races):
        out.append(Violation("race.one", "Two copies of the same race."))
    if len(races) > (2 if p.get("half_breed") else 1):
        out.append(Violation("race.one", "More races than allowed ({count}): a second race needs Half-Breed.",
                                (("count", len(races)),)))
    if len(set(classes)) != len(classes):
        out.append(Violation("class.one", "Two copies of the same class."))
    if len(classes) > (2 if p.get("super_munchkin") else 1):
        out.append(Violation("class.one", "More classes than allowed ({count}): a second class needs Super Munchkin.",
                                (("count", len(classes)),)))
    if p.get("half_breed") and not races:
        out.append(Violation("half-breed.needs-race", "Half-Breed needs a race."))
    if p.get("super_munchkin") and not classes:
        out.append(Violation("half-breed.needs-race", "Super Munchkin needs a class."))
    items = p.get("items", [])
    allowance = big_allowance(p)
    bigs = [i for i in items if i.get("big")]
    if allowance is not None and len(bigs) > allowance:
        out.append(Violation("items.big", "{count} Big items ({names}): without the Dwarf race only one may stay — "
                                          "sell, trade or give the others away.",
                             (("count", len(bigs)), ("names", ", ".join(i["name"] for i in bigs)))))
    used = [i for i in items if i.get("in_use")]
    for slot in ("headgear", "armor", "footgear"):
        worn = [i for i in used if i["slot"] == slot]
        if len(worn) > 1:
            out.append(Violation("items.slots", SLOT_TAKEN[slot], (("names", ", ".join(i["name"] for i in worn)),)))
    hands = sum(HANDS.get(i["slot"], 0) for i in used)
    if hands > 2:
        out.append(Violation("items.slots", "Only two hands' worth of items can be in use."))
    return out


def refuse_new_violations(before: dict, after: dict, allow: frozenset = frozenset()) -> None:
    """Refuse (with its rule) the first violation ``after`` has that ``before`` did not.

    ``allow`` names rules a change may break for now: losing the Dwarf race is always
    allowed, and the sheet then says which Big items must go.
    """
    old = set(check(before))
    for violation in check(after):
        if violation not in old and violation.rule not in allow:
            refuse(violation.template, rule=violation.rule, **dict(violation.params))


# --- operations ------------------------------------------------------------------------------

def apply_ops(players: dict[str, dict], ops: list[dict], profile: Profile) -> None:
    """Perform ``ops`` on the players' character dicts, in place.

    A field may be dotted (``quest.health``): the board game keeps its character data in
    the ``quest`` part of the sheet, changed by the same operations.

    A removal notes on its operation where the value stood (``at``), and an addition that
    carries ``at`` puts the value back there (at the end without it): so the inverse of a
    removal (``invert_ops``) restores the list as it was — an item taken by a curse and
    given back by an undo is where it was, not last. The note is made as the operation is
    applied, before its event is stored, so the log replays the same lists.
    """
    for op in ops:
        p = players[op["seat"]]
        kind = op["op"]
        holder, key = _holder(p, op.get("field", "items"))
        if kind == "add":
            values = holder.setdefault(key, [])
            values.insert(op.get("at", len(values)), copy.deepcopy(op["value"]))
        elif kind == "remove":
            values = holder.get(key, [])
            index = _find(values, op["value"])
            if index is None:
                what = op["value"].get("name") if isinstance(op["value"], dict) else None
                raise Refused("{what} is no longer on {name}'s sheet: it has changed since; undo the later changes first.",
                              status=409, what=what or key.replace("_", " "), name=p.get("name", "?"))
            values.pop(index)
            op["at"] = index
        elif kind == "set":
            if holder.get(key, False) != op["from"]:
                raise Refused("{name}'s {what} has changed since; undo the later changes first.", status=409,
                              name=p.get("name", "?"), what=key.replace("_", " "))
            holder[key] = copy.deepcopy(op["to"])
        elif kind == "patch":
            item = next((i for i in holder.get(key, []) if i["uid"] == op["uid"]), None)
            if item is None or item.get(op["key"]) != op["from"]:
                raise Refused("That item has changed since.", status=409)
            item[op["key"]] = op["to"]
        elif kind == "level":
            p["level"] = change_level(profile, p["level"], op["delta"], op.get("cause", "up")).after
        else:
            raise ValueError(f"unknown operation {kind!r}")


def _holder(p: dict, field: str) -> tuple[dict, str]:
    """The dict holding ``field`` of a character (``quest.gear`` lives in ``p["quest"]``) and its key."""
    if "." not in field:
        return p, field
    part, key = field.split(".", 1)
    return p.setdefault(part, {}), key


def _find(values: list, value) -> int | None:
    for index, existing in enumerate(values):
        if existing == value or (isinstance(value, dict) and isinstance(existing, dict)
                                 and "uid" in value and existing.get("uid") == value["uid"]):
            return index
    return None


def invert_ops(ops: list[dict]) -> list[dict]:
    """The operations that undo ``ops`` (in reverse order)."""
    out = []
    for op in reversed(ops):
        if op["op"] in ("add", "remove"):
            out.append({**op, "op": "remove" if op["op"] == "add" else "add"})
        elif op["op"] in ("set", "patch"):
            out.append({**op, "from": op["to"], "to": op["from"]})
        elif op["op"] == "level":
            out.append({**op, "delta": -op["delta"], "cause": "undo"})
    return out


# --- deciding actions ---------------------------------------------------------------------------

def parse_who(text: str, what: str) -> dict:
    """``"race:elf"`` → ``{"race": "elf"}``: how forms name a race, class or sex."""
    key, _, value = str(text).partition(":")
    if not _is_who({key: value}):
        raise Refused("{what} must look like race:elf, class:cleric or sex:female.", status=400, what=what)
    return {key: value}


def _is_who(who: object) -> bool:
    """Whether ``who`` names one race or class (any word: an expansion's cards add more, see
    ``card_db.words``) or one sex, the way the card schema's conditions do: ``{"race": "elf"}``."""
    if not isinstance(who, dict) or len(who) != 1:
        return False
    (key, value), = who.items()
    return key == "sex" and value in SEXES or key in ("race", "class") and is_word(value)


def _conditions(raw: dict, key: str) -> list[dict]:
    """An item's ``usable_by`` or ``not_usable_by`` typed in: a list of conditions, checked, so
    that a malformed one is refused here rather than failing when the sheet is totalled."""
    value = raw[key]
    if not isinstance(value, list) or len(value) > 10 or not all(_is_who(who) for who in value):
        raise Refused("{key} must be a list of conditions, each naming one race, class or sex, like {example}.",
                      status=400, key=key, example='[{"race": "elf"}]')
    return copy.deepcopy(value)


def _bonuses_if(raw: dict) -> list[dict]:
    """An item's ``bonus_if`` typed in: the bonus it gives instead while its wearer is of a race,
    class or sex (Horny Helmet), each checked."""
    key, low, high = "bonus_if", -20, 20
    value = raw[key]
    if not isinstance(value, list) or len(value) > 10 or not all(
            isinstance(b, dict) and set(b) == {"who", "value"} and _is_who(b["who"])
            and isinstance(b["value"], int) and not isinstance(b["value"], bool) and low <= b["value"] <= high
            for b in value):
        raise Refused("{key} must be a list of bonuses, each a condition and a whole number from {low} to {high}, "
                      "like {example}.", status=400, key=key, low=low, high=high,
                      example='[{"who": {"race": "elf"}, "value": 3}]')
    return copy.deepcopy(value)


def whole_number(raw: dict, key: str, low: int, high: int, default: int | None, message: str) -> int:
    """``raw[key]`` (or ``default``) checked to be a whole number from ``low`` to ``high``."""
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Refused(message, status=400, key=key, low=low, high=high)
    return value


def new_item(raw: dict, uid: str) -> dict:
    """An item in play from a card record's ``item`` part or hand-typed fields, checked."""
    if not isinstance(raw, dict):
        raise Refused("item must be an object.", status=400)
    name = str(raw.get("name") or "").strip()
    if not name or len(name) > 60:
        raise Refused("An item needs a name of at most 60 characters.", status=400)
    slot = raw.get("slot", "none")
    if slot not in SLOTS:
        raise Refused("slot must be one of: {names}.", status=400, names=', '.join(SLOTS))
    item = {"uid": uid, "name": name, "slot": slot, "in_use": False}
    for key, low, high in (("bonus", -20, 20), ("gold", 0, 10000), ("run_away_bonus", -10, 10)):
        item[key] = whole_number({key: raw.get(key) or 0}, key, low, high, 0,
                                 N_("{key} must be a whole number from {low} to {high}."))  # "" and None mean 0
    item["big"] = bool(raw.get("big", False))
    for key in ("usable_by", "not_usable_by"):
        if raw.get(key):
            item[key] = _conditions(raw, key)
    if raw.get("bonus_if"):
        item["bonus_if"] = _bonuses_if(raw)
    if raw.get("door_curse_immune"):
        item["door_curse_immune"] = True
    if raw.get("is_a"):  # what it is, for a card naming such things (Pit Bull: a wand, staff or pole)
        item["is_a"] = [str(word)[:20] for word in raw["is_a"]][:5]
    if raw.get("fire"):  # a fire attack while it counts (Large Angry Chicken: an extra level)
        item["fire"] = True
    if raw.get("card_id"):
        item["card_id"] = raw["card_id"]
    return item


def die_bonus(p: dict) -> int:
    """What the character's curses add to every die they roll (``die_bonus``: Chicken on Your Head, -1)."""
    return sum(effect.get("value", 0) for curse in p.get("curses", []) for effect in curse.get("effects") or []
               if effect.get("type") == "die_bonus")


def stealable(item: dict) -> bool:
    """Whether a Thief may try to steal ``item`` (thief.theft): small items only, never a Big one."""
    return not item.get("big")


def loot(players: list[dict], thief: str) -> list[tuple[dict, dict]]:
    """What the Thief at seat ``thief`` may try to steal: each other player's stealable items
    in play, with their owner, in seat and sheet order."""
    return [(owner, item) for owner in players if owner["seat"] != thief
            for item in owner.get("items", []) if stealable(item)]


def add_item_ops(p: dict, seat: str, item: dict) -> list[dict]:
    """Play an item: in use when it fits and the character may use it, else carried."""
    item = dict(item)
    bigs = [i["name"] for i in p.get("items", []) if i.get("big")]
    allowance = big_allowance(p)
    if item.get("big") and allowance is not None and len(bigs) >= allowance:
        refuse("{name} is Big and you already have a Big item ({names}): only one, unless you are a Dwarf.", rule="items.big", name=item['name'], names=', '.join(bigs))
    item["in_use"] = fits(p, item) and restriction_problem(p, item) is None
    return [{"op": "add", "seat": seat, "field": "items", "value": item}]


def fits(p: dict, item: dict, ignoring: set[str] = frozenset()) -> bool:
    """Whether ``item`` can be in use next to the items already in use (slots only)."""
    used = [i for i in p.get("items", []) if i.get("in_use") and i["uid"] not in ignoring and i["uid"] != item["uid"]]
    if item["slot"] in ("headgear", "armor", "footgear"):
        return not any(i["slot"] == item["slot"] for i in used)
    if item["slot"] in HANDS:
        return sum(HANDS.get(i["slot"], 0) for i in used) + HANDS[item["slot"]] <= 2
    return True


def use_item_ops(p: dict, seat: str, uid: str) -> list[dict]:
    """Put an item to use; the items it displaces (same slot, or hands) are turned to carried."""
    item = item_of(p, uid)
    if item.get("in_use"):
        raise Refused("{name} is already in use.", status=409, name=item['name'])
    problem = restriction_problem(p, item)
    if problem:
        raise Refused("{name} cannot be used: {problem}.", rule="items.restricted", name=item['name'], problem=problem)
    ops = []
    used = [i for i in p.get("items", []) if i.get("in_use")]
    if item["slot"] in ("headgear", "armor", "footgear"):
        displaced = [i for i in used if i["slot"] == item["slot"]]
    elif item["slot"] in HANDS:
        displaced, hands = [], sum(HANDS.get(i["slot"], 0) for i in used)
        for other in sorted((i for i in used if i["slot"] in HANDS), key=lambda i: HANDS[i["slot"]], reverse=True):
            if hands + HANDS[item["slot"]] <= 2:
                break
            displaced.append(other)
            hands -= HANDS[other["slot"]]
    else:
        displaced = []
    for other in displaced:
        ops.append({"op": "patch", "seat": seat, "field": "items", "uid": other["uid"], "key": "in_use",
                    "from": True, "to": False})
    ops.append({"op": "patch", "seat": seat, "field": "items", "uid": uid, "key": "in_use", "from": False, "to": True})
    return ops


def item_of(p: dict, uid) -> dict:
    """The character's item with this uid, or a 404 refusal."""
    item = next((i for i in p.get("items", []) if i["uid"] == uid), None)
    if item is None:
        raise Refused("There is no such item on this character.", status=404)
    return item


def sell_ops(p: dict, seat: str, uids: list, profile: Profile, double: str | None = None) -> tuple[list[dict], int, int]:
    """Sell items for levels: ``(ops, gold, levels)``, ``levels`` being the levels actually gained.

    1,000 gold a level, no change; the Halfling may sell one item at double price. A sale may
    take the character up to one below the top level, never to it: at Level 8 of 10, items
    worth 2,000 or more give one level and the rest of the gold is lost like any change; at
    Level 9 a sale that would give a level is refused (``items.sell-not-to-win``).
    """
    if not uids or len(set(uids)) != len(uids):
        raise Refused("Choose the items to sell, each once.", status=400)
    items = [item_of(p, uid) for uid in uids]
    if double is not None:
        if "halfling" not in p.get("races", []):
            raise Refused("Only a Halfling sells an item at double price (the Halfling card's ability).")
        if double not in uids:
            raise Refused("The double-price item must be one of the items sold.", status=400)
    gold = sum(i["gold"] * (2 if i["uid"] == double else 1) for i in items)
    bought = gold // 1000
    if bought < 1:
        raise Refused("{gold:,} gold pieces is not enough: a level costs 1,000 and there is no change.", rule="items.sell", gold=gold)
    room = profile.top_level - 1 - p["level"]  # the levels a sale may still give
    levels = min(bought, room)
    if levels < 1:
        refuse("Selling {gold:,} gold would reach Level {value}: the winning level cannot be bought.",
               rule="items.sell-not-to-win", gold=gold, value=p["level"] + bought)
        levels = min(bought, profile.top_level - p["level"])  # a house ruling let it through
    ops = [{"op": "remove", "seat": seat, "field": "items", "value": i} for i in items]
    ops.append({"op": "level", "seat": seat, "delta": levels, "cause": "up"})
    return ops, gold, levels


def race_ops(p: dict, seat: str, field: str, value: str, adding: bool, from_card: bool = False) -> list[dict]:
    """Add or discard a race or class; Half-Breed goes with the last race, Super Munchkin with either class.

    The base set's races and classes are known by name; a race or class card of an expansion
    (``from_card``) brings its own, and one already on the sheet may always be discarded."""
    known = RACES if field == "races" else CLASSES
    if value not in known and not from_card and not (not adding and value in p.get(field, [])):
        raise Refused("{field} must be one of: {names}.", status=400, field=field[:-1].title(), names=', '.join(known))
    current = p.get(field, [])
    if adding:
        if value in current and field == "races":
            raise Refused("Already {value}: never two copies of the same race.", rule="race.one", value=value.title())
        if value in current:
            raise Refused("Already {value}: never two copies of the same class.", rule="class.one", value=value.title())
        return [{"op": "add", "seat": seat, "field": field, "value": value}]
    if value not in current:
        raise Refused("Not {value}: nothing to discard.", status=404, value=value.title())
    ops = [{"op": "remove", "seat": seat, "field": field, "value": value}]
    # Half-Breed goes with the last race; Super Munchkin with either class
    # (German rules 2003 and Dutch rules 2001, Halb-Blut und Super Munchkin / Halfbloed en Super Munchkin)
    flag = "half_breed" if field == "races" else "super_munchkin"
    if p.get(flag) and (len(current) == 1 or field == "classes"):
        ops.append({"op": "set", "seat": seat, "field": flag, "from": True, "to": False})
    # items the character can no longer use are turned sideways (carried)
    remaining = {**p, field: [v for v in current if v != value]}
    for item in p.get("items", []):
        if item.get("in_use") and restriction_problem(remaining, item):
            ops.append({"op": "patch", "seat": seat, "field": "items", "uid": item["uid"], "key": "in_use",
                        "from": True, "to": False})
    return ops


def flag_ops(p: dict, seat: str, flag: str, on: bool) -> list[dict]:
    if on and p.get(flag):
        raise Refused("Already {card}.", status=409, card=FLAG_NAMES[flag])
    if not on and not p.get(flag):
        raise Refused("No {card} to discard.", status=409, card=FLAG_NAMES[flag])
    return [{"op": "set", "seat": seat, "field": flag, "from": not on, "to": on}]


FLAG_NAMES = {"half_breed": "Half-Breed", "super_munchkin": "Super Munchkin"}


def death_ops(p: dict, seat: str, profile: Profile) -> list[dict]:
    """Death (rule "death.keep"): every item goes, and whatever else the edition does not let a dead character keep
    (1.6 and 1.71 keep level, races, classes, Half-Breed, Super Munchkin and curses; the
    classic books name only level, race(s) and class(es), so lasting curses go too)."""
    ops = [{"op": "remove", "seat": seat, "field": "items", "value": i} for i in p.get("items", [])]
    # a pending choice of which item to lose has nothing left to choose from (1.6 Curses: ignore it)
    ops += [{"op": "remove", "seat": seat, "field": "choices", "value": c} for c in p.get("choices", [])
            if c.get("effect", {}).get("type") == "lose_item"]
    if "curses" not in profile.death_keeps:
        ops += [{"op": "remove", "seat": seat, "field": "curses", "value": c} for c in p.get("curses", [])]
    for flag in ("half_breed", "super_munchkin"):
        if flag not in profile.death_keeps and p.get(flag):
            ops.append({"op": "set", "seat": seat, "field": flag, "from": True, "to": False})
    # dead until the next player's turn brings the new character (death.state)
    ops.append({"op": "set", "seat": seat, "field": "dead", "from": bool(p.get("dead")), "to": True})
    return ops


# --- combat strength -----------------------------------------------------------------------------

def strength(p: dict) -> dict:
    """Combat strength with every line's source, and why the other items do not count."""
    lines = [{"source": "Level", "value": p["level"]}]
    not_counting = []
    for item in p.get("items", []):
        problem = restriction_problem(p, item)
        if not item.get("in_use") and not problem:
            not_counting.append({"source": item["name"], "uid": item["uid"], "reason": "carried, not in use",
                                 "rule": "items.carried", "citation": RULES["items.carried"].citation})
            continue
        if problem:
            not_counting.append({"source": item["name"], "uid": item["uid"], "reason": problem,
                                 "rule": "items.restricted", "citation": RULES["items.restricted"].citation,
                                 **restriction(p, item)})
            continue
        bonus = item.get("bonus", 0)
        for special in item.get("bonus_if", []):
            if is_(p, special["who"]):
                bonus = special["value"]
        if bonus:
            lines.append({"source": item["name"], "value": bonus, "uid": item["uid"],
                          **({"card_id": item["card_id"]} if item.get("card_id") else {})})
    pending = []
    for curse in p.get("curses", []):
        for effect in curse.get("effects", []):
            if effect.get("type") != "combat_bonus" or not effect.get("value"):
                continue
            if effect.get("until") == "next_combat":
                pending.append({"source": curse["name"], "value": effect["value"], "when": N_("in your next combat")})
            else:
                lines.append({"source": curse["name"], "value": effect["value"], "uid": curse["uid"]})
    return {"total": sum(line["value"] for line in lines), "lines": lines, "not_counting": not_counting,
            "pending": pending}


# --- the end of a turn and the end of a character ------------------------------------------------

def looting_order(players: dict[str, dict], dead: str) -> list[list[str]]:
    """Who picks from the body first: groups of seats by level, highest first.

    A group of more than one seat is a tie the players settle with a die.
    """
    levels = sorted({p["level"] for seat, p in players.items() if seat != dead}, reverse=True)
    return [[seat for seat, p in players.items() if seat != dead and p["level"] == level] for level in levels]


def charity(players: dict[str, dict], seat: str, hand: int, profile: Profile) -> dict:
    """What to do with ``hand`` cards at the end of the turn: how many go, and to whom.

    The excess goes to the lowest-level *living* players (a character with ``dead: true``
    receives nothing until the next player's turn begins: 1.6 Death; the classic books' Charity
    names the living player), split as evenly as possible; when the giver is the lowest living
    character, or tied for it, the excess is discarded.
    """
    if not 0 <= hand <= 100:
        raise Refused("The number of cards in hand must be between 0 and 100.", status=400)
    p = players[seat]
    limit = profile.dwarf_hand_limit if "dwarf" in p.get("races", []) else profile.hand_limit
    excess = max(0, hand - limit)
    if excess == 0:
        return {"limit": limit, "excess": 0, "discard": False, "shares": [], "skipped_dead": [], "rule": "charity"}
    living = {s: other for s, other in players.items() if s != seat and not other.get("dead")}
    lowest = min([other["level"] for other in living.values()] + [p["level"]])
    # the dead the cards would have gone to
    skipped = [s for s, other in players.items() if s != seat and other.get("dead")
               and other["level"] <= lowest and other["level"] < p["level"]]
    if p["level"] == lowest:
        return {"limit": limit, "excess": excess, "discard": True, "shares": [], "skipped_dead": skipped,
                "rule": "charity"}
    receivers = [s for s, other in living.items() if other["level"] == lowest]
    base, extra = divmod(excess, len(receivers))
    shares = [{"seat": s, "cards": base + (1 if i < extra else 0)} for i, s in enumerate(receivers)]
    return {"limit": limit, "excess": excess, "discard": False, "shares": shares, "giver_chooses_bigger": extra > 0,
            "skipped_dead": skipped, "rule": "charity"}
