"""Munchkin Quest's combat arithmetic: dice on both sides, ties to the monsters, fleeing a die per monster.

Stateless, like :mod:`.combat` for the card game: a complete description of a fight goes in
(the players' levels, worn items and bonuses and a d6 each; the monsters' levels, bonuses
and dice; one-shots), a verdict comes out with every line of both totals, the outcome (a tie
goes to the monsters), the rewards of a win and, for a lost fight, the health lost and the
result of fleeing each monster. The table's Quest fight (:mod:`.quest_table`) and the
stateless ``POST /api/v1/combat/evaluate`` / ``companion referee combat`` both call
:func:`judge` and :func:`flee`, so they cannot disagree.

Dice are given (the real dice) or rolled by the app: :func:`evaluate` rolls what is missing
and says which dice it rolled.
"""
from __future__ import annotations

import secrets

from .profiles import PROFILES, get_profile
from .quest import PLACES, bad_stuff_of, bad_stuff_parts
from .rules import RULES, Refused

ROLES = ("fighter", "helper")


def _line(side: str, source: str, value: int, **extra) -> dict:
    return {"side": side, "source": source, "value": value, **extra}


def _die(value, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise Refused("{where}: a die shows 1 to 6.", status=400, where=where)
    return value


def judge(fight: dict, profile) -> dict:
    """The verdict on a fight whose dice are all known.

    ``fight``: ``fighter`` and optional ``helper`` (``name``, ``level``, ``items`` worn with
    their ``bonus``, ``curses`` with theirs, optional ``bonus``, ``die``), ``monsters`` (``name``, ``level``, ``bonus``,
    ``rolls``: its dice, ``levels``, ``treasures``, ``dreadful``, ``owner``), ``one_shots``
    (``side``, ``bonus``, ``name``) and ``others_in_room`` (someone else sees the treasures).
    """
    lines = []
    for role in ROLES:
        who = fight.get(role)
        if not who:
            continue
        name = who.get("name") or role
        lines.append(_line("players", f"{name}: Level", who["level"], role=role))
        for item in who.get("items", []) + who.get("curses", []):
            if item.get("bonus"):
                lines.append(_line("players", f"{name}: {item['name']}", item["bonus"], role=role))
        if who.get("bonus"):
            lines.append(_line("players", f"{name}: bonus", who["bonus"], role=role))
        lines.append(_line("players", f"{name}: die", who["die"], role=role, die=True))
    for monster in fight["monsters"]:
        lines.append(_line("monsters", f"{monster['name']}: Level", monster["level"]))
        if monster.get("bonus"):
            lines.append(_line("monsters", f"{monster['name']}: bonus", monster["bonus"]))
        for number, roll in enumerate(monster["rolls"], 1):
            lines.append(_line("monsters", f"{monster['name']}: die {number}" if len(monster["rolls"]) > 1
                               else f"{monster['name']}: die", roll, die=True))
    for shot in fight.get("one_shots", []):
        lines.append(_line(shot["side"], shot.get("name") or "One-shot", shot.get("bonus", 0)))
    players = sum(line["value"] for line in lines if line["side"] == "players")
    monsters = sum(line["value"] for line in lines if line["side"] == "monsters")
    outcome = "win" if players > monsters else "lose"
    helper = bool(fight.get("helper"))
    dreadful = sum(1 for m in fight["monsters"] if m.get("dreadful"))
    gained = sum(m.get("levels", 1) for m in fight["monsters"])
    levels = {"fighter": gained - (dreadful if helper else 0), "helper": dreadful if helper else 0}
    rule = RULES["quest.combat"]
    verdict = {
        "game": "munchkin-quest", "profile": profile.id,
        "players": {"total": players, "lines": [ln for ln in lines if ln["side"] == "players"]},
        "monsters": {"total": monsters, "lines": [ln for ln in lines if ln["side"] == "monsters"]},
        "outcome": outcome, "winner": "players" if outcome == "win" else "monsters",
        "tie": players == monsters, "ties_to": "monsters",
        "rule": rule.id, "citation": rule.cite_for(profile.id), "rules": [rule.id] + (["quest.help"] if helper else []),
        "explanation": ("players win" if outcome == "win" else
                        "a tie: the monsters win ties" if players == monsters else "the monsters are stronger"),
    }
    if outcome == "win":
        top = profile.top_level
        verdict["levels"] = levels
        verdict["level_after"] = {role: min(top, fight[role]["level"] + levels[role])
                                  for role in ROLES if fight.get(role)}
        verdict["treasures"] = sum(m.get("treasures", 1) for m in fight["monsters"])
        verdict["treasures_face_up"] = bool(fight.get("others_in_room") or helper)
        owners = {fight[role].get("seat") or fight[role].get("name") or role for role in ROLES if fight.get(role)}
        owners |= {role for role in ROLES if fight.get(role)}
        verdict["owner_draws"] = [{"owner": m["owner"], "monster": m["name"]} for m in fight["monsters"]
                                  if m.get("owner") in owners]
        verdict["rules"] += (["quest.dreadful"] if dreadful else []) + (["quest.monster-owner"] if verdict["owner_draws"] else [])
    else:
        verdict["health_lost"] = {role: 1 for role in ROLES if fight.get(role)}
    return verdict


def flee(fight: dict, profile) -> list[dict]:
    """Fleeing a lost fight: each player who fought rolls a die per monster (``fighter["flee"]``, in
    the monsters' order); 1 to 4 (the profile's ``caught_up_to``) applies that monster's Bad Stuff, and
    a Bad Stuff that cannot apply costs one more health instead."""
    caught_up_to = profile.quest.caught_up_to
    out = []
    for role in ROLES:
        who = fight.get(role)
        if not who:
            continue
        rolls = who.get("flee") or []
        character = {"level": who["level"], "quest": {"gold": who.get("gold", 0), "gear": [
            {**item, "where": item.get("where", "worn"), "slot": item.get("slot", "other")} for item in who.get("items", [])]}}
        for index, monster in enumerate(fight["monsters"]):
            if index >= len(rolls):
                raise Refused("{who} needs a die for {monster}.", rule="quest.flee", status=400,
                              who=who.get("name") or role, monster=monster["name"])
            roll = rolls[index]
            result = {"who": who.get("name") or role, "role": role, "monster": monster["name"], "index": index,
                      "roll": roll, "caught": roll <= caught_up_to}
            if result["caught"]:
                bad = monster.get("bad_stuff") or {}
                parts, applies = bad_stuff_parts(character, bad, profile)
                if monster.get("cannot_apply"):
                    parts, applies = [], False
                result["bad_stuff"] = [{"what": what, "value": value if what != "item" else value["name"]}
                                       for what, value in parts] + ([{"what": "text", "value": bad["text"]}]
                                                                    if bad.get("text") else [])
                result["applies"] = applies
                result["health"] = dict(parts).get("health", 0) + (0 if applies else 1)
                result["dies"] = bool(dict(parts).get("death"))
            out.append(result)
    return out


# --- the stateless evaluation (API and CLI) -----------------------------------------------------

def evaluate(raw: dict) -> dict:
    """Judge a Quest fight described in JSON (see docs/api.md, "A Munchkin Quest fight"): dice not
    given are rolled by the app and named in ``rolled_by_app``."""
    if not isinstance(raw, dict):
        raise Refused("The fight must be a JSON object.", status=400)
    known = {"profile", "game", "fighter", "helper", "players", "monsters", "one_shots", "others_in_room", "flee", "roll"}
    extra = sorted(set(raw) - known)
    if "players" in raw:  # the players as a list: the fighter, then the helper
        players = raw["players"]
        if not isinstance(players, list) or not 1 <= len(players) <= 2 or "fighter" in raw or "helper" in raw:
            raise Refused("players must list the fighter and at most one helper (or use fighter and helper).",
                          rule="combat.one-helper", status=400)
        raw = {**{k: v for k, v in raw.items() if k != "players"}, **dict(zip(ROLES, players))}
    if isinstance(raw.get("flee"), list):  # the fighter's dice alone
        raw = {**raw, "flee": {"fighter": raw["flee"]}}
    if extra:
        raise Refused("Unknown field(s) in a Munchkin Quest fight: {names}.", status=400, names=", ".join(extra))
    profile_id = raw.get("profile") or "munchkin-quest"
    quest_profiles = [name for name, known in PROFILES.items() if known.quest]
    if profile_id not in quest_profiles:  # (a number or a list too: never looked up)
        raise Refused("profile must be a Munchkin Quest profile: {names}.", status=400, names=", ".join(quest_profiles))
    profile = get_profile(profile_id)
    rolled: list[str] = []
    may_roll = raw.get("roll", True) is not False

    def die(value, where: str) -> int:
        value = _die(value, where)
        if value is None:
            if not may_roll:
                raise Refused("{where}: a die is needed (give it, or let the app roll).", rule="quest.combat",
                              status=400, where=where)
            value = secrets.randbelow(6) + 1
            rolled.append(where)
        return value

    fight: dict = {"monsters": [], "one_shots": [], "others_in_room": bool(raw.get("others_in_room"))}
    for role in ROLES:
        who = raw.get(role)
        if who is None:
            continue
        if not isinstance(who, dict):
            raise Refused("{role} must be an object.", status=400, role=role)
        if role == "helper" and who.get("room", "same") not in ("same", "adjacent"):
            raise Refused("A helper must be in the same room or an adjacent one, with no wall between.",
                          rule="quest.help", status=409)
        level = who.get("level")
        if isinstance(level, bool) or not isinstance(level, int) or not profile.min_level <= level <= profile.top_level:
            raise Refused("{role}.level must be a whole number from {low} to {high}.", status=400, role=role,
                          low=profile.min_level, high=profile.top_level)
        items = who.get("items") or []
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            raise Refused("{role}.items must be a list of objects.", status=400, role=role)
        worn = [{"name": str(i.get("name") or "item"), "bonus": _int(i.get("bonus", 0), f"{role}.items.bonus"),
                 "slot": i.get("slot", "other"), "where": i.get("where", "worn" if i.get("in_use", True) else "backpack")}
                for i in items]
        fight[role] = {"name": str(who.get("name") or role), "level": level, "bonus": _int(who.get("bonus", 0), f"{role}.bonus"),
                       "items": [i for i in worn if i["where"] == "worn"], "gold": _int(who.get("gold", 0), f"{role}.gold"),
                       "die": die(_first(who, ("die", "roll", "dice")), f"{role} die")}
        if "health" in who:
            fight[role]["health"] = _int(who["health"], f"{role}.health")
    if "fighter" not in fight:
        raise Refused("A fight needs a fighter.", status=400)
    monsters = raw.get("monsters")
    if not isinstance(monsters, list) or not 1 <= len(monsters) <= 10:
        raise Refused("monsters must be a list of 1 to 10 monsters.", status=400)
    for index, m in enumerate(monsters):
        if not isinstance(m, dict):
            raise Refused("monsters.{index} must be an object.", status=400, index=index)
        level = m.get("level")
        if isinstance(level, int) and not isinstance(level, bool) and level < 1:
            raise Refused("Nothing takes a monster below level 1 in Munchkin Quest.", rule="quest.level-floor", status=400)
        if isinstance(level, bool) or not isinstance(level, int) or level > 100:
            raise Refused("monsters.{index}.level must be a whole number from 1 to 100.", status=400, index=index)
        given = m["rolls"] if "rolls" in m else m["die"] if "die" in m else m.get("dice", 1)
        if isinstance(given, list):
            rolls = [die(v, f"monsters.{index} die {n + 1}") for n, v in enumerate(given)]
        elif isinstance(given, int) and not isinstance(given, bool) and 1 <= given <= 6 and "die" not in m \
                and "rolls" not in m:
            rolls = [die(None, f"monsters.{index} die {n + 1}") for n in range(given)]
        else:
            rolls = [die(given, f"monsters.{index} die")]
        owner = m.get("owner")
        if owner is not None and (not isinstance(owner, str) or len(owner) > 80):
            raise Refused("monsters.{index}.owner must be the name or seat of the player whose colour it is.",
                          status=400, index=index)
        dreadful = bool(m.get("dreadful"))
        levels = _int(m.get("levels", 2 if dreadful else 1), f"monsters.{index}.levels", 1, 5)
        fight["monsters"].append({"name": str(m.get("name") or f"Monster {index + 1}"), "level": level,
                                  "bonus": _int(m.get("bonus", 0), f"monsters.{index}.bonus"), "rolls": rolls,
                                  "dreadful": dreadful, "levels": max(levels, 2) if dreadful else levels,
                                  "treasures": _int(m.get("treasures", 1), f"monsters.{index}.treasures", 0, 20),
                                  "owner": owner, "bad_stuff": bad_stuff_of(m.get("bad_stuff")),
                                  "cannot_apply": bool(m.get("cannot_apply"))})
    for index, shot in enumerate(raw.get("one_shots") or []):
        if not isinstance(shot, dict) or shot.get("side") not in ("players", "monsters"):
            raise Refused("one_shots.{index} needs a side: players or monsters.", status=400, index=index)
        fight["one_shots"].append({"side": shot["side"], "name": str(shot.get("name") or "One-shot"),
                                   "bonus": _int(shot.get("bonus", 0), f"one_shots.{index}.bonus")})
    verdict = judge(fight, profile)
    if verdict["outcome"] == "lose":
        given_flee = raw.get("flee") or {}
        if not isinstance(given_flee, dict):
            raise Refused("flee must be an object: the fighter's and the helper's dice, one per monster.", status=400)
        for role in ROLES:
            if role in fight:
                dice = given_flee.get(role) or []
                if not isinstance(dice, list):
                    raise Refused("flee.{role} must be a list of dice.", status=400, role=role)
                fight[role]["flee"] = [die(dice[n] if n < len(dice) else None, f"flee {role} die {n + 1}")
                                       for n in range(len(fight["monsters"]))]
        verdict["flee"] = flee(fight, profile)
        for role in ROLES:
            if role in fight:
                verdict["health_lost"][role] += sum(r.get("health", 0) for r in verdict["flee"] if r["role"] == role)
                if "health" in fight[role]:
                    verdict.setdefault("health_after", {})[role] = max(0, fight[role]["health"] - verdict["health_lost"][role])
        verdict["dies"] = {role: verdict.get("health_after", {}).get(role, 1) <= 0
                           or any(r.get("dies") for r in verdict["flee"] if r["role"] == role)
                           for role in ROLES if role in fight}
        rule = RULES["quest.flee"]
        verdict["flee_rule"] = {"rule": rule.id, "citation": rule.cite_for(profile.id)}
    verdict["dice"] = {"fighter": fight["fighter"]["die"], **({"helper": fight["helper"]["die"]} if "helper" in fight else {}),
                       "monsters": [m["rolls"] for m in fight["monsters"]]}
    verdict["rolled_by_app"] = rolled
    return verdict


def _first(data: dict, keys: tuple[str, ...]):
    for key in keys:
        if key in data:
            value = data[key]
            return value[0] if isinstance(value, list) and len(value) == 1 else value
    return None


def _int(value, where: str, low: int = -1000, high: int = 100000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Refused("{where} must be a whole number from {low} to {high}.", status=400, where=where, low=low, high=high)
    return value


_die_schema = {"type": "integer", "minimum": 1, "maximum": 6}
_player_schema = {"type": "object", "required": ["level"], "properties": {
    "name": {"type": "string"}, "level": {"type": "integer", "minimum": 1, "maximum": 10},
    "bonus": {"type": "integer", "description": "other bonuses (cards, powers)"},
    "items": {"type": "array", "items": {"type": "object", "properties": {
        "name": {"type": "string"}, "bonus": {"type": "integer"}, "slot": {"type": "string"},
        "where": {"enum": list(PLACES), "description": "only worn items count (default worn)"}}}},
    "die": {**_die_schema, "description": "the player's d6; left out: the app rolls it"},
    "health": {"type": "integer", "description": "health now: the answer then says health_after and dies"},
    "gold": {"type": "integer"}, "room": {"enum": ["same", "adjacent", "other"],
                                          "description": "helper only: where the helper stands (other is refused)"}}}
#: The JSON a stateless Munchkin Quest fight takes (``POST /api/v1/combat/evaluate``, ``companion referee combat``).
SCHEMA = {
    "type": "object", "title": "A Munchkin Quest fight", "required": ["fighter", "monsters"],
    "properties": {
        "profile": {"const": "munchkin-quest"}, "game": {"const": "munchkin-quest", "description": "instead of profile"},
        "fighter": _player_schema, "helper": _player_schema,
        "players": {"type": "array", "minItems": 1, "maxItems": 2, "items": _player_schema,
                    "description": "instead of fighter and helper: the fighter, then the helper"},
        "monsters": {"type": "array", "minItems": 1, "maxItems": 10, "items": {"type": "object", "required": ["level"],
            "properties": {"name": {"type": "string"}, "level": {"type": "integer", "minimum": 1},
                           "bonus": {"type": "integer"},
                           "dice": {"oneOf": [{"type": "array", "items": _die_schema},
                                              {"type": "integer", "minimum": 1, "maximum": 6}],
                                    "description": "its dice as rolled, or how many the app rolls (default 1)"},
                           "die": {**_die_schema, "description": "one die as rolled"},
                           "levels": {"type": "integer", "minimum": 1, "maximum": 5},
                           "treasures": {"type": "integer", "minimum": 0, "maximum": 20},
                           "dreadful": {"type": "boolean"}, "owner": {"type": "string"},
                           "bad_stuff": {"type": ["object", "string"], "description": "{health, levels, gold, lose, death, "
                                                                                   "text} or words"},
                           "cannot_apply": {"type": "boolean"}}}},
        "one_shots": {"type": "array", "items": {"type": "object", "required": ["side"], "properties": {
            "side": {"enum": ["players", "monsters"]}, "bonus": {"type": "integer"}, "name": {"type": "string"}}}},
        "others_in_room": {"type": "boolean", "description": "someone else sees the treasures (face up)"},
        "flee": {"type": ["object", "array"], "description": "after a lost fight: the fighter's and the helper's dice, one per "
                                                  "monster in order (a list: the fighter's)", "properties": {
            "fighter": {"type": "array", "items": _die_schema}, "helper": {"type": "array", "items": _die_schema}}},
        "roll": {"type": "boolean", "description": "false: refuse when a die is missing instead of rolling it"},
    },
}
