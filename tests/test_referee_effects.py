"""Curse and Bad Stuff effects performed on a character sheet (companion/referee/effects.py).

Rules: 1.6, Curses and Running Away (Bad Stuff); German rules 2003, Flüche. Each effect
kind is checked on plain character dicts, including what the card lets someone choose.
"""
import pytest

from companion.referee import effects, sheet
from companion.referee.profiles import get_profile
from companion.referee.rules import Refused
from test_referee_sheet import Game

PROFILE = get_profile("munchkin-1.6")


def character(**over):
    base = {"name": "Ann", "level": 5, "sex": "female", "races": [], "classes": [], "items": [], "curses": [],
            "half_breed": False, "super_munchkin": False}
    return {**base, **over}


def item(uid, slot="none", bonus=1, big=False, in_use=True):
    return {"uid": uid, "name": uid.title(), "slot": slot, "bonus": bonus, "big": big, "in_use": in_use, "gold": 100}


def after(players, seat, outcome):
    players = {s: dict(p) for s, p in players.items()}
    sheet.apply_ops(players, outcome.ops, PROFILE)
    return players[seat]


def test_levels_are_lost_down_to_the_floor_and_never_below():
    players = {"s0": character(level=2)}
    outcome = effects.perform(players, "s0", [{"type": "lose_levels", "value": 3}], PROFILE)
    assert after(players, "s0", outcome)["level"] == 1 and players["s0"]["level"] == 2  # nothing changed in place
    assert effects.perform({"s0": character(level=1)}, "s0", [{"type": "lose_levels", "value": 1}], PROFILE).ops == []


def test_level_to_the_lowest_player_or_a_number():
    players = {"s0": character(level=7), "s1": character(name="Bob", level=3)}
    assert after(players, "s0", effects.perform(players, "s0", [{"type": "level_to", "lowest": True}], PROFILE))["level"] == 3
    assert after(players, "s0", effects.perform(players, "s0", [{"type": "level_to", "value": 1}], PROFILE))["level"] == 1
    assert effects.perform(players, "s1", [{"type": "level_to", "value": 5}], PROFILE).ops == []  # never up


def test_worn_slot_items_go_and_carried_ones_stay():
    players = {"s0": character(items=[item("helm", "headgear"), item("cap", "headgear", in_use=False)])}
    outcome = effects.perform(players, "s0", [{"type": "lose_item", "slot": "headgear"}], PROFILE)
    assert [i["uid"] for i in after(players, "s0", outcome)["items"]] == ["cap"]


def test_nothing_to_take_costs_the_levels_the_card_says_instead():
    players = {"s0": character(level=4)}
    outcome = effects.perform(players, "s0", [{"type": "lose_item", "slot": "footgear", "else_levels": 1}], PROFILE)
    assert after(players, "s0", outcome)["level"] == 3


def test_a_choice_is_left_when_the_card_lets_someone_pick():
    players = {"s0": character(items=[item("sword", "one_hand"), item("shield", "one_hand"), item("ladder", big=True)])}
    outcome = effects.perform(players, "s0", [{"type": "lose_item", "big": False, "pick": "caster"}], PROFILE)
    (choice,) = outcome.choices
    assert outcome.ops == [] and choice["chooser"] == "caster" and sorted(choice["options"]) == ["shield", "sword"]
    ops, lines = effects.choose(players, "s0", choice, ["shield"], PROFILE)
    assert ops == [{"op": "remove", "seat": "s0", "field": "items", "value": players["s0"]["items"][1]}]
    with pytest.raises(Refused):
        effects.choose(players, "s0", choice, ["sword", "shield"], PROFILE)  # one, not two
    with pytest.raises(Refused):
        effects.choose(players, "s0", choice, ["ladder"], PROFILE)  # not an option
    gone = {"s0": character(items=[item("sword", "one_hand")])}
    with pytest.raises(Refused) as exc:
        effects.choose(gone, "s0", choice, ["shield"], PROFILE)
    assert exc.value.status == 409


def test_a_single_candidate_needs_no_choice_and_best_takes_the_biggest_bonus():
    players = {"s0": character(items=[item("sword", bonus=3), item("club", bonus=1)])}
    outcome = effects.perform(players, "s0", [{"type": "lose_item", "pick": "best"}], PROFILE)
    assert [i["uid"] for i in after(players, "s0", outcome)["items"]] == ["club"] and outcome.choices == []


def test_all_big_items_go_at_once():
    players = {"s0": character(races=["dwarf"], items=[item("a", big=True), item("b", big=True), item("c")])}
    outcome = effects.perform(players, "s0", [{"type": "lose_item", "big": True, "pick": "all"}], PROFILE)
    assert [i["uid"] for i in after(players, "s0", outcome)["items"]] == ["c"]


def test_races_and_classes_are_lost_with_what_they_allowed():
    players = {"s0": character(races=["elf", "dwarf"], half_breed=True, classes=["wizard"])}
    outcome = effects.perform(players, "s0", [{"type": "lose_race", "all": True}, {"type": "lose_class", "all": True}],
                              PROFILE)
    ann = after(players, "s0", outcome)
    assert ann["races"] == [] and ann["classes"] == [] and ann["half_breed"] is False
    two = {"s0": character(classes=["wizard", "thief"], super_munchkin=True)}
    (choice,) = effects.perform(two, "s0", [{"type": "lose_class", "else_levels": 1}], PROFILE).choices
    assert choice["options"] == ["wizard", "thief"] and choice["chooser"] == "target"
    none = {"s0": character(level=3)}
    assert after(none, "s0", effects.perform(none, "s0", [{"type": "lose_class", "else_levels": 1}], PROFILE))["level"] == 2


def test_who_and_unless_decide_whom_an_effect_touches():
    horror = [{"type": "death", "unless": {"class": "wizard"}},
              {"type": "lose_class", "class": "wizard", "who": {"class": "wizard"}}]
    assert effects.perform({"s0": character()}, "s0", horror, PROFILE).dies
    wizard = {"s0": character(classes=["wizard"])}
    outcome = effects.perform(wizard, "s0", horror, PROFILE)
    assert not outcome.dies and after(wizard, "s0", outcome)["classes"] == []


def test_sex_changes_lasting_effects_stay_and_the_rest_is_an_instruction():
    players = {"s0": character()}
    outcome = effects.perform(players, "s0", [{"type": "change_sex"}, {"type": "combat_bonus", "value": -5, "until": "next_combat"},
                                              {"type": "other", "until": "next_combat"}, {"type": "other"}], PROFILE)
    assert after(players, "s0", outcome)["sex"] == "male"
    assert [e["type"] for e in outcome.lasting] == ["combat_bonus", "other"] and outcome.instructions == [{"type": "other"}]


def test_bad_stuff_reads_the_effects_or_the_older_fields():
    assert effects.bad_stuff_effects({"levels_lost": 2}) == [{"type": "lose_levels", "value": 2}]
    assert effects.bad_stuff_effects({"death": True, "levels_lost": 2}) == [{"type": "death"}]
    assert effects.bad_stuff_effects({"effects": [{"type": "other"}], "levels_lost": 2}) == [{"type": "other"}]
    assert effects.bad_stuff_effects(None) == []


# --- a choice of which item goes, once none of its items is left ----------------------------------

def _item_choice(g):
    """Ann with a Helm and a Sword, and a curse waiting for her to choose which goes."""
    helm = g.do("item.add", item={"name": "Helm", "bonus": 1, "slot": "headgear", "gold": 200})
    sword = g.do("item.add", item={"name": "Sword", "bonus": 2, "slot": "one_hand", "gold": 400})
    g.do("curse.add", actor="b", seat="a", curse={"name": "Take One", "effects": [{"type": "lose_item"}]})
    assert len(g.state.players["a"].choices) == 1
    return helm, sword


def test_a_choice_goes_when_another_curse_takes_every_item_it_offers_and_undo_brings_both_back():
    g = Game()
    _item_choice(g)
    taken = g.do("curse.add", actor="b", seat="a", curse={"name": "Take All", "effects": [{"type": "lose_item", "pick": "all"}]})
    assert g.state.players["a"].items == [] and g.state.players["a"].choices == []
    g.undo(taken)
    assert len(g.state.players["a"].items) == 2 and len(g.state.players["a"].choices) == 1


def test_a_choice_stays_while_one_of_its_items_is_left_and_goes_with_the_last_undone():
    g = Game()
    helm, sword = _item_choice(g)
    g.undo(sword)
    assert [i["name"] for i in g.state.players["a"].items] == ["Helm"] and len(g.state.players["a"].choices) == 1
    g.undo(helm)
    assert g.state.players["a"].items == [] and g.state.players["a"].choices == []
