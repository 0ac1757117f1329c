"""Undo checked by the same rules as the actions it undoes: death as a state, the edition's book
in its refusals, and a history that says what happened (found by playing whole games through
the API, 2026-11-30)."""
import pytest

from companion.referee import history
from companion.referee import table as t
from companion.referee.rules import Refused
from test_game_flow import act, at_level, card, new_table


def decided(state, actor, action, **params):
    """The state after ``action`` and its event (to undo later)."""
    event = t.decide(state, actor, action, params)
    return t.apply(state, event), event


def undo_refused(state, event) -> Refused:
    with pytest.raises(Refused) as exc:
        t.inverse(state, event)
    return exc.value


def dead_at_turn_end(profile="munchkin-1.6"):
    """Ann dies on her turn (a door with nothing, the room looted) and ends it: Bob's turn, Ann back."""
    state = new_table("Ann", "Bob", "Cid", profile=profile)
    state = act(state, "s0", "item.add", seat="s0", item={"name": "Leather Armor", "bonus": 1, "slot": "armor", "gold": 200})
    state = act(state, "s0", "turn.door", found="other")
    state = act(state, "s0", "turn.loot")
    state = act(state, "s0", "character.die", seat="s0")
    assert state.players["s0"].dead and not state.players["s0"].items
    state, end = decided(state, "s0", "turn.end", hand=0)
    assert not state.players["s0"].dead and state.turn["seat"] == "s1"
    return state, end


def test_undoing_the_turn_end_makes_the_dead_dead_again_while_the_new_character_has_not_played():
    """1.6, Death: the dead come back as the next player's turn begins; undoing that turn's start
    puts them back as they were, dead."""
    state, end = dead_at_turn_end()
    state = t.apply(state, t.inverse(state, end))
    assert state.players["s0"].dead and state.turn["seat"] == "s0"


@pytest.mark.parametrize("played", [
    ("item.add", {"seat": "s0", "item": {"name": "Helm of Courage", "bonus": 1, "slot": "headgear", "gold": 200}}),
    ("level.up", {"seat": "s0"}),
    ("race.add", {"seat": "s0", "race": "elf"}),
])
def test_undoing_the_turn_end_after_the_new_character_played_is_refused(played):
    """Undoing it then would leave a dead character with what the new one played — a helmet worn,
    a level gained — which no action could make (death.state). It was accepted (2026-11-30)."""
    state, end = dead_at_turn_end()
    action, params = played
    state = act(state, "s1" if action == "level.up" else "s0", action, **params)
    refusal = undo_refused(state, end)
    assert refusal.rule.id == "death.state" and "Ann" in refusal.message and refusal.status == 409


def test_a_dead_characters_level_is_not_changed_by_an_undo():
    """1.6, Death: no levels while dead; undoing a Go Up a Level on a dead character was accepted,
    (2026-11-30)."""
    state = new_table("Ann", "Bob")
    state, up = decided(state, "s1", "level.up", seat="s0")
    state = act(state, "s0", "character.die", seat="s0")
    refusal = undo_refused(state, up)
    assert refusal.rule.id == "death.state" and state.players["s0"].level == 2


def test_an_undo_of_a_sheet_change_that_would_change_a_dead_characters_level_is_refused():
    """A Thief caught stealing loses a level; if the Thief is dead by the time that is undone, the
    level may not come back (death.state)."""
    state = new_table("Ann", "Bob")
    state = at_level(state, "s0", 3)
    state = act(state, "s0", "class.add", seat="s0", **{"class": "thief"})
    state = act(state, "s1", "item.add", seat="s1", item={"name": "Dagger", "bonus": 1, "slot": "one_hand", "gold": 100})
    item = state.players["s1"].items[0]["uid"]
    state, steal = decided(state, "s0", "item.steal", seat="s0", target="s1", uid=item, die=1)
    assert state.players["s0"].level == 2  # caught: a level lost
    state = act(state, "s0", "character.die", seat="s0")
    assert undo_refused(state, steal).rule.id == "death.state"


def test_an_undo_refusal_cites_the_book_of_the_tables_edition():
    """Refusals of an action cite the table's book; an undo's cited the 1.6 book at every table."""
    state = new_table("Ann", "Bob", profile="munchkin-classic")
    state, up = decided(state, "s0", "level.up", seat="s0")  # on herself: the classic books (#13)
    state = act(state, "s0", "character.die", seat="s0")
    refusal = undo_refused(state, up)
    assert refusal.profile_id == "munchkin-classic"
    assert "German rules (2003)" in refusal.as_dict()["citation"]


def test_the_history_of_a_won_fight_names_the_elf_helpers_levels():
    """1.6, Asking for Help: an Elf helper goes up a level for each monster killed — and the
    history said only the fighter's levels, so nobody could see why the helper went up."""
    state = new_table("Ann", "Bob")
    state = act(state, "s1", "race.add", seat="s1", race="elf")
    state = act(state, "s0", "turn.door", found="monster", monster=card("potted-plant"))
    state = act(state, "s0", "combat.help.ask", seat="s1")
    state = act(state, "s1", "combat.help.accept")
    state = act(state, "s0", "combat.claim", _now=0)
    state, won = decided(state, "s0", "combat.resolve", _now=100)
    assert state.players["s1"].level == 2
    text = history.render(won.payload["summary"], who="Ann")
    assert text.startswith("Ann wins the fight") and text.endswith("Bob helped as an Elf: +1 level"), text


def test_a_redo_reads_redo():
    """The undo of an undo is a redo, and the history says so (it read "undo: undo: …")."""
    state = new_table("Ann")
    state, up = decided(state, "s0", "race.add", seat="s0", race="elf")
    undo = t.inverse(state, up)
    state = t.apply(state, undo)
    redo = t.inverse(state, undo)
    assert history.render(undo.payload["summary"], who="Ann").startswith("undo: ")
    assert history.render(redo.payload["summary"], who="Ann").startswith("redo: ")


@pytest.mark.parametrize("profile, bob_after, winner", [("munchkin-1.6", 9, None), ("munchkin-classic", 10, "s1")])
def test_divine_intervention_with_a_cleric_at_level_9_and_another(profile, bob_after, winner):
    """Divine Intervention raises every Cleric. In 1.6 the winning level only comes from a kill, so
    the Cleric at Level 9 stays and the other still goes up (the card was refused for both); in the
    classic books it may win the game, and the one Cleric who reaches it wins (it was refused as
    a joint win)."""
    state = new_table("Ann", "Bob", "Cid", profile=profile)
    for seat, level in (("s1", 9), ("s2", 5)):
        state = act(state, seat, "class.add", seat=seat, **{"class": "cleric"})
        state = at_level(state, seat, level)
    state, played = decided(state, "s0", "level.up", seat="s0", card="divine_intervention")
    assert (state.players["s1"].level, state.players["s2"].level, state.players["s0"].level) == (bob_after, 6, 1)
    assert state.winner == winner
    state = t.apply(state, t.inverse(state, played))  # undone: the win too
    assert (state.players["s1"].level, state.players["s2"].level, state.winner) == (9, 5, None)


def test_divine_intervention_taking_two_clerics_to_the_winning_level_is_left_to_the_table():
    state = new_table("Ann", "Bob", "Cid", profile="munchkin-classic")
    for seat in ("s1", "s2"):
        state = act(state, seat, "class.add", seat=seat, **{"class": "cleric"})
        state = at_level(state, seat, 9)
    with pytest.raises(Refused, match="together"):
        t.decide(state, "s0", "level.up", {"seat": "s0", "card": "divine_intervention"})


def test_an_escape_the_apps_die_decided_is_taken_back_by_the_host_alone():
    """Undo after "Run away (roll the app's die)" was a free second roll: a caught fighter undid it
    and ran again until the die said 5 (2026-11-30). A die typed in stays the author's to correct."""
    from test_referee_sheet import Game
    g = Game()
    g.pass_turn("a")  # Ben's turn: Ben is not the host
    g.do("combat.start", actor="b", monster={"name": "Rat", "level": 5})
    fled = g.do("combat.flee", actor="b", fighter_rolls=[2], _app_dice=["fighter"])
    assert fled.payload["app_dice"]
    refusal = undo_refused_by(g.state, fled, "b")
    assert refusal.status == 403 and refusal.rule.id == "combat.run-away"
    g._record(t.inverse(g.state, fled, "a"))  # the host's house ruling
    assert g.state.combat
    typed = g.do("combat.flee", actor="b", fighter_rolls=[2])
    assert "app_dice" not in typed.payload and t.inverse(g.state, typed, "b")


def undo_refused_by(state, event, actor) -> Refused:
    with pytest.raises(Refused) as exc:
        t.inverse(state, event, actor)
    return exc.value
