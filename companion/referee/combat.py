"""Combat arithmetic: both totals with every line's source and rule, the outcome, the rewards,
and the running-away rolls.

Stateless: a complete description of a fight goes in (characters, monsters with their
enhancers, one-shots for either side, powers used, dice already rolled), a verdict comes
out. The description uses inline data only; the app turns card ids into that data from
the card database before calling :func:`evaluate`. Invalid descriptions raise
:class:`~companion.referee.rules.Refused` naming the rule they break.
"""
from __future__ import annotations

import copy

from jsonschema import Draft202012Validator

from card_db import describe
from card_db.schema import CARD_SCHEMA
from card_db.words import WORD_PATTERN

from . import sheet
from .profiles import OptionError, Profile, clean_options, get_profile
from .rules import RULES, N_, Refused

RUN_AWAY_NEEDS = 5  # 1.6 Running Away: escape on a 5 or better

#: The parts of a card a description may carry typed in, as the card schema has them: the
#: referee counts and performs only what that schema allows (a word where a number goes, an
#: effect it does not know, would fail the sums or the escape).
_CARD_MONSTER = CARD_SCHEMA["properties"]["monster"]["properties"]
_CURSE_EFFECTS = CARD_SCHEMA["properties"]["curse"]["properties"]["effects"]
_ONE_SHOT = CARD_SCHEMA["properties"]["one_shot"]["properties"]
#: A monster's own fight rules, from its card text (the card beats the rules: cards.override).
FIGHT_RULES = ("no_escape", "escape_levels_lost", "no_help", "level_only", "no_level", "may_pass", "treasure_instead",
               "extra_treasures", "extra_levels", "escape_with_item",
               "before_fight")
#: What the breakdown says of a monster gone from the fight without a kill (each phone says it in its
#: own words: companion.i18n.WORDS).
ELIMINATED = "eliminated (no level, treasure kept)"
LEFT_INSTEAD = "leaves without a fight (treasure instead, no level)"
_who = {"type": "object", "minProperties": 1, "maxProperties": 1, "additionalProperties": False,
        "properties": {"race": {"type": "string"}, "class": {"type": "string"}, "sex": {"type": "string"}}}
_int = {"type": "integer", "minimum": -100, "maximum": 100}
_character = {
    "type": "object", "additionalProperties": False, "required": ["level"],
    "properties": {
        "name": {"type": "string", "maxLength": 40},
        "level": {"type": "integer", "minimum": 1, "maximum": 100},
        "sex": {"enum": ["male", "female"]},
        "races": {"type": "array", "items": {"type": "string", "pattern": WORD_PATTERN}, "maxItems": 2},
        "classes": {"type": "array", "items": {"type": "string", "pattern": WORD_PATTERN}, "maxItems": 2},
        "half_breed": {"type": "boolean"}, "super_munchkin": {"type": "boolean"},
        "items": {"type": "array", "maxItems": 40, "items": {"type": "object", "properties": {"in_use": {"type": "boolean"}}}},
        "curses": {"type": "array", "maxItems": 20, "items": {"type": "object", "properties": {
            "name": {"type": "string", "maxLength": 80}, "effects": _CURSE_EFFECTS}}},
        "berserk": {"type": "integer", "minimum": 0, "maximum": 3,
                    "description": "Warrior: cards discarded for +1 each, once per combat"},
        "turning": {"type": "integer", "minimum": 0, "maximum": 3,
                    "description": "Cleric: cards discarded for +3 each in a combat against Undead, once per combat"},
        "flight": {"type": "integer", "minimum": 0, "maximum": 3,
                   "description": "Wizard: cards discarded for +1 each to Run Away"},
        "rolls": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 6},
                  "description": "the die for each monster when running away, in the order fled (none for a "
                                 "monster that cannot be run away from; for one that does not pursue this "
                                 "character, a die or none)"},
        "gives": {"type": "array", "maxItems": 10, "items": {"type": "integer", "minimum": 0},
                  "description": "the monsters (their places in monsters) this character escapes by giving up an "
                                 "item their card asks for (escape_with_item): no die for them"},
        "reroll": {"type": "integer", "minimum": 1, "maximum": 6,
                   "description": "Halfling: the second roll after a failed one (once; 1.6 and 1.71, "
                                  "refused by a profile whose Halflings take a penalty instead)"},
    },
}
INPUT_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "A fight to evaluate",
    "type": "object", "additionalProperties": False, "required": ["fighter", "monsters"],
    "properties": {
        "profile": {"type": "string"},
        "options": {"type": "object", "description": "the profile's options (epic, top_level, shared_victory, ...)"},
        "fighter": _character,
        "helper": {"oneOf": [_character, {"type": "null"}]},
        "helpers": {"type": "array", "description": "refused when it holds more than one helper"},
        "monsters": {"type": "array", "minItems": 1, "maxItems": 10, "items": {
            "type": "object", "additionalProperties": False, "required": ["level"],
            "properties": {
                "card": {"type": "string"}, "name": {"type": "string", "maxLength": 80},
                "level": {"type": "integer", "minimum": 0, "maximum": 100},
                "treasures": {"type": "integer", "minimum": 0, "maximum": 20},
                "levels": {"type": "integer", "minimum": 1, "maximum": 5},
                "undead": {"type": "boolean"},
                "modifiers": {"type": "array", "items": {"type": "object", "required": ["against", "value"],
                                                         "properties": {"against": _who, "value": _int}}},
                "run_away_modifier": _int,
                **{key: _CARD_MONSTER[key] for key in ("will_not_pursue", "bad_stuff", *FIGHT_RULES)},
                "enhancers": {"type": "array", "maxItems": 10, "items": {
                    "type": "object", "properties": {"card": {"type": "string"}, "name": {"type": "string"},
                                                     "level_change": _int, "treasure_change": _int,
                                                     "mate": {"type": "boolean"}}}},
                "eliminated": {"type": "boolean", "description": "removed without being killed (treasure, no level)"},
                "instead": {"type": "boolean", "description": "sent off as its card's treasure_instead allows (with "
                                                              "eliminated): that many treasures, not its own"},
            }}},
        "one_shots": {"type": "array", "maxItems": 20, "items": {
            "type": "object", "required": ["side"], "additionalProperties": False,
            "properties": {"card": {"type": "string"}, "name": {"type": "string"}, "bonus": _int,
                           "side": {"enum": ["players", "monsters"]}, "usable_by": _ONE_SHOT["usable_by"],
                           "either_side": _ONE_SHOT["either_side"], "fire": _ONE_SHOT["fire"],
                           "doubles": {"enum": ["fighter", "helper"],
                                       "description": "doubles that player's own combat strength (Doppleganger)"},
                           "escape": {"type": "array", "maxItems": 2, "uniqueItems": True,
                                      "items": {"enum": ["fighter", "helper"]},
                                      "description": "they get away from every monster with no die when running "
                                                     "away (Instant Wall)"},
                           "monster": {"type": "integer", "minimum": 0,
                                       "description": "which monster a monster-side one-shot helps (default the first)"}}}},
        "backstabs": {"type": "array", "maxItems": 20, "items": {"enum": ["fighter", "helper"]},
                      "description": "a Thief's backstab (-2) on the fighter or the helper, one entry each"},
        "run_away": {"type": "boolean", "description": "evaluate the escape rolls even when the fight is won"},
    },
}
_VALIDATOR = Draft202012Validator(INPUT_SCHEMA)


def _said(template: str, **params) -> dict:
    """A breakdown line's words as a template and its parameters (``say``), so that a phone
    tells them in its own language (``i18n.line_source``): ``name`` is a player's or a card's
    name, ``whom`` a list of ``{"race": "elf"}``-like conditions, ``count`` a number."""
    return {"template": template, **params}


def _spoken(say: dict) -> str:
    """``say`` in English, as the line's ``source``."""
    params = {key: describe.who(value) if key == "whom" else value for key, value in say.items() if key != "template"}
    return say["template"].format(**params)


def _line(side: str, source: str | dict, value: int, rule: str | None = None, **extra) -> dict:
    """A line of the breakdown; ``source`` is its English words, or a ``_said`` template."""
    if isinstance(source, dict):
        extra["say"], source = source, _spoken(source)
    line = {"side": side, "source": source, "value": value, **extra}
    if rule:
        line["rule"] = rule
        line["citation"] = RULES[rule].citation
    return line


def validate(fight: dict) -> None:
    """Refuse an invalid description with the first problem and, where one applies, its rule."""
    if isinstance(fight, dict) and len(fight.get("helpers") or []) > 1:
        raise Refused("Only one player can help in a fight.", rule="combat.one-helper", status=400)
    errors = sorted(_VALIDATOR.iter_errors(fight), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        error = errors[0]
        where = ".".join(str(p) for p in error.absolute_path) or "the fight"
        raise Refused("{where}: {problem}", status=400, where=where, problem=error.message)


def _prepare(character: dict, who: str, strict: bool = True) -> dict:
    """A character dict the sheet functions understand; items count as in use unless told otherwise."""
    p = {"level": character["level"], "sex": character.get("sex", "male"),
         "races": list(character.get("races", [])), "classes": list(character.get("classes", [])),
         "half_breed": character.get("half_breed", False), "super_munchkin": character.get("super_munchkin", False),
         "items": [], "curses": []}
    for index, raw in enumerate(character.get("items", [])):
        item = sheet.new_item(raw, uid=f"{who}-item-{index}")
        item["in_use"] = raw.get("in_use", True)
        p["items"].append(item)
    for index, raw in enumerate(character.get("curses", [])):
        p["curses"].append({"uid": f"{who}-curse-{index}", "name": str(raw.get("name", "curse")),
                            "effects": list(raw.get("effects", []))})
    for violation in sheet.check(p) if strict else ():
        raise Refused("{who}: {problem}", rule=violation.rule, status=400, who=character.get("name") or who,
                      problem=violation.message)
    return p


def _items_not_counting(p: dict) -> dict[str, str]:
    """The items a curse keeps from counting in this fight (``items_only``: Malign Mirror lets only
    armor count), by uid, with the reason."""
    out = {}
    for curse in p["curses"]:
        for effect in curse["effects"]:
            if effect.get("type") == "items_only":
                for item in p["items"]:
                    if item["slot"] != effect.get("slot"):
                        out[item["uid"]] = f"only {effect.get('slot')} counts ({curse['name']})"
    return out


def _expand_mates(monsters: list[dict]) -> list[dict]:
    """Mate brings a copy of its monster carrying every enhancer, whatever the order played."""
    out = []
    for index, monster in enumerate(monsters):
        enhancers = monster.get("enhancers", [])
        plain = [e for e in enhancers if not e.get("mate")]
        copies = 1 + sum(1 for e in enhancers if e.get("mate"))
        for n in range(copies):
            name = monster.get("name") or f"Monster {index + 1}"
            out.append({**copy.deepcopy(monster), "enhancers": plain, "index": index,
                        "name": name if n == 0 else f"{name}'s Mate"})
    return out


def evaluate(fight: dict, strict: bool = True) -> dict:
    """The verdict for a complete description of a fight (see :data:`INPUT_SCHEMA`).

    ``strict`` refuses characters that break a sheet rule (an impossible loadout in a
    description); the table's own fight passes ``False``, because its sheets may be in a
    state the rules allow for a moment (two Big items right after losing the Dwarf).
    """
    validate(fight)
    try:
        base = get_profile(fight.get("profile") or "munchkin-1.6")
        profile: Profile = base.with_options(clean_options(fight.get("options"), base))
    except KeyError as exc:
        raise Refused(str(exc.args[0]), status=400) from None
    except OptionError as exc:
        raise Refused(exc.template, status=400, **exc.params) from None
    for who in ("fighter", "helper"):
        character = fight.get(who)
        if character and character["level"] >= profile.top_level:
            raise Refused("{who} is already at Level {level}: the game is won.", rule="game.won", status=400, who=who, level=character['level'])
    fighter = _prepare(fight["fighter"], "fighter", strict)
    helper_raw = fight.get("helper") or ((fight.get("helpers") or [None])[0])
    helper = _prepare(helper_raw, "helper", strict) if helper_raw else None
    names = {"fighter": fight["fighter"].get("name") or "Fighter",
             "helper": (helper_raw or {}).get("name") or "Helper"}
    party = [("fighter", fighter, fight["fighter"])] + ([("helper", helper, helper_raw)] if helper else [])

    monsters = _expand_mates(fight["monsters"])
    for m in monsters:  # a monster whose card does not fight the fighter (Amazon) leaves: treasure instead
        if instead_for(m, fighter):
            m.update(eliminated=True, instead=True)
    alone = ", ".join(m["name"] for m in monsters if m.get("level_only") and not m.get("eliminated"))
    no_level = ", ".join(m["name"] for m in monsters if m.get("no_level") and not m.get("eliminated"))
    players: list[dict] = []
    bonuses: list[dict] = []  # what counts for the players besides their Levels (Pukachu: none of it)
    fire: list[str] = []  # the fire attacks that count for the players (Large Angry Chicken)
    strengths: dict[str, int] = {}  # each of the party's own combat strength as counted (a Doppleganger doubles it)
    not_counting = [dict(line, who=names[who]) for who, p, _ in party for line in sheet.strength(p)["not_counting"]]

    def count(line: dict, who: str, own: str | dict, level: bool = False) -> None:
        """A line for the players; against a monster that lets the Level alone count (Ghoulfiends),
        anything but a ``level`` is listed as not counting, with the card that says so; against one
        the Levels do not count against (Insurance Salesman), the ``level`` is. ``own`` is the
        line's words without the player's name (a ``_said`` template, or English)."""
        words = {"source": _spoken(own), "say": own} if isinstance(own, dict) else {"source": own}
        if no_level and level:
            not_counting.append({"who": who, **words, "value": line["value"], "no_level": no_level,
                                 "reason": f"Level does not count against {no_level}", "rule": "cards.override",
                                 "citation": RULES["cards.override"].citation})
        elif alone and not level:
            not_counting.append({"who": who, **words, "value": line["value"], "level_only": alone,
                                 "reason": f"only Level counts against {alone}", "rule": "cards.override",
                                 "citation": RULES["cards.override"].citation})
        else:
            players.append(line)
            strengths[who] = strengths.get(who, 0) + line["value"]
            if not level and line["value"] > 0:
                bonuses.append(line)

    for who, p, raw in party:
        strength = sheet.strength(p)
        mirrored = _items_not_counting(p)
        fiery = {item["uid"] for item in p["items"] if item.get("fire")}
        for line in strength["lines"]:
            if line.get("uid") in mirrored:
                not_counting.append({"who": names[who], "source": line["source"], "value": line["value"],
                                     "reason": mirrored[line["uid"]], "rule": "curses.effects",
                                     "citation": RULES["curses.effects"].citation})
                continue
            rule = "curses.lasting" if line.get("uid", "").startswith(f"{who}-curse") else "combat.compare"
            count(_line("players", f"{names[who]}: {line['source']}", line["value"], rule), names[who], line["source"],
                  level=line is strength["lines"][0])
            if line.get("uid") in fiery and not alone:
                fire.append(line["source"])
        for pending in strength["pending"]:  # "your next combat" curses count in this fight, fighter or helper
            count(_line("players", f"{names[who]}: {pending['source']}", pending["value"], "curses.effects"),
                  names[who], pending["source"])
        if raw.get("berserk") and not _power_lost(raw, p, "berserk", strict, names[who], not_counting):
            count(_line("players", _said(N_("{name}: Berserking (cards discarded: {count})"), name=names[who],
                                         count=raw["berserk"]), raw["berserk"], "combat.powers"),
                  names[who], _said(POWERS["berserk"][2], count=raw["berserk"]))
    for who in fight.get("backstabs", []):
        if who == "helper" and not helper:
            raise Refused("There is no helper to backstab.", status=400)
        count(_line("players", _said(N_("Backstab on {name}"), name=names[who]), -2, "combat.powers"), names[who],
              _said(N_("Backstab")))

    monster_lines: list[dict] = []
    per_monster = []
    characters = [p for _, p, _ in party]
    for m in monsters:
        total = m["level"]
        lines = [_line("monsters", f"{m['name']}: level", m["level"], "combat.compare")]
        for enhancer in m["enhancers"]:
            change = enhancer.get("level_change", 0)
            if change:
                lines.append(_line("monsters", f"{m['name']}: {enhancer.get('name', 'enhancer')}", change,
                                   "combat.enhancers"))
                total += change
        for modifier in m.get("modifiers", []):
            # counted once, however many of the party it applies to (1.6 Asking for Help)
            if any(sheet.is_(p, modifier["against"]) for p in characters):
                lines.append(_line("monsters", _said(N_("{name}: against {whom}"), name=m["name"],
                                                     whom=[modifier["against"]]),
                                   modifier["value"], "combat.helper-shares"))
                total += modifier["value"]
        treasures = max(0, m.get("treasures", 0) + sum(e.get("treasure_change", 0) for e in m["enhancers"]))
        if m.get("instead") and m.get("eliminated") and m.get("treasure_instead"):
            treasures = m["treasure_instead"]["treasures"]  # the card's number, whatever its enhancers
        elif not m.get("eliminated"):  # killed by such a character, fighter or helper: counted once
            treasures += sum(extra["value"] for extra in m.get("extra_treasures", [])
                             if any(sheet.is_(p, extra["who"]) for p in characters))
        per_monster.append({"name": m["name"], "strength": total, "eliminated": bool(m.get("eliminated")),
                            "treasures": treasures,
                            "levels": m.get("levels", 1), "index": m["index"],
                            "run_away_modifier": m.get("run_away_modifier", 0),
                            "will_not_pursue": (m.get("will_not_pursue") or {}).get("max_level"),
                            "pursuit": m.get("will_not_pursue") or {},
                            "extra_levels": m.get("extra_levels"), "escape_with_item": m.get("escape_with_item"),
                            "no_escape": bool(m.get("no_escape")), "escape_levels_lost": m.get("escape_levels_lost", 0),
                            "bad_stuff": m.get("bad_stuff") or {}})
        if not m.get("eliminated"):
            monster_lines.extend(lines)
        elif m.get("instead") and m.get("treasure_instead"):
            monster_lines.append(_line("monsters", f"{m['name']}: {LEFT_INSTEAD}", 0, "cards.override"))
        else:
            monster_lines.append(_line("monsters", f"{m['name']}: {ELIMINATED}", 0,
                                       "combat.eliminated"))

    # Turning (the Cleric card): +3 a discarded card in a combat against Undead, once per combat
    # however many Undead there are (as Berserking: 1.6 Asking for Help, "once per combat").
    undead = [m["name"] for m in monsters if m.get("undead") and not m.get("eliminated")]
    if undead:
        for who, p, raw in party:
            if raw.get("turning") and not _power_lost(raw, p, "turning", strict, names[who], not_counting):
                count(_line("players", _said(N_("{name}: Turning against Undead (cards discarded: {count})"),
                                             name=names[who], count=raw["turning"]),
                            3 * raw["turning"], "combat.powers"),
                      names[who], _said(POWERS["turning"][2], count=raw["turning"]))

    for shot in fight.get("one_shots", []):
        if shot["side"] == "monsters" and shot.get("either_side") is False:
            raise Refused("{card} helps its player's side only, never the monsters.", rule="combat.one-shots", status=400,
                          card=shot.get("name") or "one-shot")
        line = _line(shot["side"], shot.get("name") or "one-shot", shot.get("bonus", 0), "combat.one-shots")
        if "escape" in shot and shot["side"] == "players":  # Instant Wall: it acts when they run (_run_away)
            continue
        if shot.get("doubles") and shot["side"] == "players":
            # "Doubles your combat strength": the fighter's or the helper's own, as counted so far, once
            # more — not the other's, nor the one-shots (the card beats the rules: cards.override)
            role = shot["doubles"]  # (a helper gone from the fight has no strength here to double)
            count(_line("players", _said(N_("{name} ({player})"), name=line["source"], player=names[role]),
                        strengths.get(names[role], 0), "cards.override"),
                  names[role], line["source"])
            continue
        if shot["side"] == "monsters":  # (a restriction is about whom it helps: never the monsters')
            monster_lines.append(line)
        elif shot.get("usable_by") and not any(sheet.is_(p, w) for p in characters for w in shot["usable_by"]):
            not_counting.append({"who": "Players", "source": line["source"], "value": line["value"],
                                 "only_for": shot["usable_by"], "rule": "items.restricted",
                                 "reason": f"only for {sheet.describe_who(shot['usable_by'])}",
                                 "citation": RULES["items.restricted"].citation})
        else:
            count(line, "Players", line["source"])
            if shot.get("fire") and not alone:
                fire.append(line["source"])

    player_total = sum(line["value"] for line in players)
    monster_total = sum(line["value"] for line in monster_lines)
    warrior = any("warrior" in p["classes"] for p in characters)
    if player_total > monster_total:
        outcome, why = "win", "players' total is higher"
    elif player_total == monster_total and warrior:
        outcome, why = "win", "a tie, and a Warrior wins ties"
    else:
        outcome, why = "lose", "the monsters' total is equal or higher" if not warrior else "the monsters' total is higher"
    result = {
        "players": {"total": player_total, "lines": players, "not_counting": not_counting},
        "monsters": {"total": monster_total, "lines": monster_lines, "each": per_monster},
        "outcome": outcome, "margin": player_total - monster_total, "why": why,
        "rules": ["combat.compare"] + (["combat.warrior-ties"] if player_total == monster_total and warrior else [])
                 + (["helper.levels"] if helper else []),
    }
    if outcome == "win":
        result.update(_rewards(per_monster, fighter, helper, profile, bool(helper)))
        extra = _extra_levels(per_monster, alone=not helper and not bonuses, fire=bool(fire))
        if extra:
            result["levels"]["fighter"] = min(profile.top_level, fighter["level"] + result["levels"]["fighter"] + extra) - fighter["level"]
            result["wins_game"] = fighter["level"] + result["levels"]["fighter"] >= profile.top_level
            result["extra_levels"] = extra
            if helper and result["wins_game"] and profile.shared_victory:
                result["helper_wins_game"] = True
    else:
        result.update({"levels": {"fighter": 0, "helper": 0}, "treasures": 0, "wins_game": False,
                       "helper_wins_game": False})
    if outcome == "lose" or fight.get("run_away"):
        walls = {role: shot.get("name") or "one-shot" for shot in fight.get("one_shots", [])
                 if shot["side"] == "players" for role in shot.get("escape", ())}
        result["run_away"] = _run_away(party, names, per_monster, profile, strict, walls)
    _cite_in_edition([result["players"]["lines"], result["players"]["not_counting"], result["monsters"]["lines"],
                      result.get("run_away", [])], profile.id)
    return result


def _cite_in_edition(data, profile_id: str) -> None:
    """Cite every line in ``data`` (a verdict's lines) that names its rule in the fight's own edition's book (#13).

    The lines are built citing the default book (1.6); at a classic or 1.71 table the breakdown,
    the lines that do not count and the run-away rolls must name that edition's section instead,
    as a refusal does (:meth:`Rule.cite_for`)."""
    if isinstance(data, dict):
        if data.get("rule") in RULES and "citation" in data:
            data["citation"] = RULES[data["rule"]].cite_for(profile_id)
        for value in data.values():
            _cite_in_edition(value, profile_id)
    elif isinstance(data, list):
        for value in data:
            _cite_in_edition(value, profile_id)


#: Each class power a fight may have used, with its class and what the refusal of a description says.
POWERS = {"berserk": ("warrior", "{names} is not a Warrior: no Berserking.", N_("Berserking (cards discarded: {count})")),
          "turning": ("cleric", "{names} is not a Cleric: no Turning.", N_("Turning (cards discarded: {count})")),
          "flight": ("wizard", "{names} is not a Wizard: no Flight spell.", N_("Flight (cards discarded: {count})"))}


def _power_lost(raw: dict, p: dict, power: str, strict: bool, name: str, not_counting: list[dict]) -> bool:
    """Whether the character ``p`` used ``power`` without (or no longer with) its class. A described fight
    (``strict``) is refused; at the table the class may have been discarded since, even in the fight
    (1.6, Character Stats: a class may go at any time, and its powers count only while its card is out
    — Lose Your Class on a Warrior who has berserked): the power stops counting and says why in
    ``not_counting`` (it raised, and the fight could be neither shown, won nor run from)."""
    klass, refusal, words = POWERS[power]
    if klass in p["classes"]:
        return False
    if strict:
        raise Refused(refusal, rule="combat.powers", status=400, names=name)
    only = [{"class": klass}]  # said as a restricted item's reason is, in each phone's language
    said = _said(words, count=raw[power])
    not_counting.append({"who": name, "source": _spoken(said), "say": said,
                         "value": raw[power] * (3 if power == "turning" else 1), "only_for": only,
                         "reason": f"only for {sheet.describe_who(only)}", "rule": "combat.powers",
                         "citation": RULES["combat.powers"].citation})
    return True


def _extra_levels(per_monster: list[dict], alone: bool, fire: bool) -> int:
    """The levels monsters' cards add for a kill made their way (``extra_levels``): ``alone`` — no
    helper and nothing but Levels counting for the players (Pukachu); ``fire`` — a fire attack
    counting for the players (Large Angry Chicken). The fighter's, as the kill's levels are."""
    ways = {"alone": alone, "fire": fire}
    return sum(m["extra_levels"]["value"] for m in per_monster
               if not m["eliminated"] and m.get("extra_levels") and ways.get(m["extra_levels"]["when"]))


def _rewards(per_monster: list[dict], fighter: dict, helper: dict | None, profile: Profile, helped: bool) -> dict:
    killed = [m for m in per_monster if not m["eliminated"]]
    levels = sum(m["levels"] for m in killed)
    top = profile.top_level
    fighter_after = min(top, fighter["level"] + levels)
    wins = fighter_after >= top
    helper_levels, helper_wins = 0, False
    if helper and "elf" in helper.get("races", []) and profile.helper_gains_levels == "elf":
        # The helper's levels never win on their own; the classic books let fighter and Elf
        # helper who reach the top with the same kill win together.
        ceiling = top if wins and profile.joint_kill_wins else top - 1
        helper_levels = max(0, min(len(killed), ceiling - helper["level"]))
        helper_wins = helper["level"] + helper_levels >= top
    if helper and wins and profile.shared_victory:
        helper_wins = True
    return {
        "levels": {"fighter": fighter_after - fighter["level"], "helper": helper_levels},
        "treasures": sum(m["treasures"] for m in per_monster),
        "treasures_face_up": helped,
        "wins_game": wins,
        "helper_wins_game": helper_wins,
        "rewards_after": f"about {profile.objection_seconds} seconds without objection",
    }


def _run_away(party, names, per_monster, profile: Profile, strict: bool = True, walls: dict | None = None) -> list[dict]:
    """One roll per monster per fleeing player; 5 or better escapes, with every modifier (the Flight
    spell only while its user is a Wizard: :func:`_power_lost`). ``walls``: the roles an Instant Wall
    gets away (``escape``), with the card's name — no die, from every monster, even one nobody runs from
    (the one-shot beats the monster's card: our reading); a monster that costs levels even on an
    escape still does."""
    out = []
    chasing = [m for m in per_monster if not m["eliminated"]]
    for who, p, raw in party:
        bonus_lines = []
        if "elf" in p["races"]:
            bonus_lines.append({"source": "Elf", "value": 1})
        classic_halfling = "halfling" in p["races"] and profile.halfling_run_away == "penalty"
        if classic_halfling:  # the classic books: Halflings run away worse (the amount is our reading)
            bonus_lines.append({"source": "Halfling", "value": profile.halfling_run_away_penalty,
                                "rule": "halfling.run-away", "citation": RULES["halfling.run-away"].cite_for(profile.id)})
        for item in p["items"]:
            if item.get("in_use") and item.get("run_away_bonus") and not sheet.restriction_problem(p, item):
                bonus_lines.append({"source": item["name"], "value": item["run_away_bonus"]})
        for curse in p["curses"]:
            for effect in curse["effects"]:
                if effect.get("type") in ("run_away_bonus", "die_bonus"):  # die_bonus: every roll, Run Away too
                    bonus_lines.append({"source": curse["name"], "value": effect.get("value", 0)})
        if raw.get("flight") and not _power_lost(raw, p, "flight", strict, names[who], []):
            bonus_lines.append({"source": f"Flight ({raw['flight']} cards)", "value": raw["flight"]})
        rolls = list(raw.get("rolls") or [])
        reroll = raw.get("reroll")
        if reroll is not None and "halfling" not in p["races"]:
            raise Refused("{names} is not a Halfling: no reroll.", rule="combat.powers", status=400, names=names[who])
        if reroll is not None and classic_halfling:
            raise Refused("{names}: in the classic rules a Halfling has no reroll when running away (a penalty instead).",
                          rule="halfling.run-away", status=400, names=names[who])
        dice = iter(rolls)  # one die per monster that can be escaped, in the order fled
        rolled = [m for m in chasing if not m["no_escape"]
                  and not (m.get("escape_with_item") and m["index"] in (raw.get("gives") or ()))]
        # A monster that does not pursue this character (will_not_pursue) needs no die: with exactly one die
        # per monster that does, the dice are theirs; a die typed for it as well is taken for it, as before.
        skip_let_go = len(rolls) == sum(1 for m in rolled if not _lets_go(m["pursuit"], p))
        for monster in chasing:
            modifier = monster["run_away_modifier"]
            lines = bonus_lines + ([{"source": monster["name"], "value": modifier}] if modifier else [])
            needed = RUN_AWAY_NEEDS - sum(line["value"] for line in lines)
            entry = {"who": names[who], "role": who, "monster": monster["name"], "index": monster["index"],
                     "needs": max(1, needed),
                     "modifiers": lines, "citation": RULES["combat.run-away"].cite_for(profile.id),
                     "bad_stuff": ((monster["bad_stuff"].get("text") or {}).get("en")), "death": bool(monster["bad_stuff"].get("death"))}
            out.append(entry)
            if who in (walls or {}):
                entry.update({"escaped": True, "wall": walls[who], "why": f"{walls[who]}: no die",
                              "rule": "cards.override", "citation": RULES["cards.override"].citation})
                if monster["escape_levels_lost"]:
                    entry["levels_lost"] = monster["escape_levels_lost"]
                continue
            if monster.get("escape_with_item") and monster["index"] in (raw.get("gives") or ()):
                entry.update({"escaped": True, "gave_item": True, "why": "an item its card asks for was given up",
                              "rule": "cards.override", "citation": RULES["cards.override"].citation})
                continue  # no die: the card's way out
            if monster["no_escape"]:  # the card beats the rule: no roll, its Bad Stuff
                entry.update({"escaped": False, "no_escape": True, "why": "it cannot be run away from",
                              "rule": "cards.override", "citation": RULES["cards.override"].citation})
                continue
            let_go = _lets_go(monster["pursuit"], p)
            roll = None if let_go and skip_let_go else next(dice, None)
            if let_go:
                entry.update({"escaped": True, "why": let_go})
            elif roll is not None:
                entry["roll"] = roll
                escaped = roll >= needed
                if not escaped and reroll is not None:
                    entry["reroll"] = reroll
                    escaped = reroll >= needed
                    reroll = None  # once
                entry["escaped"] = escaped
                if escaped and monster["escape_levels_lost"]:
                    entry["levels_lost"] = monster["escape_levels_lost"]  # the card: even on an escape
    return out


def instead_for(monster: dict, p: dict, choosing: bool = False) -> bool:
    """Whether ``monster``'s card lets the character ``p`` take treasure instead of fighting it
    (``treasure_instead``): on its own when the card is not ``optional`` (the Amazon does not fight a
    female fighter), or — ``choosing`` — when the character asks for it (a Cleric chases the Wannabe
    Vampire off)."""
    instead = monster.get("treasure_instead")
    if not instead or not sheet.is_(p, instead["who"]):
        return False
    return choosing or not instead.get("optional")


def lets_by(monster: dict, p: dict) -> bool:
    """Whether ``monster``'s card lets the character ``p`` by without a fight (``may_pass``: the Stoned
    Golem lets anyone but a Halfling walk past, the Lawyers leave a Thief alone)."""
    passing = monster.get("may_pass")
    return passing is not None and _concerns(passing, p)


def _concerns(spec: dict, p: dict) -> bool:
    """Whether a card's ``who`` (only such a character; anyone unsaid) and ``unless`` (never such a
    character) take in the character ``p``."""
    return (not spec.get("who") or sheet.is_(p, spec["who"])) and not (spec.get("unless") and sheet.is_(p, spec["unless"]))


def _lets_go(pursuit: dict, p: dict) -> str | None:
    """Why a monster that does not pursue some characters lets this one go without a roll, or ``None``:
    ``max_level`` (that level or below; any level unsaid), ``who`` (only such a character),
    ``unless`` (never such a character: Squidzilla chases a low-level Elf)."""
    if not pursuit or p["level"] > pursuit.get("max_level", p["level"]):
        return None
    if not _concerns(pursuit, p):
        return None
    who = sheet.describe_who([pursuit["who"]]) if pursuit.get("who") else "anyone"
    level = f" of Level {pursuit['max_level']} or below" if "max_level" in pursuit else ""
    unless = f" unless they are {sheet.describe_who([pursuit['unless']])}" if pursuit.get("unless") else ""
    return f"it does not pursue {who}{level}{unless}"
