"""The game flow through the documented JSON API of a real server (`companion serve`, gunicorn).

A whole round at a 1.6 table, as a group would play it, with the referee refusing what the
books forbid: no level without a cause, one door a turn, curses and Bad Stuff that act,
death as a state, Charity that skips the dead. Every request is a real HTTP request.
"""
import pytest

from liveserver import LiveServer, api_table


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request, tmp_path_factory):
    """The real server, on its embedded SQLite store and on PostgreSQL (tests/pg.py)."""
    data = tmp_path_factory.mktemp("flow") / "data"
    data.mkdir()
    extra = ("--database-url", request.getfixturevalue("pg_cluster").new_database()) if request.param == "postgres" else ()
    live = LiveServer(data, extra=extra).start()
    yield live
    live.kill()


@pytest.fixture
def table(server):
    _, _, seats, act = api_table(server, "munchkin-1.6", "Game night")
    return act, seats


def player(answer, seat):
    return next(p for p in answer["table"]["players"] if p["seat"] == seat)


def test_a_round_refereed_through_the_api(table):
    act, seats = table
    ann, bob, cid = seats["Ann"], seats["Bob"], seats["Cid"]
    # Levels have causes: no kill without a fight; Go Up a Level by anyone on anyone.
    refused = act("Ann", "level.kill", expect=422, levels=1)
    assert refused["rule"] == "level.causes" and "Munchkin 1.6" in refused["citation"]
    answer = act("Bob", "card.play", card="boil-an-anthill", seat=ann)
    assert player(answer, ann)["level"] == 2
    # The turn: Bob cannot kick Ann's door; Ann kicks it once and meets the Harpies.
    assert act("Bob", "turn.door", expect=422, found="other")["rule"] == "turn.own"
    answer = act("Ann", "turn.door", found="monster", card="harpies")
    assert answer["table"]["turn"]["phase"] == "fight"
    monster = answer["table"]["combat"]["monsters"][0]["uid"]
    act("Cid", "card.play", card="enraged", monster=monster)  # anyone plays on the monster
    act("Cid", "combat.oneshot.add", side="monsters", one_shot={"name": "Potion", "bonus": 10})
    answer = act("Ann", "combat.flee", fighter_rolls=["1"])
    assert player(answer, ann)["level"] == 1  # Harpies: lose 2 levels (never below 1)
    assert answer["table"]["turn"]["phase"] == "charity" and "Harpies" in answer["event"]["text"]
    assert act("Ann", "turn.door", expect=422, found="other")["rule"] == "turn.door"
    answer = act("Ann", "turn.end", hand=5)
    assert answer["table"]["turn"]["seat"] == bob
    # A curse on another player acts at once, by anyone; death is a state.
    answer = act("Ann", "card.play", card="change-sex", seat=cid)
    assert player(answer, cid)["sex"] == "female"
    answer = act("Bob", "turn.door", found="monster", card="stoned-golem")
    answer = act("Bob", "combat.flee", fighter_rolls=["1"])
    assert player(answer, bob)["dead"] is True
    assert act("Ann", "level.up", expect=409, seat=bob)["rule"] == "death.state"
    answer = act("Bob", "turn.end", hand=0)
    assert player(answer, bob)["dead"] is False and answer["table"]["turn"]["seat"] == cid
    assert "new character" in answer["event"]["text"]


@pytest.mark.parametrize("body, status, words", [
    ({"action": "turn.door", "found": "dragon"}, 400, "found must be one of"),
    ({"action": "card.play", "card": "no-such-card"}, 404, "no-such-card"),
    ({"action": "card.play"}, 400, "card is required"),
    ({"action": "turn.first", "roll": "maybe"}, 400, "true or false"),
    ({"action": "dice.roll", "count": 99}, 400, "count must be from 1 to 10"),
    ({"action": "level.up", "bogus": 1}, 400, "Unknown parameter"),
])
def test_bad_input_gets_a_clear_error_and_changes_nothing(server, table, body, status, words):
    act, seats = table
    body = dict(body)  # the parameters are shared by both stores' runs
    before = act("Ann", "dice.roll")["table"]["version"]
    answer = act("Ann", body.pop("action"), expect=status, **body)
    assert words in answer["error"]
    assert act("Ann", "dice.roll")["table"]["version"] == before + 1  # only the second roll was recorded


def test_a_door_card_is_named_by_its_id_whatever_the_door_showed(table):
    """1.6, Turn Phases (1): a curse from the door acts on the one who opened it — named by its card
    id, as a monster is; a card for the hand may be named too. Typed-in numbers that are no
    numbers are refused (400), never a server error."""
    act, seats = table
    ann = seats["Ann"]
    act("Bob", "card.play", card="boil-an-anthill", seat=ann)
    answer = act("Ann", "turn.door", found="curse", card="lose-a-level")
    assert player(answer, ann)["level"] == 1 and answer["table"]["turn"]["phase"] == "door"
    assert act("Bob", "turn.door", expect=422, found="other", card="elf")["rule"] == "turn.own"
    answer = act("Ann", "combat.start", card="lame-goblin")
    goblin = answer["table"]["combat"]["monsters"][0]["uid"]
    assert "level_change" in act("Bob", "combat.enhancer.add", expect=400, monster=goblin,
                                 enhancer={"level_change": "abc"})["error"]
    assert "bonus" in act("Bob", "combat.oneshot.add", expect=400, side="players", one_shot={"bonus": "zz"})["error"]


def test_the_state_carries_the_fights_verdict_both_totals_and_who_is_winning(table):
    """The fight's totals, with every line's source, and who is winning are on every phone (1.6, Combat);
    the API's table state held only the fight's cards, so a client had to work the sums out itself."""
    act, seats = table
    assert act("Ann", "dice.roll")["table"]["verdict"] is None  # no fight
    answer = act("Ann", "turn.door", found="monster", card="net-troll")
    verdict = answer["table"]["verdict"]
    assert verdict["outcome"] == "lose" and (verdict["players"]["total"], verdict["monsters"]["total"]) == (1, 10)
    answer = act("Bob", "combat.oneshot.add", side="players", one_shot={"name": "Potion", "bonus": 10})
    assert answer["table"]["verdict"]["outcome"] == "win"
    assert {"source": "Potion", "value": 10} in [{k: line[k] for k in ("source", "value")}
                                                  for line in answer["table"]["verdict"]["players"]["lines"]]
