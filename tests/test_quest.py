"""Munchkin Quest refereed: the board game's sheet, map, turn, fight, death and levels.

Each test names the section of the seed summary (Munchkin Quest, French summary) whose rule
it checks. The referee is pure: these tests drive ``companion.referee.table`` directly; the
dice are always given, never random. tests/test_quest_http.py plays the same rules through
the JSON API and the CLI.
"""
import pytest

import test_game_flow as game_flow
from companion.referee import history, quest_fight
from companion.referee import table as t
from companion.referee.profiles import get_profile
from companion.referee.rules import Refused
from test_game_flow import act, refused

QUEST = get_profile("munchkin-quest")
ORC = {"name": "Orc", "level": 3, "bonus": 1, "dice": 1, "treasures": 2, "bad_stuff": {"health": 1}}


def call_off(state, host="s0"):
    """The host calls the fight off as a house ruling (a card ended it): a Quest fight otherwise ends
    by winning it or fleeing (quest.combat, quest.flee)."""
    return act(state, host, "combat.end", override="quest.combat" if state.combat["stage"] == "fight" else "quest.flee")


def new_table(*names):
    return game_flow.new_table(*names, profile="munchkin-quest")


def q(state, seat):
    return state.players[seat].quest


def explored(state, seat="s0", monster=None, name="Crypt"):
    """Draw the turn's card and explore a new room (a fight starts at once)."""
    if t.turn.phase(state) == "start":
        state = act(state, seat, "quest.draw")
    return act(state, seat, "quest.explore", name=name, monster=monster or ORC)


def replayed(events):
    return t.replay(events)


# --- start (Début de partie) ------------------------------------------------------------------

def test_a_quest_character_starts_with_health_tokens_gold_and_cards_at_the_entrance():
    state = new_table("Ann", "Bob")
    ann = state.players["s0"]
    assert ann.level == 1 and ann.races == [] and ann.classes == [] and ann.sex == "female"
    assert q(state, "s0") == {"health": 4, "tokens": 3, "gold": 300, "dxm": 3, "treasure": 3, "gear": [],
                              "room": "entrance", "bought_turn": 0, "searched": []}
    assert state.board["rooms"] == {"entrance": {"name": "Entrance", "market": False}}
    assert state.profile.game == "munchkin-quest" and not state.profile.wins_at_top_level


def test_the_card_games_actions_are_not_part_of_quest_and_quest_actions_not_of_the_card_game():
    state = new_table("Ann")
    error = refused(state, "s0", "turn.door", found="other")
    assert error.status == 409 and "not part of Munchkin Quest" in error.message
    card = t.apply(None, t.create("c", "Cards", "munchkin-1.6"))
    card = t.apply(card, t.join(card, "s0", "Ann", "female"))
    assert "not part of Munchkin (the card game)" in refused(card, "s0", "quest.draw").message
    assert not t.catalogue.allowed(state, "s0", "item.add") and t.catalogue.allowed(state, "s0", "quest.draw")


def test_a_table_cannot_switch_between_the_card_game_and_quest():
    state = new_table("Ann")
    assert refused(state, "s0", "settings.profile", profile="munchkin-1.6").status == 409


# --- the turn and the map (Tour de jeu) -------------------------------------------------------

def test_the_turn_begins_with_the_dxm_card():
    state = new_table("Ann", "Bob")
    assert refused(state, "s0", "quest.explore", name="Crypt", monster=ORC).rule.id == "quest.turn"
    state = act(state, "s0", "quest.draw")
    assert q(state, "s0")["dxm"] == 4 and state.turn["phase"] == "actions"
    assert refused(state, "s0", "quest.draw").rule.id == "quest.turn"
    assert refused(state, "s1", "quest.draw").rule.id == "turn.own"


def test_exploring_makes_a_joined_room_with_a_monster_and_a_fight_at_once():
    state = explored(new_table("Ann", "Bob"), monster={**ORC, "owner": "s1"})
    room = q(state, "s0")["room"]
    assert state.board["rooms"][room] == {"name": "Crypt", "market": False}
    assert t.quest.adjacent(state.board, "entrance", room)
    assert [m["name"] for m in t.quest.monsters_in(state.board, room)] == ["Orc"]
    assert state.combat["fighter"] == "s0" and state.turn["phase"] == "fight"
    assert q(state, "s0")["tokens"] == 2 and q(state, "s0")["dxm"] == 5  # the turn's card and the exploration's
    assert q(state, "s1")["dxm"] == 4  # the colour die named Bob: he owns the monster and draws a DxM card
    assert refused(state, "s0", "quest.explore", name="Hall", monster=ORC).rule.id == "combat.one"


def test_a_new_room_always_holds_a_monster():
    state = act(new_table("Ann"), "s0", "quest.draw")
    assert refused(state, "s0", "quest.explore", name="Crypt").rule.id == "quest.explore"


def test_moves_go_to_an_adjacent_explored_room_for_a_token_and_a_monster_there_means_a_fight():
    state = act(new_table("Ann", "Bob"), "s0", "quest.draw")
    assert refused(state, "s0", "quest.move", room="nowhere").status == 404
    state = act(state, "s0", "quest.explore", name="Crypt", monster=ORC)
    crypt = q(state, "s0")["room"]
    state = call_off(state)  # called off: the Orc stays in the Crypt
    assert q(state, "s0")["tokens"] == 2
    state = act(state, "s0", "quest.move", room="entrance")
    assert q(state, "s0")["room"] == "entrance" and q(state, "s0")["tokens"] == 1
    state = act(state, "s0", "quest.move", room=crypt)
    assert state.combat and state.combat["monsters"][0]["name"] == "Orc" and q(state, "s0")["tokens"] == 0


def test_a_move_needs_a_passage():
    state = explored(new_table("Ann"))
    state = call_off(state)
    crypt = q(state, "s0")["room"]
    state = act(state, "s0", "quest.move", room="entrance")
    state = act(state, "s0", "quest.explore", name="Hall", monster={**ORC, "name": "Rat"}, cost=0)
    hall = q(state, "s0")["room"]
    state = call_off(state)
    assert refused(state, "s0", "quest.move", room=crypt).rule.id == "quest.map"  # Hall and Crypt are not joined
    state = act(state, "s0", "quest.room.join", room=hall, to=crypt)
    assert t.quest.adjacent(state.board, hall, crypt)


def test_no_tokens_left_no_move():
    state = explored(new_table("Ann"), monster={**ORC}, name="Crypt")
    state = call_off(state)
    state = act(state, "s0", "quest.move", room="entrance")
    state = act(state, "s0", "quest.search", die=2)
    assert q(state, "s0")["tokens"] == 0
    crypt = next(r for r in state.board["rooms"] if r != "entrance")
    assert refused(state, "s0", "quest.move", room=crypt).rule.id == "quest.turn"


def test_starting_a_turn_in_a_room_with_a_monster_means_a_fight():
    state = explored(new_table("Ann", "Bob"))
    state = call_off(state)
    state = act(state, "s0", "quest.monsters", hand=4)
    state = act(state, "s0", "turn.end")
    state = act(state, "s1", "quest.draw")
    state = act(state, "s1", "quest.monsters")
    state = act(state, "s1", "turn.end")
    assert q(state, "s0")["tokens"] == 3
    state = act(state, "s0", "quest.draw")
    assert state.combat and state.combat["fighter"] == "s0"


def test_search_once_per_room_per_turn_with_a_die_and_never_with_a_monster():
    state = act(new_table("Ann", "Bob"), "s0", "quest.draw")
    state = act(state, "s0", "quest.search", die=4, modifier=1, found="a potion")
    assert q(state, "s0")["tokens"] == 2
    assert refused(state, "s0", "quest.search", die=3).rule.id == "quest.search"
    state = act(state, "s0", "quest.monster.place", room="entrance", monster=ORC)  # a monster in the room: a fight
    assert state.combat
    state = call_off(state)
    assert state.board["monsters"] == {}  # no monster stays in the Entrance
    state = act(state, "s0", "quest.explore", name="Crypt", monster=ORC)
    state = call_off(state)
    assert refused(state, "s0", "quest.search", die=2).rule.id == "quest.search"  # the Orc is in the Crypt


def state_event_summary(state, seat, action, **params):
    return t.decide(state, seat, action, params).payload["summary"]


def test_the_search_says_the_roll_on_the_search_table_and_picks_up_dropped_things():
    state = act(new_table("Ann", "Bob"), "s0", "quest.draw")
    state = act(state, "s0", "quest.item.add", name="Club", slot="one_hand", bonus=2)
    uid = q(state, "s0")["gear"][0]["uid"]
    state = act(state, "s0", "quest.item.drop", uid=uid)
    assert q(state, "s0")["gear"] == [] and state.board["dropped"]["entrance"][0]["name"] == "Club"
    summary = state_event_summary(state, "s0", "quest.search", die=4, modifier=1, pick=[uid])
    assert history.render(summary, "Ann") == "Ann searches Entrance: 4 on the die, 5 on the search table; picks up Club"
    state = act(state, "s0", "quest.search", die=4, modifier=1, pick=[uid])
    assert q(state, "s0")["gear"][0]["name"] == "Club" and "entrance" not in state.board["dropped"]


def test_market_only_in_a_market_room_and_never_with_a_monster():
    state = act(new_table("Ann"), "s0", "quest.draw")
    assert refused(state, "s0", "quest.market", gold=100).rule.id == "quest.market"  # the Entrance has none
    state = act(state, "s0", "quest.explore", name="Bazaar", market=True, monster=ORC)
    state = call_off(state)
    assert refused(state, "s0", "quest.market", gold=100).rule.id == "quest.market"  # the Orc is still here


def test_market_trades_gold_for_a_token():
    state = act(new_table("Ann"), "s0", "quest.draw")
    state = act(state, "s0", "quest.explore", name="Bazaar", market=True, monster=ORC, cost=0)
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=["1"])
    state = act(state, "s0", "quest.fight.resolve")  # 1 + 6 = 7 against 3 + 1 + 1 = 5: the Orc dies
    state = act(state, "s0", "quest.market", gold=700, what="sold the Orc's treasure")
    assert q(state, "s0")["gold"] == 1000 and q(state, "s0")["tokens"] == 2
    assert refused(state, "s0", "quest.market", gold=-5000).rule.id == "quest.market"


def test_the_turn_passes_after_charity_and_the_monsters_move():
    state = act(new_table("Ann", "Bob"), "s0", "quest.draw")
    assert refused(state, "s0", "turn.end").rule.id == "quest.turn"
    state = act(state, "s0", "quest.monsters", hand=7, colour="s1")
    assert state.turn["phase"] == "monsters" and q(state, "s1")["dxm"] == 4
    assert refused(state, "s0", "quest.move", room="entrance").rule.id == "quest.turn"
    state = act(state, "s0", "turn.end")
    assert state.turn == {"seat": "s1", "number": 2, "phase": "start"}


def won_with_ten_cards(*names):
    """Ann beats the Orc: level 2, 5 DxM cards (3 dealt, the turn's, the room's) and 5 Treasure (3 + 2)."""
    state = explored(new_table(*names))
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=["1"])
    state = act(state, "s0", "quest.fight.resolve")
    assert state.players["s0"].level == 2 and (q(state, "s0")["dxm"], q(state, "s0")["treasure"]) == (5, 5)
    return state


def test_charity_moves_the_counted_cards_to_the_lowest_level_players():
    """Charité: at most 5 cards stay; the rest go to the lowest-level players — from the counts the app
    keeps, when the hand is not said, DxM cards first unless the giver says how many."""
    won = won_with_ten_cards("Ann", "Bob", "Cid")
    event = t.decide(won, "s0", "quest.monsters", {})
    state = t.apply(won, event)
    assert (q(state, "s0")["dxm"], q(state, "s0")["treasure"]) == (0, 5)
    assert (q(state, "s1")["dxm"], q(state, "s1")["treasure"]) == (6, 3)  # the larger share: 3
    assert (q(state, "s2")["dxm"], q(state, "s2")["treasure"]) == (5, 3)
    said = history.render(event.payload["summary"], "Ann")
    assert "5 cards over the limit go to Bob 3 DxM, 0 Treasure; Cid 2 DxM, 0 Treasure" in said
    chosen = act(won_with_ten_cards("Ann", "Bob", "Cid"), "s0", "quest.monsters", dxm_given=1)
    assert (q(chosen, "s0")["dxm"], q(chosen, "s0")["treasure"]) == (4, 1)
    assert (q(chosen, "s1")["dxm"], q(chosen, "s1")["treasure"]) == (4, 5)
    assert (q(chosen, "s2")["dxm"], q(chosen, "s2")["treasure"]) == (3, 5)
    told = act(won_with_ten_cards("Ann", "Bob", "Cid"), "s0", "quest.monsters", hand=6, dxm_given=0)
    assert (q(told, "s0")["dxm"], q(told, "s0")["treasure"]) == (5, 4)  # the hand said: one card over
    assert q(told, "s1")["treasure"] + q(told, "s2")["treasure"] == 7


def test_charity_discards_when_the_giver_is_lowest_and_refuses_more_dxm_than_go():
    state = act(new_table("Ann", "Bob"), "s0", "quest.draw")  # 4 DxM, 3 Treasure: two over, both Level 1
    error = refused(state, "s0", "quest.monsters", dxm_given=3)
    assert error.rule.id == "quest.charity" and error.status == 400
    event = t.decide(state, "s0", "quest.monsters", {"dxm_given": 0})
    state = t.apply(state, event)
    assert (q(state, "s0")["dxm"], q(state, "s0")["treasure"]) == (4, 1)
    assert (q(state, "s1")["dxm"], q(state, "s1")["treasure"]) == (3, 3)
    assert "go to the discards (0 DxM, 2 Treasure)" in history.render(event.payload["summary"], "Ann")


def test_charity_of_one_card_is_said_in_the_singular():
    state = act(new_table("Ann", "Bob"), "s0", "quest.draw")  # both Level 1: the giver discards
    event = t.decide(state, "s0", "quest.monsters", {"hand": 6, "dxm_given": 0})
    assert "1 card over the limit goes to the discards (0 DxM, 1 Treasure)" in history.render(event.payload["summary"], "Ann")
    event = t.decide(won_with_ten_cards("Ann", "Bob", "Cid"), "s0", "quest.monsters", {"hand": 6, "dxm_given": 0})
    assert "1 card over the limit goes to " in history.render(event.payload["summary"], "Ann")
    error = refused(state, "s0", "quest.monsters", hand=6, dxm_given=2)  # one card over: not two DxM
    assert error.message == "Only 1 card goes in Charity: 2 DxM cards among them is too many."


def test_monsters_move_to_an_adjacent_room_but_never_stop_in_the_entrance():
    state = explored(new_table("Ann"), name="Crypt")
    state = call_off(state)
    state = act(state, "s0", "quest.move", room="entrance")
    state = act(state, "s0", "quest.explore", name="Hall", monster={**ORC, "name": "Rat"}, cost=0)
    state = call_off(state)
    orc = next(m for m in state.board["monsters"].values() if m["name"] == "Orc")
    hall = q(state, "s0")["room"]
    assert refused(state, "s0", "quest.monster.move", monster=orc["uid"], room=hall).rule.id == "quest.turn"
    state = act(state, "s0", "quest.monsters")
    assert refused(state, "s0", "quest.monster.move", monster=orc["uid"], room="entrance").rule.id == "quest.map"
    assert refused(state, "s0", "quest.monster.move", monster=orc["uid"], room=hall).rule.id == "quest.map"  # not joined
    crypt = orc["room"]
    state = act(state, "s0", "quest.room.join", room=crypt, to=hall)
    state = act(state, "s0", "quest.monster.move", monster=orc["uid"], room=hall)
    assert state.board["monsters"][orc["uid"]]["room"] == hall



def two_rooms_off_the_entrance(state):
    """Ann explores the Crypt (the Orc) and the Hall (the Rat) from the Entrance, calls both fights off and
    ends her moves: the monsters' move. Answers the state, the Orc's and the Rat's uids, the Crypt and the Hall."""
    state = explored(state, name="Crypt")
    state = call_off(state)
    crypt = q(state, "s0")["room"]
    state = act(state, "s0", "quest.move", room="entrance")
    state = act(state, "s0", "quest.explore", name="Hall", monster={**ORC, "name": "Rat"}, cost=0)
    state = call_off(state)
    hall = q(state, "s0")["room"]
    state = act(state, "s0", "quest.monsters")
    uid = {m["name"]: m["uid"] for m in state.board["monsters"].values()}
    return state, uid["Orc"], uid["Rat"], crypt, hall


def test_a_monster_goes_through_the_entrance_out_to_the_room_beyond_never_stopping_there():
    """Règles inamovibles: no monster stops in the Entrance; one that moves that way comes out by the
    opposite door, and not at all when no explored room lies beyond."""
    state, orc, rat, crypt, hall = two_rooms_off_the_entrance(new_table("Ann"))
    assert refused(state, "s0", "quest.monster.move", monster=orc, room="entrance").rule.id == "quest.map"
    error = refused(state, "s0", "quest.monster.move", monster=orc, room=crypt, through="entrance")
    assert error.rule.id == "quest.map" and error.status == 409  # out by the door it came in by: not through
    event = t.decide(state, "s0", "quest.monster.move", {"monster": orc, "room": hall, "through": "entrance"})
    after = t.apply(state, event)
    assert after.board["monsters"][orc]["room"] == hall
    assert history.render(event.payload["summary"], "Ann") == "Ann moves Orc through the Entrance to Hall"
    assert t.apply(after, t.inverse(after, event)).board == state.board
    # a room explored from the Hall lies beyond no door of the Entrance
    state = act(state, "s0", "turn.end")
    state = act(state, "s0", "quest.draw")  # Ann starts in the Hall, with the Rat: a fight, called off
    state = call_off(state)
    state = act(state, "s0", "quest.explore", name="Cellar", monster={**ORC, "name": "Bat"})
    state = call_off(state)
    cellar = q(state, "s0")["room"]
    state = act(state, "s0", "quest.monsters")
    error = refused(state, "s0", "quest.monster.move", monster=orc, room=cellar, through="entrance")
    assert error.rule.id == "quest.map" and "not beyond the Entrance" in error.message
    bat = next(m["uid"] for m in state.board["monsters"].values() if m["name"] == "Bat")
    error = refused(state, "s0", "quest.monster.move", monster=bat, room=crypt, through="entrance")
    assert error.rule.id == "quest.map" and "not next to the Entrance" in error.message
    assert state.board["monsters"][orc]["room"] == crypt and state.board["monsters"][bat]["room"] == cellar


def test_no_monster_turns_back_into_a_room_it_has_been_in_during_the_move():
    """Tour de jeu (Déplacement des monstres): no U-turn, never back into a room it has been in; the next
    turn's move starts afresh."""
    state, orc, rat, crypt, hall = two_rooms_off_the_entrance(new_table("Ann"))
    state = act(state, "s0", "quest.room.join", room=crypt, to=hall)
    state = act(state, "s0", "quest.monster.move", monster=rat, room=crypt)
    error = refused(state, "s0", "quest.monster.move", monster=rat, room=hall)
    assert error.rule.id == "quest.map" and error.status == 409 and "no monster turns back" in error.message
    error = refused(state, "s0", "quest.monster.move", monster=rat, room=hall, through="entrance")
    assert error.rule.id == "quest.map"  # nor by the other way round
    state = act(state, "s0", "quest.monster.move", monster=orc, room=hall, through="entrance")
    error = refused(state, "s0", "quest.monster.move", monster=orc, room=crypt)  # the Crypt it started from
    assert error.rule.id == "quest.map" and "Crypt" in error.message
    assert state.board["monsters"][orc]["trail"]["rooms"] == [crypt, "entrance", hall]
    state = act(state, "s0", "turn.end")  # Ann's next turn: a new move
    state = act(state, "s0", "quest.draw")  # (she stands in the Hall with the Orc: a fight)
    state = call_off(state)
    state = act(state, "s0", "quest.monsters")
    state = act(state, "s0", "quest.monster.move", monster=orc, room=crypt)
    assert state.board["monsters"][orc]["room"] == crypt

# --- combat (Combat, Principe) -----------------------------------------------------------------

def test_quest_combat_adds_a_die_per_player_and_the_monsters_dice_and_ties_go_to_the_monsters():
    fight = {"fighter": {"name": "Ann", "level": 2, "items": [{"name": "Sword", "bonus": 2}], "die": 3},
             "monsters": [{"name": "Orc", "level": 5, "bonus": 1, "rolls": [1]}], "one_shots": []}
    verdict = quest_fight.judge(fight, QUEST)
    assert verdict["players"]["total"] == 7 and verdict["monsters"]["total"] == 7
    assert verdict["outcome"] == "lose" and verdict["tie"] and verdict["ties_to"] == "monsters"
    assert verdict["citation"] == "Munchkin Quest (seed summary), Combat, Principe"
    assert [line["source"] for line in verdict["players"]["lines"]] == ["Ann: Level", "Ann: Sword", "Ann: die"]
    fight["fighter"]["die"] = 4
    assert quest_fight.judge(fight, QUEST)["outcome"] == "win"


def test_only_worn_items_count():
    state = act(new_table("Ann"), "s0", "quest.draw")
    state = act(state, "s0", "quest.item.add", name="Helmet", slot="headgear", bonus=1)
    state = act(state, "s0", "quest.item.add", name="Hat", slot="headgear", bonus=3)  # the head is taken: backpack
    sheet = state.players["s0"].as_dict()
    assert [i["where"] for i in q(state, "s0")["gear"]] == ["worn", "backpack"]
    assert sheet["strength"] == 2 and sheet["not_counting"][0]["rule"] == "quest.gear"


def test_explore_fight_lost_on_a_tie_costs_health_then_flee_a_die_per_monster():
    state = explored(new_table("Ann", "Bob"), monster={**ORC, "bad_stuff": {"health": 1}})
    # Ann 1 + die 4 = 5; the Orc 3 + 1 + die 1 = 5: a tie, the monsters win it
    state = act(state, "s0", "quest.fight.dice", fighter_die=4, monster_dice=["1"])
    state = act(state, "s0", "quest.fight.resolve")
    assert q(state, "s0")["health"] == 3 and state.combat["stage"] == "flee"
    assert refused(state, "s0", "quest.fight.resolve").rule.id == "quest.flee"
    state = act(state, "s0", "quest.fight.flee", fighter_rolls=["3"], room="entrance")
    assert q(state, "s0")["health"] == 2 and q(state, "s0")["room"] == "entrance" and not state.combat
    assert q(state, "s0")["tokens"] == 2  # fleeing costs no token
    assert state.turn["phase"] == "actions"


def test_flee_escapes_on_5_or_6_and_a_bad_stuff_that_cannot_apply_costs_one_more_health():
    monsters = [{"name": "Orc", "level": 3, "dice": [6], "bad_stuff": {"lose": "headgear"}},
                {"name": "Rat", "level": 1, "dice": [6], "bad_stuff": {"health": 2}}]
    verdict = quest_fight.evaluate({"fighter": {"level": 1, "die": 1}, "monsters": monsters,
                                    "flee": {"fighter": [2, 5]}})
    orc, rat = verdict["flee"]
    assert orc["caught"] and not orc["applies"] and orc["health"] == 1  # no headgear to lose
    assert not rat["caught"]
    assert verdict["health_lost"] == {"fighter": 2} and verdict["rolled_by_app"] == []


def test_a_bad_stuff_nobody_described_is_the_cards_to_apply_not_one_more_health():
    """Every monster card has a Bad Stuff: when the players did not type it in, the app cannot tell
    that it does not apply, so it costs no extra health; they say so when it does not apply."""
    verdict = quest_fight.evaluate({"fighter": {"level": 1, "die": 1}, "monsters": [{"name": "Orc", "level": 3, "dice": [6]}],
                                    "flee": {"fighter": [2]}})
    (orc,) = verdict["flee"]
    assert orc["caught"] and orc["applies"] and orc["health"] == 0 and verdict["health_lost"] == {"fighter": 1}
    undescribed = {k: v for k, v in ORC.items() if k != "bad_stuff"}
    for not_applicable, health in ((False, 3), (True, 2)):
        state = explored(new_table("Ann"), monster=undescribed)
        state = act(state, "s0", "quest.fight.dice", fighter_die=1, monster_dice=["1"])
        state = act(state, "s0", "quest.fight.resolve")
        uid = state.combat["monsters"][0]["uid"]
        state = act(state, "s0", "quest.fight.flee", fighter_rolls=["2"], room="entrance",
                    **({"not_applicable": [uid]} if not_applicable else {}))
        assert q(state, "s0")["health"] == health


def test_bad_stuff_in_the_table_fight_takes_the_worn_item_or_more_health():
    state = act(new_table("Ann"), "s0", "quest.draw")
    state = act(state, "s0", "quest.item.add", name="Helmet", slot="headgear", bonus=1)
    state = act(state, "s0", "quest.explore", name="Crypt", monster={**ORC, "level": 9, "bad_stuff": {"lose": "headgear"}})
    state = act(state, "s0", "quest.fight.dice", fighter_die=1, monster_dice=["1"])
    state = act(state, "s0", "quest.fight.resolve")
    state = act(state, "s0", "quest.fight.flee", fighter_rolls=["4"])
    assert q(state, "s0")["gear"] == [] and q(state, "s0")["health"] == 3


def test_several_monsters_in_a_room_fight_together_each_with_its_dice():
    state = explored(new_table("Ann"), monster={**ORC, "dice": 2})
    state = act(state, "s0", "quest.fight.monster", monster={"name": "Rat", "level": 1})
    assert [m["name"] for m in state.combat["monsters"]] == ["Orc", "Rat"]
    assert refused(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=["1"]).status == 400
    assert refused(state, "s0", "quest.fight.resolve").rule.id == "quest.combat"  # dice missing
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=["1", "1", "2"])
    verdict = t.quest_table.verdict(state)
    assert verdict["monsters"]["total"] == 3 + 1 + 1 + 1 + 1 + 2 and verdict["players"]["total"] == 7


def test_the_app_rolls_the_dice_when_asked():
    state = explored(new_table("Ann"))
    state = act(state, "s0", "quest.fight.dice", roll=True)
    dice = state.combat["dice"]
    assert 1 <= dice["fighter"] <= 6 and len(dice["monsters"][state.combat["monsters"][0]["uid"]]) == 1


def test_a_won_fight_gives_levels_and_treasures_and_the_monster_leaves_the_map():
    state = explored(new_table("Ann", "Bob"), monster={**ORC, "owner": "s0"})
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=["1"])
    before = q(state, "s0")["dxm"]
    state = act(state, "s0", "quest.fight.resolve")
    assert state.players["s0"].level == 2 and q(state, "s0")["treasure"] == 5
    assert q(state, "s0")["dxm"] == before + 1  # the owner helped kill its own monster
    assert state.board["monsters"] == {} and not state.combat


def test_help_only_from_the_same_or_an_adjacent_room_and_the_helper_moves_in():
    state = explored(new_table("Ann", "Bob", "Cid"))
    crypt = q(state, "s0")["room"]
    state = act(state, "s0", "quest.fight.dice", fighter_die=1, monster_dice=["1"])  # Bob is at the Entrance, next door
    state = act(state, "s0", "combat.help.ask", seat="s1")
    state = act(state, "s1", "combat.help.accept")
    assert q(state, "s1")["room"] == crypt and state.combat["helper"] == "s1"
    assert refused(state, "s1", "combat.help.decline").rule.id == "quest.help"


def test_a_helper_cannot_back_out_by_undoing_the_accept_once_the_fight_has_moved_on():
    """Combat (Demander de l'aide): a helper moves in and cannot back out. Undoing the accept at once (a
    mistaken tap) puts the helper back; once the fight has moved on (dice, a card) it is refused, and
    undoing those later changes first does not reopen the way out."""
    state = explored(new_table("Ann", "Bob"))
    state = act(state, "s0", "combat.help.ask", seat="s1")
    accept = t.decide(state, "s1", "combat.help.accept", {})
    joined = t.apply(state, accept)
    mistaken = t.apply(joined, t.inverse(joined, accept))
    assert mistaken.combat["helper"] is None and q(mistaken, "s1")["room"] == "entrance"
    dice = t.decide(joined, "s0", "quest.fight.dice", {"fighter_die": 1, "helper_die": 1, "monster_dice": ["6"]})
    rolled = t.apply(joined, dice)
    with pytest.raises(Refused) as exc:
        t.inverse(rolled, accept)
    assert exc.value.rule.id == "quest.help" and exc.value.status == 409 and "cannot back out" in exc.value.message
    # the dice undone (the helper's own roll, or the host's): the fight is as it was, the helper still bound
    back = t.apply(rolled, t.inverse(rolled, dice))
    assert back.combat["helper"] == "s1" and back.combat["dice"] == joined.combat["dice"]
    with pytest.raises(Refused) as exc:
        t.inverse(back, accept)
    assert exc.value.rule.id == "quest.help"
    one_shot = t.decide(back, "s0", "combat.oneshot.add", {"side": "players", "one_shot": {"name": "Ale", "bonus": 2}})
    later = t.apply(back, one_shot)
    assert t.apply(later, t.inverse(later, one_shot)).combat["helper"] == "s1"  # later changes still undo
    with pytest.raises(Refused) as exc:  # and once the fight is over
        t.inverse(t.apply(rolled, t.decide(rolled, "s0", "quest.fight.resolve", {})), accept)
    assert exc.value.rule.id == "quest.help"


def test_no_help_from_a_room_that_is_not_adjacent():
    state = explored(new_table("Ann", "Bob"))
    state = call_off(state)
    state = act(state, "s0", "quest.explore", name="Deep", monster={**ORC, "name": "Rat"}, cost=0)  # Deep joins the Crypt
    assert refused(state, "s0", "combat.help.ask", seat="s1").rule.id == "quest.help"


def test_a_dreadful_monster_gives_two_levels_and_the_helper_takes_the_extra_one():
    state = explored(new_table("Ann", "Bob"), monster={**ORC, "dreadful": True})
    state = act(state, "s0", "combat.help.ask", seat="s1")
    state = act(state, "s1", "combat.help.accept")
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, helper_die=6, monster_dice=["1"])
    state = act(state, "s0", "quest.fight.resolve")
    assert state.players["s0"].level == 2 and state.players["s1"].level == 2
    alone = quest_fight.judge({"fighter": {"level": 1, "die": 6}, "monsters": [
        {"name": "Dragon", "level": 1, "rolls": [1], "dreadful": True, "levels": 2}]}, QUEST)
    assert alone["levels"] == {"fighter": 2, "helper": 0}
    assert alone["rules"] == ["quest.combat", "quest.dreadful"]  # the entries that shaped the verdict


def test_a_won_fight_with_someone_else_in_the_room_draws_the_treasures_face_up():
    fight = {"fighter": {"level": 5, "die": 6}, "monsters": [{"name": "Rat", "level": 1, "rolls": [1]}],
             "others_in_room": True}
    assert quest_fight.judge(fight, QUEST)["treasures_face_up"]
    assert not quest_fight.judge({**fight, "others_in_room": False}, QUEST)["treasures_face_up"]


# --- death (Mort) ------------------------------------------------------------------------------

def test_losing_the_last_health_is_death_and_the_turn_goes_to_the_monsters():
    state = act(new_table("Ann", "Bob"), "s0", "level.up")
    state = act(state, "s0", "quest.draw")
    state = act(state, "s0", "quest.item.add", name="Club", slot="one_hand", bonus=2)
    state = act(state, "s0", "quest.health", change=-3)
    state = act(state, "s0", "quest.explore", name="Crypt", monster={**ORC, "level": 9})
    crypt = q(state, "s0")["room"]
    state = act(state, "s0", "quest.fight.dice", fighter_die=1, monster_dice=["1"])
    state = act(state, "s0", "quest.fight.resolve")
    ann = state.players["s0"]
    assert ann.dead and ann.level == 1 and not state.combat and state.turn["phase"] == "monsters"
    assert q(state, "s0")["gold"] == 0 and q(state, "s0")["gear"] == [] and q(state, "s0")["dxm"] == 0
    dropped = state.board["dropped"][crypt]
    assert {d["name"] for d in dropped} == {"Club", "300 gold"}


def test_death_by_choice_keeps_curses_and_restarts_next_turn_with_4_health_3_tokens_300_gold():
    state = new_table("Ann", "Bob")
    state = act(state, "s0", "curse.add", curse={"name": "Chicken on Your Head"})
    state = act(state, "s0", "quest.draw")
    state = act(state, "s0", "quest.die")
    assert state.players["s0"].dead and state.players["s0"].curses[0]["name"] == "Chicken on Your Head"
    assert state.players["s0"].level == 1  # nothing below level 1
    assert state.turn["phase"] == "monsters"
    assert refused(state, "s0", "quest.gold", change=10).rule.id == "death.state"
    state = act(state, "s0", "turn.end")
    state = act(state, "s1", "quest.draw")
    state = act(state, "s1", "quest.monsters")
    state = act(state, "s1", "turn.end")
    ann = state.players["s0"]
    assert not ann.dead and ann.curses
    assert {k: q(state, "s0")[k] for k in ("health", "tokens", "gold", "dxm", "treasure", "room")} == \
        {"health": 4, "tokens": 3, "gold": 300, "dxm": 2, "treasure": 2, "room": "entrance"}


def test_death_costs_a_level():
    state = at_level(new_table("Ann", "Bob"), "s0", 3)
    state = act(state, "s0", "quest.die")
    assert state.players["s0"].level == 2


def at_level(state, seat, level):
    for _ in range(level - state.players[seat].level):
        state = act(state, seat, "level.up")
    return state


# --- healing and levels (Tour de jeu; Comment gagner des niveaux ?) --------------------------

def test_healing_costs_a_level_for_3_health_up_to_4_and_never_below_level_1():
    state = new_table("Ann")
    assert refused(state, "s0", "quest.heal").rule.id == "quest.heal"  # level 1
    state = at_level(state, "s0", 2)
    assert refused(state, "s0", "quest.heal").rule.id == "quest.heal"  # all health
    state = act(state, "s0", "quest.health", change=-2)
    state = act(state, "s0", "quest.heal")
    assert state.players["s0"].level == 1 and q(state, "s0")["health"] == 4


def test_a_level_for_1000_gold_once_a_turn_on_your_turn():
    state = new_table("Ann", "Bob")
    assert refused(state, "s0", "quest.level.buy").rule.id == "quest.level.buy"  # 300 gold
    state = act(state, "s0", "quest.gold", change=1700)
    state = act(state, "s0", "quest.level.buy")
    assert state.players["s0"].level == 2 and q(state, "s0")["gold"] == 1000
    assert refused(state, "s0", "quest.level.buy").rule.id == "quest.level.buy"  # once a turn
    state = act(state, "s1", "quest.gold", change=1000)
    assert refused(state, "s1", "quest.level.buy").rule.id == "turn.own"


def test_no_level_is_bought_during_a_fight():
    """Comment gagner des niveaux ? (once a turn, our reading: between the fights, as the hand's cards are
    played, Gestion des cartes): neither coins nor items buy a level while a fight is on, even a lost one."""
    state = act(new_table("Ann", "Bob"), "s0", "quest.gold", change=1700)
    state = act(state, "s0", "quest.item.add", name="Crown", slot="headgear", gold=800)
    crown = q(state, "s0")["gear"][0]["uid"]
    state = explored(state)
    for params in ({}, {"uids": [crown]}):
        error = refused(state, "s0", "quest.level.buy", **params)
        assert error.rule.id == "quest.level.buy" and error.status == 409 and "outside a fight" in error.message
    state = act(state, "s0", "quest.fight.dice", fighter_die=1, monster_dice=["6"])
    state = act(state, "s0", "quest.fight.resolve")
    assert state.combat["stage"] == "flee" and refused(state, "s0", "quest.level.buy").rule.id == "quest.level.buy"
    assert state.players["s0"].level == 1 and q(state, "s0")["gold"] == 2000 and len(q(state, "s0")["gear"]) == 1
    state = act(state, "s0", "quest.fight.flee", fighter_rolls=["6"], room="entrance")
    state = act(state, "s0", "quest.level.buy")
    assert state.players["s0"].level == 2 and q(state, "s0")["gold"] == 1000


def test_level_10_only_by_a_kill_and_it_does_not_win_by_itself():
    state = at_level(new_table("Ann"), "s0", 9)
    assert refused(state, "s0", "level.up").rule.id == "level.win-by-kill"
    state = act(state, "s0", "quest.gold", change=1000)
    assert refused(state, "s0", "quest.level.buy").rule.id == "level.win-by-kill"
    state = explored(state, monster={**ORC, "level": 1})
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=["1"])
    state = act(state, "s0", "quest.fight.resolve")
    assert state.players["s0"].level == 10 and state.winners == []


def test_the_game_is_won_by_beating_the_boss_at_the_entrance_at_level_10():
    state = at_level(new_table("Ann"), "s0", 9)
    state = explored(state, monster={**ORC, "level": 1})
    assert refused(state, "s0", "quest.boss", monster={"name": "Boss", "level": 20}).rule.id == "combat.one"
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=["1"])
    state = act(state, "s0", "quest.fight.resolve")
    assert refused(state, "s0", "quest.boss", monster={"name": "Boss", "level": 20}).rule.id == "quest.win"  # not at the Entrance
    state = act(state, "s0", "quest.move", room="entrance")
    state = act(state, "s0", "quest.boss", monster={"name": "Boss", "level": 5})
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=["1"])
    state = act(state, "s0", "quest.fight.resolve")
    assert state.winners == ["s0"] and state.board["boss"]["beaten"]
    over = refused(state, "s0", "quest.draw")  # cited in the Quest summary, not the card game's books
    assert over.rule.id == "game.won" and "Munchkin Quest" in over.as_dict()["citation"]


def test_the_boss_needs_level_10():
    state = act(new_table("Ann"), "s0", "quest.draw")
    assert refused(state, "s0", "quest.boss", monster={"name": "Boss", "level": 20}).rule.id == "quest.win"


def test_nothing_takes_a_monster_below_level_1():
    state = act(new_table("Ann"), "s0", "quest.draw")
    assert refused(state, "s0", "quest.explore", name="Crypt", monster={**ORC, "level": 0}).rule.id == "quest.level-floor"


# --- gear (Gestion des cartes) ------------------------------------------------------------------

def test_worn_slots_two_hands_and_a_backpack_of_two():
    state = new_table("Ann")
    state = act(state, "s0", "quest.item.add", name="Axe", slot="two_hands", bonus=3)
    assert refused(state, "s0", "quest.item.add", name="Sword", slot="one_hand", place="worn").rule.id == "quest.gear.slots"
    state = act(state, "s0", "quest.item.add", name="Sword", slot="one_hand")
    state = act(state, "s0", "quest.item.add", name="Dagger", slot="one_hand")
    assert [i["where"] for i in q(state, "s0")["gear"]] == ["worn", "backpack", "backpack"]
    assert refused(state, "s0", "quest.item.add", name="Bow", slot="two_hands").rule.id == "quest.backpack"
    state = act(state, "s0", "quest.item.add", name="Ring", slot="other", bonus=1)
    state = act(state, "s0", "quest.item.add", name="Cloak", slot="other", bonus=1)
    state = act(state, "s0", "quest.item.add", name="Potion", slot="potion", bonus=2)
    assert [i["where"] for i in q(state, "s0")["gear"]][3:] == ["worn", "worn", "belt"]
    assert state.players["s0"].as_dict()["strength"] == 1 + 3 + 1 + 1


def test_no_swapping_with_the_backpack_during_a_fight():
    state = new_table("Ann")
    state = act(state, "s0", "quest.item.add", name="Sword", slot="one_hand", bonus=2, place="backpack")
    uid = q(state, "s0")["gear"][0]["uid"]
    state = explored(state)
    assert refused(state, "s0", "quest.item.move", uid=uid, place="worn").rule.id == "quest.backpack"
    state = call_off(state)
    state = act(state, "s0", "quest.item.move", uid=uid, place="worn")
    assert q(state, "s0")["gear"][0]["where"] == "worn"


def test_a_second_big_item_costs_a_token_each_turn():
    state = new_table("Ann", "Bob")
    state = act(state, "s1", "quest.item.add", name="Ladder", slot="other", big=True)
    state = act(state, "s1", "quest.item.add", name="Pole", slot="other", big=True, place="backpack")
    state = act(state, "s0", "quest.draw")
    state = act(state, "s0", "quest.monsters")
    state = act(state, "s0", "turn.end")
    assert q(state, "s1")["tokens"] == 2


def test_trades_only_with_the_same_or_an_adjacent_room_and_not_in_a_fight():
    state = new_table("Ann", "Bob")
    state = act(state, "s0", "quest.item.add", name="Club", slot="one_hand", bonus=1)
    club = q(state, "s0")["gear"][0]["uid"]
    state = explored(state)
    assert refused(state, "s0", "quest.item.give", uid=club, to="s1").rule.id == "quest.trade"
    state = call_off(state)
    state = act(state, "s0", "quest.explore", name="Deep", monster={**ORC, "name": "Rat"}, cost=0)
    state = call_off(state)
    assert refused(state, "s0", "quest.item.give", uid=club, to="s1").rule.id == "quest.trade"  # Deep is two rooms away
    state = act(state, "s0", "quest.move", room=state.board["monsters"][next(iter(state.board["monsters"]))]["room"])
    state = call_off(state)  # the Orc's room, next to the Entrance
    state = act(state, "s0", "quest.item.give", uid=club, to="s1")
    assert q(state, "s1")["gear"][0]["name"] == "Club" and q(state, "s0")["gear"] == []


# --- undo and replay -------------------------------------------------------------------------

def test_every_quest_change_undoes_and_replays():
    events = [t.create("tid", "Quest night", "munchkin-quest")]
    state = t.apply(None, events[0])
    for seat, name in (("s0", "Ann"), ("s1", "Bob")):
        events.append(t.join(state, seat, name, "female"))
        state = t.apply(state, events[-1])
    steps = [("s0", "quest.draw", {}), ("s0", "quest.explore", {"name": "Crypt", "monster": ORC}),
             ("s0", "quest.fight.dice", {"fighter_die": 4, "monster_dice": ["1"]}), ("s0", "quest.fight.resolve", {}),
             ("s0", "quest.fight.flee", {"fighter_rolls": ["2"], "room": "entrance"}), ("s0", "quest.die", {})]
    for seat, action, params in steps:
        event = t.decide(state, seat, action, params)
        before, state = state, t.apply(state, event)
        undone = t.apply(state, t.inverse(state, event))
        assert undone.players == before.players and undone.board == before.board and undone.combat == before.combat
        assert undone.turn == before.turn
        events.append(event)
    assert t.replay(events).to_json() == state.to_json()


def test_a_potion_on_the_belt_is_used_in_the_fight_and_is_gone():
    state = act(new_table("Ann"), "s0", "quest.item.add", name="Potion", slot="potion", bonus=3)
    potion = q(state, "s0")["gear"][0]
    assert potion["where"] == "belt" and state.players["s0"].as_dict()["strength"] == 1  # not worn: counts when used
    state = explored(state)
    state = act(state, "s0", "quest.item.use", uid=potion["uid"], side="players")
    assert q(state, "s0")["gear"] == [] and state.combat["one_shots"][0]["bonus"] == 3
    state = act(state, "s0", "quest.fight.dice", fighter_die=1, monster_dice=["1"])
    assert t.quest_table.verdict(state)["players"]["total"] == 1 + 1 + 3


def test_only_belt_items_are_used_in_a_fight():
    state = act(new_table("Ann"), "s0", "quest.item.add", name="Sword", slot="one_hand", bonus=2)
    state = explored(state)
    assert refused(state, "s0", "quest.item.use", uid=q(state, "s0")["gear"][0]["uid"]).rule.id == "quest.gear"


def test_a_monster_stops_when_it_meets_its_owner():
    """Combat, Propriétaires des monstres: the monster's move ends in its owner's room."""
    state = explored(new_table("Ann", "Bob"), monster={**ORC, "owner": "s1"})
    crypt = q(state, "s0")["room"]
    state = call_off(state)
    state = act(state, "s0", "quest.move", room="entrance")
    state = act(state, "s0", "quest.explore", name="Hall", monster={**ORC, "name": "Rat"}, cost=0)
    hall = q(state, "s0")["room"]
    state = call_off(state)
    state = act(state, "s0", "quest.room.join", room=crypt, to=hall)
    state = act(state, "s0", "quest.monsters")
    state = act(state, "s0", "turn.end")
    state = act(state, "s1", "quest.draw")
    state = act(state, "s1", "quest.move", room=hall)  # Bob walks into the Hall: the Rat fights him
    state = call_off(state)
    state = act(state, "s1", "quest.monsters")
    orc = next(m for m in state.board["monsters"].values() if m["name"] == "Orc")
    rat = next(m for m in state.board["monsters"].values() if m["name"] == "Rat")
    state = act(state, "s1", "quest.monster.move", monster=orc["uid"], room=hall)  # it meets Bob, its owner
    assert state.board["monsters"][orc["uid"]]["room"] == hall
    assert refused(state, "s1", "quest.monster.move", monster=orc["uid"], room=crypt).rule.id == "quest.monster-owner"
    state = act(state, "s1", "quest.monster.move", monster=rat["uid"], room=crypt)  # the Rat has no owner
    assert state.board["monsters"][rat["uid"]]["room"] == crypt


def test_the_stateless_fight_takes_the_players_as_a_list_and_names_the_winner():
    verdict = quest_fight.evaluate({"profile": "munchkin-quest", "players": [{"level": 2, "die": 3}, {"level": 1, "die": 1}],
                                    "monsters": [{"level": 4, "dice": [3]}], "flee": [1]})
    assert verdict["players"]["total"] == 7 and verdict["monsters"]["total"] == 7 and verdict["winner"] == "monsters"
    assert [r["role"] for r in verdict["flee"]] == ["fighter", "helper"] and verdict["flee"][0]["roll"] == 1
    assert "helper die" not in verdict["rolled_by_app"] and "flee helper die 1" in verdict["rolled_by_app"]


def test_fleeing_goes_back_where_the_fighter_came_from_unless_told():
    state = explored(new_table("Ann"))
    state = act(state, "s0", "quest.fight.dice", fighter_die=1, monster_dice=["6"])
    state = act(state, "s0", "quest.fight.resolve")
    state = act(state, "s0", "quest.fight.flee", fighter_rolls=["6"])  # escaped: back to the Entrance
    assert q(state, "s0")["room"] == "entrance" and q(state, "s0")["health"] == 3


def test_a_flight_from_a_fight_begun_in_the_room_must_say_where():
    state = explored(new_table("Ann", "Bob"))
    state = call_off(state)
    state = act(state, "s0", "quest.monsters")
    state = act(state, "s0", "turn.end")
    state = act(state, "s1", "quest.draw")
    state = act(state, "s1", "quest.monsters")
    state = act(state, "s1", "turn.end")
    state = act(state, "s0", "quest.draw")  # Ann starts her turn with the Orc: no room she came from
    state = act(state, "s0", "quest.fight.dice", fighter_die=1, monster_dice=["6"])
    state = act(state, "s0", "quest.fight.resolve")
    assert refused(state, "s0", "quest.fight.flee", fighter_rolls=["6"]).rule.id == "quest.flee"
    state = act(state, "s0", "quest.fight.flee", fighter_rolls=["6"], room="entrance")
    assert q(state, "s0")["room"] == "entrance"


def test_the_stateless_fight_reads_the_monsters_dice_in_every_documented_way():
    base = {"profile": "munchkin-quest", "fighter": {"level": 1, "die": 6, "items": [
        {"name": "Sword", "bonus": 2}, {"name": "Spare", "bonus": 5, "in_use": False}, {"name": "Axe", "bonus": 3, "where": "backpack"}]}}
    for monster, total in (({"level": 2, "dice": [3, 3]}, 8), ({"level": 2, "die": 5}, 7),
                           ({"level": 2, "dice": 2, "rolls": [1, 1]}, 4)):
        verdict = quest_fight.evaluate({**base, "monsters": [monster]})
        assert verdict["monsters"]["total"] == total and verdict["rolled_by_app"] == [], monster
        assert verdict["players"]["total"] == 1 + 2 + 6  # only the worn Sword counts


def test_a_described_quest_fight_names_a_quest_profile_and_a_players_colour():
    """POST /api/v1/combat/evaluate for Quest: a profile that is not a Quest profile (or not a
    name at all) and a monster's owner that is not a player's name are refused (400) — they used
    to fail on the server."""
    fight = {"game": "munchkin-quest", "fighter": {"level": 5, "die": 6}, "monsters": [{"name": "Orc", "level": 1, "dice": [1]}]}
    for change in ({"profile": "nonsense"}, {"profile": 7}, {"profile": "munchkin-1.6"},
                   {"monsters": [{"name": "Orc", "level": 1, "dice": [1], "owner": ["Ann"]}]}):
        with pytest.raises(Refused) as exc:
            quest_fight.evaluate({**fight, **change})
        assert exc.value.status == 400
    assert quest_fight.evaluate({**fight, "monsters": [{"name": "Orc", "level": 1, "dice": [1], "owner": "fighter"}]})[
        "owner_draws"] == [{"owner": "fighter", "monster": "Orc"}]


# --- found by playing whole games through the API (2026-11-30) ---------------------------------

def test_a_fighter_killed_in_the_fight_leaves_it_and_the_turn_goes_to_the_monsters():
    """Mort: a character with no health left drops everything and play goes straight to the
    monsters' move — the dead fighter neither wins nor gains a level, and the monster stays."""
    state = explored(new_table("Ann", "Bob"))
    state = act(state, "s0", "quest.health", change=-4)
    assert state.combat is None and state.turn["phase"] == "monsters"
    assert state.players["s0"].dead and state.players["s0"].level == 1
    assert [m["name"] for m in state.board["monsters"].values()] == ["Orc"]


def test_a_helper_killed_in_the_fight_adds_nothing_and_gains_nothing():
    """Mort; Combat (Demander de l'aide): Bob's level and die no longer count once he is dead."""
    state = explored(new_table("Ann", "Bob"), monster={**ORC, "level": 7, "bonus": 0})
    state = act(state, "s0", "combat.help.ask", seat="s1")
    state = act(state, "s1", "combat.help.accept")
    state = act(state, "s1", "quest.health", change=-4)
    assert state.combat["helper"] is None and state.players["s1"].dead
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=["1"])
    assert t.quest_table.verdict(state)["outcome"] == "lose"  # 1 + 6 against 7 + 1: Bob's 7 is gone


def test_curses_count_in_a_quest_fight_and_a_next_combat_one_is_then_gone():
    """Mort (curses stay in play); Combat, Principe (levels and bonuses); Autres (a "next combat"
    card played in a fight acts at once)."""
    state = explored(new_table("Ann", "Bob"), monster={"name": "Rat", "level": 1, "bonus": 0})
    state = act(state, "s1", "curse.add", seat="s0", curse={"name": "Weakness", "effects": [
        {"type": "combat_bonus", "value": -3, "until": "next_combat"}]})
    state = act(state, "s1", "curse.add", seat="s0", curse={"name": "Limp", "effects": [
        {"type": "combat_bonus", "value": -1}]})
    assert state.players["s0"].as_dict()["strength"] == 0  # Level 1, Limp -1 (Weakness waits for a fight)
    state = act(state, "s0", "quest.fight.dice", fighter_die=3, monster_dice=["2"])
    judged = t.quest_table.verdict(state)
    assert judged["players"]["total"] == 1 - 3 - 1 + 3 and judged["outcome"] == "lose"
    state = act(state, "s0", "quest.fight.resolve")
    state = act(state, "s0", "quest.fight.flee", fighter_rolls=["6"], room="entrance")
    assert [c["name"] for c in state.players["s0"].curses] == ["Limp"]


def test_a_level_is_bought_with_items_worth_1000_gold_the_coins_making_up_the_rest():
    """Comment gagner des niveaux ?: 1,000 gold in coins or in items, once a turn; no change."""
    state = act(new_table("Ann", "Bob"), "s0", "quest.draw")
    state = act(state, "s0", "quest.item.add", name="Crown", slot="headgear", gold=800)
    crown = q(state, "s0")["gear"][0]["uid"]
    assert refused(state, "s0", "quest.level.buy", uids=["nope"]).status == 404
    state = act(state, "s0", "quest.level.buy", uids=[crown])
    assert state.players["s0"].level == 2 and q(state, "s0")["gear"] == [] and q(state, "s0")["gold"] == 100


def test_a_players_three_stands_hold_three_monsters_at_most():
    """Début de partie (three stands a colour); Exploration, step 3 (no stand left: another colour)."""
    state = explored(new_table("Ann", "Bob"), monster={**ORC, "owner": "s1"})
    state = call_off(state)
    crypt = q(state, "s0")["room"]
    for name in ("Bat", "Rat"):
        state = act(state, "s1", "quest.monster.place", room=crypt, monster={"name": name, "level": 1, "owner": "s1"})
    error = refused(state, "s1", "quest.monster.place", room=crypt, monster={"name": "Imp", "level": 1, "owner": "s1"})
    assert error.rule.id == "quest.explore" and error.status == 409
    state = act(state, "s1", "quest.monster.place", room=crypt, monster={"name": "Imp", "level": 1, "owner": "s0"})


def test_the_entrance_holds_no_monster_keeps_its_passages_and_the_boss_fight_is_never_called_off():
    """Règles inamovibles."""
    state = explored(new_table("Ann", "Bob"))
    state = call_off(state)
    crypt = q(state, "s0")["room"]
    assert refused(state, "s0", "quest.monster.place", room="entrance", monster=ORC).rule.id == "quest.map"
    state = act(state, "s0", "quest.move", room="entrance")
    state = act(state, "s0", "quest.explore", name="Hall", monster={**ORC, "name": "Rat"}, cost=0)
    state = call_off(state)
    assert refused(state, "s0", "quest.room.join", room=q(state, "s0")["room"], to="entrance").rule.id == "quest.map"
    state = act(state, "s0", "quest.room.join", room=q(state, "s0")["room"], to=crypt)
    state = t.apply(state, t.Event("sheet.changed", {"seat": "s0", "action": "test", "summary": "",
                                                      "ops": [{"op": "set", "seat": "s0", "field": "level", "from": 1,
                                                               "to": 10}]}))
    state = act(state, "s0", "quest.move", room="entrance")
    state = act(state, "s0", "quest.boss", monster={"name": "Boss", "level": 20})
    assert refused(state, "s0", "combat.end").rule.id == "quest.win"


def test_no_new_item_is_worn_in_the_middle_of_a_fight():
    """Gestion des cartes: cards from the hand are played outside a fight, but for one-shots and
    what hangs on the belt."""
    state = explored(new_table("Ann"))
    assert refused(state, "s0", "quest.item.add", name="Sword", slot="one_hand", bonus=5).rule.id == "quest.gear"


def test_bad_monster_and_one_shot_numbers_are_refused_not_failed():
    state = explored(new_table("Ann", "Bob"))
    for shot in ({"bonus": "x"}, {"bonus": [1]}, {"bonus": 2.7}, {"bonus": 10 ** 30}, "potion"):
        assert refused(state, "s0", "combat.oneshot.add", side="players", one_shot=shot).status == 400
    for monster in ({"name": "Orc", "level": 2, "owner": ["a"]}, {"name": "Orc", "level": 2, "dice": 0}):
        assert refused(state, "s0", "quest.fight.monster", monster=monster).status == 400
    with pytest.raises(Refused) as exc:
        quest_fight.evaluate({"fighter": {"level": 9, "die": 6},
                              "monsters": [{"level": 1, "dice": [1], "levels": -5, "treasures": -3}]})
    assert exc.value.status == 400


def test_a_monster_whose_owner_left_the_table_still_moves():
    state = explored(new_table("Ann", "Bob", "Cid"), monster={**ORC, "owner": "s2"})
    state = call_off(state)
    state = act(state, "s0", "quest.move", room="entrance")
    state = act(state, "s0", "quest.explore", name="Hall", monster={"name": "Rat", "level": 1}, cost=0)
    hall = q(state, "s0")["room"]
    state = call_off(state)
    orc = next(m for m in state.board["monsters"].values() if m["name"] == "Orc")
    state = act(state, "s0", "quest.room.join", room=orc["room"], to=hall)
    state = act(state, "s0", "player.remove", seat="s2")
    state = act(state, "s0", "quest.monsters")
    state = act(state, "s0", "quest.monster.move", monster=orc["uid"], room=hall)
    assert state.board["monsters"][orc["uid"]]["room"] == hall


def test_a_refusal_at_a_quest_table_cites_the_quest_summary():
    state = new_table("Ann", "Bob")
    error = refused(state, "s1", "quest.draw")
    assert error.rule.id == "turn.own" and error.as_dict()["citation"].startswith("Munchkin Quest")


def test_a_monster_that_ignores_the_fighter_stays_out_of_the_fight():
    """Combat: monsters in a room fight together, but for those that ignore you (their card
    says when): fighting them is your choice, and the others fight without them."""
    state = explored(new_table("Ann", "Bob"))
    state = act(state, "s0", "quest.fight.monster", monster={"name": "Ghost", "level": 5})
    ghost = state.combat["monsters"][1]["uid"]
    assert refused(state, "s1", "quest.fight.ignore", monster=ghost).status == 403
    assert refused(state, "s0", "quest.fight.ignore", monster="nope").status == 404
    state = act(state, "s0", "quest.fight.ignore", monster=ghost)
    assert [m["name"] for m in state.combat["monsters"]] == ["Orc"]
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=["1"])  # the Orc's die alone
    orc = state.combat["monsters"][0]["uid"]
    state = act(state, "s0", "quest.fight.ignore", monster=orc)  # none left: no fight
    assert state.combat is None and state.turn["phase"] == "actions"
    assert sorted(m["name"] for m in state.board["monsters"].values()) == ["Ghost", "Orc"]  # still in the room


def test_nothing_keeps_the_boss_out_of_its_fight():
    """Règles inamovibles: nothing prevents the fight with the Boss."""
    state = new_table("Ann", "Bob")
    state = t.apply(state, t.Event("sheet.changed", {"seat": "s0", "action": "test", "summary": "", "ops": [
        {"op": "set", "seat": "s0", "field": "level", "from": 1, "to": 10}]}))
    state = act(state, "s0", "quest.draw")
    state = act(state, "s0", "quest.boss", monster={"name": "Boss", "level": 20})
    boss = state.combat["monsters"][0]["uid"]
    assert refused(state, "s0", "quest.fight.ignore", monster=boss).rule.id == "quest.win"


def bobs_fight(owner="s2"):
    """Bob (not the host) explores on his turn and meets an Orc standing on ``owner``'s colour."""
    state = new_table("Ann", "Bob", "Cid")
    state = act(state, "s0", "quest.draw")
    state = act(state, "s0", "quest.monsters")
    state = act(state, "s0", "turn.end")
    return explored(state, "s1", monster={**ORC, "owner": owner})


def test_a_quest_fight_is_won_or_fled_not_called_off():
    """Exploration (a new room's monster means a fight at once) and Combat, Perdu (a lost fight is fled
    from, a die per monster): the fighter called either off and skipped both (2026-11-30); the host
    may still allow it when a card ends the fight (a house ruling)."""
    state = bobs_fight()
    no = refused(state, "s1", "combat.end")
    assert no.rule.id == "quest.combat" and no.status == 422
    state = act(state, "s1", "quest.fight.dice", fighter_die=1)
    state = act(state, "s2", "quest.fight.dice", monster_dice=["6"])
    state = act(state, "s1", "quest.fight.resolve")  # lost: flee now
    assert refused(state, "s1", "combat.end").rule.id == "quest.flee"
    assert refused(state, "s1", "combat.end", override="quest.flee").status == 403  # the host's ruling only
    state = act(state, "s0", "combat.end", override="quest.flee")
    assert state.combat is None


def test_a_monsters_dice_are_rolled_by_its_owner_and_each_player_rolls_their_own():
    """Combat, Propriétaires des monstres: the owner rolls every die of its monster. Anyone in the fight
    could overwrite any die, and the owner's roll rolled the fighter's die too (2026-11-30)."""
    state = bobs_fight(owner="s2")
    state = act(state, "s2", "quest.fight.dice", roll=True)  # Cid rolls the Orc's dice, not Bob's
    assert state.combat["dice"]["fighter"] is None and len(state.combat["dice"]["monsters"][state.combat["monsters"][0]["uid"]]) == 1
    rolled = state.combat["dice"]["monsters"][state.combat["monsters"][0]["uid"]]
    other = [str(7 - rolled[0])]
    no = refused(state, "s1", "quest.fight.dice", monster_dice=other)
    assert no.rule.id == "quest.monster-owner" and no.status == 403 and "Cid" in no.message
    assert refused(state, "s2", "quest.fight.dice", fighter_die=6).status == 403
    state = act(state, "s1", "quest.fight.dice", fighter_die=6, monster_dice=[str(rolled[0])])  # the same: no change
    assert state.combat["dice"]["fighter"] == 6
    state = act(state, "s0", "quest.fight.dice", monster_dice=other)  # the host may enter any die
    assert state.combat["dice"]["monsters"][state.combat["monsters"][0]["uid"]] == [int(other[0])]


def test_a_monster_fought_in_the_entrance_and_left_alive_leaves_the_map():
    """Règles inamovibles: no monster stays in the Entrance — one a search there turned up and that
    was fled from stayed, and the next player had to fight it there (2026-11-30)."""
    state = act(new_table("Ann", "Bob"), "s0", "quest.draw")
    state = act(state, "s0", "quest.explore", name="Hall", monster={**ORC, "name": "Rat"}, cost=0)
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=["1"])
    state = act(state, "s0", "quest.fight.resolve")  # the Rat dies
    hall = q(state, "s0")["room"]
    state = act(state, "s0", "quest.move", room="entrance")
    state = act(state, "s0", "quest.monster.place", room="entrance", monster=ORC)  # turned up by a search: a fight
    state = act(state, "s0", "quest.fight.dice", fighter_die=1, monster_dice=["6"])
    state = act(state, "s0", "quest.fight.resolve")  # lost
    fled = t.decide(state, "s0", "quest.fight.flee", {"fighter_rolls": ["6"], "room": hall})
    state = t.apply(state, fled)
    assert state.board["monsters"] == {} and state.combat is None
    assert "no monster stays in the Entrance: Orc leaves the map" in history.render(fled.payload["summary"], who="Ann")


def test_a_sale_at_the_market_takes_the_items_off_the_sheet():
    """Marché: selling an item leaves it off the sheet, for its worth (or the price the table says)."""
    state = act(new_table("Ann"), "s0", "quest.item.add", name="Sword", slot="one_hand", bonus=2, gold=400)
    state = act(state, "s0", "quest.draw")
    state = act(state, "s0", "quest.explore", name="Bazaar", market=True, monster=ORC, cost=0)
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=["1"])
    state = act(state, "s0", "quest.fight.resolve")
    sword = q(state, "s0")["gear"][0]["uid"]
    gold = q(state, "s0")["gold"]
    assert refused(state, "s0", "quest.market", uids=["nope"]).status == 404
    state = act(state, "s0", "quest.market", uids=[sword])
    assert q(state, "s0")["gear"] == [] and q(state, "s0")["gold"] == gold + 400


def test_a_worn_item_is_swapped_for_one_in_a_full_backpack():
    """Sac à dos: outside a fight an item in the backpack may take the place of one worn, even with the
    backpack full — both ways were refused (2026-11-30)."""
    state = act(new_table("Ann"), "s0", "quest.item.add", name="Old Helmet", slot="headgear", bonus=1)
    state = act(state, "s0", "quest.item.add", name="Great Helmet", slot="headgear", bonus=3)
    state = act(state, "s0", "quest.item.add", name="Rope", slot="other", place="backpack")
    assert [i["where"] for i in q(state, "s0")["gear"]] == ["worn", "backpack", "backpack"]
    great = q(state, "s0")["gear"][1]["uid"]
    state = act(state, "s0", "quest.item.move", uid=great, place="worn")
    assert {i["name"]: i["where"] for i in q(state, "s0")["gear"]} == {
        "Old Helmet": "backpack", "Great Helmet": "worn", "Rope": "backpack"}


def test_the_entrance_in_the_history_is_a_game_word_told_in_the_phones_language():
    """The Quest feed said "Entrance" on every phone; rooms the players named stay as named."""
    state = act(new_table("Ann"), "s0", "quest.draw")
    state = act(state, "s0", "quest.explore", name="Crypt", monster=ORC, cost=0)
    state = call_off(state)
    moved = t.decide(state, "s0", "quest.move", {"room": "entrance"})
    german = {"Entrance": "Eingang"}
    assert "Eingang" in history.render(moved.payload["summary"], who="Ann", word=lambda key: german.get(key, key))
    explored_text = history.render(state_event_summary(act(state, "s0", "quest.move", room="entrance"), "s0", "quest.explore",
                                                       name="Hall", monster=ORC, cost=0), who="Ann",
                                   word=lambda key: german.get(key, key))
    assert "Hall" in explored_text


def test_a_flee_takes_one_typed_die_per_monster_no_more_no_fewer():
    """Combat, Perdu: a d6 per monster — three dice typed for one Orc were taken as an escape (2026-11-30)."""
    state = explored(new_table("Ann"))
    state = act(state, "s0", "quest.fight.dice", fighter_die=1, monster_dice=["6"])
    state = act(state, "s0", "quest.fight.resolve")
    for rolls in (["6", "1", "1"], ["61"]):
        no = refused(state, "s0", "quest.fight.flee", fighter_rolls=rolls, room="entrance")
        assert no.status == 400 and no.rule.id == "quest.flee"
    state = act(state, "s0", "quest.fight.flee", fighter_rolls=["6"], room="entrance")
    assert state.combat is None


def test_a_typed_in_monster_with_an_unknown_word_or_given_twice_is_refused():
    """A mistyped word was left out without a word ("colour_of_hat"), and a monster given as an
    object and as monster_* fields at once dropped the fields (2026-11-30)."""
    state = act(new_table("Ann"), "s0", "quest.draw")
    no = refused(state, "s0", "quest.explore", name="Crypt", monster={**ORC, "colour_of_hat": "red"})
    assert no.status == 400 and "colour_of_hat" in no.message
    both = refused(state, "s0", "quest.explore", name="Crypt", monster=ORC, monster_level=9)
    assert both.status == 400 and "monster_level" in both.message
    assert state.version == act(state, "s0", "quest.explore", name="Crypt", monster=ORC).version - 1
