"""The event-sourced table in the referee: decide, apply, replay and undo."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.referee import table as t
from companion.referee.rules import Refused
from test_game_flow import card as game_flow_card


def new_table(*names):
    events = [t.create("tid", "Friday", "munchkin-1.6")]
    state = t.apply(None, events[0])
    for i, name in enumerate(names):
        event = t.join(state, f"s{i}", name, "male" if i % 2 else "female")
        events.append(event)
        state = t.apply(state, event)
    return state, events


def run(state, events, actor, action, **params):
    event = t.decide(state, actor, action, params)
    events.append(event)
    return t.apply(state, event)


def test_creator_is_host_and_players_start_at_level_1():
    state, _ = new_table("Ann", "Ben")
    assert state.host == "s0"
    assert [p.level for p in state.players.values()] == [1, 1]


@pytest.mark.parametrize("name, message", [("", "required"), ("x" * 25, "at most 24"), ("a\x00b", "control")])
def test_bad_names_are_refused(name, message):
    state, _ = new_table("Ann")
    with pytest.raises(Refused, match=message):
        t.join(state, "s9", name, "male")


def test_names_are_unique_ignoring_case_and_spacing():
    state, _ = new_table("Ann")
    with pytest.raises(Refused, match="already called"):
        t.join(state, "s9", "  aNN ", "male")


def test_eight_seats_then_full():
    state, _ = new_table(*[f"P{i}" for i in range(8)])
    with pytest.raises(Refused) as exc:
        t.join(state, "s9", "Late", "male")
    assert exc.value.rule.id == "table.players"


def test_players_change_only_their_own_character_unless_host():
    """Go Up a Level goes on anyone (1.6, Go Up a Level); the sheet itself is its owner's."""
    state, events = new_table("Ann", "Ben")
    state = run(state, events, "s1", "level.up", seat="s0")
    assert state.players["s0"].level == 2
    with pytest.raises(Refused) as exc:
        t.decide(state, "s1", "race.add", {"seat": "s0", "race": "elf"})
    assert exc.value.rule.id == "table.host" and exc.value.status == 403
    state = run(state, events, "s0", "race.add", seat="s1", race="elf")
    assert state.players["s1"].races == ["elf"]


def test_kill_to_ten_wins_and_freezes_the_game():
    state, events = new_table("Ann", "Ben")
    for _ in range(8):
        state = run(state, events, "s1", "level.up")
    with pytest.raises(Refused) as exc:
        t.decide(state, "s1", "level.up", {})
    assert exc.value.rule.id == "level.win-by-kill"
    with pytest.raises(Refused) as exc:  # no kill without a fight (level.causes)
        t.decide(state, "s1", "level.kill", {"levels": 1})
    assert exc.value.rule.id == "level.causes"
    state = run(state, events, "s0", "turn.door", found="other")  # Ann's quiet turn
    state = run(state, events, "s0", "turn.loot")
    state = run(state, events, "s0", "turn.end")
    state = run(state, events, "s1", "turn.door", found="monster", monster={"name": "Slug", "level": 1})
    state = run(state, events, "s1", "combat.claim", _now=0)
    state = run(state, events, "s1", "combat.resolve", _now=100)
    assert state.winner == "s1" and state.players["s1"].level == 10
    with pytest.raises(Refused) as exc:
        t.decide(state, "s0", "level.up", {})
    assert exc.value.rule.id == "game.won"
    # undoing the winning kill reopens the game
    state = t.apply(state, t.inverse(state, events[-1]))
    assert state.winner is None and state.players["s1"].level == 9


def test_undo_is_a_compensating_delta_checked_by_the_rules():
    state, events = new_table("Ann", "Ben")
    state = run(state, events, "s1", "level.up")  # Ben 1 -> 2
    mine = events[-1]
    state = run(state, events, "s0", "level.up", seat="s1")  # host: Ben 2 -> 3
    state = t.apply(state, t.inverse(state, mine))
    assert state.players["s1"].level == 2  # the other change still counts
    state = run(state, events, "s1", "level.down")  # 2 -> 1
    with pytest.raises(Refused) as exc:  # undoing the host's +1 would leave Ben at 0
        t.inverse(state, events[-2])
    assert exc.value.rule.id == "level.floor"


def test_sex_change_and_its_undo():
    state, events = new_table("Ann")
    state = run(state, events, "s0", "sex.set", sex="male")
    assert state.players["s0"].sex == "male"
    with pytest.raises(Refused, match="already"):
        t.decide(state, "s0", "sex.set", {"sex": "male"})
    state = t.apply(state, t.inverse(state, events[-1]))
    assert state.players["s0"].sex == "female"


def test_host_removes_restores_and_hands_over():
    state, events = new_table("Ann", "Ben", "Cid")
    with pytest.raises(Refused, match="hand the host role"):
        t.decide(state, "s0", "player.remove", {"seat": "s0"})
    state = run(state, events, "s0", "player.remove", seat="s2")
    assert "s2" not in state.players
    state = t.apply(state, t.inverse(state, events[-1]))
    assert state.players["s2"].name == "Cid"
    state = run(state, events, "s0", "host.transfer", seat="s1")
    assert state.host == "s1"
    with pytest.raises(Refused) as exc:
        t.decide(state, "s0", "player.remove", {"seat": "s1"})
    assert exc.value.rule.id == "table.host"


def test_undoing_a_removal_seats_the_player_where_they_sat_with_their_turn():
    """A host's mis-tap on "remove" is undone as if it had not happened: the player sits where
    they sat (turn order is seating order, 1.6 Turn Phases: play passes to the left), and when
    it was their turn and nothing happened since, it is their turn again. When play went on,
    they come back to their seat and the turn stays where it is now."""
    state, events = new_table("Ann", "Ben", "Cid", "Dan")
    for action, params in (("turn.door", {"found": "other"}), ("turn.loot", {}), ("turn.end", {})):
        state = run(state, events, "s0", action, **params)
    assert state.turn["seat"] == "s1"
    turn = dict(state.turn)
    state = run(state, events, "s0", "player.remove", seat="s1")
    assert state.turn["seat"] == "s2" and list(state.players) == ["s0", "s2", "s3"]
    inverse = t.inverse(state, events[-1])
    events.append(inverse)
    state = t.apply(state, inverse)
    assert list(state.players) == ["s0", "s1", "s2", "s3"] and state.turn == turn
    assert t.replay(events).to_json() == state.to_json()

    state, events = new_table("Ann", "Ben", "Cid", "Dan")
    for action, params in (("turn.door", {"found": "other"}), ("turn.loot", {}), ("turn.end", {})):
        state = run(state, events, "s0", action, **params)
    state = run(state, events, "s0", "player.remove", seat="s1")
    removal = events[-1]
    state = run(state, events, "s2", "turn.door", found="other")  # Cid plays on
    inverse = t.inverse(state, removal)
    events.append(inverse)
    state = t.apply(state, inverse)
    assert list(state.players) == ["s0", "s1", "s2", "s3"] and state.turn["seat"] == "s2"
    assert state.turn["phase"] != "start"  # Cid's door stays kicked
    assert t.replay(events).to_json() == state.to_json()


def test_a_curse_that_found_nothing_to_take_is_undone_as_nothing():
    """1.6 Curses: Lose Your Race on a Human takes nothing — the change it records is empty, and
    undoing it is an empty change too (it used to fail on the server)."""
    state, events = new_table("Ann", "Ben")
    state = run(state, events, "s0", "curse.add", seat="s1", curse=game_flow_card("lose-your-race"))
    assert events[-1].kind == "table.changed" and events[-1].payload["ops"] == []
    inverse = t.inverse(state, events[-1])
    events.append(inverse)
    state = t.apply(state, inverse)
    assert inverse.payload["ops"] == [] and t.replay(events).to_json() == state.to_json()


def test_undoing_a_loss_puts_the_item_back_where_it_was_on_the_sheet():
    """An item taken off the middle of a sheet — lost, or given to another player — comes back
    in its place when the change is undone, not at the end of the list; the log replays the
    same order. (Undo gives back the table as it was, order included.)"""
    state, events = new_table("Ann", "Ben")
    for name, slot in (("Helmet", "headgear"), ("Club", "one_hand"), ("Boots", "footgear")):
        state = run(state, events, "s0", "item.add", seat="s0", item={"name": name, "bonus": 1, "slot": slot, "gold": 100})
    names = [i["name"] for i in state.players["s0"].items]
    club = state.players["s0"].items[1]["uid"]
    for action, params in (("item.remove", {}), ("item.give", {"to": "s1"})):
        changed = run(state, events, "s0", action, seat="s0", uid=club, **params)
        assert [i["name"] for i in changed.players["s0"].items] == ["Helmet", "Boots"]
        inverse = t.inverse(changed, events[-1])
        events.append(inverse)
        state = t.apply(changed, inverse)
        assert [i["name"] for i in state.players["s0"].items] == names and not state.players["s1"].items
        assert t.replay(events).to_json() == state.to_json()


def test_a_typed_in_curse_with_an_effect_the_referee_does_not_know_is_refused():
    """The effects a curse typed in may have are the card schema's; another is refused (400),
    with where it is wrong, rather than reaching the referee (it used to fail on the server)."""
    state, _ = new_table("Ann", "Ben")
    for effects, where in (([{"type": "lose_level"}], "effects.0.type"), ([{"type": "lose_levels", "value": "two"}],
                                                                         "effects.0.value"), ("lose a level", "effects:")):
        with pytest.raises(Refused) as exc:
            t.decide(state, "s0", "curse.add", {"seat": "s1", "curse": {"name": "Odd", "effects": effects}})
        assert exc.value.status == 400 and where in exc.value.message, exc.value.message


def test_unknown_action_and_creation_checks():
    state, _ = new_table("Ann")
    with pytest.raises(Refused, match="Unknown action"):
        t.decide(state, "s0", "level.teleport", {})
    with pytest.raises(Refused, match="unknown rule profile"):
        t.create("x", "T", "munchkin-99")
    with pytest.raises(Refused, match="1 to 2"):
        t.decide(state, "s0", "level.kill", {"levels": 3})


ACTIONS = st.sampled_from([("level.up", {}), ("level.down", {}), ("level.kill", {"levels": 1}),
                           ("level.kill", {"levels": 2}), ("sex.set", {"sex": "male"}), ("sex.set", {"sex": "female"})])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["s0", "s1", "s2"]), ACTIONS), max_size=60), st.data())
def test_replay_rebuilds_exactly_and_invariants_hold(steps, data):
    state, events = new_table("Ann", "Ben", "Cid")
    for actor, (action, params) in steps:
        try:
            state = run(state, events, actor, action, **params)
        except Refused:
            continue
        if data.draw(st.booleans()):  # sometimes undo the change just made
            try:
                inverse = t.inverse(state, events[-1])
            except Refused:
                continue
            events.append(inverse)
            state = t.apply(state, inverse)
        for p in state.players.values():
            assert 1 <= p.level <= 10
            assert (p.level == 10) == (state.winner == p.seat)
    assert t.replay(events).to_json() == state.to_json()
    assert state.version == len(events)
