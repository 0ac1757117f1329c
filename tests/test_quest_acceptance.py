"""Munchkin Quest played as an outside acceptance tester would: whole games and their edge cases.

Each test names the section of the seed summary (Munchkin Quest, French summary) whose rule it
checks, and covers what tests/test_quest.py does not: undoing the step that hits the top level,
the monsters' move after a death, wrong JSON for what the players type in. The dice are always
given.
"""
import re

import pytest

from companion.referee import history
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


# --- the turn after a death (Mort; Tour de jeu, 4. Déplacement des monstres) ----------------------

def test_after_a_death_the_monsters_move_still_rolls_the_colour_die_once():
    """A death jumps to the monsters' move (Mort), and that move begins with the colour die: the player
    it names draws a DxM card. Once a turn; Charity is not part of it (the hand was discarded)."""
    state = act(new_table("Ann", "Bob", "Cid"), "s0", "quest.draw")
    state = act(state, "s0", "quest.die", seat="s0")
    assert state.turn["phase"] == "monsters"
    assert refused(state, "s0", "quest.monsters").status == 400  # which colour? (none: nothing changes)
    assert refused(state, "s0", "quest.monsters", colour="s0").rule.id == "death.state"
    before = state
    event = t.decide(state, "s0", "quest.monsters", {"colour": "s1"})
    state = t.apply(state, event)
    assert q(state, "s1")["dxm"] == 4 and q(state, "s0")["dxm"] == 0 and state.turn["phase"] == "monsters"
    assert history.render(event.payload["summary"], "Ann") == "the colour die shows Bob, who draws a DxM card"
    assert refused(state, "s0", "quest.monsters", colour="s2").rule.id == "quest.turn"  # once a turn
    undone = t.apply(state, t.inverse(state, event))
    assert undone.players == before.players and undone.turn == before.turn
    state = act(state, "s0", "turn.end")
    assert state.turn["seat"] == "s1" and "colour_die" not in state.turn


def test_a_living_player_still_ends_the_moves_once():
    """Outside a death the colour die comes with the end of the moves and actions, once."""
    state = act(new_table("Ann", "Bob"), "s0", "quest.draw")
    state = act(state, "s0", "quest.monsters", colour="s1")
    assert q(state, "s1")["dxm"] == 4
    assert refused(state, "s0", "quest.monsters", colour="s1").rule.id == "quest.turn"


def test_the_phone_offers_the_colour_die_after_a_death_once(app):
    """On the phone: after Alice dies on her turn, the monsters' move offers the colour die, and once it
    is recorded it is gone."""
    from test_quest_pages import quest_table, text

    alice, bob = quest_table(app)
    assert alice.act("quest.draw").status_code == 200
    board = text(alice.act("quest.die"))
    assert 'id="colour-after-death"' in board and '>Alice</option>' not in board  # the dead draw nothing
    bob_seat = re.search(r'<option value="([^"]+)">Bob</option>', board).group(1)
    board = text(alice.act("quest.monsters", colour=bob_seat))
    assert 'id="colour-after-death"' not in board and 'data-action="turn.end"' in board


# --- what the players type in (wrong JSON is refused, never stored as something else) -------------

@pytest.mark.parametrize("monster, word", [
    ({"name": ["Orc"], "level": 3}, "name"), ({"name": {"en": "Orc"}, "level": 3}, "name"),
    ({"name": "Orc", "level": 3, "dreadful": "maybe"}, "dreadful"), ({"name": "Orc", "level": 3, "dreadful": 0}, "dreadful"),
    ({"name": "Orc", "level": 3, "boss": "maybe"}, "boss"),
    ({"name": "Orc", "level": 3, "bad_stuff": {"text": ["lose", "a", "hat"]}}, "bad_stuff.text")])
def test_a_typed_in_monster_with_a_wrong_kind_of_value_is_refused(monster, word):
    """A monster's name given as a list, or "dreadful": "no", was stored as the text "['Orc']" or as a
    dreadful monster (any value but an empty one counted as yes): refused instead, nothing changes."""
    state = act(new_table("Ann"), "s0", "quest.draw")
    error = refused(state, "s0", "quest.explore", name="Crypt", monster=monster)
    assert error.status == 400 and (word in error.message or "name" in error.message), error.message


def test_a_monster_marked_dreadful_as_text_the_way_a_form_sends_it_still_counts():
    state = act(new_table("Ann"), "s0", "quest.draw")
    state = act(state, "s0", "quest.explore", name="Crypt", monster={"name": "Ghoul", "level": 2, "dreadful": "true"})
    assert state.combat["monsters"][0]["dreadful"] and state.combat["monsters"][0]["levels"] == 2
    state = act(new_table("Ann"), "s0", "quest.draw")
    state = act(state, "s0", "quest.explore", name="Crypt", monster={"name": "Ghoul", "level": 2, "dreadful": "false"})
    assert not state.combat["monsters"][0]["dreadful"]


@pytest.mark.parametrize("item", [{"name": ["Hat"], "slot": "headgear"}, {"name": "Hat", "slot": "headgear", "big": "maybe"}])
def test_a_typed_in_item_with_a_wrong_kind_of_value_is_refused(item):
    error = refused(new_table("Ann"), "s0", "quest.item.add", seat="s0", item=item)
    assert error.status == 400, error.message


# --- the Boss and the Entrance (Règles inamovibles) ---------------------------------------------------

def test_a_monster_that_joined_the_boss_fight_does_not_stay_in_the_entrance():
    """A monster added to the Boss fight (a Wandering Monster) stands in the Entrance while it lasts;
    when the fight is fled it must not stay there (no monster stops in the Entrance), as after any
    other fight in the Entrance. The Boss itself never leaves it and is not on the map."""
    state = explored(at_level(new_table("Ann", "Bob"), "s0", 9), monster={"name": "Rat", "level": 1})
    crypt = q(state, "s0")["room"]
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=[1])
    state = act(act(state, "s0", "quest.fight.resolve"), "s0", "quest.move", room="entrance")
    state = act(state, "s0", "quest.boss", monster={"name": "Boss", "level": 5})
    state = act(state, "s1", "quest.fight.monster", monster={"name": "Wanderer", "level": 2})
    state = act(state, "s0", "quest.fight.dice", fighter_die=1, monster_dice=[6, 6])
    state = act(state, "s0", "quest.fight.resolve")
    event = t.decide(state, "s0", "quest.fight.flee", {"fighter_rolls": [6, 6], "room": crypt})
    fled = t.apply(state, event)
    assert [m["name"] for m in fled.board["monsters"].values() if m["room"] == "entrance"] == []
    assert "Wanderer leaves the map" in history.render(event.payload["summary"], "Ann")
    assert not fled.board["boss"]["beaten"] and q(fled, "s0")["room"] == crypt
    undone = t.apply(fled, t.inverse(fled, event))
    assert undone.board == state.board and undone.combat == state.combat


# --- the app's dice are not rolled twice (Combat: the better total wins) --------------------------

def bobs_turn():
    """Ann (the host) ends her turn at once: Bob, not the host, plays."""
    state = act(act(new_table("Ann", "Bob"), "s0", "quest.draw"), "s0", "quest.monsters")
    return act(act(state, "s0", "turn.end"), "s1", "quest.draw")


def test_a_die_the_app_rolled_in_a_fight_is_not_typed_over_nor_undone_but_by_the_host():
    """Bob lets the app roll, sees a 1 against the monster's 6, and types a 6 over it (or undoes the
    roll and rolls again): a second roll. Only the host changes or takes back what the app rolled;
    a die the player typed in may still be corrected."""
    state = act(bobs_turn(), "s1", "quest.explore", name="Crypt", monster={"name": "Orc", "level": 3})
    state = act(state, "s1", "quest.fight.dice", fighter_die=2)
    state = act(state, "s1", "quest.fight.dice", fighter_die=3)  # a typo corrected: allowed
    rolled = t.decide(state, "s1", "quest.fight.dice", {"roll": True})
    after = t.apply(state, rolled)
    monster = after.combat["monsters"][0]["uid"]
    assert after.combat["dice"]["fighter"] == 3 and len(after.combat["dice"]["monsters"][monster]) == 1
    other = 1 if after.combat["dice"]["monsters"][monster][0] != 1 else 2
    again = refused(after, "s1", "quest.fight.dice", monster_dice=[other])
    assert again.status == 403 and again.rule.id == "quest.combat"
    assert act(after, "s1", "quest.fight.dice", fighter_die=4, monster_dice=after.combat["dice"]["monsters"][monster])
    with pytest.raises(t.Refused) as undo:
        t.inverse(after, rolled, "s1")
    assert undo.value.status == 403 and undo.value.rule.id == "quest.combat"
    assert t.inverse(after, rolled, "s0")  # the host may take it back
    assert act(after, "s0", "quest.fight.dice", monster_dice=[other]).combat["dice"]["monsters"][monster] == [other]


def test_undoing_an_escape_the_app_rolled_cites_the_quest_summary():
    state = explored(new_table("Ann", "Bob"), monster=ORC)
    state = act(state, "s0", "quest.fight.dice", fighter_die=1, monster_dice=[6])
    state = act(state, "s0", "quest.fight.resolve")
    event = t.decide(state, "s0", "quest.fight.flee", {"room": "entrance"})
    fled = t.apply(state, event)
    with pytest.raises(t.Refused) as undo:
        t.inverse(fled, event, "s1")  # Bob, not the host
    assert undo.value.rule.id == "quest.flee" and "Munchkin Quest" in undo.value.as_dict()["citation"]


# --- fleeing with a helper (Combat, Perdu) ------------------------------------------------------------

def lost_with_a_helper():
    """Bob (not the host) loses to an Orc with Cid's help: both must flee."""
    state = act(act(new_table("Ann", "Bob", "Cid"), "s0", "quest.draw"), "s0", "quest.monsters")
    state = act(act(state, "s0", "turn.end"), "s1", "quest.draw")
    state = act(state, "s1", "quest.explore", name="Crypt", monster={"name": "Orc", "level": 3, "bad_stuff": {"health": 2}})
    state = act(act(state, "s1", "combat.help.ask", seat="s2"), "s2", "combat.help.accept")
    state = act(act(state, "s1", "quest.fight.dice", fighter_die=1, monster_dice=[6]), "s2", "quest.fight.dice", helper_die=1)
    return act(state, "s1", "quest.fight.resolve")


def test_each_player_rolls_their_own_flee_dice():
    """Each one who flees rolls a die per monster (Perdu): the fighter typing a 1 for the helper (or
    the helper a 1 for the fighter) is refused, as for the fight's dice; the app rolls a die nobody
    typed, and the host may type anyone's."""
    state = lost_with_a_helper()
    assert state.combat["stage"] == "flee"
    for actor, params in (("s1", {"fighter_rolls": [6], "helper_rolls": [1]}), ("s2", {"fighter_rolls": [1]})):
        error = refused(state, actor, "quest.fight.flee", room="entrance", **params)
        assert error.status == 403, error.message
    fled = act(state, "s1", "quest.fight.flee", fighter_rolls=[6], room="entrance")  # Cid's die: the app's
    assert q(fled, "s1")["health"] == 3 and fled.combat is None
    hosted = act(state, "s0", "quest.fight.flee", fighter_rolls=[6], helper_rolls=[5], room="entrance")
    assert q(hosted, "s1")["health"] == 3 and q(hosted, "s2")["health"] == 3


def test_the_monsters_owner_does_not_run_the_fighters_escape():
    """The monster's owner rolls its dice (Propriétaires des monstres), but the flight is the
    fighter's: choosing where to flee (Perdu) and rolling their own dice. Cid, who owns the Orc,
    running Bob's escape (the app rolling Bob's dice, Cid choosing the room) is refused."""
    state = act(act(new_table("Ann", "Bob", "Cid"), "s0", "quest.draw"), "s0", "quest.monsters")
    state = act(act(state, "s0", "turn.end"), "s1", "quest.draw")
    state = act(state, "s1", "quest.explore", name="Crypt", monster={"name": "Orc", "level": 3, "owner": "s2"})
    state = act(act(state, "s1", "quest.fight.dice", fighter_die=1), "s2", "quest.fight.dice", monster_dice=[6])
    state = act(state, "s2", "quest.fight.resolve")  # settling on the dice is anyone's in the fight
    error = refused(state, "s2", "quest.fight.flee", room="entrance")
    assert error.status == 403
    assert act(state, "s1", "quest.fight.flee", fighter_rolls=[5], room="entrance").combat is None


# --- a whole game over the JSON API (Flask test client) ---------------------------------------------

def test_a_four_player_quest_over_the_api_with_a_helper_a_death_and_undo(client):
    """Four phones over /api/v1: a fight lost with a helper, each fleeing on their own dice (the
    helper's rolled by the app), the colour die after the fighter's own death, refusals for the
    wrong player and for a stale version."""
    created = client.post("/api/v1/tables", json={"name": "Dungeon", "profile": "munchkin-quest",
                                                  "host": {"name": "Ann", "sex": "female"}}).get_json()
    tokens, seats = {"Ann": created["token"]}, {"Ann": created["seat"]}
    code = created["join_url"].rsplit("/", 1)[-1]
    for name in ("Bob", "Cid", "Dee"):
        joined = client.post(f"/api/v1/join/{code}", json={"name": name, "sex": "male"}).get_json()
        tokens[name], seats[name] = joined["token"], joined["seat"]
    table_id = created["table"]["id"]

    def act(who, action, expect=200, **params):
        response = client.post(f"/api/v1/tables/{table_id}/actions", json={"action": action, **params},
                               headers={"Authorization": f"Bearer {tokens[who]}"})
        assert response.status_code == expect, response.get_json()
        return response.get_json()

    def player(answer, name):
        return next(p for p in answer["table"]["players"] if p["name"] == name)

    act("Ann", "quest.draw")
    answer = act("Ann", "quest.explore", name="Crypt", monster={"name": "Orc", "level": 4, "bad_stuff": {"health": 3}})
    version = answer["table"]["version"]
    assert act("Bob", "quest.fight.dice", expect=403, fighter_die=6)["error"]  # not Bob's die
    act("Ann", "combat.help.ask", seat=seats["Cid"])
    act("Cid", "combat.help.accept", expected_version=version + 1)
    assert "version" in act("Dee", "combat.help.accept", expect=409, expected_version=version)["error"]
    act("Ann", "quest.fight.dice", fighter_die=1, monster_dice=[6])
    act("Cid", "quest.fight.dice", helper_die=1)
    answer = act("Ann", "quest.fight.resolve")
    assert player(answer, "Ann")["quest"]["health"] == 3 and player(answer, "Cid")["quest"]["health"] == 3
    assert act("Cid", "quest.fight.flee", expect=403, fighter_rolls=[1], room="entrance")  # Ann's dice are hers
    assert act("Dee", "quest.fight.flee", expect=403, room="entrance")  # not in the fight
    act("Cid", "quest.health", seat=seats["Cid"], change=-2)  # a card: Cid is at 1 health
    answer = act("Ann", "quest.fight.flee", fighter_rolls=[6], room="entrance")  # Cid's die: the app's
    cid = player(answer, "Cid")
    assert cid["dead"] or cid["quest"]["health"] == 1  # caught (1-4): 3 health, dead; or escaped
    assert answer["table"]["combat"] is None and player(answer, "Ann")["quest"]["room"] == "entrance"
    answer = act("Ann", "quest.die", seat=seats["Ann"])
    assert answer["table"]["turn"]["phase"] == "monsters"
    answer = act("Ann", "quest.monsters", colour=seats["Bob"])
    assert player(answer, "Bob")["quest"]["dxm"] == 4
    assert act("Ann", "quest.monsters", expect=422, colour=seats["Dee"])["rule"] == "quest.turn"
    answer = act("Ann", "turn.end")
    assert answer["table"]["turn"]["seat"] == seats["Bob"] and player(answer, "Ann")["dead"]
