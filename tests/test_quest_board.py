"""Munchkin Quest's board and turn played as an outside acceptance tester would (#15).

The second pass over the summary (Munchkin Quest, French summary): setting up, the DxM card,
the moves and actions and what they cost, the free actions, Charity, the monsters' move,
when a fight starts, levels and gold, death and the restart, the backpack and Big items.
Each test names the section whose rule it checks; the dice are always given. The whole games
at the end go through the JSON API (Flask test client) with an undo after every step.
"""
import pytest

from companion.referee import table as t
from test_game_flow import act, at_level, refused
from test_quest import explored, new_table, q


# --- Big items (Gestion des cartes: one Big item free, each further one a token) -----------------

def test_two_big_items_in_play_before_the_first_turn_cost_a_token_on_it():
    """The starting Treasure cards may be put into play before the first turn: a second Big item
    costs a move/action token from that very turn, as on every later one (the tokens were counted
    only when a turn passed, so the first player kept all 3)."""
    state = new_table("Ann", "Bob")
    state = act(state, "s0", "quest.item.add", seat="s0", name="Ladder", slot="other", big=True)
    state = act(state, "s0", "quest.item.add", seat="s0", name="Pole", slot="other", big=True, place="backpack")
    state = act(state, "s0", "quest.draw")
    assert q(state, "s0")["tokens"] == 2


def test_a_big_item_received_before_the_draw_counts_on_that_turn():
    """Bob is given a second Big item after his turn came round but before he drew: his turn's tokens
    are counted as it begins with the DxM card."""
    state = act(new_table("Ann", "Bob"), "s1", "quest.item.add", seat="s1", name="Ladder", slot="other", big=True)
    state = act(state, "s0", "quest.item.add", seat="s0", name="Pole", slot="other", big=True)
    state = act(act(act(state, "s0", "quest.draw"), "s0", "quest.monsters"), "s0", "turn.end")
    assert q(state, "s1")["tokens"] == 3
    state = act(state, "s0", "quest.item.give", seat="s0", uid=q(state, "s0")["gear"][0]["uid"], to="s1")
    event = t.decide(state, "s1", "quest.draw", {})
    drawn = t.apply(state, event)
    assert q(drawn, "s1")["tokens"] == 2
    assert t.apply(drawn, t.inverse(drawn, event)).players == state.players


# --- the search (Tour de jeu, Fouille: 1 token and 1d6 on the search table) ----------------------

def test_a_search_die_the_app_rolled_is_taken_back_by_the_host_alone():
    """A search the app rolled the d6 for could be undone by the player and searched again: a second
    roll for the same token. Like a fight's die the app rolled, only the host takes it back; a die the
    player typed in (the real die) may still be undone, a slip of the finger."""
    state = act(new_table("Ann", "Bob"), "s1", "level.up")  # (Ann is the host)
    state = act(act(act(state, "s0", "quest.draw"), "s0", "quest.monsters"), "s0", "turn.end")
    state = act(state, "s1", "quest.draw")
    event = t.decide(state, "s1", "quest.search", {})
    searched = t.apply(state, event)
    with pytest.raises(t.Refused) as refusal:
        t.inverse(searched, event, actor="s1")
    assert refusal.value.rule.id == "quest.search" and refusal.value.status == 403
    assert t.dice_kept(searched, "s1", event) and not t.dice_kept(searched, "s0", event)
    assert t.apply(searched, t.inverse(searched, event, actor="s0")).players == state.players  # the host
    typed = t.decide(state, "s1", "quest.search", {"die": 2})
    assert t.apply(t.apply(state, typed), t.inverse(t.apply(state, typed), typed, actor="s1")).players == state.players
