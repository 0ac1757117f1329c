"""Short, plain summaries of a card's numbers for lists and pages, in any language.

Every function takes ``_``, a gettext function, so that the web layer can pass the phone's
language while this package stays free of Flask; without it the summaries are English.
The strings are marked with ``_(...)`` so that ``scripts/i18n`` extracts them.
"""
from __future__ import annotations

from collections.abc import Callable

Gettext = Callable[[str], str]


def _english(message: str) -> str:
    return message


def slot_name(slot: str, _: Gettext = _english) -> str:
    return {"headgear": _("Headgear"), "armor": _("Armor"), "footgear": _("Footgear"), "one_hand": _("1 hand"),
            "two_hands": _("2 hands"), "none": _("No slot")}.get(slot, slot)


def kind_name(kind: str, _: Gettext = _english) -> str:
    return {"monster": _("Monster"), "curse": _("Curse"), "monster_enhancer": _("Monster enhancer"), "race": _("Race"),
            "class": _("Class"), "special": _("Special"), "item": _("Item"), "one_shot": _("One-shot"),
            "go_up_a_level": _("Go Up a Level")}.get(kind, kind)


KIND_APART = " / "  # between the names of several kinds (``kind_names``)


def kind_names(kinds, _: Gettext = _english) -> str:
    """Several kinds named, "Item / Monster": what a field takes, in a refusal."""
    return KIND_APART.join(kind_name(k, _) for k in kinds)


def who(entries: list[dict], _: Gettext = _english) -> str:
    """"Elves, Clerics" for a list of ``{"race": "elf"}``-like conditions."""
    names = {"elf": _("Elves"), "dwarf": _("Dwarves"), "halfling": _("Halflings"), "human": _("Humans"),
             "warrior": _("Warriors"), "wizard": _("Wizards"), "cleric": _("Clerics"), "thief": _("Thieves"),
             "male": _("male characters"), "female": _("female characters")}
    return ", ".join(names.get(value, value.title()) for entry in entries for value in entry.values())


def facts(card: dict, _: Gettext = _english) -> list[tuple[str, str]]:
    """``(label, value)`` pairs: the numbers a player asks about, in reading order."""
    deck = _("Door") if card["deck"] == "door" else _("Treasure")
    out: list[tuple[str, str]] = [(_("Kind"), kind_name(card["kind"], _)), (_("Deck"), deck)]
    m = card.get("monster")
    if m:
        out += [(_("Level"), str(m["level"])), (_("Treasures"), str(m["treasures"])),
                (_("Levels for a kill"), str(m.get("levels", 1)))]
        if m.get("undead"):
            out.append((_("Undead"), _("yes")))
        for mod in m.get("modifiers", []):
            out.append((_("Against %(who)s") % {"who": who([mod["against"]], _)}, f"{mod['value']:+d}"))
        if "will_not_pursue" in m:
            out.append((_("Will not pursue"), _pursuit(m["will_not_pursue"], _)))
        if "run_away_modifier" in m:
            out.append((_("Run Away"), f"{m['run_away_modifier']:+d}"))
        if m.get("no_escape"):
            out.append((_("Run Away"), _("impossible: its Bad Stuff applies")))
        if m.get("escape_levels_lost"):
            out.append((_("Levels lost even on an escape"), str(m["escape_levels_lost"])))
        if m.get("no_help"):
            out.append((_("Help"), _("nobody can help against it")))
        if m.get("level_only"):
            out.append((_("Players count"), _("their Level alone")))
        if m.get("no_level"):
            out.append((_("Players count"), _("their bonuses alone, not their Level")))
        if "may_pass" in m:
            passing = m["may_pass"]
            parts = [who([passing["who"]], _) if passing.get("who") else _("anyone")]
            if passing.get("unless"):
                parts.append(_("unless %(who)s") % {"who": who([passing["unless"]], _)})
            out.append((_("May be let by, no fight"), ", ".join(parts)))
        if "treasure_instead" in m:
            instead = m["treasure_instead"]
            if instead.get("optional"):
                value = (_("%(who)s may send it off: 1 treasure, no level") if instead["treasures"] == 1 else
                         _("%(who)s may send it off: %(n)d treasures, no level"))
            else:
                value = (_("%(who)s: 1 treasure, no level") if instead["treasures"] == 1 else
                         _("%(who)s: %(n)d treasures, no level"))
            out.append((_("Instead of a fight"), value % {"who": who([instead["who"]], _), "n": instead["treasures"]}))
        for effect in m.get("before_fight", []):
            if effect["type"] == "lose_item":
                n = effect.get("count", 1)
                out.append((_("Before the fight"), _("discard an item") if n == 1 else _("discard %(n)d items") % {"n": n}))
        if "escape_with_item" in m:
            wants = m["escape_with_item"]
            parts = [", ".join(thing_word(w, _) for w in wants.get("is_a", []))] if wants.get("is_a") else []
            if "min_gold" in wants:
                parts.append(_("worth %(n)s gold or more") % {"n": f"{wants['min_gold']:,}"})
            out.append((_("Lets you go for an item"), " · ".join(parts)))
        for extra in m.get("extra_treasures", []):
            out.append((_("Extra treasures for a kill"), _("%(who)s: +%(n)d") % {"who": who([extra["who"]], _), "n": extra["value"]}))
        if "extra_levels" in m:
            way = m["extra_levels"]["when"]
            value = {"alone": _("+%(n)d if killed alone, with no bonus"), "fire": _("+%(n)d if killed with fire")}.get(way)
            out.append((_("Extra levels for a kill"), value % {"n": m["extra_levels"]["value"]} if value else way))
    e = card.get("enhancer")
    if e:
        if e.get("mate"):
            out.append((_("Effect"), _("a copy of the monster with all its enhancers")))
        else:
            out += [(_("Monster level"), f"{e.get('level_change', 0):+d}"),
                    (_("Treasures"), f"{e.get('treasure_change', 0):+d}")]
    i = card.get("item")
    if i:
        out += [(_("Bonus"), f"{i['bonus']:+d}"), (_("Slot"), slot_name(i["slot"], _)),
                (_("Size"), _("Big") if i.get("big") else _("small")), (_("Gold"), f"{i['gold']:,}")]
        if i.get("usable_by"):
            out.append((_("Only for"), who(i["usable_by"], _)))
        if i.get("not_usable_by"):
            out.append((_("Not for"), who(i["not_usable_by"], _)))
        if i.get("run_away_bonus"):
            out.append((_("Run Away"), f"{i['run_away_bonus']:+d}"))
        for b in i.get("bonus_if", []):
            out.append((_("Bonus for %(who)s") % {"who": who([b["who"]], _)}, f"{b['value']:+d}"))
        if i.get("door_curse_immune"):
            out.append((_("Effect"), _("curses from the door you kick open do not act on you")))
        if i.get("fire"):
            out.append((_("Fire attack"), _("yes")))
        if i.get("is_a"):
            out.append((_("It is a"), ", ".join(thing_word(w, _) for w in i["is_a"])))
    o = card.get("one_shot")
    if o:
        if o.get("bonus"):
            out.append((_("Bonus"), _("%(bonus)s for one combat") % {"bonus": f"{o['bonus']:+d}"}))
        out.append((_("Gold"), f"{o['gold']:,}"))
        if o.get("usable_by"):
            out.append((_("Only for"), who(o["usable_by"], _)))
        if o.get("either_side", True) is False:
            out.append((_("Side"), _("its player's side only, never the monsters")))
        if o.get("cancels_curse"):
            out.append((_("Effect"), _("cancels a curse, in or out of a fight")))
        if o.get("steal_levels"):
            out.append((_("Effect"), _("takes %(n)d level(s) from another player") % {"n": o["steal_levels"]}))
        if o.get("fire"):
            out.append((_("Fire attack"), _("yes")))
        if o.get("draw_treasures"):
            out.append((_("Effect"), _("draw %(n)d Treasures") % {"n": o["draw_treasures"]}))
    if card.get("not_for_highest"):
        out.append((_("Not for"), _("the highest-level player, or one tied for it")))
    if card.get("discards_item"):
        out.append((_("Only while in play"), _("%(item)s, which goes to the discards") % {
            "item": card["discards_item"].replace("-", " ").title()}))
    if card["kind"] == "go_up_a_level":
        out.append((_("Levels"), f"+{card['levels']}"))
    c = card.get("curse")
    if c:
        out.append((_("Timing"), _("stays until removed") if c["timing"] == "persistent" else _("at once, then discarded")))
    if card.get("copies", 1) > 1:
        out.append((_("Copies in the set"), str(card["copies"])))
    return out


def thing_word(word: str, _: Gettext = _english) -> str:
    """What an item is (``is_a``), in the phone's language when it is a known word."""
    return {"wand": _("wand"), "staff": _("staff"), "pole": _("pole")}.get(word, word)


def _pursuit(pursuit: dict, _: Gettext) -> str:
    """Whom a monster lets go without a roll: "Level 4 or below, unless Elves"."""
    parts = [_("Level %(n)d or below") % {"n": pursuit["max_level"]}] if "max_level" in pursuit else []
    if pursuit.get("who"):
        parts.append(who([pursuit["who"]], _))
    if pursuit.get("unless"):
        parts.append(_("unless %(who)s") % {"who": who([pursuit["unless"]], _)})
    return ", ".join(parts)


def headline(card: dict, _: Gettext = _english) -> str:
    """One line for a search result: "Monster · Level 10 · 3 treasures"."""
    parts = [kind_name(card["kind"], _)]
    if m := card.get("monster"):
        parts += [_("Level %(n)d") % {"n": m["level"]}, (_("%(n)d treasure") if m["treasures"] == 1 else _("%(n)d treasures")) % {"n": m["treasures"]}]
        if m.get("levels", 1) > 1:
            parts.append(_("%(n)d levels") % {"n": m["levels"]})
    if i := card.get("item"):
        parts += [f"{i['bonus']:+d}", slot_name(i["slot"], _)] + ([_("Big")] if i.get("big") else [])
        parts.append(_("%(n)d gold") % {"n": i["gold"]})
    if (o := card.get("one_shot")) and o.get("bonus"):
        parts.append(f"{o['bonus']:+d}")
    if (e := card.get("enhancer")) and not e.get("mate"):
        parts.append(_("%(n)s level") % {"n": f"{e.get('level_change', 0):+d}"})
    return " · ".join(parts)
