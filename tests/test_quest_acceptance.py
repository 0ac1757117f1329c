"""Munchkin Quest played as an outside acceptance tester would: whole games and their edge cases.

Each test names the section of the seed summary (Munchkin Quest, French summary) whose rule it
checks, and covers what tests/test_quest.py does not: undoing the step that hits the top level,
the monsters' move after a death, wrong JSON for what the players type in. The dice are always
given.
"""
import pytest

from companion.referee import table as t
from test_game_flow import act, at_level, refused
from test_quest import ORC, explored, new_table, q


# --- levels (Comment gagner des niveaux ?; Règles inamovibles) ------------------------------------

@pytest.mark.parametrize("monster", [{"name": "Troll", "level": 1, "levels": 2},
                                     {"name": "Dragon", "level": 1, "dreadful": True}])
def test_undoing_a_kill_that_reached_level_10_puts_the_level_back_where_it_was(monster):
    """A kill worth two levels at Level 9 stops at 10 (nothing goes past it); undoing the fight's end
    takes back the one level gained, not the two the card was worth."""
    state = explored(at_level(new_table("Ann", "Bob"), "s0", 9), monster=monster)
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=[1])
    event = t.decide(state, "s0", "quest.fight.resolve", {})
    won = t.apply(state, event)
    assert won.players["s0"].level == 10
    undone = t.apply(won, t.inverse(won, event))
    assert undone.players["s0"].level == 9 and undone.players == state.players and undone.combat == state.combat
