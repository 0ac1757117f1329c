"""Short, plain summaries of a card's numbers for lists and pages (English for now)."""
from __future__ import annotations

SLOT_NAMES = {"headgear": "Headgear", "armor": "Armor", "footgear": "Footgear", "one_hand": "1 hand",
              "two_hands": "2 hands", "none": "No slot"}
KIND_NAMES = {"monster": "Monster", "curse": "Curse", "monster_enhancer": "Monster enhancer", "race": "Race",
              "class": "Class", "special": "Special", "item": "Item", "one_shot": "One-shot",
              "go_up_a_level": "Go Up a Level"}


def who(entries: list[dict]) -> str:
    return ", ".join(f"{value.title()}" + ("s" if key != "sex" else "") for entry in entries for key, value in entry.items())


def facts(card: dict) -> list[tuple[str, str]]:
    """``(label, value)`` pairs: the numbers a player asks about, in reading order."""
    out: list[tuple[str, str]] = [("Kind", KIND_NAMES.get(card["kind"], card["kind"])), ("Deck", card["deck"].title())]
    m = card.get("monster")
    if m:
        out += [("Level", str(m["level"])), ("Treasures", str(m["treasures"])), ("Levels for a kill", str(m.get("levels", 1)))]
        if m.get("undead"):
            out.append(("Undead", "yes"))
        for mod in m.get("modifiers", []):
            (key, value), = mod["against"].items()
            out.append((f"Against {value.title()}{'s' if key != 'sex' else ''}", f"{mod['value']:+d}"))
        if "will_not_pursue" in m:
            out.append(("Will not pursue", f"Level {m['will_not_pursue']['max_level']} or below"))
        if "run_away_modifier" in m:
            out.append(("Run Away", f"{m['run_away_modifier']:+d}"))
    e = card.get("enhancer")
    if e:
        if e.get("mate"):
            out.append(("Effect", "a copy of the monster with all its enhancers"))
        else:
            out += [("Monster level", f"{e.get('level_change', 0):+d}"), ("Treasures", f"{e.get('treasure_change', 0):+d}")]
    i = card.get("item")
    if i:
        out += [("Bonus", f"{i['bonus']:+d}"), ("Slot", SLOT_NAMES[i["slot"]]), ("Size", "Big" if i.get("big") else "small"),
                ("Gold", f"{i['gold']:,}")]
        if i.get("usable_by"):
            out.append(("Only for", who(i["usable_by"])))
        if i.get("not_usable_by"):
            out.append(("Not for", who(i["not_usable_by"])))
        if i.get("run_away_bonus"):
            out.append(("Run Away", f"{i['run_away_bonus']:+d}"))
        for b in i.get("bonus_if", []):
            out.append((f"Bonus for {who([b['who']])}", f"{b['value']:+d}"))
    o = card.get("one_shot")
    if o:
        if o.get("bonus"):
            out.append(("Bonus", f"{o['bonus']:+d} for one combat"))
        out.append(("Gold", f"{o['gold']:,}"))
        if o.get("usable_by"):
            out.append(("Only for", who(o["usable_by"])))
    if card["kind"] == "go_up_a_level":
        out.append(("Levels", f"+{card['levels']}"))
    c = card.get("curse")
    if c:
        out.append(("Timing", "stays until removed" if c["timing"] == "persistent" else "at once, then discarded"))
    if card.get("copies", 1) > 1:
        out.append(("Copies in the set", str(card["copies"])))
    return out


def headline(card: dict) -> str:
    """One line for a search result: "Monster · Level 10 · 3 treasures"."""
    parts = [KIND_NAMES.get(card["kind"], card["kind"])]
    if m := card.get("monster"):
        parts += [f"Level {m['level']}", f"{m['treasures']} treasure{'s' if m['treasures'] != 1 else ''}"]
        if m.get("levels", 1) > 1:
            parts.append(f"{m['levels']} levels")
    if i := card.get("item"):
        parts += [f"{i['bonus']:+d}", SLOT_NAMES[i["slot"]]] + (["Big"] if i.get("big") else []) + [f"{i['gold']} gold"]
    if (o := card.get("one_shot")) and o.get("bonus"):
        parts.append(f"{o['bonus']:+d}")
    if (e := card.get("enhancer")) and not e.get("mate"):
        parts.append(f"{e.get('level_change', 0):+d} level")
    return " · ".join(parts)
