"""Base-deck cards whose text changes a fight, a flee or the table, refereed from their card data.

Each card's effect is a structured field of its record (card_db/schema.py), so that a card typed
in or imported later with the same field behaves the same: these tests play the bundled cards
and, where it matters, a monster typed in with the same field. The card beats the rules
(Munchkin 1.6 (2011), Contradictions Between Cards and Rules: ``cards.override``).
"""
import pytest

from companion.referee import combat
from companion.referee import fight as fights
from companion.referee import table as t
from test_game_flow import CARDS
from test_referee_sheet import Game

HELMET = {"name": "Helm of Courage", "bonus": 1, "slot": "headgear", "gold": 200}
CHAINSAW = {"name": "Chainsaw", "bonus": 3, "slot": "two_hands", "big": True, "gold": 600}


def monster(card_id: str) -> dict:
    card = CARDS[card_id]
    return {"name": card["names"]["en"], "card_id": card_id, **card["monster"]}


def play(g: Game, card_id: str, actor="a", **params):
    return g.do("card.play", actor=actor, card=card_id, _card=CARDS[card_id], **params)


def refused_play(g: Game, card_id: str, actor="a", **params):
    return g.refused("card.play", actor=actor, card=card_id, _card=CARDS[card_id], **params)


@pytest.fixture
def g():
    return Game()


# --- Crabs: it cannot be run away from --------------------------------------------------------------

def test_crabs_take_no_die_and_the_other_monster_is_fled_as_usual():
    """Crabs card: no escape roll, its Bad Stuff applies; the die goes to the next monster fled."""
    verdict = combat.evaluate({"fighter": {"level": 1, "rolls": [6]},
                               "monsters": [{"name": "Crabs", "level": 1, "no_escape": True}, {"name": "Troll", "level": 10}]})
    crabs, troll = verdict["run_away"]
    assert crabs["escaped"] is False and crabs["no_escape"] and "roll" not in crabs and crabs["rule"] == "cards.override"
    assert troll["roll"] == 6 and troll["escaped"] is True


def test_a_lost_fight_against_crabs_is_their_bad_stuff_without_a_die(g):
    g.do("item.add", item={"name": "Leather Armor", "bonus": 1, "slot": "armor", "gold": 200})
    g.do("combat.start", monster=monster("crabs"))
    g.do("combat.oneshot.add", actor="b", side="monsters", one_shot={"name": "Potion", "bonus": 5})
    fled = g.do("combat.flee")  # no die asked for
    assert "cannot run away from Crabs" in g.said(fled) and g.state.players["a"].items == []
    g.undo(fled)
    assert g.state.players["a"].items and g.state.combat


# --- Gazebo: nobody can help -------------------------------------------------------------------------

def test_nobody_can_be_asked_to_help_against_the_gazebo(g):
    g.do("combat.start", monster=monster("gazebo"))
    refused = g.refused("combat.help.ask", seat="b")
    assert refused.rule.id == "cards.override" and refused.status == 409 and "Gazebo" in refused.message
    g.do("combat.eliminate", monster=g.state.combat["monsters"][0]["uid"])  # gone: help is possible again
    g.do("combat.help.ask", seat="b")


def test_a_gazebo_added_to_a_helped_fight_sends_the_helper_away_and_undo_brings_them_back(g):
    g.do("combat.start", monster={"name": "Potted Plant", "level": 1})
    g.do("combat.help.ask", seat="b", promise="a treasure")
    g.do("combat.help.accept", actor="b")
    added = g.do("combat.monster.add", actor="b", monster=monster("gazebo"))
    assert g.state.combat["helper"] is None and "Ben is out of the fight" in g.said(added)
    assert g.refused("combat.help.ask", seat="b").rule.id == "cards.override"
    g.undo(added)
    assert g.state.combat["helper"] == "b" and g.state.combat["promise"] == "a treasure"


def test_an_invitation_cannot_be_accepted_once_a_typed_in_no_help_monster_is_in(g):
    g.do("combat.start", monster={"name": "Potted Plant", "level": 1})
    g.do("combat.help.ask", seat="b")
    g.do("combat.monster.add", actor="b", monster={"name": "Hermit", "level": 2, "no_help": True})
    assert g.state.combat["invited"] is None
    assert g.refused("combat.help.accept", actor="b").status in (403, 409)


# --- Ghoulfiends: the Level alone --------------------------------------------------------------------

def test_against_ghoulfiends_only_levels_count_for_the_players():
    """Ghoulfiends card: items, curses, powers, backstabs and the players' one-shots do not count
    (listed as not counting); the monsters' enhancers and one-shots still do (our reading)."""
    curse = {"name": "Chicken", "effects": [{"type": "combat_bonus", "value": -1, "until": "removed"}]}
    verdict = combat.evaluate({
        "fighter": {"name": "Aric", "level": 4, "classes": ["warrior"], "items": [CHAINSAW], "berserk": 2, "curses": [curse]},
        "helper": {"name": "Suzan", "level": 3, "classes": ["cleric"], "turning": 1},
        "monsters": [{"name": "Ghoulfiends", "level": 8, "level_only": True, "undead": True,
                      "enhancers": [{"name": "Enraged", "level_change": 5}]}],
        "one_shots": [{"name": "Magic Missile", "bonus": 5, "side": "players"},
                      {"name": "Potion", "bonus": 2, "side": "monsters"}],
        "backstabs": ["fighter"]})
    assert [line["source"] for line in verdict["players"]["lines"]] == ["Aric: Level", "Suzan: Level"]
    assert verdict["players"]["total"] == 7 and verdict["monsters"]["total"] == 8 + 5 + 2
    ignored = {line["source"] for line in verdict["players"]["not_counting"]}
    assert {"Chainsaw", "Chicken", "Berserking (cards discarded: 2)", "Turning (cards discarded: 1)", "Backstab",
            "Magic Missile"} <= ignored
    assert all(line["rule"] == "cards.override" and line["level_only"] == "Ghoulfiends"
               for line in verdict["players"]["not_counting"])


def test_ghoulfiends_charmed_away_let_the_items_count_again():
    verdict = combat.evaluate({"fighter": {"level": 4, "items": [CHAINSAW]},
                               "monsters": [{"name": "Ghoulfiends", "level": 8, "level_only": True, "eliminated": True},
                                            {"name": "Plant", "level": 1}]})
    assert verdict["players"]["total"] == 7


# --- Insurance Salesman: the Levels do not count ------------------------------------------------------

def test_against_the_insurance_salesman_the_players_levels_do_not_count():
    """Insurance Salesman card: only the players' bonuses count, not their Levels (the card beats the
    rules, cards.override) — for the helper too (1.6, Asking for Help), and for the whole fight even
    when he joins as a Wandering Monster (1.6, Fighting Multiple Monsters)."""
    salesman = {k: v for k, v in CARDS["insurance-salesman"]["monster"].items() if k != "bad_stuff"}
    verdict = combat.evaluate({"fighter": {"name": "Aric", "level": 9, "items": [CHAINSAW]},
                               "helper": {"name": "Suzan", "level": 3},
                               "monsters": [{"name": "Plant", "level": 1}, {"name": "Insurance Salesman", **salesman}]})
    assert verdict["players"]["total"] == 3 and verdict["outcome"] == "lose"
    levels = [line for line in verdict["players"]["not_counting"] if line.get("no_level")]
    assert [line["value"] for line in levels] == [9, 3]
    assert all(line["rule"] == "cards.override" for line in levels)
    gone = combat.evaluate({"fighter": {"level": 9, "items": [CHAINSAW]},
                            "monsters": [{"name": "Plant", "level": 1},
                                         {"name": "Insurance Salesman", **salesman, "eliminated": True}]})
    assert gone["players"]["total"] == 12 and gone["outcome"] == "win"


# --- Stoned Golem, Lawyers: let by without a fight --------------------------------------------------

@pytest.mark.parametrize("card_id, sheet, let_by", [
    ("stoned-golem", {}, True), ("stoned-golem", {"race": "halfling"}, False),
    ("lawyers", {"class": "thief"}, True), ("lawyers", {}, False)])
def test_a_monster_whose_card_lets_the_fighter_by_ends_the_fight_without_a_flight(g, card_id, sheet, let_by):
    """Stoned Golem (Halflings must fight) and Lawyers (they leave a Thief alone): the card beats the
    rules (cards.override), so calling the fight off while losing is not a dodge of running away (1.6,
    Running Away) — no level, no treasure, no Bad Stuff. Anyone else must still run."""
    if "race" in sheet:
        g.do("race.add", race=sheet["race"])
    if "class" in sheet:
        g.do("class.add", **{"class": sheet["class"]})
    g.do("turn.door", found="monster", monster=monster(card_id))
    if let_by:
        g.do("combat.end")
        assert g.state.combat is None and g.state.turn["phase"] == "charity" and g.state.players["a"].level == 1
    else:
        assert g.refused("combat.end").rule.id == "combat.run-away"


def test_a_second_monster_that_does_not_let_the_fighter_by_keeps_the_fight_on(g):
    """1.6, Fighting Multiple Monsters: the fighter cannot leave one monster and run from the other."""
    g.do("turn.door", found="monster", monster=monster("stoned-golem"))
    g.do("combat.monster.add", monster=monster("pit-bull"))
    assert g.refused("combat.end").rule.id == "combat.run-away"


# --- Mr. Bones: a level even on an escape ------------------------------------------------------------

def test_mr_bones_costs_a_level_on_an_escape_and_his_bad_stuff_only_when_caught(g):
    g.level(4)
    g.do("combat.start", monster=monster("mr-bones"))
    g.do("combat.oneshot.add", actor="b", side="monsters", one_shot={"name": "Potion", "bonus": 5})
    fled = g.do("combat.flee", fighter_rolls=[6])
    assert g.state.players["a"].level == 3 and "escapes Mr. Bones (6) but loses a level" in g.said(fled)
    g.undo(fled)
    assert g.state.players["a"].level == 4
    g.do("combat.flee", fighter_rolls=[1])
    assert g.state.players["a"].level == 2  # Bad Stuff: 2 levels, no extra one


def test_the_level_lost_on_an_escape_stops_at_the_floor(g):
    g.do("combat.start", monster={"name": "Bony", "level": 9, "escape_levels_lost": 2})
    fled = g.do("combat.flee", fighter_rolls=[5])
    assert g.state.players["a"].level == 1 and "escapes Bony (5), with no level to lose" in g.said(fled)


# --- Squidzilla: does not chase the low levels, unless Elves -------------------------------------------

@pytest.mark.parametrize("level, races, let_go", [(4, ["elf"], False), (4, ["dwarf"], True), (4, [], True),
                                                  (5, [], False)])
def test_squidzilla_chases_a_low_level_elf(level, races, let_go):
    squid = CARDS["squidzilla"]["monster"]
    verdict = combat.evaluate({"fighter": {"level": level, "races": races},
                               "monsters": [{"name": "Squidzilla", **squid}], "run_away": True})
    entry = verdict["run_away"][0]
    assert (entry.get("escaped") is True and "why" in entry) is let_go
    if let_go:
        assert entry["why"] == "it does not pursue anyone of Level 4 or below unless they are Elves"


def test_will_not_pursue_who_lets_only_such_characters_go():
    pursuit = {"who": {"race": "halfling"}}
    let_go = [combat.evaluate({"fighter": {"level": 7, "races": races}, "run_away": True,
                               "monsters": [{"level": 9, "will_not_pursue": pursuit}]})["run_away"][0].get("escaped")
              for races in (["halfling"], ["elf"])]
    assert let_go == [True, None]


# --- Yuppie Water: only for (or to help) an Elf -------------------------------------------------------

def test_yuppie_water_is_refused_for_players_without_an_elf_and_kept_with_one(g):
    g.do("combat.start", monster={"name": "Plant", "level": 3})
    refused = refused_play(g, "yuppie-water", side="players")
    assert refused.rule.id == "items.restricted" and "only for Elves" in refused.message
    play(g, "yuppie-water", actor="b", side="monsters")  # for the monsters it is just +2
    g.do("race.add", actor="b", race="elf")
    g.do("combat.help.ask", seat="b")
    g.do("combat.help.accept", actor="b")
    play(g, "yuppie-water", side="players")  # to help an Elf
    assert fights.verdict(g.state)["players"]["total"] == 1 + 1 + 2
    g.do("combat.help.decline", actor="b")  # the Elf leaves: it counts no more
    verdict = fights.verdict(g.state)
    assert verdict["players"]["total"] == 1
    assert any(line["source"] == "Yuppie Water" and line["rule"] == "items.restricted"
               for line in verdict["players"]["not_counting"])


# --- Chicken on Your Head: losing the headgear takes it -----------------------------------------------

def chicken(g, seat="a"):
    return g.do("card.play", actor="b", card="chicken-on-your-head", seat=seat, _card=CARDS["chicken-on-your-head"])


def test_the_chicken_goes_with_the_headgear_and_undo_brings_both_back(g):
    g.do("item.add", item=HELMET)
    chicken(g)
    assert [c["name"] for c in g.state.players["a"].curses] == ["Chicken on Your Head"]
    lost = g.do("item.remove", uid=g.item("Helm of Courage")["uid"])
    assert g.state.players["a"].curses == [] and g.state.players["a"].items == []
    g.undo(lost)
    assert g.state.players["a"].curses and g.item("Helm of Courage")


def test_the_chicken_stays_when_another_item_goes_or_the_headgear_is_only_carried(g):
    g.do("item.add", item=HELMET)
    g.do("item.add", item={"name": "Sandals", "bonus": 1, "slot": "footgear", "gold": 100})
    chicken(g)
    g.do("item.remove", uid=g.item("Sandals")["uid"])
    g.do("item.carry", uid=g.item("Helm of Courage")["uid"])
    g.do("item.remove", uid=g.item("Helm of Courage")["uid"])
    assert g.state.players["a"].curses


def test_bad_stuff_that_takes_the_headgear_takes_the_chicken(g):
    g.do("item.add", item=HELMET)
    chicken(g)
    g.do("combat.start", monster=monster("bigfoot"))
    fled = g.do("combat.flee", fighter_rolls=[1])
    assert g.state.players["a"].curses == [] and g.state.players["a"].items == []
    g.undo(fled)
    assert g.state.players["a"].curses and g.state.players["a"].items


def test_a_curse_that_takes_the_headgear_takes_the_chicken(g):
    g.do("item.add", item=HELMET)
    chicken(g)
    play(g, "lose-the-headgear-you-are-wearing", actor="b", seat="a")
    assert g.state.players["a"].curses == []


# --- Wishing Ring: cancels a curse, in or out of a fight -----------------------------------------------

def test_the_wishing_ring_cancels_a_chosen_curse_out_of_a_fight_and_undo_restores_it(g):
    state = g.state
    assert t.playable_now(CARDS["wishing-ring"], state, "a")
    chicken(g)
    g.do("curse.add", actor="b", seat="a", curse={"name": "Hex", "effects": [{"type": "combat_bonus", "value": -1}]})
    hex_uid = next(c["uid"] for c in g.state.players["a"].curses if c["name"] == "Hex")
    assert refused_play(g, "wishing-ring", seat="a").status == 400  # two curses: which?
    assert refused_play(g, "wishing-ring", seat="a", uid="nope").status == 404
    ring = play(g, "wishing-ring", seat="a", uid=hex_uid)
    assert [c["name"] for c in g.state.players["a"].curses] == ["Chicken on Your Head"]
    assert "Hex on Ann is cancelled" in g.said(ring)
    g.undo(ring)
    assert len(g.state.players["a"].curses) == 2


def test_the_wishing_ring_in_a_fight_and_on_nobody_cursed(g):
    assert refused_play(g, "wishing-ring", seat="b").status == 409  # Ben has no curse
    g.do("combat.start", monster={"name": "Plant", "level": 3})
    chicken(g)
    play(g, "wishing-ring", actor="b", seat="a")  # the only curse: no uid needed
    assert g.state.players["a"].curses == [] and g.state.combat


# --- Steal a Level ---------------------------------------------------------------------------------------

def test_steal_a_level_moves_one_level_and_undo_moves_it_back(g):
    g.level(3)
    g.level(2, seat="b")
    stolen = play(g, "steal-a-level", seat="b")
    assert (g.state.players["a"].level, g.state.players["b"].level) == (4, 1)
    assert "takes a level from Ben" in g.said(stolen)
    assert refused_play(g, "steal-a-level", seat="b").rule.id == "level.floor"  # Ben is at Level 1
    assert refused_play(g, "steal-a-level").status == 400  # from oneself
    g.undo(stolen)
    assert (g.state.players["a"].level, g.state.players["b"].level) == (3, 2)


def test_steal_a_level_never_gives_the_winning_level_and_works_in_a_fight(g):
    g.level(9)
    g.level(3, seat="b")
    refused = refused_play(g, "steal-a-level", seat="b")
    assert refused.rule.id == "level.win-by-kill" and refused.status == 409
    g.do("combat.start", monster={"name": "Plant", "level": 3})
    play(g, "steal-a-level", actor="b", seat="a")
    assert (g.state.players["a"].level, g.state.players["b"].level) == (8, 4)


# --- Whine at the GM: not for the leader -------------------------------------------------------------------

def test_whine_at_the_gm_is_refused_to_the_highest_and_the_tied(g):
    refused = refused_play(g, "whine-at-the-gm", seat="a")  # both at Level 1: tied for the highest
    assert refused.rule.id == "cards.override" and refused.status == 409
    g.level(2, seat="b")
    assert refused_play(g, "whine-at-the-gm", seat="b").status == 409
    play(g, "whine-at-the-gm", actor="b", seat="a")
    assert g.state.players["a"].level == 2


# --- Hoard!: the table draws ---------------------------------------------------------------------------------

def test_hoard_tells_the_table_to_draw_three_treasures(g):
    assert t.playable_now(CARDS["hoard"], g.state, "a")
    hoard = play(g, "hoard")
    assert "draw 3 Treasures at the table" in g.said(hoard)


# --- found by playing every card of the base deck through the API (2026-11-30) ------------------------------

def test_a_curse_played_by_its_card_shows_the_cards_own_words(g):
    """What the app cannot perform is said in the card's words: card.play gave only the name
    ("Income Tax: Income Tax"), curse.add card=… the words."""
    cursed = play(g, "income-tax", actor="b", seat="a")
    assert CARDS["income-tax"]["text"]["en"] in g.said(cursed)


@pytest.mark.parametrize("items, race, lost", [
    ([{"name": "Horny Helmet", "bonus": 1, "slot": "headgear", "gold": 600, "bonus_if": [{"who": {"race": "elf"}, "value": 3}]},
      {"name": "Sword", "bonus": 2, "slot": "one_hand", "gold": 400}], "elf", ["Horny Helmet"]),  # +3 for an Elf
    ([{"name": "Sword", "bonus": 2, "slot": "one_hand", "gold": 400},
      {"name": "Mace of Sharpness", "bonus": 4, "slot": "one_hand", "gold": 600, "usable_by": [{"class": "cleric"}]}],
     None, ["Sword"]),  # the Mace counts nothing for a non-Cleric
])
def test_truly_obnoxious_curse_takes_the_item_that_gives_the_biggest_bonus(g, items, race, lost):
    """The card: the item that gives you the biggest bonus — as it counts for this character,
    not the biggest number printed (it took the Sword from an Elf with a Horny Helmet)."""
    if race:
        g.do("race.add", race=race)
    for item in items:
        g.do("item.add", item=item)
    play(g, "truly-obnoxious-curse", actor="b", seat="a")
    left = {i["name"] for i in g.state.players["a"].items}
    assert left == {i["name"] for i in items} - set(lost)


def test_truly_obnoxious_curse_lets_the_victim_choose_between_equals_and_ignores_what_is_carried(g):
    g.do("item.add", item={"name": "Sword", "bonus": 2, "slot": "one_hand", "gold": 400})
    g.do("item.add", item={"name": "Buckler", "bonus": 2, "slot": "one_hand", "gold": 400})
    g.do("item.add", item=CHAINSAW)
    assert not g.item("Chainsaw")["in_use"]  # no hand free: carried, +3 printed but giving nothing
    play(g, "truly-obnoxious-curse", actor="b", seat="a")
    assert len(g.state.players["a"].items) == 3  # a choice waits: Sword or Buckler
    (choice,) = g.state.players["a"].choices
    assert sorted(choice["options"]) == sorted(
        [g.item("Sword")["uid"], g.item("Buckler")["uid"]])


@pytest.mark.parametrize("card_id", ["pretty-balloons", "friendship-potion", "magic-lamp"])
def test_a_one_shot_for_its_players_side_only_is_refused_for_the_monsters(g, card_id):
    g.do("combat.start", monster={"name": "Plant", "level": 3})
    refused = refused_play(g, card_id, actor="b", side="monsters")
    assert refused.rule.id == "combat.one-shots" and refused.status == 409
    assert fights.verdict(g.state)["monsters"]["total"] == 3


def test_malign_mirror_lets_only_armor_count_in_the_next_fight_then_goes(g):
    g.do("item.add", item=HELMET)
    g.do("item.add", item={"name": "Sword", "bonus": 2, "slot": "one_hand", "gold": 400})
    g.do("item.add", item={"name": "Leather Armor", "bonus": 1, "slot": "armor", "gold": 200})
    play(g, "malign-mirror", actor="b", seat="a")
    g.do("combat.start", monster={"name": "Rat", "level": 2})
    verdict = fights.verdict(g.state)
    assert verdict["players"]["total"] == 1 + 1  # Level and the armor: a tie, lost
    assert {line["source"] for line in verdict["players"]["not_counting"]} >= {"Helm of Courage", "Sword"}
    assert verdict["outcome"] == "lose"
    g.do("combat.flee", fighter_rolls=[6])
    assert g.state.players["a"].curses == []  # spent with that fight


def test_only_the_fighter_the_helper_or_the_host_takes_the_rewards():
    g = Game()
    g._record(t.join(g.state, "c", "Cy", "male"))
    g.do("combat.start", monster={"name": "Plant", "level": 1})
    g.do("combat.oneshot.add", side="players", one_shot={"name": "Potion", "bonus": 5})
    g.do("combat.claim", _now=0)
    assert g.refused("combat.resolve", actor="c", _now=100).status == 403
    g.do("combat.resolve", actor="a", _now=100)
    assert g.state.players["a"].level == 2


def test_sandals_of_protection_keep_a_door_curse_off(g):
    sandals = CARDS["sandals-of-protection"]
    g.do("item.add", item={"name": "Sandals of Protection", "card_id": sandals["id"], **sandals["item"]})
    g.level(3)
    kicked = g.do("turn.door", found="curse", curse={"name": "Lose a Level", "effects": [{"type": "lose_levels", "value": 1}]})
    assert g.state.players["a"].level == 3 and "Sandals of Protection keeps off" in g.said(kicked)
    g.do("card.play", actor="b", card="lose-a-level", seat="a", _card=CARDS["lose-a-level"])  # not from the door
    assert g.state.players["a"].level == 2


def test_floating_nose_cannot_be_run_away_from(g):
    g.do("combat.start", monster=monster("floating-nose"))
    g.level(5)
    fled = g.do("combat.flee", fighter_rolls=[6])
    assert g.state.players["a"].level == 2 and "cannot run away from Floating Nose" in g.said(fled)


def test_kill_the_hireling_needs_a_hireling_in_play_and_discards_it(g):
    refused = refused_play(g, "kill-the-hireling", seat="a")
    assert refused.status == 409 and "Hireling" in refused.message
    hireling = CARDS["hireling"]
    g.do("item.add", actor="b", seat="b", item={"name": "Hireling", "card_id": "hireling", **hireling["item"]})
    played = play(g, "kill-the-hireling", seat="a")
    assert g.state.players["a"].level == 2 and g.state.players["b"].items == []
    assert "Ben's Hireling goes to the discards" in g.said(played)
    g.undo(played)
    assert g.state.players["a"].level == 1 and g.item("Hireling", seat="b")


def test_a_go_up_a_level_card_named_in_level_up_keeps_its_limits(g):
    """level.up card=whine-at-the-gm (the action layer finds the card) is refused as card.play is."""
    refused = g.refused("level.up", seat="a", card="whine-at-the-gm", _card=CARDS["whine-at-the-gm"])
    assert refused.rule.id == "cards.override" and refused.status == 409


# --- Amazon, Wannabe Vampire: a treasure instead of the fight ---------------------------------------

def test_the_amazon_does_not_fight_a_female_fighter_who_takes_one_treasure_and_no_level(g):
    """Amazon card: a female character is not fought; she takes one treasure, no level (cards.override)."""
    g.do("combat.start", monster=monster("amazon"))  # Ann is female, Level 1 against Level 8
    judged = fights.verdict(g.state)
    assert judged["outcome"] == "win" and judged["monsters"]["total"] == 0
    assert judged["treasures"] == 1 and judged["levels"]["fighter"] == 0
    assert any(line.get("rule") == "cards.override" for line in judged["monsters"]["lines"])
    g.do("combat.claim", _now=0)
    won = g.do("combat.resolve", _now=100)
    assert g.state.players["a"].level == 1 and "draw 1 treasure face down" in g.said(won)


def test_the_amazon_fights_a_male_fighter_as_usual():
    male = combat.evaluate({"fighter": {"level": 1, "sex": "male"}, "monsters": [{"name": "Amazon", **CARDS["amazon"]["monster"]}]})
    assert male["outcome"] == "lose" and male["monsters"]["total"] == 8


def test_a_cleric_chases_the_wannabe_vampire_off_for_one_treasure_and_undo_brings_it_back(g):
    """Wannabe Vampire card: a Cleric may drive it off automatically and takes one treasure (not its 3)."""
    g.do("class.add", **{"class": "cleric"})
    g.do("combat.start", monster=monster("wannabe-vampire"))
    uid = g.state.combat["monsters"][0]["uid"]
    chased = g.do("combat.eliminate", monster=uid, instead=True)
    assert "1 treasure" in g.said(chased)
    judged = fights.verdict(g.state)
    assert judged["outcome"] == "win" and judged["treasures"] == 1 and judged["levels"]["fighter"] == 0
    g.undo(chased)
    assert fights.verdict(g.state)["outcome"] == "lose"


def test_only_a_cleric_in_the_fight_may_chase_the_wannabe_vampire_off(g):
    g.do("combat.start", monster=monster("wannabe-vampire"))
    uid = g.state.combat["monsters"][0]["uid"]
    refused = g.refused("combat.eliminate", monster=uid, instead=True)
    assert refused.rule.id == "cards.override" and refused.status == 409
    g.do("class.add", actor="b", seat="b", **{"class": "cleric"})
    g.do("combat.help.ask", seat="b")
    g.do("combat.help.accept", actor="b")
    g.do("combat.eliminate", actor="b", monster=uid, instead=True)  # a helping Cleric may (its ruling)
    assert fights.verdict(g.state)["treasures"] == 1


def test_a_monster_without_such_a_card_cannot_be_sent_off_for_a_treasure(g):
    g.do("combat.start", monster={"name": "Plant", "level": 1})
    uid = g.state.combat["monsters"][0]["uid"]
    assert g.refused("combat.eliminate", monster=uid, instead=True).status == 409


# --- Potted Plant: an extra treasure for an Elf -------------------------------------------------------

def card_monster(card_id: str, **extra) -> dict:
    """The card's monster as combat.evaluate takes it (inline fields)."""
    return {"name": CARDS[card_id]["names"]["en"], **CARDS[card_id]["monster"], **extra}


@pytest.mark.parametrize("fighter, helper, treasures", [
    ({"level": 2, "races": ["elf"]}, None, 2), ({"level": 2}, None, 1),
    ({"level": 1}, {"level": 1, "races": ["elf"]}, 2)])
def test_the_potted_plant_gives_an_elf_one_extra_treasure(fighter, helper, treasures):
    """Potted Plant card: an Elf who kills it draws one treasure more (extra_treasures); our reading:
    an Elf helping to kill it counts too, once, as a monster's bonus against a race does."""
    judged = combat.evaluate({"fighter": fighter, "helper": helper, "monsters": [card_monster("potted-plant")]})
    assert judged["outcome"] == "win" and judged["treasures"] == treasures


def test_the_potted_plants_extra_treasure_needs_a_kill():
    gone = combat.evaluate({"fighter": {"level": 3, "races": ["elf"]},
                            "monsters": [card_monster("potted-plant", eliminated=True), {"name": "Orc", "level": 1, "treasures": 1}]})
    assert gone["treasures"] == 2  # the Plant's 1 and the Orc's default 1, no extra without a kill


# --- Pukachu, Large Angry Chicken: an extra level for the kill the card names ----------------------

NAPALM = {"name": "Staff of Napalm", **CARDS["staff-of-napalm"]["item"]}


@pytest.mark.parametrize("fight, levels", [
    ({"fighter": {"level": 7}}, 2),
    ({"fighter": {"level": 7, "items": [CHAINSAW]}}, 1),
    ({"fighter": {"level": 4}, "helper": {"level": 4}}, 1),
    ({"fighter": {"level": 7}, "one_shots": [{"name": "Magic Missile", "bonus": 5, "side": "players"}]}, 1)])
def test_pukachu_killed_alone_without_bonuses_gives_an_extra_level(fight, levels):
    judged = combat.evaluate({**fight, "monsters": [card_monster("pukachu")]})
    assert judged["outcome"] == "win" and judged["levels"]["fighter"] == levels


@pytest.mark.parametrize("fight, levels", [
    ({"fighter": {"level": 3}}, 1),
    ({"fighter": {"level": 3, "classes": ["wizard"], "items": [NAPALM]}}, 2),
    ({"fighter": {"level": 3}, "one_shots": [{"card": "flaming-poison-potion", "name": "Flaming Poison Potion",
                                              "bonus": 3, "side": "players", "fire": True}]}, 2),
    ({"fighter": {"level": 3, "items": [NAPALM]}}, 1)])  # not a Wizard: the staff does not count, no fire
def test_the_large_angry_chicken_killed_with_fire_gives_an_extra_level(fight, levels):
    judged = combat.evaluate({**fight, "monsters": [card_monster("large-angry-chicken")]})
    assert judged["outcome"] == "win" and judged["levels"]["fighter"] == levels


def test_a_fire_one_shot_played_from_its_card_kills_the_chicken_with_fire_at_the_table(g):
    g.level(3)
    g.do("combat.start", monster=monster("large-angry-chicken"))
    play(g, "flaming-poison-potion", side="players")
    g.do("combat.claim", _now=0)
    won = g.do("combat.resolve", _now=100)
    assert g.state.players["a"].level == 5 and "+2 levels" in g.said(won)


# --- Pit Bull, Floating Nose: an item given up instead of the die ----------------------------------

def give(g: Game, card_id: str, seat="a") -> str:
    """Put the card's item on the sheet (carried or in use) and return its uid."""
    item = CARDS[card_id]["item"]
    g.do("item.add", actor=seat, seat=seat, item={"name": CARDS[card_id]["names"]["en"], "card_id": card_id, **item})
    return g.state.players[seat].items[-1]["uid"]


def test_a_pole_thrown_to_the_pit_bull_escapes_it_without_a_die_and_undo_brings_the_pole_back(g):
    """Pit Bull card: throw a wand, staff or pole and you escape; the item goes (escape_with_item)."""
    pole = give(g, "eleven-foot-pole")
    g.do("combat.start", monster=monster("pit-bull"))
    g.do("combat.oneshot.add", actor="b", side="monsters", one_shot={"name": "Potion", "bonus": 5})
    dog = g.state.combat["monsters"][0]["uid"]
    fled = g.do("combat.flee", fighter_gives={dog: pole})  # no die
    assert g.state.combat is None and g.state.players["a"].items == [] and g.state.players["a"].level == 1
    assert "Eleven-Foot Pole" in g.said(fled) and "escapes Pit Bull" in g.said(fled)
    g.undo(fled)
    assert g.item("Eleven-Foot Pole") and g.state.combat


def test_the_pit_bull_takes_only_a_wand_staff_or_pole(g):
    helm = give(g, "helm-of-courage")
    g.do("combat.start", monster=monster("pit-bull"))
    g.do("combat.oneshot.add", actor="b", side="monsters", one_shot={"name": "Potion", "bonus": 5})
    dog = g.state.combat["monsters"][0]["uid"]
    refused = g.refused("combat.flee", fighter_gives={dog: helm})
    assert refused.rule.id == "cards.override" and refused.status == 409


def test_the_floating_nose_lets_go_for_an_item_worth_200_gold_or_more(g):
    """Floating Nose card: nobody runs from it, but an item worth 200 gold or more given to it lets you go."""
    g.level(5)
    rock, helm = give(g, "huge-rock"), give(g, "helm-of-courage")  # 0 gold, 200 gold
    g.do("combat.start", monster=monster("floating-nose"))
    nose = g.state.combat["monsters"][0]["uid"]
    assert g.refused("combat.flee", fighter_gives={nose: rock}).rule.id == "cards.override"
    fled = g.do("combat.flee", fighter_gives={nose: helm})
    assert g.state.players["a"].level == 5 and [i["name"] for i in g.state.players["a"].items] == ["Huge Rock"]
    assert "escapes Floating Nose" in g.said(fled)


# --- Tongue Demon: an item discarded before the fight ---------------------------------------------

def test_the_tongue_demon_leaves_the_fighter_a_choice_of_the_item_to_discard(g):
    """Tongue Demon card: one item goes before the fight (before_fight: lose_item); the fighter picks it."""
    g.do("item.add", item=HELMET)
    g.do("item.add", item={"name": "Sword", "bonus": 2, "slot": "one_hand", "gold": 400})
    opened = g.do("turn.door", found="monster", monster=monster("tongue-demon"))
    (choice,) = g.state.players["a"].choices
    assert sorted(choice["options"]) == sorted([g.item("Helm of Courage")["uid"], g.item("Sword")["uid"]])
    assert choice["chooser"] == "a" and choice["rule"] == "cards.override" and "Tongue Demon" in g.said(opened)
    made = g.do("choice.make", uid=choice["uid"], picks=[g.item("Sword")["uid"]])
    assert [i["name"] for i in g.state.players["a"].items] == ["Helm of Courage"] and "Sword" in g.said(made)
    assert g.state.players["a"].choices == []


def test_the_tongue_demon_takes_the_only_item_at_once_and_undo_brings_it_back(g):
    g.do("item.add", item=HELMET)
    g.do("combat.start")
    added = g.do("combat.monster.add", actor="b", monster=monster("tongue-demon"))  # a Wandering Monster
    assert g.state.players["a"].items == [] and "loses Helm of Courage" in g.said(added)
    g.undo(added)
    assert g.item("Helm of Courage") and len(g.state.combat["monsters"]) == 0


def test_the_tongue_demon_with_nothing_to_discard_just_fights(g):
    g.do("turn.door", found="monster", monster=monster("tongue-demon"))
    assert g.state.players["a"].choices == [] and g.state.combat["monsters"]


# --- Chicken on Your Head: -1 on every die, the Thief's too -----------------------------------------

@pytest.mark.parametrize("die, stolen", [(5, True), (4, False)])
def test_the_chicken_takes_one_off_the_thiefs_theft_die(g, die, stolen):
    """Chicken on Your Head card: -1 on every roll (die_bonus), so a Thief needs a 5 to steal (4 or more after the -1)."""
    g.do("class.add", **{"class": "thief"})
    g.level(3)
    chicken(g)
    g.do("item.add", actor="b", seat="b", item={"name": "Sword", "bonus": 2, "slot": "one_hand", "gold": 400})
    sword = g.item("Sword", seat="b")["uid"]
    theft = g.do("item.steal", target="b", uid=sword, die=die)
    assert bool(g.state.players["a"].items and any(i["name"] == "Sword" for i in g.state.players["a"].items)) is stolen
    assert f"die: {die}−1" in g.said(theft)


def test_the_chicken_still_takes_one_off_running_away():
    cursed = combat.evaluate({"fighter": {"level": 1, "rolls": [5],
                                          "curses": [{"name": "Chicken", **CARDS["chicken-on-your-head"]["curse"]}]},
                              "monsters": [{"name": "Troll", "level": 10}]})
    (flee,) = cursed["run_away"]
    assert flee["needs"] == 6 and flee["escaped"] is False


def test_an_item_a_choice_waits_to_take_cannot_be_given_to_the_pit_bull_first(g):
    """1.6, Curses: the item a pending choice may take stays until the choice is made (as for a give or a sale)."""
    pole = give(g, "eleven-foot-pole")
    g.do("item.add", item=HELMET)
    g.do("combat.start", monster=monster("tongue-demon"))  # a choice: the pole or the helm
    g.do("combat.monster.add", actor="b", monster=monster("pit-bull"))
    g.do("combat.oneshot.add", actor="b", side="monsters", one_shot={"name": "Potion", "bonus": 5})
    dog = g.state.combat["monsters"][1]["uid"]
    refused = g.refused("combat.flee", fighter_gives={dog: pole}, fighter_rolls=[6])
    assert refused.status == 409 and "choose which item goes" in refused.message


# --- one-shots that do more than a bonus in a fight (found by playing games through the API, 2026-12-01) -----
# Played by their card, Doppleganger, Polymorph Potion, Magic Lamp and Friendship Potion were a "+0 for the
# players" line: the verdict stayed as it was and the monsters stayed in the fight.

def test_the_doppleganger_doubles_the_strength_of_the_one_who_plays_it_not_the_helpers(g):
    g._record(t.join(g.state, "c", "Cy", "male"))
    g.level(3)
    g.do("item.add", item={"name": "Leather Armor", "bonus": 1, "slot": "armor", "gold": 200})
    g.do("combat.start", monster={"name": "Troll", "level": 8})
    g.do("combat.help.ask", seat="b")
    g.do("combat.help.accept", actor="b")
    assert fights.verdict(g.state)["outcome"] == "lose"  # 3 + 1 + 1 against 8
    assert refused_play(g, "doppleganger", actor="c").rule.id == "combat.one-shots"  # not in the fight: no "your" strength
    play(g, "doppleganger")
    verdict = fights.verdict(g.state)
    assert verdict["players"]["total"] == 2 * (3 + 1) + 1 and verdict["outcome"] == "win"
    line = next(line for line in verdict["players"]["lines"] if line["source"].startswith("Doppleganger"))
    assert line["value"] == 4 and line["rule"] == "cards.override"
    play(g, "doppleganger", actor="b")  # the helper's own strength, 1
    assert fights.verdict(g.state)["players"]["total"] == 2 * 4 + 2 * 1
    g.do("combat.help.decline", actor="b")  # the helper's Doppleganger leaves with them, not for the next helper
    assert [o["doubles"] for o in g.state.combat["one_shots"]] == ["fighter"]


def test_polymorph_potion_sends_one_monster_off_and_its_treasure_stays(g):
    g.level(2)
    g.do("combat.start", monster=monster("net-troll"))
    g.do("combat.monster.add", actor="b", monster={"name": "Potted Plant", "level": 1, "treasures": 1})
    troll, plant = (m["uid"] for m in g.state.combat["monsters"])
    assert refused_play(g, "polymorph-potion", actor="b").status == 404  # which one?
    played = play(g, "polymorph-potion", actor="b", monster=troll)
    assert "Polymorph Potion" in g.said(played) and "Net Troll" in g.said(played)
    verdict = fights.verdict(g.state)
    assert verdict["outcome"] == "win" and verdict["levels"]["fighter"] == 1 and verdict["treasures"] == 3 + 1
    g.undo(played)
    assert not any(m["eliminated"] for m in g.state.combat["monsters"])


def test_the_magic_lamp_is_rubbed_only_on_your_own_turn(g):
    g.do("turn.first", seat="a")
    g.do("turn.door", found="monster", monster=monster("net-troll"))
    assert refused_play(g, "magic-lamp", actor="b").rule.id == "turn.own"
    play(g, "magic-lamp")  # the only monster: no need to name it
    verdict = fights.verdict(g.state)
    assert verdict["outcome"] == "win" and verdict["levels"]["fighter"] == 0 and verdict["treasures"] == 3


def test_a_friendship_potion_ends_the_fight_with_no_level_and_no_treasure(g):
    g.do("turn.first", seat="a")
    g.do("turn.door", found="monster", monster=monster("net-troll"))
    played = play(g, "friendship-potion", actor="b")
    assert g.state.combat is None and g.state.turn["phase"] == "charity" and g.state.players["a"].level == 1
    assert "Friendship Potion" in g.said(played)
    g.undo(played)
    assert g.state.combat and g.state.turn["phase"] == "fight"


def test_a_card_the_referee_refuses_to_play_is_never_offered_as_playable(g):
    """Wandering Monster was offered on every phone ("Add to my sheet"), in a fight or not, and every
    tap was refused: it brings a monster from the hand, which is the card to play (it joins the fight)."""
    wandering = CARDS["wandering-monster"]
    assert not t.playable_now(wandering, g.state, "b")
    g.do("combat.start", monster={"name": "Potted Plant", "level": 1})
    assert not t.playable_now(wandering, g.state, "b")
    assert refused_play(g, "wandering-monster", actor="b").status == 409
    assert t.playable_now(CARDS["lame-goblin"], g.state, "b")  # the monster it brings joins the fight


# --- cards that act on running away and on who fights (#13, 2026-12-01) ----------------------------------
# Played by their card, Instant Wall, Invisibility Potion, Loaded Die, Flask of Glue and Transferral Potion
# were a "+0 for the players" line that changed nothing.

def test_an_instant_wall_gets_the_fighter_and_the_helper_away_with_no_die(g):
    g.do("combat.start", monster=monster("net-troll"))
    g.do("combat.monster.add", actor="b", monster=monster("crabs"))
    g.do("combat.help.ask", seat="b")
    g.do("combat.help.accept", actor="b")
    wall = play(g, "instant-wall", actor="b")
    assert g.said(wall) == "Ben plays Instant Wall: Ann and Ben escape with no die when running away"
    assert fights.verdict(g.state)["outcome"] == "lose"  # it does not win the fight
    fled = g.do("combat.flee", fighter_rolls=[1], helper_rolls=[1])
    assert g.said(fled).count("with no die (Instant Wall)") == 4 and "caught" not in g.said(fled)
    assert g.state.players["a"].level == 1 and g.state.combat is None
    g.undo(fled)
    g.undo(wall)
    assert g.state.combat["one_shots"] == []


def test_an_instant_wall_for_one_player_leaves_the_other_to_roll(g):
    g.do("combat.start", monster=monster("net-troll"))
    g.do("combat.help.ask", seat="b")
    g.do("combat.help.accept", actor="b")
    play(g, "instant-wall", role="helper")
    fled = g.do("combat.flee", fighter_rolls=[1], helper_rolls=[1])
    assert "Ann is caught by Net Troll (1)" in g.said(fled) and "Ben escapes Net Troll with no die" in g.said(fled)


def test_an_instant_wall_is_for_the_fighter_or_helper_of_a_fight_and_leaves_with_the_helper(g):
    refused = refused_play(g, "instant-wall")
    assert refused.rule.id == "turn.own" and refused.status == 409  # no fight
    g.do("combat.start", monster=monster("net-troll"))
    assert refused_play(g, "instant-wall", role="helper").status == 400  # nobody helps
    assert refused_play(g, "instant-wall", side="monsters").rule.id == "combat.one-shots"
    g.do("combat.help.ask", seat="b")
    g.do("combat.help.accept", actor="b")
    play(g, "instant-wall", role="helper")
    g.do("combat.help.decline", actor="b")  # the helper goes: the wall was theirs
    fled = g.do("combat.flee", fighter_rolls=[6])
    assert "Ann escapes Net Troll (6)" in g.said(fled)


def test_a_transferral_potion_makes_another_player_fight_the_monster_on_the_same_turn(g):
    g._record(t.join(g.state, "c", "Cy", "male"))
    g.do("turn.first", seat="a")
    g.do("turn.door", found="monster", monster=monster("net-troll"))
    g.do("combat.help.ask", seat="b")
    g.do("combat.help.accept", actor="b")
    assert refused_play(g, "transferral-potion", actor="b", seat="c").rule.id == "cards.override"  # not their monster
    assert refused_play(g, "transferral-potion").status == 400  # someone else: whom?
    moved = play(g, "transferral-potion", seat="c")
    assert g.said(moved) == "Ann plays Transferral Potion: Cy must fight in Ann's place, and Ben no longer helps"
    fight = g.state.combat
    assert (fight["fighter"], fight["helper"]) == ("c", None) and g.state.turn["seat"] == "a"
    assert g.refused("combat.flee", actor="b", fighter_rolls=[6]).status == 403  # Ben no longer helps
    fled = g.do("combat.flee", actor="c", fighter_rolls=[1])
    assert "Cy is caught by Net Troll" in g.said(fled) and (g.state.turn["seat"], g.state.turn["phase"]) == ("a", "charity")
    g.undo(fled)
    g.undo(moved)
    assert (g.state.combat["fighter"], g.state.combat["helper"]) == ("a", "b")


def test_a_transferral_potion_on_the_helper_makes_them_the_fighter_alone(g):
    g.do("combat.start", monster={"name": "Gnome", "level": 1, "treasures": 1})
    g.do("combat.help.ask", seat="b")
    g.do("combat.help.accept", actor="b")
    g.do("combat.oneshot.add", actor="b", side="players", one_shot={"name": "Potion", "bonus": 2})
    moved = play(g, "transferral-potion", seat="b")
    assert g.said(moved) == "Ann plays Transferral Potion: Ben must fight in Ann's place"
    assert (g.state.combat["fighter"], g.state.combat["helper"]) == ("b", None)
    assert fights.verdict(g.state)["players"]["total"] == 1 + 2
    g.do("combat.claim", actor="b", _now=10.0)
    g.do("combat.resolve", actor="b", _now=20.0)
    assert (g.state.players["a"].level, g.state.players["b"].level) == (1, 2)  # the kill is Ben's


def bones_fight(g: Game, helper=False) -> None:
    """Ann (Level 3, a helmet) against the Plutonium Dragon's kind of Bad Stuff: death when caught."""
    g.level(3)
    g.do("item.add", item=HELMET)
    g.do("combat.start", monster={"name": "Dragon", "level": 20, "treasures": 5,
                                  "bad_stuff": {"text": {"en": "Roasted."}, "death": True}})
    if helper:
        g.do("combat.help.ask", seat="b")
        g.do("combat.help.accept", actor="b")


def test_an_invisibility_potion_after_a_failed_roll_takes_back_the_bad_stuff(g):
    bones_fight(g)
    fled = g.do("combat.flee", fighter_rolls=[2])
    assert g.state.players["a"].dead and g.state.players["a"].items == []
    potion = play(g, "invisibility-potion")  # the dead may still play it on the roll that killed them
    assert g.said(potion) == "Ann plays Invisibility Potion on the escape roll: Ann escapes Dragon anyway (2, Invisibility Potion)"
    ann = g.state.players["a"]
    assert not ann.dead and ann.level == 3 and [i["name"] for i in ann.items] == ["Helm of Courage"]
    assert refused_play(g, "invisibility-potion").rule.id == "combat.run-away"  # no failed roll left
    assert g.refused("combat.flee").status == 409  # the fight is over all the same
    assert "undo it first" in pytest.raises(Exception, g.undo, fled).value.message
    g.undo(potion)
    assert g.state.players["a"].dead
    g.undo(fled)
    assert g.state.combat and not g.state.players["a"].dead


def test_an_invisibility_potion_needs_a_failed_roll_just_made_by_the_one_who_plays_it(g):
    refused = refused_play(g, "invisibility-potion")
    assert refused.rule.id == "combat.run-away" and "just rolled" in refused.message  # nothing rolled
    bones_fight(g, helper=True)
    g.do("combat.flee", fighter_rolls=[6], helper_rolls=[1])
    assert refused_play(g, "invisibility-potion").rule.id == "combat.run-away"  # Ann escaped: no failed roll
    assert refused_play(g, "invisibility-potion", role="helper").rule.id == "combat.run-away"  # Ben's to play
    play(g, "invisibility-potion", actor="b")
    assert not g.state.players["b"].dead
    g.do("dice.roll", actor="b")
    assert "just rolled" in refused_play(g, "invisibility-potion", actor="b").message  # something happened since


def test_a_loaded_die_turns_the_players_own_escape_die_to_the_number_they_name(g):
    bones_fight(g, helper=True)
    g.do("race.add", actor="b", race="halfling")
    g.do("combat.flee", fighter_rolls=[2], helper_rolls=[1], helper_reroll=3)
    assert refused_play(g, "loaded-die", role="helper").rule.id == "combat.run-away"  # Ben's die: his to load
    assert refused_play(g, "loaded-die", die=7).status == 400
    loaded = play(g, "loaded-die", die=6)
    assert g.said(loaded).startswith("Ann plays Loaded Die on the escape roll: Ann escapes Dragon (2→6)")
    assert not g.state.players["a"].dead and g.state.players["b"].dead  # Ben was caught all the same
    helper = play(g, "loaded-die", actor="b", die=5)  # the dead helper's own last die: the Halfling's reroll
    assert "Ben escapes Dragon (1→3→5)" in g.said(helper) and not g.state.players["b"].dead
    g.undo(helper)
    g.undo(loaded)
    assert g.state.players["a"].dead


def test_a_loaded_die_needs_a_die_the_player_rolled(g):
    g.do("combat.start", monster=monster("crabs"))
    g.do("combat.flee")
    refused = refused_play(g, "loaded-die", die=6)
    assert refused.rule.id == "combat.run-away" and "rolled none" in refused.message  # no die against Crabs


def test_a_flask_of_glue_makes_a_player_who_escaped_roll_again(g):
    bones_fight(g)
    g.do("combat.flee", fighter_rolls=[6])
    assert refused_play(g, "flask-of-glue", actor="b", die=7).status == 400
    glue = play(g, "flask-of-glue", actor="b", die=2)
    assert g.said(glue).startswith("Ben plays Flask of Glue on the escape roll: Ann is caught by Dragon (6→2)")
    assert g.state.players["a"].dead
    assert refused_play(g, "flask-of-glue", actor="b", die=1).rule.id == "combat.run-away"  # nobody escaped now
    potion = play(g, "invisibility-potion")  # and the dead Ann drinks the potion on that roll
    assert "Ann escapes Dragon anyway (6→2, Invisibility Potion)" in g.said(potion) and not g.state.players["a"].dead
    g.undo(potion)
    g.undo(glue)
    assert not g.state.players["a"].dead and g.state.players["a"].items


def test_a_flask_of_glue_needs_an_escape_by_a_die_and_the_apps_die_is_the_hosts_to_take_back(g):
    bones_fight(g, helper=True)
    play(g, "instant-wall", role="helper")
    g.do("combat.flee", fighter_rolls=[6])
    assert refused_play(g, "flask-of-glue", actor="b", role="helper").rule.id == "combat.run-away"  # a wall, no die
    glue = play(g, "flask-of-glue", actor="b")  # Ann's the only escape by a die; the app rolls
    assert glue.payload["app_dice"] is True
    with pytest.raises(Exception) as exc:
        t.inverse(g.state, glue, actor="b")
    assert exc.value.status == 403
    g.undo(glue)  # the host


def test_a_card_on_the_escape_roll_undone_leaves_the_roll_open_to_another_card(g):
    bones_fight(g)
    g.do("combat.flee", fighter_rolls=[2])
    potion = play(g, "invisibility-potion")
    g.undo(potion)
    loaded = play(g, "loaded-die", die=5)  # instead of the potion
    assert "Ann escapes Dragon (2→5)" in g.said(loaded) and not g.state.players["a"].dead
    g.undo(loaded)
    assert g.state.players["a"].dead


def test_the_dead_play_no_flask_of_glue(g):
    bones_fight(g, helper=True)
    g.do("combat.flee", fighter_rolls=[6], helper_rolls=[1])
    assert refused_play(g, "flask-of-glue", actor="b", die=1).rule.id == "death.state"


def test_divine_intervention_is_offered_while_a_living_character_is_a_cleric_in_every_edition():
    """The card raises every Cleric in each edition (only the classic one lets it give the winning
    level): the phones offered it only under the classic rules, though the API took it in 1.6,
    and offered it with no Cleric to raise (refused on the tap)."""
    for profile in ("munchkin-1.6", "munchkin-classic"):
        g = Game(profile)
        assert not t.playable_now(CARDS["divine-intervention"], g.state, "a")
        g.do("class.add", actor="b", **{"class": "cleric"})
        assert t.playable_now(CARDS["divine-intervention"], g.state, "a"), profile
