"""Random play through the JSON API, every action of the catalogue, in every edition.

Three players tap what their phones offer now (and, now and then, anything at all), with
parameters drawn from what the catalogue declares and from what is on the table (seats,
uids, rooms, card ids of every kind), plus wrong values. Whatever they send:

* the server never fails (no 5xx), and a refusal says why;
* a refused action changes nothing: the stored table is exactly as before;
* an accepted one is one new version; undoing it (by its author, now and then) puts the
  characters, the turn, the fight and the map back as they were;
* at the end, replaying the table's log rebuilds its stored state exactly.

Seeded — the players' choices and the app's own dice — so a failure names the seed and the
steps that led to it (a fight's objection window still runs on the clock). ``FUZZ_SEEDS=200``
(``FUZZ_PAGE_SEEDS`` for the pages) plays longer, ``FUZZ_FROM=1000`` other games.
"""
from __future__ import annotations

import json
import os
import random
import secrets
from pathlib import Path

import pytest
import sqlite_utils
from conftest import Phone

from card_db import store as card_store
from companion import store
from companion.fights import evaluate
from companion.db import get_store
from companion.referee import catalogue
from companion.referee.rules import OVERRIDABLE, Refused

PROFILES = ("munchkin-1.6", "munchkin-1.71", "munchkin-classic", "munchkin-quest")
#: every game here runs on the embedded SQLite store and on PostgreSQL (tests/pg.py)
STORE_BACKENDS = ("sqlite", "postgres")
FIRST = int(os.environ.get("FUZZ_FROM", "0"))
SEEDS = range(FIRST, FIRST + int(os.environ.get("FUZZ_SEEDS", "8")))
PAGE_SEEDS = range(FIRST, FIRST + int(os.environ.get("FUZZ_PAGE_SEEDS", "3")))  # (each tap renders the board)
#: PostgreSQL plays the first few of them: the game is the same on both stores, what differs is the
#: store, which every game exercises (its own suite, tests/test_store.py, runs on both in full)
PG_SEEDS, PG_PAGE_SEEDS = SEEDS[:3], PAGE_SEEDS[:1]
STEPS = 120
#: Strings a player may type or an old page may send: empty, wrong, long, another script.
JUNK = ("", "nobody", "u999", "x" * 40, "Орк", "<b>", "7")


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def cards() -> dict[str, list[str]]:
    """Card ids of the bundled database by kind (monster, item, curse, ...)."""
    data = json.loads((Path(__file__).parents[1] / "card_db" / "data" / "munchkin-base.json").read_text())
    by_kind: dict[str, list[str]] = {}
    for card in data["cards"]:
        by_kind.setdefault(card["kind"], []).append(card["id"])
    return by_kind


def things(state) -> dict[str, list[str]]:
    """What a parameter may name on this table now: seats, uids, rooms, monsters; its version."""
    uids, monsters, rooms = [], [], []
    for p in state.players.values():
        uids += [i["uid"] for i in p.items] + [c["uid"] for c in p.curses] + [c["uid"] for c in p.choices]
        uids += [i["uid"] for i in (p.quest or {}).get("gear", [])]
    if state.combat:
        monsters += [m["uid"] for m in state.combat.get("monsters", []) if "uid" in m]
    if state.board:
        rooms += list(state.board["rooms"])
        monsters += list(state.board["monsters"])
        uids += [d["uid"] for pile in state.board["dropped"].values() for d in pile if "uid" in d]
    return {"seat": list(state.players), "uid": uids or ["u1"], "monster": monsters or ["m1"],
            "room": rooms or ["entrance"], "version": state.version}


def broken(state) -> list[str]:
    """What no table may ever hold, whatever was tapped: levels outside the edition's range,
    negative counts, more health than a Quest character has, a turn, fight or win of a seat
    that is not at the table."""
    profile, seats, out = state.profile, set(state.players), []
    for p in state.players.values():
        if not profile.min_level <= p.level <= profile.top_level:
            out.append(f"{p.name} at level {p.level}")
        q = p.quest or {}
        for key in ("health", "tokens", "gold", "dxm", "treasure"):
            if q.get(key, 0) < 0:
                out.append(f"{p.name} has {q[key]} {key}")
        if profile.quest and q.get("health", 0) > profile.quest.health:
            out.append(f"{p.name} has {q['health']} health")
    if state.turn and state.turn.get("seat") not in seats:
        out.append("the turn is a missing seat's")
    if state.combat and state.combat.get("fighter") not in seats:
        out.append("the fighter is not at the table")
    return out


def value(rng: random.Random, key: str, param: catalogue.Param, table: dict, cards: dict):
    """A value for ``param`` (named ``key``): mostly a sensible one, sometimes a wrong one."""
    if rng.random() < 0.08:
        return rng.choice([*JUNK, -1, 10 ** 6, True, None, [], {}])
    if param.enum:
        return rng.choice(param.enum)
    if param.kind == "bool":
        return rng.random() < 0.5
    if param.kind in ("int", "number"):
        low = int(param.min) if param.min is not None else -3
        high = int(param.max) if param.max is not None else 12
        return rng.randint(low, min(high, low + 12))
    if param.kind == "list":
        if "roll" in key or "dice" in key:
            return [str(rng.randint(1, 6)) for _ in range(rng.randint(0, 3))]
        pool = table["uid"] + table["seat"]
        return rng.sample(pool, rng.randint(0, min(3, len(pool))))
    if param.kind == "object":
        return rng.choice([
            {"name": "Orc", "level": rng.randint(1, 20), "treasures": rng.randint(0, 3), "dice": rng.randint(0, 2),
             "bad_stuff": rng.choice([{"health": 1}, {"levels": 1}, {"lose": "headgear"}, "lose a level"])},
            {"name": "Sword", "slot": rng.choice(["one_hand", "headgear", "other"]), "bonus": rng.randint(-2, 5)},
            {"name": "Curse", "effects": [{"type": rng.choice(["lose_levels", "lose_level", "change_sex"]),
                                           "value": rng.choice([1, "two"])}]},
            {"name": "Harpy", "level": rng.randint(1, 20), "treasures": 1,
             "bad_stuff": rng.choice([{"effects": [{"type": "lose_levels", "value": 2}]}, {"effects": [{"type": "odd"}]},
                                      {"levels_lost": rng.choice([1, "two"])}, {"death": True}])},
            {"name": "Potion", "bonus": rng.randint(1, 5)},
            {}, {"level": "high"}])
    if key == "card":
        return rng.choice(cards[rng.choice(sorted(cards))])
    if key in ("seat", "to", "colour", "helper", "fighter", "target", "first"):
        return rng.choice(table["seat"] + table["room"] if key == "to" else table["seat"])
    if key in ("uid", "double"):
        return rng.choice(table["uid"])
    if key == "monster":
        return rng.choice(table["monster"])
    if key == "room":
        return rng.choice(table["room"])
    return rng.choice(["Orc", "Sword", "Ladder", "a potion", "Crypt", "Hall", "race:elf", "class:cleric", "sex:male"])


def params_for(rng, name: str, table: dict, cards: dict) -> dict:
    """Some of the action's own parameters, and now and then one every action takes: a house
    ruling overriding a rule (only the host's counts), a reason, the version the phone saw."""
    declared = catalogue.CATALOGUE[name].params
    params = {key: value(rng, key, param, table, cards) for key, param in declared.items() if rng.random() < 0.55}
    if rng.random() < 0.1:
        params["override"] = rng.choice([*sorted(OVERRIDABLE), "no.such.rule"])
    if rng.random() < 0.05:
        params["reason"] = rng.choice(["mis-tap", "x" * 200, 7])
    if rng.random() < 0.05:
        params["expected_version"] = rng.choice([table["version"], table["version"] - 1, "old"])
    return params


def stored(app, table_id: str):
    """The table as the store holds it now."""
    with app.app_context():
        return store.load(get_store(), table_id)


def next_action(rng: random.Random, state, seat: str) -> str:
    """What the player in ``seat`` taps: mostly what the phone offers now, now and then anything."""
    names = sorted(catalogue.CATALOGUE)
    offered = [n for n in names if catalogue.allowed(state, seat, n)]
    return rng.choice(offered) if offered and rng.random() < 0.85 else rng.choice(names)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("store_backend,seed", [("sqlite", s) for s in SEEDS] + [("postgres", s) for s in PG_SEEDS])
def test_random_play_never_fails_and_loses_nothing(app, client, cards, profile, seed, caplog, monkeypatch):
    dice = random.Random(f"dice/{profile}/{seed}")
    monkeypatch.setattr(secrets, "randbelow", dice.randrange)  # the app's dice, seeded
    created = client.post("/api/v1/tables", json={"name": "Fuzz", "profile": profile,
                                                  "host": {"name": "Ann", "sex": "female"}})
    assert created.status_code == 201, created.json
    table_id, tokens = created.json["table"]["id"], {created.json["seat"]: created.json["token"]}
    join = created.json["join_url"].rsplit("/", 1)[-1]
    for name, sex in (("Bob", "male"), ("Cid", "male")):
        joined = client.post(f"/api/v1/join/{join}", json={"name": name, "sex": sex})
        assert joined.status_code == 201, joined.json
        tokens[joined.json["seat"]] = joined.json["token"]

    rng = random.Random(f"{profile}/{seed}")
    log: list = []
    for step in range(STEPS):
        state = stored(app, table_id)
        seat = rng.choice(list(state.players))  # (in the order they joined: seat ids are random)
        name = next_action(rng, state, seat)
        body = {"action": name, **params_for(rng, name, things(state), cards)}
        log.append((seat, body))
        answer = client.post(f"/api/v1/tables/{table_id}/actions", json=body, headers=auth(tokens[seat]))
        where = f"{profile} seed {seed} step {step}: {log[-6:]}"
        assert answer.status_code < 500, (where, caplog.text[-3000:])
        after = stored(app, table_id)
        if answer.status_code >= 400:
            assert answer.json.get("error"), (where, answer.json)
            assert after.to_json() == state.to_json(), where
            continue
        assert after.version == state.version + 1, where
        assert not broken(after), (where, broken(after))
        if rng.random() < 0.15:  # the author takes it back
            seq = answer.json["event"]["seq"]
            undone = client.post(f"/api/v1/tables/{table_id}/history/{seq}/undo", json={},
                                 headers=auth(tokens[seat]))
            assert undone.status_code < 500, (where, answer.json["event"], caplog.text[-3000:])
            if undone.status_code == 200:
                back = stored(app, table_id).to_json()
                for part in ("players", "turn", "combat", "board", "winners"):
                    assert back[part] == state.to_json()[part], (where, part)
    with app.app_context():
        assert store.verify(get_store(), table_id)


def form_fields(params: dict) -> dict:
    """The parameters as a phone's form sends them: text, repeated fields for a list; objects
    have no form field (the forms send their flat fields instead)."""
    fields = {}
    for key, v in params.items():
        if isinstance(v, dict) or v is None:
            continue
        fields[key] = [str(x) for x in v] if isinstance(v, list) else ("true" if v is True else "false" if v is False else str(v))
    return fields


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("store_backend,seed", [("sqlite", s) for s in PAGE_SEEDS]
                         + [("postgres", s) for s in PG_PAGE_SEEDS])
def test_random_taps_on_the_pages_never_fail_and_every_phone_renders(app, cards, profile, seed, caplog, monkeypatch):
    """The same random play through the phones' forms (htmx posts, as the pages send them): the
    answer — the board re-rendered for the phone that tapped — never fails, a refusal changes
    nothing, and every phone's full page renders whatever the table holds now."""
    dice = random.Random(f"page-dice/{profile}/{seed}")
    monkeypatch.setattr(secrets, "randbelow", dice.randrange)
    phones = [Phone(app) for _ in range(3)]
    created = phones[0].post("/tables", {"name": "Fuzz", "player_name": "Ann", "sex": "female", "profile": profile})
    assert created.status_code == 303, created.get_data(as_text=True)[:500]
    table_id = phones[0].table_id = created.headers["Location"].rsplit("/", 1)[-1]
    path = phones[0].join_url()
    phones[1].join(path, "Bob")
    phones[2].join(path, "Cid", "female")

    rng = random.Random(f"pages/{profile}/{seed}")
    log: list = []
    for step in range(STEPS // 2):
        state = stored(app, table_id)
        k = rng.randrange(3)
        if k >= len(state.players):
            continue  # removed from the table: that phone has no seat now
        seat = list(state.players)[k]
        name = next_action(rng, state, seat)
        fields = form_fields(params_for(rng, name, things(state), cards))
        log.append((k, name, fields))
        answer = phones[k].post(f"/t/{table_id}/act/{name}", fields, htmx=True)
        where = f"{profile} seed {seed} step {step}: {log[-6:]}"
        assert answer.status_code < 500, (where, caplog.text[-3000:])
        if answer.status_code >= 400:
            assert stored(app, table_id).to_json() == state.to_json(), where
        if step % 10 == 9:
            for phone in phones:
                page = phone.get(f"/t/{table_id}")
                assert page.status_code in (200, 410), (where, page.status_code, caplog.text[-3000:])  # (410: removed)
    with app.app_context():
        assert store.verify(get_store(), table_id)


# --- fights described for POST /api/v1/combat/evaluate (and `companion referee combat`) ------------

def _odd(rng: random.Random):
    return rng.choice(["x", 7, -3, None, True, [], {}, {"race": "elf"}, 10 ** 9, 2.5, "3", [3], "munchkin-1.6"])


def _with_odd(rng: random.Random, part: dict, keys: list[str]) -> dict:
    """``part`` with a wrong value or two for some of ``keys``, now and then."""
    for _ in range(rng.choice([0, 0, 0, 0, 0, 1, 2])):
        part[rng.choice(keys)] = _odd(rng)
    return part


def card_fight(rng: random.Random) -> dict:
    """A card-game fight as an API client might describe it, right or (in places) wrong."""
    def character():
        c = {"level": rng.randint(1, 9), "sex": rng.choice(["male", "female"])}
        if rng.random() < .5:
            c["items"] = [_with_odd(rng, {"name": "Sword", "bonus": rng.randint(-3, 6),
                                          "slot": rng.choice(["one_hand", "headgear", "none", "none"])},
                                    ["bonus", "slot", "big", "in_use", "gold", "usable_by", "run_away_bonus", "bonus_if"])
                          for _ in range(rng.randint(0, 2))]
        if rng.random() < .4:
            c["curses"] = [_with_odd(rng, {"name": "Curse", "effects": [
                {"type": rng.choice(["combat_bonus", "run_away_bonus", "lose_levels", "odd"]),
                 "value": rng.choice([-2, 1, "x"]), "until": rng.choice(["removed", "next_combat", "x"])}]},
                ["name", "effects"]) for _ in range(rng.randint(0, 2))]
        c["races"] = rng.sample(["elf", "dwarf", "halfling"], rng.choice([0, 0, 1]))
        c["classes"] = rng.sample(["warrior", "wizard", "cleric", "thief"], rng.choice([0, 0, 1]))
        if rng.random() < .3:
            c["rolls"] = [rng.randint(1, 6) for _ in range(rng.randint(0, 3))]
        if rng.random() < .2:
            c[rng.choice(["berserk", "turning", "flight", "reroll"])] = rng.randint(0, 3)
        return c

    def monster():
        return _with_odd(rng, {"name": "Orc", "level": rng.randint(0, 20), "treasures": rng.randint(0, 3),
                               "undead": rng.random() < .2,
                               **({"modifiers": [{"against": rng.choice([{"race": "elf"}, {"sex": "male"}]),
                                                  "value": rng.randint(-5, 5)}]} if rng.random() < .3 else {}),
                               **({"bad_stuff": rng.choice([{"effects": [{"type": "lose_levels", "value": 2}]},
                                                            {"effects": [{"type": "odd"}]}, {"levels_lost": "two"},
                                                            {"death": True}])} if rng.random() < .3 else {}),
                               **({"will_not_pursue": rng.choice([{"max_level": 3}, {"max_level": "x"}])}
                                  if rng.random() < .2 else {}),
                               **({"enhancers": [{"name": "Ancient", "level_change": rng.choice([10, -3]),
                                                  "treasure_change": rng.choice([1, 2])}]} if rng.random() < .2 else {})},
                         ["level", "treasures", "levels", "undead", "modifiers", "bad_stuff", "will_not_pursue"])

    fight = {"fighter": character(), "monsters": [monster() for _ in range(rng.randint(1, 3))]}
    if rng.random() < .3:
        fight["helper"] = character()
    if rng.random() < .3:
        fight["run_away"] = True
    if rng.random() < .2:
        fight["one_shots"] = [{"side": rng.choice(["players", "monsters"]), "bonus": rng.randint(-5, 5)}]
    if rng.random() < .2:
        fight["profile"] = rng.choice(["munchkin-1.71", "munchkin-classic", "nonsense", 7])
    return fight


def quest_fight_description(rng: random.Random) -> dict:
    """A Munchkin Quest fight as an API client might describe it, right or (in places) wrong."""
    def character():
        c = {"level": rng.randint(1, 9), "die": rng.randint(1, 6)}
        if rng.random() < .5:
            c["items"] = [_with_odd(rng, {"name": "Sword", "bonus": rng.randint(0, 4), "slot": "one_hand"},
                                    ["bonus", "slot", "where", "in_use"]) for _ in range(rng.randint(0, 3))]
        return _with_odd(rng, c, ["level", "die", "items", "bonus", "gold", "health", "room"])

    fight = {"game": "munchkin-quest", "fighter": character(), "monsters": [
        _with_odd(rng, {"name": "Orc", "level": rng.randint(0, 12), "dice": rng.choice([1, 2, [3], [2, 5]]),
                        "bad_stuff": rng.choice([{"health": 1}, {"lose": "headgear"}, "lose a level", {"gold": 100}])},
                  ["level", "dice", "die", "rolls", "bonus", "dreadful", "levels", "treasures", "owner", "bad_stuff"])
        for _ in range(rng.randint(1, 3))]}
    if rng.random() < .3:
        fight["helper"] = character()
    if rng.random() < .2:
        _with_odd(rng, fight, ["profile", "flee", "roll", "others_in_room"])
    return fight


@pytest.mark.parametrize("describe", [card_fight, quest_fight_description])
def test_random_fight_descriptions_get_a_verdict_or_a_reason(describe):
    """Fights described by hand, with wrong values in places: every one is judged or refused with
    a reason (400), never an error; a verdict's totals are its lines' sums, and its outcome follows
    from them (ties to the monsters, except a Warrior's in the card game; Quest: always)."""
    db = sqlite_utils.Database(memory=True)
    card_store.migrate(db)
    card_store.load_bundled(db)
    rng, judged = random.Random(describe.__name__), 0
    for _ in range(1500):
        fight = describe(rng)
        try:
            verdict = evaluate(db, json.loads(json.dumps(fight)))
        except Refused as exc:
            assert exc.status < 500 and exc.message, (fight, exc)
            continue
        judged += 1
        players, monsters = verdict["players"], verdict["monsters"]
        assert players["total"] == sum(line["value"] for line in players["lines"]), fight
        assert monsters["total"] == sum(line["value"] for line in monsters["lines"]), fight
        if players["total"] != monsters["total"]:
            assert (verdict["outcome"] == "win") == (players["total"] > monsters["total"]), fight
    assert judged >= 150  # a right description is judged: many are
