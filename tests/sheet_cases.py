"""Character-sheet cases from the rulebooks, run both by the referee and through the JSON API.

A case is a list of steps ``(actor, action, params)`` then an expectation: ``("refused",
rule)`` for the last step, or ``("ok", checks)`` on Ann's sheet afterwards. In params,
``{"uid_of": "Name"}`` stands for the uid of Ann's item of that name, ``{"uids_of": [...]}``
for several. Each case names the edition and section it comes from.
"""

CHAINSAW = {"name": "Chainsaw of Bloody Dismemberment", "bonus": 3, "slot": "two_hands", "big": True, "gold": 600}
ROCK = {"name": "Huge Rock", "bonus": 3, "slot": "two_hands", "big": True, "gold": 0}
MACE = {"name": "Mace of Sharpness", "bonus": 4, "slot": "one_hand", "gold": 600, "usable_by": [{"class": "cleric"}]}
HELM = {"name": "Helm of Courage", "bonus": 1, "slot": "headgear", "gold": 200}
HORNY = {"name": "Horny Helmet", "bonus": 1, "slot": "headgear", "gold": 600, "bonus_if": [{"who": {"race": "elf"}, "value": 3}]}
BOOTS = {"name": "Boots of Butt-Kicking", "bonus": 2, "slot": "footgear", "gold": 400}

CASES = {
    "second race needs Half-Breed (1.6 Character Stats, Race)":
        ([("Ann", "race.add", {"race": "elf"}), ("Ann", "race.add", {"race": "dwarf"})], ("refused", "race.one")),
    "never two copies of a race (1.6 Character Stats, Race)":
        ([("Ann", "race.add", {"race": "elf"}), ("Ann", "race.add", {"race": "elf"})], ("refused", "race.one")),
    "Half-Breed needs a race (1.6 Classes and Races)":
        ([("Ann", "half_breed.add", {})], ("refused", "half-breed.needs-race")),
    "second class needs Super Munchkin (1.6 Character Stats, Class)":
        ([("Ann", "class.add", {"class": "thief"}), ("Ann", "class.add", {"class": "wizard"})], ("refused", "class.one")),
    "two classes with Super Munchkin (1.6 Character Stats, Class)":
        ([("Ann", "class.add", {"class": "thief"}), ("Ann", "super_munchkin.add", {}),
          ("Ann", "class.add", {"class": "wizard"})], ("ok", {"classes": ["thief", "wizard"]})),
    "second headgear is carried and does not count (1.6 Items)":
        ([("Ann", "item.add", {"item": HELM}), ("Ann", "item.add", {"item": HORNY})], ("ok", {"strength": 2})),
    "Horny Helmet gives an Elf +3":
        ([("Ann", "race.add", {"race": "elf"}), ("Ann", "item.add", {"item": HORNY})], ("ok", {"strength": 4})),
    "one Big item (1.6 Items)":
        ([("Ann", "item.add", {"item": CHAINSAW}), ("Ann", "item.add", {"item": ROCK})], ("refused", "items.big")),
    "a Dwarf carries any number of Big items (1.6 Items)":
        ([("Ann", "race.add", {"race": "dwarf"}), ("Ann", "item.add", {"item": CHAINSAW}),
          ("Ann", "item.add", {"item": ROCK})], ("ok", {"strength": 4})),
    "Cleric-only mace on a non-Cleric does not count (1.6 Items)":
        ([("Ann", "item.add", {"item": MACE})], ("ok", {"strength": 1})),
    "Cleric-only mace cannot be put to use by a non-Cleric (1.6 Items)":
        ([("Ann", "item.add", {"item": MACE}), ("Ann", "item.use", {"uid_of": "Mace of Sharpness"})],
         ("refused", "items.restricted")),
    "a Cleric's mace counts (1.6 Items)":
        ([("Ann", "class.add", {"class": "cleric"}), ("Ann", "item.add", {"item": MACE})], ("ok", {"strength": 5})),
    "1,000 gold buys a level, no change (1.6 Selling Items for Levels)":
        ([("Ann", "item.add", {"item": CHAINSAW}), ("Ann", "item.add", {"item": BOOTS}),
          ("Ann", "item.sell", {"uids_of": ["Chainsaw of Bloody Dismemberment", "Boots of Butt-Kicking"]})],
         ("ok", {"level": 2, "strength": 2})),
    "less than 1,000 gold buys nothing (1.6 Selling Items for Levels)":
        ([("Ann", "item.add", {"item": CHAINSAW}), ("Ann", "item.sell", {"uids_of": ["Chainsaw of Bloody Dismemberment"]})],
         ("refused", "items.sell")),
    "selling only on your own turn (1.6 Selling Items for Levels)":
        ([("Ann", "item.add", {"item": {**HELM, "gold": 1000}}), ("Ann", "turn.door", {"found": "other"}),
          ("Ann", "turn.loot", {}), ("Ann", "turn.end", {}),
          ("Ann", "item.sell", {"uids_of": ["Helm of Courage"]})], ("refused", "turn.own")),
    "no item changes during a fight (1.6 Items)":
        ([("Ann", "item.add", {"item": HELM}), ("Ann", "combat.start", {}),
          ("Ann", "item.carry", {"uid_of": "Helm of Courage"})], ("refused", "items.not-in-combat")),
    "at Level 8, 2,000 gold buys Level 9 and no change (1.6 Selling Items for Levels)":
        ([("Ann", "level.up", {})] * 7 + [
            ("Ann", "item.add", {"item": {**HELM, "gold": 1200}}), ("Ann", "item.add", {"item": {**BOOTS, "gold": 1000}}),
            ("Ann", "item.sell", {"uids_of": ["Helm of Courage", "Boots of Butt-Kicking"]})],
         ("ok", {"level": 9, "items": []})),
    "at Level 9 no sale gives a level (1.6 Selling Items for Levels: not to Level 10)":
        ([("Ann", "level.up", {})] * 8 + [
            ("Ann", "item.add", {"item": {**HELM, "gold": 1000}}), ("Ann", "item.sell", {"uids_of": ["Helm of Courage"]})],
         ("refused", "items.sell-not-to-win")),
    "death keeps level, race and class (1.6 Death)":
        ([("Ann", "race.add", {"race": "elf"}), ("Ann", "level.up", {}), ("Ann", "item.add", {"item": BOOTS}),
          ("Ann", "character.die", {})], ("ok", {"level": 2, "races": ["elf"], "strength": 2})),
}


def resolve(params: dict, items: list[dict]) -> dict:
    """Replace ``uid_of`` / ``uids_of`` by the uids of the named items."""
    by_name = {item["name"]: item["uid"] for item in items}
    out = {k: v for k, v in params.items() if k not in ("uid_of", "uids_of")}
    if "uid_of" in params:
        out["uid"] = by_name[params["uid_of"]]
    if "uids_of" in params:
        out["uids"] = [by_name[name] for name in params["uids_of"]]
    return out
