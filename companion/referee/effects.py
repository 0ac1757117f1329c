"""What a curse or a monster's Bad Stuff does to a character, from the card data.

A card's effects are small records (``card_db/schema.py``, ``_effect``): lose levels, drop to
a level, lose items, a race or a class, change sex, die, a bonus that lasts until the next
combat or until removed, or something the app cannot do (``other``), which is said to the
table as the card's text. :func:`perform` turns them into sheet operations for one
character (German rules 2003, Flüche; 1.6, Curses and Running Away: Bad Stuff is applied to
whoever is caught). Where the card lets someone choose (which item, which of two classes),
the result is a *choice* left on the sheet; :func:`choose` answers it.

Common keys of an effect:
- ``who`` (a race, class or sex): the effect applies only to such a character;
  ``unless``: it applies to anyone else;
- ``else_levels``: levels lost instead when there is nothing to take (Drooling Slime).

Everything here is pure: characters are plain dicts, and nothing is changed in place.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from . import sheet
from .history import said, thing
from .profiles import Profile
from .rules import Refused

#: Effects that stay on the sheet as part of a curse, rather than acting once.
LASTING = ("combat_bonus", "run_away_bonus", "die_bonus", "items_only")


@dataclass
class Outcome:
    """What effects did: sheet operations, choices left to make, the effects that stay (as a
    curse), the card texts the table acts out by hand, whether the character died, and the
    history's sentences."""

    ops: list[dict] = field(default_factory=list)
    choices: list[dict] = field(default_factory=list)
    lasting: list[dict] = field(default_factory=list)
    instructions: list[dict] = field(default_factory=list)
    dies: bool = False
    lines: list[dict] = field(default_factory=list)


def bad_stuff_effects(bad_stuff: dict | None) -> list[dict]:
    """A monster's Bad Stuff as effects: its ``effects``, or the older ``levels_lost`` and
    ``death`` fields of a card record."""
    bad_stuff = bad_stuff or {}
    if bad_stuff.get("effects"):
        return list(bad_stuff["effects"])
    out = []
    if bad_stuff.get("death"):
        out.append({"type": "death"})
    elif bad_stuff.get("levels_lost"):
        out.append({"type": "lose_levels", "value": bad_stuff["levels_lost"]})
    return out


def perform(players: dict[str, dict], seat: str, effects: list[dict], profile: Profile) -> Outcome:
    """Perform ``effects`` on the character in ``seat``, one after the other (each sees what the
    ones before did)."""
    players = copy.deepcopy(players)
    out = Outcome()
    for effect in effects:
        p = players[seat]
        if not _applies(p, effect):
            continue
        kind = effect["type"]
        if kind in LASTING or (kind == "other" and effect.get("until")):
            out.lasting.append(effect)
            continue
        if kind == "other":
            out.instructions.append(effect)
            continue
        if kind == "death":
            out.dies = True
            continue
        if kind == "level_to" and effect.get("lowest"):
            effect = {**effect, "value": min(q["level"] for q in players.values())}
        ops, choice, lines = _act(p, seat, effect, profile)
        if not ops and choice is None and effect.get("else_levels"):
            ops, _, lines = _act(p, seat, {"type": "lose_levels", "value": effect["else_levels"]}, profile)
        sheet.apply_ops(players, ops, profile)
        out.ops += ops
        out.lines += lines
        if choice is not None:
            out.choices.append(choice)
    return out


def choose(players: dict[str, dict], seat: str, choice: dict, picks: list, profile: Profile) -> tuple[list[dict], list[dict]]:
    """The operations and sentences of answering ``choice`` with ``picks``: exactly ``count``
    different options that are still there."""
    picks = [str(pick) for pick in picks]
    count = choice["count"]
    if len(picks) != count or len(set(picks)) != count:
        raise Refused("Pick exactly {count} of the options.", status=400, count=count)
    if any(pick not in choice["options"] for pick in picks):
        raise Refused("That is not one of the options.", status=400)
    p = players[seat]
    effect = choice["effect"]
    if effect["type"] == "lose_item":
        present = {i["uid"] for i in p.get("items", [])}
        if any(pick not in present for pick in picks):
            raise Refused("That has changed since; it is no longer there.", status=409)
        return _lose_items(p, seat, [i for i in p["items"] if i["uid"] in picks])
    field_name = "races" if effect["type"] == "lose_race" else "classes"
    if any(pick not in p.get(field_name, []) for pick in picks):
        raise Refused("That has changed since; it is no longer there.", status=409)
    return _lose_words(p, seat, field_name, picks, profile)


# --- one effect ------------------------------------------------------------------------------------

def _applies(p: dict, effect: dict) -> bool:
    if effect.get("who") and not sheet.is_(p, effect["who"]):
        return False
    return not (effect.get("unless") and sheet.is_(p, effect["unless"]))


def _act(p: dict, seat: str, effect: dict, profile: Profile) -> tuple[list[dict], dict | None, list[dict]]:
    """Operations, a choice or ``None``, and sentences for one acting effect."""
    kind = effect["type"]
    if kind == "lose_levels":
        return _to_level(p, seat, p["level"] - effect.get("value", 1), profile)
    if kind == "level_to":
        return _to_level(p, seat, effect.get("value", profile.min_level), profile)
    if kind == "change_sex":
        to = "female" if p["sex"] == "male" else "male"
        return ([{"op": "set", "seat": seat, "field": "sex", "from": p["sex"], "to": to}], None,
                [said("{name} is now {word}", name=p["name"], word=to)])
    if kind == "lose_item":
        return _lose_item(p, seat, effect)
    if kind in ("lose_race", "lose_class"):
        field_name = "races" if kind == "lose_race" else "classes"
        wanted = effect.get("race" if kind == "lose_race" else "class")
        have = [v for v in p.get(field_name, []) if wanted in (None, v)]
        if not have:
            return [], None, []
        if effect.get("all") or len(have) == 1 or wanted:
            ops, lines = _lose_words(p, seat, field_name, have, profile)
            return ops, None, lines
        return [], {"effect": effect, "count": 1, "options": have, "chooser": effect.get("pick", "target")}, []
    raise ValueError(f"unknown effect {kind!r}")


def _to_level(p: dict, seat: str, target: int, profile: Profile):
    target = max(target, profile.min_level)
    if target >= p["level"]:
        return [], None, []
    return ([{"op": "level", "seat": seat, "delta": target - p["level"], "cause": "down"}], None,
            [said("{name} drops to level {level}", name=p["name"], level=target)])


def _lose_item(p: dict, seat: str, effect: dict):
    """Lose items: ``slot`` (the one worn there), ``big``, ``count`` (1), and ``pick``: who
    chooses (``target``, ``caster``), the one that gives the biggest bonus (``best``: as it counts
    now — in use, usable by this character, a race's or class's own bonus; the victim chooses
    among equals; none when no item gives one) or ``all``."""
    items = p.get("items", [])
    if "slot" in effect:
        items = [i for i in items if i["slot"] == effect["slot"] and i.get("in_use")]
    if "big" in effect:
        items = [i for i in items if bool(i.get("big")) == effect["big"]]
    pick = effect.get("pick", "all" if "slot" in effect else "target")
    count = effect.get("count", 1)
    if pick == "best":
        counted = {line["uid"]: line["value"] for line in sheet.strength(p)["lines"] if line.get("uid")}
        items = [i for i in items if counted.get(i["uid"], 0) > 0]
        top = max((counted[i["uid"]] for i in items), default=0)
        items = [i for i in items if counted[i["uid"]] == top]
        pick = "target"
    if pick == "all" or len(items) <= count:
        ops, lines = _lose_items(p, seat, items)
        return ops, None, lines
    return [], {"effect": effect, "count": count, "options": [i["uid"] for i in items],
                "chooser": "caster" if pick == "caster" else "target"}, []


def _lose_items(p: dict, seat: str, items: list[dict]) -> tuple[list[dict], list[dict]]:
    ops = [{"op": "remove", "seat": seat, "field": "items", "value": item} for item in items]
    return ops, [said("{name} loses {item}", name=p["name"], item=thing(item)) for item in items]


def _lose_words(p: dict, seat: str, field_name: str, words: list[str], profile: Profile):
    players = {seat: copy.deepcopy(p)}
    ops = []
    for word in words:
        step = sheet.race_ops(players[seat], seat, field_name, word, adding=False)
        sheet.apply_ops(players, step, profile)
        ops += step
    return ops, [said("{name} loses {word}", name=p["name"], word=word) for word in words]


def check_not_chosen_over(state, seat: str | None, uids) -> None:
    """Refuse to let the items ``uids`` leave ``seat``'s play (sold, given, dropped, stolen, given up to
    a monster) while a curse or Bad Stuff waits for the choice of which of them goes: the curse acts
    at once (1.6, Curses), so getting rid of the item first would dodge it."""
    player = state.players.get(seat) if seat else None
    for choice in player.choices if player else []:
        if choice.get("effect", {}).get("type") == "lose_item" and set(uids) & set(choice["options"]):
            raise Refused("{card} is waiting for {name} to choose which item goes: that comes first.",
                          rule=choice.get("rule"), status=409, card=choice["source"]["name"],
                          name=state.players[choice["chooser"]].name)
