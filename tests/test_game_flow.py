"""The game as the books run it: the turn's phases, levels with causes, curses, Bad Stuff and death.

Each test names the edition and section of the rule it checks. The referee is pure: these
tests drive ``companion.referee.table`` directly; tests/test_game_flow_http.py plays the
same scenarios through the JSON API of a real server.
"""
import json
from pathlib import Path

import pytest

from companion.referee import table as t
from companion.referee.rules import Refused

CARDS = {c["id"]: c for c in json.loads((Path(__file__).parents[1] / "card_db/data/munchkin-base.json").read_text())["cards"]}


def new_table(*names, profile="munchkin-1.6"):
    state = t.apply(None, t.create("tid", "Friday", profile))
    for i, name in enumerate(names):
        state = t.apply(state, t.join(state, f"s{i}", name, "female" if i % 2 == 0 else "male"))
    return state


def act(state, actor, action, **params):
    return t.apply(state, t.decide(state, actor, action, params))


def refused(state, actor, action, **params) -> Refused:
    with pytest.raises(Refused) as exc:
        t.decide(state, actor, action, params)
    return exc.value


def card(card_id: str) -> dict:
    c = CARDS[card_id]
    return {"name": c["names"]["en"], "card_id": c["id"], **c.get("monster", {}), **c.get("curse", {})}


def at_level(state, seat, level):
    for _ in range(level - state.players[seat].level):
        state = act(state, seat, "level.up")
    return state


def win_fight(state, fighter, monster="potted-plant", helper=None):
    """Kick the door, fight ``monster``, claim and resolve after the objection window."""
    state = act(state, fighter, "turn.door", found="monster", monster=card(monster))
    if helper:
        state = act(state, fighter, "combat.help.ask", seat=helper)
        state = act(state, helper, "combat.help.accept")
    state = act(state, fighter, "combat.oneshot.add", side="players", one_shot={"name": "Potion", "bonus": 10})
    state = act(state, fighter, "combat.claim", _now=0)
    return act(state, fighter, "combat.resolve", _now=100)


# --- levels have causes (Munchkin 1.6, Contradictions Between Cards and Rules; Go Up a Level) --------

def test_level_9_cannot_win_with_the_kill_button_without_a_fight():
    """1.6, Contradictions Between Cards and Rules, rule 4: the winning level takes a kill in a fight."""
    state = at_level(new_table("Ann", "Bob", "Cid"), "s0", 9)
    exc = refused(state, "s0", "level.kill", levels=1)
    assert exc.rule.id == "level.causes" and state.players["s0"].level == 9 and not state.winners


def test_a_bystander_cannot_credit_himself_a_kill_during_someone_elses_fight():
    state = new_table("Ann", "Bob", "Cid")
    state = act(state, "s0", "turn.door", found="monster", monster=card("net-troll"))
    assert refused(state, "s1", "level.kill", levels=1).rule.id == "level.causes"
    assert state.players["s1"].level == 1


def test_the_kill_gives_levels_only_when_the_fight_is_resolved_and_wins_the_game_at_9():
    state = at_level(new_table("Ann", "Bob", "Cid"), "s0", 9)
    state = win_fight(state, "s0")
    assert state.players["s0"].level == 10 and state.winners == ["s0"]


def test_the_host_corrects_a_mistaken_count_as_a_recorded_house_ruling():
    state = new_table("Ann", "Bob", "Cid")
    assert refused(state, "s0", "level.kill", levels=1).rule.id == "level.causes"
    event = t.decide(state, "s0", "level.kill", {"levels": 1, "override": "level.causes"})
    assert event.payload["override"]["rule"] == "level.causes"
    assert t.apply(state, event).players["s0"].level == 2
    assert refused(state, "s1", "level.down", seat="s2").rule.id == "table.host"
    state = act(state, "s1", "level.up", seat="s2")
    assert refused(state, "s0", "level.down", seat="s2").rule.id == "level.causes"
    assert act(state, "s0", "level.down", seat="s2", override="level.causes").players["s2"].level == 1


def test_go_up_a_level_by_anyone_on_anyone_but_never_the_winning_level():
    """1.6, Treasures (Go Up a Level): played on any player at any time; never for the win."""
    state = new_table("Ann", "Bob", "Cid")
    state = act(state, "s1", "level.up", seat="s2", card="boil-an-anthill")
    assert state.players["s2"].level == 2
    state = at_level(state, "s2", 9)
    assert refused(state, "s1", "level.up", seat="s2").rule.id == "level.win-by-kill"


# --- the turn (1.6, Turn Phases) -----------------------------------------------------------------------

def test_one_door_and_one_fight_per_turn():
    state = win_fight(new_table("Ann", "Bob", "Cid"), "s0")
    assert state.turn["phase"] == "charity"
    assert refused(state, "s0", "turn.door", found="monster").rule.id == "turn.door"
    assert refused(state, "s0", "combat.start").rule.id == "turn.door"


def test_the_phase_decides_what_comes_next_and_who_may_kick_the_door():
    state = new_table("Ann", "Bob", "Cid")
    assert refused(state, "s1", "turn.door", found="other").rule.id == "turn.own"
    assert refused(state, "s0", "turn.loot").rule.id == "turn.door"
    assert refused(state, "s0", "turn.end").rule.id == "turn.door"
    state = act(state, "s0", "turn.door", found="other")
    assert state.turn["phase"] == "door"
    assert refused(state, "s0", "turn.end").rule.id == "turn.trouble-or-loot"
    state = act(state, "s0", "turn.loot")
    assert state.turn["phase"] == "charity"
    assert refused(state, "s0", "turn.trouble").rule.id == "turn.trouble-or-loot"
    state = act(state, "s0", "turn.end")
    assert state.turn == {"seat": "s1", "number": 2, "phase": "start"}


def test_looking_for_trouble_after_an_empty_door_opens_the_turns_one_fight():
    state = act(new_table("Ann", "Bob", "Cid"), "s0", "turn.door", found="other")
    state = act(state, "s0", "turn.trouble", monster=card("lame-goblin"))
    assert state.turn["phase"] == "fight" and state.combat["monsters"][0]["name"] == "Lame Goblin"
    state = act(state, "s1", "combat.monster.add", monster=card("potted-plant"))  # a Wandering Monster joins
    assert len(state.combat["monsters"]) == 2


def test_undoing_the_door_shuts_it_again():
    state = new_table("Ann", "Bob", "Cid")
    event = t.decide(state, "s0", "turn.door", {"found": "other"})
    opened = t.apply(state, event)
    back = t.apply(opened, t.inverse(opened, event))
    assert back.turn["phase"] == "start"


def test_who_begins_by_roll_or_by_the_hosts_recorded_choice_and_the_seat_order():
    """1.6, Turn Phases / Starting: roll to see who goes first; play goes on in seat order."""
    state = new_table("Ann", "Bob", "Cid")
    assert refused(state, "s1", "turn.first", roll=True).status == 403
    rolled = act(state, "s0", "turn.first", roll=True)
    assert rolled.turn["seat"] in ("s0", "s1", "s2") and rolled.turn["number"] == 1
    event = t.decide(state, "s0", "turn.first", {"seat": "s2"})
    assert event.payload["ruling"]["rule"] == "turn.first"
    chosen = t.apply(state, event)
    assert chosen.turn["seat"] == "s2"
    ordered = act(chosen, "s0", "seats.order", order=["s2", "s0", "s1"])
    ordered = act(ordered, "s2", "turn.door", found="other")
    ordered = act(ordered, "s2", "turn.loot")
    assert act(ordered, "s2", "turn.end").turn["seat"] == "s0"
    assert refused(ordered, "s0", "turn.first", roll=True).rule.id == "turn.first"


def test_ending_the_turn_checks_charity_and_skips_the_dead():
    """1.6, Charity: cards over the limit go to the lowest-level players; the dead receive none."""
    state = new_table("Ann", "Bob", "Cid")
    state = act(state, "s0", "level.up")
    state = act(state, "s0", "level.up")  # Ann 3; Bob and Cid 1
    state = act(state, "s1", "character.die")  # Bob dies with nothing in play
    state = act(state, "s0", "turn.door", found="other")
    state = act(state, "s0", "turn.loot")
    event = t.decide(state, "s0", "turn.end", {"hand": 8})
    text = json.dumps(event.payload["summary"])
    assert "Cid 3" in text and "Bob 1" not in text and "Bob 2" not in text


def test_charity_split_unevenly_between_tied_players_leaves_the_bigger_shares_to_the_giver():
    """1.6, Charity: players tied for the lowest level share the excess as evenly as possible, and the
    giver decides who gets the bigger shares: the history must not hand the extra card to the first seat."""
    from companion.referee.history import render
    state = new_table("Ann", "Bob", "Cid", "Dan")
    state = act(state, "s0", "level.up")  # Ann 2; Bob, Cid and Dan tied at 1
    state = act(state, "s0", "turn.door", found="other")
    state = act(state, "s0", "turn.loot")
    text = render(t.decide(state, "s0", "turn.end", {"hand": 7}).payload["summary"], "Ann")
    assert "Bob 1" not in text and "Cid 0" not in text, text
    assert "Bob, Cid, Dan" in text and "Ann chooses" in text, text
    text = render(t.decide(state, "s0", "turn.end", {"hand": 11}).payload["summary"], "Ann")
    assert "Bob 2, Cid 2, Dan 2" in text, text  # an even split names each share


@pytest.mark.parametrize("ups, hand, said", [
    (2, 6, "Charity: 1 card over the limit goes to Bob"),
    (0, 6, "Charity: 1 card over the limit goes to the discards"),
    (1, 6, "Charity: 1 card over the limit goes to Bob, Cid, tied for the lowest level; Ann chooses who gets it"),
    (2, 7, "Charity: 2 cards over the limit go to Bob")])
def test_charity_says_one_card_in_the_singular(ups, hand, said):
    """The history's Charity sentence has a singular of its own (not "1 cards")."""
    from companion.referee.history import render
    state = new_table("Ann", "Bob", "Cid") if ups == 1 else new_table("Ann", "Bob")
    for _ in range(ups):
        state = act(state, "s0", "level.up")
    state = act(state, "s0", "turn.door", found="other")
    state = act(state, "s0", "turn.loot")
    text = render(t.decide(state, "s0", "turn.end", {"hand": hand}).payload["summary"], "Ann")
    assert said in text, text


# --- curses (1.6, Curses) -------------------------------------------------------------------------------

def test_change_sex_flips_the_sex_and_its_minus_5_lasts_exactly_the_next_fight():
    state = new_table("Ann", "Bob", "Cid")
    state = act(state, "s1", "curse.add", seat="s0", curse=card("change-sex"))  # anyone curses anyone
    assert state.players["s0"].sex == "male"
    state = act(state, "s0", "level.up")
    state = act(state, "s0", "level.up")  # level 3
    state = act(state, "s0", "turn.door", found="monster", monster=card("potted-plant"))
    judged = t.fights.verdict(state)
    assert judged["players"]["total"] == 3 - 5
    state = act(state, "s0", "combat.oneshot.add", side="players", one_shot={"name": "Potion", "bonus": 10})
    state = act(state, "s0", "combat.claim", _now=0)
    state = act(state, "s0", "combat.resolve", _now=100)
    assert state.players["s0"].curses == [] and state.players["s0"].as_dict()["pending"] == []


def test_an_immediate_curse_acts_and_does_not_stay():
    state = at_level(new_table("Ann", "Bob", "Cid"), "s0", 4)
    state = act(state, "s2", "curse.add", seat="s0", curse=card("duck-of-doom"))
    assert state.players["s0"].level == 2 and state.players["s0"].curses == []


def test_a_curse_from_the_door_acts_on_whoever_opened_it():
    state = act(new_table("Ann", "Bob", "Cid"), "s0", "item.add",
                item={"name": "Leather Armor", "bonus": 1, "slot": "armor", "gold": 200})
    state = act(state, "s0", "turn.door", found="curse", curse=card("lose-your-armor"))
    assert state.players["s0"].items == [] and state.turn["phase"] == "door"


def test_the_victim_picks_the_item_where_the_card_lets_them_choose():
    state = new_table("Ann", "Bob", "Cid")
    for name in ("Sword", "Shield"):
        state = act(state, "s0", "item.add", item={"name": name, "bonus": 2, "slot": "one_hand", "gold": 400})
    state = act(state, "s1", "curse.add", seat="s0", curse=card("income-tax"))
    (choice,) = state.players["s0"].choices
    assert choice["chooser"] == "s0" and len(choice["options"]) == 2
    exc = refused(state, "s1", "choice.make", uid=choice["uid"], picks=[choice["options"][0]])
    assert exc.status == 403 and exc.rule.id == "curses.effects"  # 1.6 Curses: the victim decides which item
    state = act(state, "s0", "choice.make", uid=choice["uid"], picks=[choice["options"][0]])
    assert [i["name"] for i in state.players["s0"].items] == ["Shield"] and state.players["s0"].choices == []


def test_an_item_a_curse_waits_to_take_cannot_be_given_sold_or_dropped_first():
    """1.6, Curses: a curse acts at once; where it lets someone choose which item goes, the items it
    may take stay in play until the choice is made (giving one away first would dodge the curse)."""
    state = new_table("Ann", "Bob", "Cid")
    state = act(state, "s0", "class.add", **{"class": "thief"})
    for name in ("Sword", "Shield"):
        state = act(state, "s1", "item.add", item={"name": name, "bonus": 2, "slot": "one_hand", "gold": 600})
    state = act(state, "s1", "item.add", item={"name": "Hat", "bonus": 1, "slot": "headgear", "gold": 100})
    state = act(state, "s0", "curse.add", seat="s1", curse=card("lose-a-small-item"))
    (choice,) = state.players["s1"].choices
    sword, shield, hat = (i["uid"] for i in state.players["s1"].items)
    assert choice["chooser"] == "s0" and hat in choice["options"]
    for action, actor, params in (("item.give", "s1", {"uid": sword, "to": "s2"}), ("item.remove", "s1", {"uid": hat}),
                                  ("item.steal", "s0", {"target": "s1", "uid": shield, "die": 6})):
        exc = refused(state, actor, action, **params)
        assert exc.rule.id == "curses.effects" and exc.status == 409, action
    state = act(state, "s0", "choice.make", uid=choice["uid"], picks=[hat])
    state = act(state, "s1", "item.give", uid=sword, to="s2")  # once chosen, the rest is free again
    assert [i["name"] for i in state.players["s2"].items] == ["Sword"]


def test_death_takes_the_items_a_pending_choice_was_about_and_the_choice_with_them():
    """1.6, Death (all your stuff goes) and Curses (what you do not have is ignored): a choice of which
    item to lose, left open when the character dies, has nothing left to choose from and goes too;
    undoing the death brings the items and the choice back."""
    state = new_table("Ann", "Bob", "Cid")
    for name in ("Sword", "Shield"):
        state = act(state, "s0", "item.add", item={"name": name, "bonus": 2, "slot": "one_hand", "gold": 400})
    state = act(state, "s1", "curse.add", seat="s0", curse=card("income-tax"))
    assert len(state.players["s0"].choices) == 1
    event = t.decide(state, "s0", "character.die", {})
    dead = t.apply(state, event)
    assert dead.players["s0"].items == [] and dead.players["s0"].choices == []
    back = t.apply(dead, t.inverse(dead, event))
    assert len(back.players["s0"].items) == 2 and back.players["s0"].choices == state.players["s0"].choices


# --- Bad Stuff and death (1.6, Running Away; Death) ---------------------------------------------------

def test_caught_by_the_harpies_loses_two_levels():
    state = at_level(new_table("Ann", "Bob", "Cid"), "s0", 5)
    state = act(state, "s0", "turn.door", found="monster", monster=card("harpies"))
    state = act(state, "s0", "combat.oneshot.add", side="monsters", one_shot={"name": "Enraged", "bonus": 20})
    state = act(state, "s0", "combat.flee", fighter_rolls=[1])
    assert state.players["s0"].level == 3 and state.combat is None and state.turn["phase"] == "charity"


def test_a_typed_in_monsters_bad_stuff_is_checked_when_it_enters_the_fight():
    """A monster typed in may carry its Bad Stuff, as the card schema describes it; one the referee
    could not apply when the fighter is caught (an unknown effect, words for a number) is refused
    (400) with where it is wrong, when it enters the fight — it used to fail the flee on the
    server. A well-formed one is applied (1.6, Running Away)."""
    for bad, where in (({"effects": [{"type": "lose_level"}]}, "bad_stuff.effects.0.type"),
                       ({"levels_lost": "two"}, "bad_stuff.levels_lost"), ("lose a level", "bad_stuff")):
        error = refused(new_table("Ann", "Bob"), "s0", "turn.door", found="monster",
                        monster={"name": "Odd", "level": 20, "bad_stuff": bad})
        assert error.status == 400 and where in error.message, error.message
    state = at_level(new_table("Ann", "Bob"), "s0", 4)
    state = act(state, "s0", "turn.door", found="monster",
                monster={"name": "Odd", "level": 20, "bad_stuff": {"effects": [{"type": "lose_levels", "value": 2}]}})
    state = act(state, "s0", "combat.flee", fighter_rolls=[1])
    assert state.players["s0"].level == 2


def test_a_monster_that_kills_kills_even_with_nothing_in_play_and_the_dead_get_nothing():
    state = new_table("Ann", "Bob", "Cid")
    state = act(state, "s0", "turn.door", found="monster", monster=card("stoned-golem"))
    state = act(state, "s0", "combat.flee", fighter_rolls=[2])
    ann = state.players["s0"]
    assert ann.dead and ann.level == 1
    assert refused(state, "s1", "level.up", seat="s0").rule.id == "death.state"
    assert refused(state, "s0", "item.add", item={"name": "Club", "bonus": 1, "slot": "one_hand", "gold": 0}).rule.id == "death.state"
    state = act(state, "s0", "turn.end")
    assert not state.players["s0"].dead and state.turn["seat"] == "s1"
    assert act(state, "s1", "level.up", seat="s0").players["s0"].level == 2


def test_the_dead_have_no_cards_to_play_until_the_new_character_is_back():
    """1.6, Death: the dead character's hand is laid out for looting and the new character comes back
    with no cards, so while dead a player plays no Go Up a Level, curse, monster, enhancer or one-shot
    on anyone (not only on themselves)."""
    state = new_table("Ann", "Bob", "Cid")
    state = act(state, "s1", "character.die")
    plays = (("level.up", {"seat": "s0"}), ("curse.add", {"seat": "s0", "curse": card("duck-of-doom")}),
             ("card.play", {"card": "boil-an-anthill", "seat": "s2", "_card": CARDS["boil-an-anthill"]}))
    for action, params in plays:
        assert refused(state, "s1", action, **params).rule.id == "death.state", action
    state = act(state, "s0", "turn.door", found="monster", monster=card("lame-goblin"))
    monster = state.combat["monsters"][0]["uid"]
    for action, params in (("combat.monster.add", {"monster": card("pit-bull")}),
                           ("combat.enhancer.add", {"monster": monster, "enhancer": {"name": "Enraged", "level_change": 5}}),
                           ("combat.oneshot.add", {"side": "monsters", "one_shot": {"name": "Potion", "bonus": 3}}),
                           ("combat.eliminate", {"monster": monster})):
        assert refused(state, "s1", action, **params).rule.id == "death.state", action
    assert state.players["s0"].level == 1 and len(state.combat["monsters"]) == 1
    state = act(state, "s0", "combat.flee", fighter_rolls=[6])
    state = act(state, "s0", "turn.end")  # Bob is back as the next player's turn begins
    assert act(state, "s1", "level.up", seat="s0").players["s0"].level == 2


def test_dying_by_choice_with_nothing_in_play_is_allowed():
    state = act(new_table("Ann", "Bob", "Cid"), "s0", "character.die")
    assert state.players["s0"].dead


def test_undo_of_a_failed_escape_brings_the_levels_and_the_fight_back():
    state = at_level(new_table("Ann", "Bob", "Cid"), "s0", 5)
    state = act(state, "s0", "turn.door", found="monster", monster=card("harpies"))
    state = act(state, "s0", "combat.oneshot.add", side="monsters", one_shot={"name": "Enraged", "bonus": 20})
    event = t.decide(state, "s0", "combat.flee", {"fighter_rolls": [1]})
    fled = t.apply(state, event)
    back = t.apply(fled, t.inverse(fled, event))
    assert back.players["s0"].level == 5 and back.combat is not None and back.turn["phase"] == "fight"


def test_every_base_monsters_bad_stuff_and_every_curse_can_be_applied():
    for card_id, c in CARDS.items():
        state = at_level(new_table("Ann", "Bob", "Cid"), "s0", 4)
        state = act(state, "s0", "item.add", item={"name": "Helmet", "bonus": 1, "slot": "headgear", "gold": 200})
        state = act(state, "s0", "race.add", race="elf")
        state = act(state, "s0", "class.add", **{"class": "wizard"})
        if c["kind"] == "curse":
            act(state, "s1", "curse.add", seat="s0", curse=card(card_id))
        elif c["kind"] == "monster":
            state = act(state, "s0", "turn.door", found="monster", monster=card(card_id))
            state = act(state, "s0", "combat.oneshot.add", side="monsters", one_shot={"name": "Enraged", "bonus": 50})
            act(state, "s0", "combat.flee", fighter_rolls=[1])


def test_an_expansions_race_comes_from_its_card_without_code():
    """A race card of another set names its own race (card data, not code); a typed unknown race is refused."""
    state = new_table("Ann", "Bob", "Cid")
    gnome = {"id": "gnome", "kind": "race", "deck": "door", "names": {"en": "Gnome"}}
    state = act(state, "s0", "card.play", _card=gnome)
    assert state.players["s0"].races == ["gnome"]
    assert refused(state, "s1", "race.add", race="gnome").status == 400
    assert act(state, "s0", "race.remove", race="gnome").players["s0"].races == []


# --- found by playing whole games through the API (2026-11-30) ---------------------------------------

def test_a_mate_and_another_monster_each_apply_their_own_bad_stuff():
    """1.6, Running Away (each monster that catches you does its Bad Stuff); Mate: a second copy of
    its monster. Ann flees the Flying Frogs, their Mate and Bigfoot and is caught by the Frogs and
    Bigfoot: two levels and her headgear, not the Frogs' levels twice."""
    state = at_level(new_table("Ann", "Bob", "Cid"), "s0", 6)
    state = act(state, "s0", "item.add", item={"name": "Helm of Courage", "bonus": 1, "slot": "headgear", "gold": 200})
    state = act(state, "s0", "turn.door", found="monster", monster=card("flying-frogs"))
    frogs = state.combat["monsters"][0]["uid"]
    state = act(state, "s1", "combat.enhancer.add", monster=frogs, enhancer={"name": "Mate", "mate": True})
    state = act(state, "s2", "combat.monster.add", monster=card("bigfoot"))
    state = act(state, "s0", "combat.flee", fighter_rolls=[1, 6, 1])
    ann = state.players["s0"]
    assert ann.level == 4 and [i["name"] for i in ann.items] == []


def test_a_helper_who_dies_in_the_fight_leaves_it_and_gains_no_level():
    """1.6, Death: the dead get no levels; a dead helper has no part in the fight any more."""
    state = at_level(new_table("Ann", "Bob", "Cid"), "s1", 4)
    state = act(state, "s0", "turn.door", found="monster", monster=card("lame-goblin"))
    state = act(state, "s0", "combat.help.ask", seat="s1")
    state = act(state, "s1", "combat.help.accept")
    state = act(state, "s1", "character.die")
    assert state.combat["helper"] is None and state.players["s1"].dead
    assert refused(state, "s0", "combat.help.ask", seat="s1").rule.id == "death.state"  # nor asked again
    state = act(state, "s0", "combat.oneshot.add", side="players", one_shot={"name": "Potion", "bonus": 5})
    state = act(state, "s0", "combat.claim", _now=0)
    state = act(state, "s0", "combat.resolve", _now=100)
    assert state.players["s1"].level == 4 and state.players["s0"].level == 2


def test_a_backstabbed_helper_who_dies_takes_the_backstab_out_of_the_fight_with_them():
    """1.6, Death: a dead helper has no part in the fight any more — nor has a Thief's backstab on them
    (-2 to the helper). It stayed in the fight, and every verdict after the death was refused ("There
    is no helper to backstab"): the fight could be neither shown, won nor run from."""
    state = new_table("Ann", "Bob", "Cid")
    state = act(state, "s2", "class.add", **{"class": "thief"})
    state = act(state, "s0", "turn.door", found="monster", monster=card("lame-goblin"))
    state = act(state, "s0", "combat.help.ask", seat="s1")
    state = act(state, "s1", "combat.help.accept")
    state = act(state, "s2", "combat.backstab", target="helper")
    state = act(state, "s1", "character.die")
    assert state.combat["backstabs"] == [] and t.fights.verdict(state)["players"]["total"] == 1
    state = act(state, "s0", "combat.flee", fighter_rolls=[6])
    assert state.combat is None


def test_a_fighter_who_dies_in_the_fight_ends_it_and_the_dead_open_no_door():
    """1.6, Death: a dead character gets no cards and no levels until the next player's turn; the
    turn can only be ended, with no Charity (the hand went with the body)."""
    state = new_table("Ann", "Bob", "Cid")
    state = act(state, "s0", "character.die")
    for action, params in (("turn.door", {"found": "monster", "monster": card("lame-goblin")}),
                           ("turn.door", {"found": "other"}), ("combat.start", {"monster": card("lame-goblin")})):
        assert refused(state, "s0", action, **params).rule.id == "death.state"
    event = t.decide(state, "s0", "turn.end", {"hand": 8})
    assert "Charity" not in json.dumps(event.payload["summary"])
    state = t.apply(state, event)
    assert state.turn["seat"] == "s1" and not state.players["s0"].dead
    state = act(state, "s1", "turn.door", found="monster", monster=card("lame-goblin"))
    state = act(state, "s1", "character.die")
    assert state.combat is None and state.turn["phase"] == "charity" and state.players["s1"].level == 1


def test_typed_in_enhancers_and_one_shots_with_bad_numbers_are_refused_not_failed():
    state = act(new_table("Ann", "Bob"), "s0", "turn.door", found="monster", monster=card("lame-goblin"))
    goblin = state.combat["monsters"][0]["uid"]
    for enhancer in ({"level_change": "abc"}, {"treasure_change": [1]}, {"level_change": 10 ** 40}, "x"):
        assert refused(state, "s1", "combat.enhancer.add", monster=goblin, enhancer=enhancer).status == 400
    for shot in ({"bonus": "zz"}, {"bonus": 2.9}, {"bonus": 10 ** 40}):
        assert refused(state, "s1", "combat.oneshot.add", side="players", one_shot=shot).status == 400


# --- a fight ends by winning it or running away (1.6, Running Away) ------------------------------

def test_a_fight_the_players_are_losing_is_not_called_off_but_run_from():
    """Calling the fight off spared a losing fighter the die and the Bad Stuff (2026-11-30): it is
    refused while the monsters are winning, and the host may still overrule it (a card the
    referee does not know that ends the fight)."""
    state = new_table("Ann", "Bob")
    state = act(state, "s0", "turn.door", found="other")
    state = act(state, "s0", "turn.loot")
    state = act(state, "s0", "turn.end")
    state = act(state, "s1", "turn.door", found="monster", monster=card("gazebo"))  # level 8 against Level 1
    no = refused(state, "s1", "combat.end")
    assert no.rule.id == "combat.run-away" and "(8 to 1)" in no.message.format(**no.params)
    assert refused(state, "s1", "combat.end", override="combat.run-away").status == 403  # the host's ruling
    event = t.decide(state, "s0", "combat.end", {"override": "combat.run-away"})
    assert event.payload["override"]["rule"] == "combat.run-away"
    state = t.apply(state, event)
    assert state.combat is None and state.players["s1"].level == 1


def test_a_fight_the_players_are_winning_or_without_a_monster_may_be_called_off():
    state = new_table("Ann", "Bob")
    state = act(state, "s0", "turn.door", found="monster", monster=card("potted-plant"))
    state = act(state, "s0", "combat.oneshot.add", side="players", one_shot={"name": "Potion", "bonus": 5})
    state = act(state, "s0", "combat.end")  # no rewards: the fighter's choice
    assert state.combat is None and state.players["s0"].level == 1


def test_a_new_character_draws_at_the_start_of_its_own_next_turn():
    """1.6, Death: the new character appears as the next player's turn begins, with no cards, and
    draws four of each deck at the start of its own next turn — the history said it drew as the
    next player's turn began (2026-11-30)."""
    from companion.referee import history

    def turn_end_text(state, seat):
        event = t.decide(state, seat, "turn.end", {})
        return t.apply(state, event), history.render(event.payload["summary"], who="?")

    state = new_table("Ann", "Bob", "Cid")
    state = act(state, "s0", "turn.door", found="other")
    state = act(state, "s0", "turn.loot")
    state = act(state, "s0", "character.die", seat="s0")  # Ann dies on her own turn: Bob's is next
    state, text = turn_end_text(state, "s0")
    assert "Ann's new character is back, with no cards: at the start of their next turn they draw 4 Door" in text
    state = act(state, "s1", "turn.door", found="other")
    state = act(state, "s1", "turn.loot")
    state = act(state, "s2", "character.die", seat="s2")  # Cid dies on Bob's turn: Cid's is next
    state, text = turn_end_text(state, "s1")
    assert "Cid's new character is back and, as the turn is theirs, first draws 4 Door" in text
