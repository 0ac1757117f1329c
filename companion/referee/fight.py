"""The table's shared fight: who fights and helps, the monsters and what was played on them.

Every change to the fight is one ``fight.changed`` event holding the fight before and
after (plus, when rewards are taken, the level operations): undo restores the fight as
it was, but only if nothing else changed it since. The arithmetic is
:func:`companion.referee.combat.evaluate`, fed with the characters' sheets.

Time never comes from here: the objection window compares the ``now`` the action layer
passes in with the moment the win was claimed, both recorded in the events.
"""
from __future__ import annotations

import copy
from dataclasses import asdict

from card_db import schema

from . import combat, effects, played, sheet
from .history import said, thing
from .rules import N_, Refused

#: The most a fight may hold and still be judged (combat.INPUT_SCHEMA): a card past them is refused, as
#: it left a fight no verdict could be made on (neither shown, won nor run from).
_FIGHT = combat.INPUT_SCHEMA["properties"]
MOST_MONSTERS = _FIGHT["monsters"]["maxItems"]
MOST_ENHANCERS = _FIGHT["monsters"]["items"]["properties"]["enhancers"]["maxItems"]
MOST_ONE_SHOTS = _FIGHT["one_shots"]["maxItems"]
MOST_FLIGHT = _FIGHT["fighter"]["properties"]["flight"]["maximum"]  # the Wizard card: up to 3 cards for Flight


def checked_object(raw, what: str) -> dict:
    """A card typed in as an object (or left out: ``{}``), refused when it is anything else."""
    if raw in (None, ""):
        return {}
    if not isinstance(raw, dict):
        raise Refused("{what} must be an object.", status=400, what=what)
    return raw


def whole(value, what: str, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high`` (as the fight's schema allows), else a 400 refusal."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Refused("{what} must be a whole number from {low} to {high}.", status=400, what=what, low=low, high=high)
    return value


def typed_dice(raw) -> list[int]:
    """The dice as typed: numbers 1 to 6 apart by spaces or commas — or run together, "52" for a 5
    and a 2, as a phone's number pad has no space key. Anything else is a 400 refusal."""
    rolls = []
    for value in raw or []:
        for part in str(value).replace(",", " ").split():
            if part.strip("123456"):
                raise Refused("A die shows 1 to 6, not {part!r}.", status=400, part=part)
            rolls.extend(int(digit) for digit in part)
    return rolls


def new_fight(fighter: str) -> dict:
    return {"fighter": fighter, "helper": None, "invited": None, "promise": None, "monsters": [], "one_shots": [],
            "powers": {}, "backstabs": [], "claim": None}


def description(state, fight: dict) -> dict:
    """The fight as :func:`combat.evaluate` takes it, from the table's sheets."""
    def character(seat: str, role: str) -> dict:
        p = asdict(state.players[seat])
        out = {"name": p["name"], "level": p["level"], "sex": p["sex"], "races": p["races"], "classes": p["classes"],
               "half_breed": p["half_breed"], "super_munchkin": p["super_munchkin"],
               "items": [{k: v for k, v in i.items() if k not in ("uid", "card_id")} for i in p["items"]],
               "curses": [{"name": c["name"], "effects": c.get("effects", [])} for c in p["curses"]]}
        out.update(fight["powers"].get(role, {}))
        return out

    desc = {"profile": state.profile_id, "options": state.settings.get("options", {}), "fighter": character(fight["fighter"], "fighter"),
            "monsters": [{k: v for k, v in m.items() if k not in ("uid", "card_id")} for m in fight["monsters"]],
            "one_shots": [{k: o[k] for k in ("name", "bonus", "side", "usable_by", "fire", "doubles", "escape") if k in o}
                          for o in fight["one_shots"]],
            "backstabs": [b["target"] for b in fight["backstabs"]]}
    for monster in desc["monsters"]:
        monster["enhancers"] = [{k: v for k, v in e.items() if k not in ("uid", "card_id")} for e in monster["enhancers"]]
    if fight["helper"]:
        desc["helper"] = character(fight["helper"], "helper")
    return desc


def verdict(state, fight: dict | None = None) -> dict | None:
    """The referee's verdict on the fight as it stands (``None`` before the first monster)."""
    fight = fight or state.combat
    if not fight or not fight["monsters"]:
        return None
    return combat.evaluate(description(state, fight), strict=False)


def monster_of(raw: dict, uid: str, min_level: int = 0) -> dict:
    """A monster from a card or typed in; ``min_level`` is the profile's floor (1.71: Level 1)."""
    name = str(raw.get("name") or "").strip()
    if not name or len(name) > 80:
        raise Refused("A monster needs a name of at most 80 characters.", status=400)
    out = {"uid": uid, "name": name, "enhancers": [], "eliminated": False}
    level = raw.get("level")
    if isinstance(level, int) and not isinstance(level, bool) and 0 <= level < min_level:
        raise Refused("A monster's level cannot be below {min_level} in this edition; only its combat strength can drop lower.", rule="monster.level-floor", status=400, min_level=min_level)
    for key, low, high, default in (("level", min_level, 100, None), ("treasures", 0, 20, 1), ("levels", 1, 5, 1),
                                    ("run_away_modifier", -10, 10, 0)):
        out[key] = sheet.whole_number(raw, key, low, high, default,
                                      N_("The monster's {key} must be a whole number from {low} to {high}."))
    out["undead"] = bool(raw.get("undead", False))
    if raw.get("against"):  # quick entry: "+4 against Elves" as against="race:elf", against_bonus=4
        bonus = sheet.whole_number(raw, "against_bonus", -100, 100, None, N_("The bonus against must be a whole number."))
        out["modifiers"] = [{"against": sheet.parse_who(raw["against"], "against"), "value": bonus}]
    for key in ("modifiers", "will_not_pursue", "bad_stuff", *combat.FIGHT_RULES):
        if raw.get(key):
            problem = schema.part_problem(("monster", key), raw[key])
            if problem:
                raise Refused("A monster typed in must be as the card schema describes it: {problem}", status=400,
                              problem=problem)
            out[key] = copy.deepcopy(raw[key])
    if raw.get("card_id"):
        out["card_id"] = raw["card_id"]
    return out


def decide(state, actor: str, action: str, params: dict) -> tuple[dict, list[dict], str, list[str] | None]:
    """``(fight after, level operations, summary, winner seats or None)`` for a fight action by ``actor``."""
    fight = state.combat
    if fight is None:
        raise Refused("No fight is on: the player whose turn it is starts one.", rule="turn.own", status=409)
    after = copy.deepcopy(fight)
    after["claim"] = None  # anything played reopens the objection window
    name = state.players[actor].name
    uid = f"f{state.version + 1}"
    participants = {fight["fighter"]: "fighter", **({fight["helper"]: "helper"} if fight["helper"] else {})}

    if action == "combat.monster.add":
        if len(fight["monsters"]) >= MOST_MONSTERS:
            raise Refused("A fight holds at most {count} monsters.", status=409, count=MOST_MONSTERS)
        monster = monster_of(params.get("monster") or {}, uid, state.profile.monster_min_level)
        after["monsters"].append(monster)
        summary = said("{who} adds {monster} (level {level}) to the fight", monster=thing(monster), level=monster["level"])
        ops, lines = before_fight(state, monster, fight["fighter"])
        if lines:
            summary = said("{first}; {parts}", first=summary, parts=lines)
        if monster.get("no_help") and (fight["helper"] or fight["invited"]):
            sent = state.players[fight["helper"] or fight["invited"]].name
            without_helper(after)
            summary = said("{first}: nobody can help against it, {name} is out of the fight", first=summary, name=sent)
        return after, ops, summary, None
    if action == "combat.enhancer.add":
        monster = _find(after["monsters"], params.get("monster"))
        if len(monster["enhancers"]) >= MOST_ENHANCERS:
            raise Refused("A monster holds at most {count} enhancers.", status=409, count=MOST_ENHANCERS)
        raw = checked_object(params.get("enhancer"), "enhancer")
        enhancer = {"uid": uid, "name": str(raw.get("name") or "Enhancer")[:80],
                    "level_change": whole(raw.get("level_change", 0), "enhancer.level_change", -100, 100),
                    "treasure_change": whole(raw.get("treasure_change", 0), "enhancer.treasure_change", -100, 100),
                    "mate": bool(raw.get("mate", False))}
        if raw.get("card_id"):
            enhancer["card_id"] = raw["card_id"]
        monster["enhancers"].append(enhancer)
        return after, [], said("{who} plays {card} on {monster}", card=thing(enhancer), monster=thing(monster)), None
    if action == "combat.oneshot.add":
        if len(fight["one_shots"]) >= MOST_ONE_SHOTS:
            raise Refused("A fight holds at most {count} one-shots.", status=409, count=MOST_ONE_SHOTS)
        raw = checked_object(params.get("one_shot"), "one_shot")
        side = params.get("side")
        if side not in ("players", "monsters"):
            raise Refused("side must be players or monsters.", status=400)
        shot = {"uid": uid, "name": str(raw.get("name") or "One-shot")[:80],
                "bonus": whole(raw.get("bonus", 0), "one_shot.bonus", -100, 100), "side": side, "by": actor,
                **({"card_id": str(raw["card_id"])} if raw.get("card_id") else {})}  # named in each phone's language
        if raw.get("usable_by"):
            shot["usable_by"] = _usable_by(state, fight, raw["usable_by"], side, shot["name"])
        if raw.get("fire"):  # a fire attack (Large Angry Chicken: an extra level)
            shot["fire"] = True
        if raw.get("doubles_strength"):  # Doppleganger: "your" strength, so the fighter's or the helper's
            if side != "players" or actor not in participants:
                raise Refused("{card} doubles the strength of the fighter or the helper who plays it: {name} is "
                              "not in this fight.", rule="combat.one-shots", status=409, card=shot["name"], name=name)
            shot["doubles"] = participants[actor]
        if raw.get("either_side") is False and side == "monsters":
            raise Refused("{card} helps its player's side only, never the monsters.", rule="combat.one-shots", status=409,
                          card=shot["name"])
        if raw.get("escapes"):  # Instant Wall: who of the fighter and the helper runs away with no die
            shot["escape"] = _walled(state, fight, params.get("role"), raw["escapes"], shot["name"])
            after["one_shots"].append(shot)
            names = [state.players[fight[role]].name for role in shot["escape"]]
            template = (N_("{who} plays {card}: {name} escapes with no die when running away") if len(names) == 1 else
                        N_("{who} plays {card}: {name} and {name2} escape with no die when running away"))
            return after, [], said(template, card=thing(shot), name=names[0], name2=names[-1]), None
        after["one_shots"].append(shot)
        if side == "players":
            return after, [], said("{who} plays {card} for the players", card=thing(shot)), None
        return after, [], said("{who} plays {card} for the monsters", card=thing(shot)), None
    if action == "combat.help.ask":
        _only(actor == fight["fighter"], "Only the fighter asks for help.", "combat.one-helper")
        seat = params.get("seat")
        if seat not in state.players or seat == fight["fighter"]:
            raise Refused("Ask another player at this table.", status=400)
        if state.players[seat].dead:  # the new character helps once it is back (1.6, Death)
            raise Refused("{name} is dead: no cards and no levels until the next player's turn begins.",
                          rule="death.state", status=409, name=state.players[seat].name)
        if fight["helper"]:
            raise Refused("{name} is already helping: only one helper.",
                          rule="combat.one-helper", status=409, name=state.players[fight['helper']].name)
        _check_help_allowed(fight)
        after["invited"] = seat
        after["promise"] = (params.get("promise") or "").strip()[:140] or None
        if after["promise"]:
            return after, [], said("{who} asks {name} for help for {promise}", name=state.players[seat].name,
                                   promise=after["promise"]), None
        return after, [], said("{who} asks {name} for help", name=state.players[seat].name), None
    if action == "combat.help.accept":
        _only(actor == fight["invited"], "Only the player who was asked can accept.", "combat.one-helper")
        if fight["helper"]:
            raise Refused("There is already a helper.", rule="combat.one-helper", status=409)
        _check_help_allowed(fight)
        after["helper"], after["invited"] = actor, None
        return after, [], said("{who} helps in the fight"), None
    if action == "combat.help.decline":
        _only(actor in (fight["invited"], fight["helper"]), "You are not asked to help.", "combat.one-helper")
        without_helper(after)
        return after, [], said("{who} does not help"), None
    if action == "combat.power":
        power, cards = params.get("power"), params.get("cards")
        role = participants.get(actor)
        _only(role is not None, "Only the fighter or the helper uses powers in this fight.", "combat.powers")
        if power not in combat.POWERS:
            raise Refused("power must be one of: {names}.", status=400, names=', '.join(combat.POWERS))
        klass = combat.POWERS[power][0]  # the class whose card gives the power
        if klass not in state.players[actor].classes:
            raise Refused("{name} is not a {power}.", rule="combat.powers", name=name, power=klass.title())
        if cards not in (1, 2, 3):
            raise Refused("Discard 1 to 3 cards for a power.", status=400)
        if power == "berserk" and after["powers"].get(role, {}).get("berserk"):
            raise Refused("Berserking is once per combat.", rule="combat.powers", status=409)
        # Turning (the Cleric card): +3 a card against Undead, once per combat like Berserking; without an
        # Undead monster in the fight the cards would go for nothing (it was taken, and a second use
        # replaced the first)
        if power == "turning" and not any(m.get("undead") and not m["eliminated"] for m in fight["monsters"]):
            raise Refused("Turning works only against Undead, and no Undead monster is in this fight.",
                          rule="combat.powers", status=409)
        if power == "turning" and after["powers"].get(role, {}).get("turning"):
            raise Refused("Turning is once per combat.", rule="combat.powers", status=409)
        if power == "flight" and after["powers"].get(role, {}).get("flight"):
            # Flight (the Wizard card): up to 3 cards in all for +1 each to Run Away — a second spell adds to the
            # first (it replaced it, and the first spell's cards went for nothing), never past the card's 3
            before = after["powers"][role]["flight"]
            if before + cards > MOST_FLIGHT:
                raise Refused("Flight takes at most {most} cards in a combat: {name} has discarded {count} for it "
                              "already.", rule="combat.powers", status=409, most=MOST_FLIGHT, name=name, count=before)
            after["powers"][role]["flight"] = before + cards
            template = (N_("{who} uses {word} again (1 more card, {total} in all)") if cards == 1 else
                        N_("{who} uses {word} again ({cards} more cards, {total} in all)"))
            return after, [], said(template, word=power, cards=cards, total=before + cards), None
        after["powers"].setdefault(role, {})[power] = cards
        if cards == 1:
            return after, [], said("{who} uses {word} (1 card)", word=power), None
        return after, [], said("{who} uses {word} ({cards} cards)", word=power, cards=cards), None
    if action == "combat.backstab":
        target = params.get("target")
        if "thief" not in state.players[actor].classes:
            raise Refused("{name} is not a Thief.", rule="combat.powers", name=name)
        if target not in ("fighter", "helper") or (target == "helper" and not fight["helper"]):
            raise Refused("Backstab the fighter or the helper.", status=400)
        if participants.get(actor) == target:
            raise Refused("A Thief cannot backstab themselves.", status=400)
        if {"by": actor, "target": target} in fight["backstabs"]:
            raise Refused("{name} has already backstabbed {name2} in this fight: once per victim.", rule="combat.powers", status=409, name=name, name2=state.players[fight[target]].name)
        after["backstabs"].append({"by": actor, "target": target})
        victim = state.players[fight[target]].name
        return after, [], said("{who} backstabs {name} (−2)", name=victim), None
    if action == "combat.eliminate":
        monster = _find(after["monsters"], params.get("monster"))
        if params.get("charm"):  # the Wizard's Charm: discard the whole hand (3+ cards) to charm one monster
            if "wizard" not in state.players[actor].classes or actor not in participants:
                raise Refused("{name} is not a Wizard in this fight: no Charm.", rule="combat.powers", name=name)
        if params.get("instead"):  # the card lets such a character take treasure instead (Wannabe Vampire)
            offer = monster.get("treasure_instead")
            if not offer or actor not in participants or not combat.instead_for(monster, asdict(state.players[actor]), True):
                raise Refused("{monster}'s card gives no treasure instead of the fight to {name}.", rule="cards.override",
                              status=409, monster=monster["name"], name=name)
            monster["eliminated"] = monster["instead"] = True
            n = offer["treasures"]
            template = (N_("{who} sends {monster} off as its card allows: 1 treasure, no level") if n == 1 else
                        N_("{who} sends {monster} off as its card allows: {n} treasures, no level"))
            return after, [], said(template, monster=thing(monster), n=n), None
        monster["eliminated"] = True
        if params.get("_card"):  # a one-shot that sends one monster off (Polymorph Potion, Magic Lamp)
            return after, [], said("{who} plays {card}: {monster} leaves the fight without a kill (treasure, no level)",
                                   card=thing(played.named(params["_card"])), monster=thing(monster)), None
        if params.get("charm"):
            return after, [], said("{who} charms {monster} away without killing it (treasure, no level)",
                                   monster=thing(monster)), None
        return after, [], said("{who} gets rid of {monster} without killing it (treasure, no level)",
                               monster=thing(monster)), None
    if action == "combat.claim":
        _only(actor in participants, "Only the fighter or the helper claims the win.", "combat.objection")
        judged = verdict(state, fight)
        if not judged or judged["outcome"] != "win":
            raise Refused("The players are not winning this fight.", rule="combat.compare")
        after["claim"] = {"version": state.version + 1, "at": float(params["_now"]), "stakes": _stakes(judged)}
        return after, [], said("{who} claims the win ({players} to {monsters}); anyone may still play a card",
                               players=judged["players"]["total"], monsters=judged["monsters"]["total"]), None
    if action == "combat.resolve":
        _only(actor in participants or actor == state.host, "Only the fighter, the helper or the host takes the rewards.",
              "combat.objection")
        return _resolve(state, fight, actor, params)
    if action == "combat.flee":
        return _flee(state, fight, actor, params)
    raise Refused("Unknown fight action {action!r}.", status=400, action=action)


def objection_seconds(state) -> float:
    """The table's objection window: the host's setting, else the profile's (2.6 s in the books)."""
    return state.settings.get("objection_seconds", state.profile.objection_seconds)


def without_helper(fight: dict) -> None:
    """The fight (a copy being built) with nobody helping or asked to: the helper's powers, the
    backstabs on them and a Doppleganger that doubled them go with them — whether the helper
    declines, is sent away by the monster's card, dies or leaves the table (the one place that says
    what a helper takes out of the fight)."""
    fight["helper"] = fight["invited"] = fight["promise"] = None
    if "powers" in fight:  # (a Munchkin Quest fight has neither powers nor backstabs)
        fight["powers"].pop("helper", None)
    if "backstabs" in fight:
        fight["backstabs"] = [b for b in fight["backstabs"] if b["target"] != "helper"]
    fight["one_shots"] = [o for o in fight.get("one_shots", []) if o.get("doubles") != "helper"]
    for shot in fight["one_shots"]:  # an Instant Wall no longer gets them away: they are not in the fight
        if "helper" in shot.get("escape", ()):
            shot["escape"] = [role for role in shot["escape"] if role != "helper"]


def with_new_fighter(fight: dict, seat: str) -> None:
    """The fight (a copy being built) with ``seat`` fighting it instead (Transferral Potion): the old
    fighter leaves with what was theirs — their powers, the backstabs on them, their Doppleganger, an
    Instant Wall's cover — and the helper leaves too, their help having been for the old fighter, unless
    they are the new fighter: then what was theirs as the helper is theirs as the fighter."""
    helper = fight["helper"]
    if helper != seat:
        without_helper(fight)
    fight["powers"] = {"fighter": fight["powers"]["helper"]} if helper == seat and fight["powers"].get("helper") else {}
    moved = {"helper": "fighter"} if helper == seat else {}
    fight["backstabs"] = [{**b, "target": moved[b["target"]]} for b in fight["backstabs"] if b["target"] in moved]
    shots = []
    for shot in fight["one_shots"]:
        if shot.get("doubles"):
            if shot["doubles"] not in moved:
                continue
            shot = {**shot, "doubles": moved[shot["doubles"]]}
        if "escape" in shot:
            shot = {**shot, "escape": [moved[role] for role in shot["escape"] if role in moved]}
        shots.append(shot)
    fight["one_shots"] = shots
    fight["fighter"], fight["helper"], fight["invited"], fight["promise"] = seat, None, None, None


def _walled(state, fight: dict, role, most: int, card: str) -> list[str]:
    """Whom a one-shot that gets players away with no die covers (``escapes``: Instant Wall, up to two):
    ``role`` — the ``fighter``, the ``helper`` or ``both`` (unsaid: everyone in the fight, up to the card's
    number)."""
    roles = ["fighter"] + (["helper"] if fight["helper"] else [])
    if role not in (None, "", "both", "fighter", "helper") or (role == "helper" and not fight["helper"]) \
            or (role == "both" and len(roles) < 2):
        raise Refused("{card}: role is the fighter, the helper or both, of those in this fight.", status=400, card=card)
    chosen = roles if role in (None, "", "both") else [role]
    return chosen[:most]


def _check_help_allowed(fight: dict) -> None:
    """Refuse help while a monster whose card says nobody can help against it is in the fight (Gazebo)."""
    alone = [m for m in fight["monsters"] if m.get("no_help") and not m["eliminated"]]
    if alone:
        raise Refused("Nobody can help against {monster}: its card says so.", rule="cards.override", status=409,
                      monster=alone[0]["name"])


def _usable_by(state, fight: dict, usable_by, side: str, name: str) -> list[dict]:
    """A one-shot that only works for some characters (Yuppie Water: an Elf) is refused for the
    players unless the fighter or the helper is one (items.restricted)."""
    problem = schema.part_problem(("one_shot", "usable_by"), usable_by)
    if problem:
        raise Refused("A one-shot typed in must be as the card schema describes it: {problem}", status=400, problem=problem)
    party = [asdict(state.players[seat]) for seat in (fight["fighter"], fight["helper"]) if seat]
    if side == "players" and not any(sheet.is_(p, who) for p in party for who in usable_by):
        raise Refused("{card} is only for {who}: neither the fighter nor the helper is one.", rule="items.restricted",
                      status=409, card=name, who=sheet.describe_who(usable_by))
    return copy.deepcopy(usable_by)


def _only(ok: bool, message: str, rule: str) -> None:
    """Refuse a fight move by the wrong player (403), naming the rule that says whose move it is."""
    if not ok:
        raise Refused(message, rule=rule, status=403)


def _find(values: list[dict], uid) -> dict:
    """The fight's monster with ``uid`` among ``values``; 404 when there is none."""
    found = next((v for v in values if v["uid"] == uid), None)
    if found is None:
        raise Refused("There is no such monster in this fight.", status=404)
    return found


def _stakes(judged: dict) -> list:
    """What a claimed win is: both totals and the rewards. The claim stands while they do."""
    return [judged["players"]["total"], judged["monsters"]["total"], judged["levels"]["fighter"],
            judged["levels"]["helper"], judged["treasures"], judged["wins_game"], judged.get("helper_wins_game", False)]


def claim_standing(state) -> dict | None:
    """The fight's claimed win, if it still stands: nothing was played on the fight since (a play
    there clears the claim) and nothing elsewhere changed its totals or rewards — a die rolled, a
    level a bystander went up, a curse on a player out of the fight leave it standing (every new
    event voided it, and the win had to be claimed again and waited for). A claim recorded before
    claims kept their stakes stands only until the next event."""
    claim = (state.combat or {}).get("claim")
    if not claim:
        return None
    if claim["version"] == state.version:
        return claim
    if "stakes" not in claim:
        return None
    try:
        judged = verdict(state, state.combat)
    except Refused:  # a fight that cannot be judged now has no win standing
        return None
    return claim if judged and judged["outcome"] == "win" and _stakes(judged) == claim["stakes"] else None


def _resolve(state, fight: dict, actor: str, params: dict):
    claim = claim_standing(state)
    if not claim:
        raise Refused("Claim the win first: something was played since.", rule="combat.objection", status=409)
    wait = objection_seconds(state) - (float(params["_now"]) - claim["at"])
    if wait > 0:
        raise Refused("Wait {wait:.1f} more seconds: anyone may still object.", rule="combat.objection", status=409, wait=wait)
    judged = verdict(state, fight)
    if judged["outcome"] != "win":  # cannot happen without a new event, kept as a guard
        raise Refused("The players are not winning this fight.", rule="combat.compare")
    ops, winners = [], []
    gained = judged["levels"]["fighter"]
    if gained:
        ops.append({"op": "level", "seat": fight["fighter"], "delta": gained, "cause": "kill"})
        if judged["wins_game"]:
            winners.append(fight["fighter"])
    if fight["helper"] and judged["levels"]["helper"]:
        ops.append({"op": "level", "seat": fight["helper"], "delta": judged["levels"]["helper"], "cause": "kill"})
    if fight["helper"] and judged["helper_wins_game"]:
        winners.append(fight["helper"])
    game = "together" if len(winners) > 1 else "alone" if winners else "no"
    summary = said(WIN_SENTENCES[game], players=judged["players"]["total"], monsters=judged["monsters"]["total"],
                   gain=gain_said(gained), draw=draw_said(judged["treasures"], bool(judged.get("treasures_face_up"))),
                   name=state.players[winners[-1]].name if winners else "")
    if fight["helper"] and judged["levels"]["helper"]:  # an Elf helper's own levels (helper.levels)
        summary = said("{fight}; {name} helped as an Elf: {gain}", fight=summary, name=state.players[fight["helper"]].name,
                       gain=gain_said(judged["levels"]["helper"]))
    return None, ops, summary, winners


#: The sentence of a won fight, by whether the game is won too.
WIN_SENTENCES = {
    "no": N_("{who} wins the fight: {players} to {monsters}, {gain}, {draw}"),
    "alone": N_("{who} wins the fight: {players} to {monsters}, {gain}, {draw} — and wins the game"),
    "together": N_("{who} wins the fight: {players} to {monsters}, {gain}, {draw} — and wins the game together with {name}"),
}


def gain_said(levels: int) -> dict:
    """The levels gained, as a phrase of the history ("no level", "+1 level", "+2 levels")."""
    if levels == 0:
        return said("no level")
    return said("+1 level") if levels == 1 else said("+{n} levels", n=levels)


def draw_said(treasures: int, face_up: bool) -> dict:
    """The treasures to draw, as a phrase of the history (one or more, face up or down)."""
    if face_up:
        return said("draw 1 treasure face up") if treasures == 1 else said("draw {n} treasures face up", n=treasures)
    return said("draw 1 treasure face down") if treasures == 1 else said("draw {n} treasures face down", n=treasures)


def _flee(state, fight: dict, actor: str, params: dict):
    participants = [fight["fighter"]] + ([fight["helper"]] if fight["helper"] else [])
    _only(actor in participants or actor == state.host, "Only the fighter, the helper or the host runs the escape.",
          "combat.run-away")
    judged = verdict(state, fight)
    if judged and judged["outcome"] == "win":
        raise Refused("The players are winning: no need to run.", rule="combat.run-away", status=409)
    results, given, fight = escape_results(state, fight, params)
    characters = {seat: asdict(player) for seat, player in state.players.items()}
    parts, ops, dead = [], [], set()
    for r in results:
        if r.get("escaped") is None:
            raise Refused("{who} needs a die for {monster}.", rule="combat.run-away", status=400, who=r['who'], monster=r['monster'])
        roll = "→".join(map(str, dice_of(r))) or "—"
        seat = fight[r["role"]]
        if r.get("wall") is not None and not r.get("levels_lost"):  # an Instant Wall: no die
            wall = next(o for o in fight["one_shots"] if r["role"] in o.get("escape", ()))
            parts.append(said("{name} escapes {monster} with no die ({card})", name=r["who"], monster=r["monster"],
                              card=thing(wall)))
            continue
        if r.get("invisible") and not r.get("levels_lost"):  # an Invisibility Potion after a failed roll
            parts.append(said("{name} escapes {monster} anyway ({roll}, {card})", name=r["who"], monster=r["monster"],
                              roll=roll, card=r["invisible"]))
            continue
        if r.get("gave_item"):
            item = given[(r["role"], r["index"])]
            ops.append({"op": "remove", "seat": seat, "field": "items", "value": item})
            parts.append(said("{name} gives up {item} as the card of {monster} allows and escapes {monster}",
                              name=r["who"], item=thing(item), monster=r["monster"]))
            continue
        if r["escaped"] and r.get("levels_lost") and seat not in dead:
            cost = _escape_cost(state, characters, seat, r["levels_lost"])
            ops += cost
            lost = -sum(op["delta"] for op in cost)
            template = (N_("{name} escapes {monster} ({roll}), with no level to lose to its card") if not lost else
                        N_("{name} escapes {monster} ({roll}) but loses a level, as its card says") if lost == 1
                        else N_("{name} escapes {monster} ({roll}) but loses {n} levels, as its card says"))
            parts.append(said(template, name=r["who"], monster=r["monster"], roll=roll, n=lost))
            continue
        if r["escaped"]:
            parts.append(said("{name} escapes {monster} ({roll})", name=r["who"], monster=r["monster"], roll=roll))
            continue
        if seat in dead:  # a dead character has nothing more to lose to the next monster
            continue
        monster = fight["monsters"][r["index"]]  # (a Mate is its monster again: the same Bad Stuff)
        done = bad_stuff(state, characters, seat, monster)
        ops += done["ops"]
        if r.get("no_escape"):
            parts.append(said("{name} cannot run away from {monster}: Bad Stuff — {bad_stuff}", name=r["who"],
                              monster=r["monster"], bad_stuff=done["said"]))
        else:
            parts.append(said("{name} is caught by {monster} ({roll}): Bad Stuff — {bad_stuff}", name=r["who"],
                              monster=r["monster"], roll=roll, bad_stuff=done["said"]))
        if done["dies"]:
            dead.add(seat)
            parts.append(death_said(state, seat, dead))
    if not parts:
        return None, ops, said("{who} runs away: nothing to run from"), None
    return None, ops, said("{who} runs away: {parts}", parts=parts), None


def escape_results(state, fight: dict, params: dict) -> tuple[list[dict], dict, dict]:
    """The run-away entries of a flee with ``params`` (the dice, rerolls, items given, the order fled),
    after the cards played on its dice since (``_escape_cards``: :func:`amend_escape`); the items given
    by (role, place); and the fight with its monsters in the order fled."""
    order = params.get("order")  # the monsters' uids in the order the players flee them
    if order:
        uids = [m["uid"] for m in fight["monsters"]]
        if sorted(order) != sorted(uids):
            raise Refused("order must name every monster of the fight once.", status=400)
        fight = {**fight, "monsters": sorted(fight["monsters"], key=lambda m: order.index(m["uid"]))}
    desc = description(state, fight)
    given = _items_given(state, fight, params)
    for role in ("fighter", "helper"):
        if role in desc:
            desc[role]["gives"] = sorted(index for (r, index) in given if r == role)
            desc[role]["rolls"] = params.get(f"{role}_rolls") or []
            if params.get(f"{role}_reroll") and "halfling" in desc[role]["races"]:
                desc[role]["reroll"] = params[f"{role}_reroll"]
    desc["run_away"] = True
    results = combat.evaluate(desc, strict=False)["run_away"] if fight["monsters"] else []
    for card in params.get("_escape_cards") or ():
        amend_escape(results[card["entry"]], card, fight)
    return results, given, fight


#: What a card does to a die just rolled to run away (the card field ``on_escape_roll``).
ESCAPE_CARDS = ("escape", "set", "again")


def dice_of(entry: dict) -> list[int]:
    """Every die of a run-away entry, in the order rolled: the roll, a Halfling's second one, then what
    cards made of it (a Loaded Die's number, a Flask of Glue's new roll)."""
    return ([entry["roll"]] if "roll" in entry else []) + ([entry["reroll"]] if "reroll" in entry else []) \
        + list(entry.get("then", []))


def amend_escape(entry: dict, card: dict, fight: dict) -> None:
    """A card played on a die just rolled to run away, on its run-away ``entry`` (the card beats the
    rules: cards.override): ``escape`` — a failed roll escapes anyway (Invisibility Potion); ``set`` —
    the last die becomes ``die`` (Loaded Die); ``again`` — an escape by a die is rolled again, ``die``
    deciding it (Flask of Glue). The monster's card still costs its levels on an escape."""
    if card["kind"] == "escape":
        entry.update(escaped=True, invisible=card["card"])
    else:
        entry["then"] = [*entry.get("then", []), card["die"]]
        entry["escaped"] = card["die"] >= entry["needs"]
        entry.pop("invisible", None)
    monster = fight["monsters"][entry["index"]]
    if entry["escaped"] and monster.get("escape_levels_lost"):
        entry["levels_lost"] = monster["escape_levels_lost"]
    else:
        entry.pop("levels_lost", None)


def escape_entries(results: list[dict], fight: dict) -> list[dict]:
    """The run-away entries in short, as a card played on the dice just rolled needs them (which it may
    act on, and the phone's buttons): each one's place, role, player, monster (uid and name), whether a
    die was rolled and whether it escaped."""
    return [{"entry": n, "role": r["role"], "who": r["who"], "uid": fight["monsters"][r["index"]]["uid"],
             "monster": r["monster"], "rolled": bool(dice_of(r)), "escaped": bool(r.get("escaped"))}
            for n, r in enumerate(results)]


def _items_given(state, fight: dict, params: dict) -> dict[tuple[str, int], dict]:
    """The items the fleeing players give up to monsters whose card lets them go for one
    (``escape_with_item``: ``{role}_gives`` pairs a monster's uid with an item's, as ``"monster:item"``
    strings or a mapping), by (role, the
    monster's place in the fight); anything the card does not ask for is refused (cards.override)."""
    out, used = {}, set()
    for role in ("fighter", "helper"):
        gives = params.get(f"{role}_gives") or {}
        if not gives:
            continue
        if isinstance(gives, list) and all(isinstance(g, str) and g.count(":") == 1 for g in gives):
            gives = [tuple(g.split(":")) for g in gives]  # "monster uid:item uid", as a form sends them
        elif isinstance(gives, dict):
            gives = list(gives.items())
        else:
            gives = None
        if not gives or not fight[role]:
            raise Refused("{role}_gives must map a monster of the fight to an item of its {role}.", status=400, role=role)
        player = state.players[fight[role]]
        for monster_uid, item_uid in gives:
            index = next((n for n, m in enumerate(fight["monsters"]) if m["uid"] == monster_uid), None)
            item = next((i for i in player.items if i["uid"] == item_uid), None)
            if index is None or item is None or item_uid in used:
                raise Refused("There is no such monster in this fight, or {name} has no such item.", status=404,
                              name=player.name)
            monster = fight["monsters"][index]
            wants = monster.get("escape_with_item")
            if not wants or monster["eliminated"] or not item_fits(item, wants):
                raise Refused("{monster}'s card does not let {name} go for {item}.", rule="cards.override", status=409,
                              monster=monster["name"], name=player.name, item=item["name"])
            effects.check_not_chosen_over(state, fight[role], [item_uid])
            used.add(item_uid)
            out[(role, index)] = item
    return out


def item_fits(item: dict, wants: dict) -> bool:
    """Whether ``item`` is what a monster's ``escape_with_item`` asks for: one of its ``is_a`` things,
    worth ``min_gold`` or more (both, when the card names both)."""
    if wants.get("is_a") and not set(wants["is_a"]) & set(item.get("is_a") or ()):
        return False
    return item.get("gold", 0) >= wants.get("min_gold", 0)


def before_fight(state, monster: dict, seat: str) -> tuple[list[dict], list[dict]]:
    """What ``monster``'s card does to the fighter in ``seat`` as it joins the fight (``before_fight``:
    the Tongue Demon takes an item), as operations and sentences; where the card lets the fighter
    choose, a pending choice on the sheet (the card beats the rules: cards.override)."""
    if not monster.get("before_fight"):
        return [], []
    characters = {s: asdict(p) for s, p in state.players.items()}
    outcome = effects.perform(characters, seat, monster["before_fight"], state.profile)
    ops, lines = list(outcome.ops), list(outcome.lines)
    for number, choice in enumerate(outcome.choices):
        ops.append({"op": "add", "seat": seat, "field": "choices",
                    "value": {**choice, "uid": f"f{state.version + 1}-{monster['uid']}-b{number}", "source": thing(monster),
                              "chooser": seat, "rule": "cards.override"}})
        lines.append(said("{name} chooses on the sheet what {monster} takes before the fight",
                          name=state.players[seat].name, monster=thing(monster)))
    return ops, lines


def _escape_cost(state, characters: dict[str, dict], seat: str, levels: int) -> list[dict]:
    """The levels a monster takes from whoever runs from it, even on an escape (Mr. Bones, King Tut:
    the card beats the rules), never below the floor; ``characters`` is brought up to date."""
    outcome = effects.perform(characters, seat, [{"type": "lose_levels", "value": levels}], state.profile)
    sheet.apply_ops(characters, outcome.ops, state.profile)
    return outcome.ops


def looting_picks(state, seat: str, also_dead: set[str] = frozenset()) -> str:
    """Who picks first from the dead character's stuff, in words ("Ann → Bob = Cid (🎲)") (death.looting):
    the living only — the dead take no cards (death.state), those already dead and ``also_dead``, who
    died in the same moment (a flee that kills fighter and helper)."""
    living = {s: asdict(p) for s, p in state.players.items() if s == seat or (not p.dead and s not in also_dead)}
    order = sheet.looting_order(living, seat)
    return " → ".join(" = ".join(state.players[s].name for s in group) + (" (🎲)" if len(group) > 1 else "")
                      for group in order) or "—"


def death_said(state, seat: str, also_dead: set[str] = frozenset()) -> dict:
    """The sentence of a death by a monster or a curse: who picks from the stuff first."""
    return said("{name} dies: the stuff is lost, looting order {order}", name=state.players[seat].name,
                order=looting_picks(state, seat, also_dead))


def bad_stuff(state, characters: dict[str, dict], seat: str, monster: dict) -> dict:
    """What ``monster``'s Bad Stuff does to the character in ``seat`` (badstuff.apply): the operations
    (``characters`` is brought up to date with them), what it says, and whether the character died.

    What the card lets the victim choose becomes a pending choice on the sheet; what the app
    cannot do is said as the card's text, for the table to do by hand.
    """
    effects_ = effects.bad_stuff_effects(monster.get("bad_stuff"))
    outcome = effects.perform(characters, seat, effects_, state.profile)
    ops = list(outcome.ops)
    source = thing(monster)
    for number, choice in enumerate(outcome.choices):
        ops.append({"op": "add", "seat": seat, "field": "choices",
                    "value": {**choice, "uid": f"f{state.version + 1}-{monster['uid']}-{number}", "source": source,
                              "chooser": seat, "rule": "badstuff.apply"}})
    text = ((monster.get("bad_stuff") or {}).get("text") or {}).get("en")
    lines = list(outcome.lines)
    if outcome.instructions or not effects_:
        lines.append(text or "…")
    sheet.apply_ops(characters, [op for op in ops if op["op"] not in ("turn", "order")], state.profile)
    if outcome.dies:
        death = sheet.death_ops(characters[seat], seat, state.profile)
        sheet.apply_ops(characters, death, state.profile)
        ops += death
    return {"ops": ops, "said": lines or [text or "…"], "dies": outcome.dies}
