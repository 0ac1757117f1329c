"""Combat arithmetic: the 1.6 worked example, a case per rule, invariants, and the same through CLI and API."""
import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.referee.combat import evaluate
from companion.referee.rules import Refused

CHAINSAW = {"name": "Chainsaw of Bloody Dismemberment", "bonus": 3, "slot": "two_hands", "big": True, "gold": 600}

# Munchkin 1.6 (2011), Combat example: Aric, a Level 4 Warrior with the Chainsaw, against the Net Troll.
NET_TROLL_INLINE = {
    "fighter": {"name": "Aric", "level": 4, "classes": ["warrior"], "items": [CHAINSAW], "berserk": 3},
    "monsters": [{"name": "Net Troll", "level": 10, "treasures": 3,
                  "enhancers": [{"name": "Enraged", "level_change": 5, "treasure_change": 1}]}],
    "one_shots": [{"name": "Magic Missile", "bonus": 5, "side": "players"}],
}
NET_TROLL_CARDS = {
    "fighter": {"name": "Aric", "level": 4, "classes": ["warrior"], "items": [{"card": "chainsaw-of-bloody-dismemberment"}],
                "berserk": 3},
    "monsters": [{"card": "net-troll", "enhancers": [{"card": "enraged"}]}],
    "one_shots": [{"card": "magic-missile", "side": "players"}],
}


def check_net_troll(verdict):
    assert (verdict["players"]["total"], verdict["monsters"]["total"]) == (15, 15)  # "now we're tied, 15 to 15"
    assert verdict["outcome"] == "win" and "Warrior wins ties" in verdict["why"]
    assert verdict["levels"]["fighter"] == 1  # "Aric goes up a level"
    assert verdict["treasures"] == 4  # "three from the Net Troll card, and one extra because it was Enraged"


def test_the_rulebook_example():
    check_net_troll(evaluate(NET_TROLL_INLINE))


def test_the_rulebook_example_without_berserking_loses():
    fight = json.loads(json.dumps(NET_TROLL_INLINE))
    fight["fighter"]["berserk"] = 0
    verdict = evaluate(fight)
    assert verdict["outcome"] == "lose" and verdict["margin"] == -3 and len(verdict["run_away"]) == 1


def fighter(level=1, **extra):
    return {"level": level, **extra}


@pytest.mark.parametrize("fight, expect, source", [
    ({"fighter": fighter(5), "monsters": [{"level": 5}]}, {"outcome": "lose"}, "1.6 Combat: a tie loses"),
    ({"fighter": fighter(5, classes=["warrior"]), "monsters": [{"level": 5}]}, {"outcome": "win"},
     "1.6 Warrior wins ties"),
    ({"fighter": fighter(3), "helper": fighter(2, classes=["warrior"]), "monsters": [{"level": 5}]}, {"outcome": "win"},
     "1.6 Asking for Help: a helping Warrior wins ties too"),
    ({"fighter": fighter(2, races=["elf"]), "helper": fighter(2, races=["elf"]),
      "monsters": [{"level": 1, "modifiers": [{"against": {"race": "elf"}, "value": 4}]}]}, {"monsters_total": 5},
     "1.6 Asking for Help: +4 against Elves counts once"),
    ({"fighter": fighter(2), "helper": fighter(2, races=["elf"]),
      "monsters": [{"level": 1, "modifiers": [{"against": {"race": "elf"}, "value": 4}]}]}, {"monsters_total": 5},
     "1.6 Asking for Help: the monster's bonus applies against the helper"),
    ({"fighter": fighter(9), "monsters": [{"level": 1, "levels": 2, "treasures": 1}]},
     {"outcome": "win", "levels": 1, "wins_game": True}, "1.6: never past the top level; reaching it wins"),
    ({"fighter": fighter(7), "monsters": [{"level": 3, "treasures": 2, "enhancers": [{"mate": True}]}]},
     {"monsters_total": 6, "treasures": 4, "levels": 2}, "1.6 Monster Enhancers: Mate doubles the monster"),
    ({"fighter": fighter(9, items=[{"name": "Big Bonus", "bonus": 20}]), "monsters": [{"level": 3, "treasures": 1, "enhancers": [
        {"name": "Ancient", "level_change": 10, "treasure_change": 2}, {"mate": True}]}]},
     {"monsters_total": 26, "treasures": 6}, "1.6 Monster Enhancers: Mate carries every enhancer"),
    ({"fighter": fighter(3), "monsters": [{"level": 2, "treasures": 1}, {"level": 4, "treasures": 2, "eliminated": True}]},
     {"outcome": "win", "levels": 1, "treasures": 3}, "1.6 Combat: an eliminated monster gives treasure, no level"),
    ({"fighter": fighter(2, classes=["cleric"], turning=2), "monsters": [{"level": 7, "undead": True}]},
     {"outcome": "win", "players_total": 8}, "Cleric card: Turning +3 a card against Undead"),
    ({"fighter": fighter(2, classes=["cleric"], turning=2), "monsters": [{"level": 5, "undead": True},
                                                                       {"level": 4, "undead": True}]},
     {"outcome": "lose", "players_total": 8, "monsters_total": 9},
     "Cleric card (base set), Turning: once per combat against Undead, not once per Undead monster"),
    ({"fighter": fighter(2, classes=["cleric"], turning=1), "monsters": [{"level": 2}, {"level": 2, "undead": True}]},
     {"outcome": "win", "players_total": 5}, "Cleric card: Turning counts when an Undead is in the fight"),
    ({"fighter": fighter(2, classes=["cleric"], turning=3), "monsters": [{"level": 3}]},
     {"outcome": "lose", "players_total": 2}, "Cleric card: no Undead, no Turning bonus"),
    ({"fighter": fighter(4), "monsters": [{"level": 1}], "one_shots": [{"bonus": 5, "side": "monsters"}]},
     {"outcome": "lose"}, "1.6 Interfering With Combat: a potion for the monster"),
    ({"fighter": fighter(4), "monsters": [{"level": 1}], "backstabs": ["fighter", "fighter"]},
     {"players_total": 0, "outcome": "lose"}, "Thief card: Backstab -2"),
    ({"fighter": fighter(3), "helper": fighter(2, races=["elf"]), "monsters": [{"level": 3}, {"level": 1}]},
     {"outcome": "win", "levels": 2, "helper_levels": 2, "face_up": True}, "1.6 Asking for Help: an Elf helper gains levels"),
    ({"fighter": fighter(3), "helper": fighter(1), "monsters": [{"level": 3}]},
     {"helper_levels": 0}, "1.6 Asking for Help: the helper does not go up"),
    ({"fighter": fighter(3, curses=[{"name": "Change Sex", "effects": [
        {"type": "combat_bonus", "value": -5, "until": "next_combat"}]}]), "monsters": [{"level": 1}]},
     {"outcome": "lose", "players_total": -2}, "1.6 Curses: a 'next combat' curse counts in this one"),
    ({"fighter": fighter(3), "helper": fighter(2, curses=[{"name": "Change Sex", "effects": [
        {"type": "combat_bonus", "value": -5, "until": "next_combat"}]}]), "monsters": [{"level": 1}]},
     {"outcome": "lose", "players_total": 0}, "1.6 Curses: the helper's 'next combat' curse counts in the fight they help in"),
    ({"fighter": fighter(3, races=["elf"], half_breed=True), "monsters": [
        {"level": 2, "modifiers": [{"against": {"race": "human"}, "value": 3}]}]},
     {"outcome": "lose", "monsters_total": 5},
     "German rules 2003, Halb-Blut: with one race, half that race and half human (a bonus against Humans applies)"),
    ({"fighter": fighter(3, races=["elf", "dwarf"], half_breed=True), "monsters": [
        {"level": 2, "modifiers": [{"against": {"race": "human"}, "value": 3}]}]},
     {"outcome": "win", "monsters_total": 2}, "Dutch rules 2001, Halfbloed: with two races, not human"),
    ({"fighter": fighter(3, races=["elf"], half_breed=True), "monsters": [
        {"level": 2, "modifiers": [{"against": {"race": "elf"}, "value": 3}]}]},
     {"outcome": "lose", "monsters_total": 5}, "Dutch rules 2001, Halfbloed: still that race too"),
])
def test_cases(fight, expect, source):
    verdict = evaluate(fight)
    actual = {"outcome": verdict["outcome"], "monsters_total": verdict["monsters"]["total"],
              "players_total": verdict["players"]["total"], "levels": verdict["levels"]["fighter"],
              "helper_levels": verdict["levels"]["helper"], "treasures": verdict["treasures"],
              "wins_game": verdict["wins_game"], "face_up": verdict.get("treasures_face_up")}
    assert {k: actual[k] for k in expect} == expect, source
    for line in verdict["players"]["lines"] + verdict["monsters"]["lines"]:
        assert line["source"], "every line names its source"


@pytest.mark.parametrize("fight, rolls_key, expect, source", [
    ({"fighter": fighter(3, rolls=[5]), "monsters": [{"level": 9}]}, None, [True], "1.6 Running Away: 5 escapes"),
    ({"fighter": fighter(3, rolls=[4]), "monsters": [{"level": 9}]}, None, [False], "1.6 Running Away: 4 is caught"),
    ({"fighter": fighter(3, races=["elf"], rolls=[4]), "monsters": [{"level": 9}]}, None, [True], "Elf card: +1 to run away"),
    ({"fighter": fighter(3, rolls=[5]), "monsters": [{"level": 9, "run_away_modifier": -1}]}, None, [False],
     "Flying Frogs: -1 to run away"),
    ({"fighter": fighter(3, rolls=[2, 6]), "monsters": [{"level": 9}, {"level": 9}]}, None, [False, True],
     "1.6 Running Away: one roll per monster"),
    ({"fighter": fighter(3, races=["halfling"], rolls=[2], reroll=5), "monsters": [{"level": 9}]}, None, [True],
     "Halfling card: reroll a failed escape"),
    ({"fighter": fighter(4, rolls=[1]), "monsters": [{"level": 20, "will_not_pursue": {"max_level": 5}}]}, None, [True],
     "Plutonium Dragon: does not pursue Level 5 or below"),
    ({"fighter": fighter(3, classes=["wizard"], flight=2, rolls=[3]), "monsters": [{"level": 9}]}, None, [True],
     "Wizard card: Flight +1 a card"),
])
def test_running_away(fight, rolls_key, expect, source):
    verdict = evaluate(fight)
    assert [r.get("escaped") for r in verdict["run_away"]] == expect, source


def test_turning_is_one_line_per_cleric_per_combat():
    """Cleric card (base set): Turning is used in a combat against Undead, once, however many Undead."""
    verdict = evaluate({"fighter": fighter(2, classes=["cleric"], turning=3), "helper": fighter(1),
                        "monsters": [{"name": "Ghoul", "level": 2, "undead": True, "enhancers": [{"mate": True}]},
                                     {"name": "Zombie", "level": 3, "undead": True}]})
    turning = [line for line in verdict["players"]["lines"] if "Turning" in line["source"]]
    assert [line["value"] for line in turning] == [9] and turning[0]["rule"] == "combat.powers"
    assert verdict["players"]["total"] == 2 + 1 + 9


def test_next_combat_curses_count_for_fighter_and_helper_and_cite_the_rule():
    """1.6 (2011) Curses: a 'your next combat' curse counts in the fight the character is in, as fighter or helper."""
    curse = {"name": "Change Sex", "effects": [{"type": "combat_bonus", "value": -2, "until": "next_combat"}]}
    lasting = {"name": "Chicken on Your Head", "effects": [{"type": "combat_bonus", "value": -1, "until": "removed"}]}
    verdict = evaluate({"fighter": {"name": "Ann", "level": 5, "curses": [curse]},
                        "helper": {"name": "Ben", "level": 4, "curses": [curse, lasting]}, "monsters": [{"level": 1}]})
    lines = {line["source"]: line for line in verdict["players"]["lines"]}
    assert lines["Ann: Change Sex"]["value"] == -2 and lines["Ben: Change Sex"]["value"] == -2
    assert lines["Ann: Change Sex"]["rule"] == "curses.effects" and lines["Ben: Chicken on Your Head"]["rule"] == "curses.lasting"
    assert verdict["players"]["total"] == 5 + 4 - 2 - 2 - 1


@pytest.mark.parametrize("profile, races, rolls, reroll, expect, source", [
    ("munchkin-classic", ["halfling"], [5], None, [False], "German rules 2003, Weglaufen: a Halfling runs away with a penalty"),
    ("munchkin-classic", ["halfling"], [6], None, [True], "Dutch rules 2001, Vluchten: 6 still escapes with the penalty"),
    ("munchkin-1.6", ["halfling"], [5], None, [True], "1.6 Running Away: no penalty for the Halfling"),
    ("munchkin-1.71", ["halfling"], [2], 5, [True], "1.71, the Halfling card: the reroll of a failed escape"),
    ("munchkin-classic", ["elf"], [4], None, [True], "German rules 2003, Weglaufen: Elves keep their bonus"),
    ("munchkin-classic", ["elf", "halfling"], [5], None, [True], "German rules 2003, Halb-Blut: both races' bonus and penalty"),
])
def test_halfling_running_away_per_edition(profile, races, rolls, reroll, expect, source):
    character = fighter(3, races=races, half_breed=len(races) > 1, rolls=rolls)
    if reroll:
        character["reroll"] = reroll
    verdict = evaluate({"profile": profile, "fighter": character, "monsters": [{"level": 9}]})
    assert [r.get("escaped") for r in verdict["run_away"]] == expect, source
    halfling = [line for line in verdict["run_away"][0]["modifiers"] if line["source"] == "Halfling"]
    if profile == "munchkin-classic" and "halfling" in races:
        assert [line["value"] for line in halfling] == [-1] and halfling[0]["rule"] == "halfling.run-away"
        assert halfling[0]["citation"].startswith("Munchkin, German rules (2003), Weglaufen")
    else:
        assert halfling == []


def test_classic_halfling_has_no_reroll():
    """German rules 2003 and Dutch rules 2001 (Weglaufen / Vluchten): a penalty, no second roll."""
    with pytest.raises(Refused) as exc:
        evaluate({"profile": "munchkin-classic", "fighter": fighter(3, races=["halfling"], rolls=[2], reroll=6),
                  "monsters": [{"level": 9}]})
    assert exc.value.rule.id == "halfling.run-away" and exc.value.status == 400


@pytest.mark.parametrize("fight, rule, message", [
    ({"fighter": fighter(3), "helpers": [fighter(1), fighter(2)], "monsters": [{"level": 1}]}, "combat.one-helper", "one player"),
    ({"fighter": fighter(3, items=[CHAINSAW, {**CHAINSAW, "name": "Huge Rock"}]), "monsters": [{"level": 1}]},
     "items.big", "Big"),
    ({"fighter": fighter(3, berserk=2), "monsters": [{"level": 1}]}, "combat.powers", "not a Warrior"),
    ({"fighter": fighter(3), "monsters": []}, None, "monsters"),
    ({"fighter": fighter(0), "monsters": [{"level": 1}]}, None, "fighter.level"),
    ({"fighter": fighter(10), "monsters": [{"level": 1}]}, "game.won", "already at Level 10"),
])
def test_invalid_descriptions_name_the_rule(fight, rule, message):
    with pytest.raises(Refused) as exc:
        evaluate(fight)
    assert (exc.value.rule.id if exc.value.rule else None) == rule and message in exc.value.message


BASE = st.fixed_dictionaries({
    "fighter": st.fixed_dictionaries({"level": st.integers(1, 9), "classes": st.sampled_from([[], ["wizard"], ["cleric"]])}),
    "monsters": st.lists(st.fixed_dictionaries({"level": st.integers(1, 20), "treasures": st.integers(0, 4)}),
                         min_size=1, max_size=3),
})


@settings(max_examples=150, deadline=None)
@given(BASE, st.integers(0, 10))
def test_more_for_the_players_never_turns_a_win_into_a_loss(fight, bonus):
    before = evaluate(fight)["outcome"]
    after = evaluate({**fight, "one_shots": [{"bonus": bonus, "side": "players"}]})["outcome"]
    assert not (before == "win" and after == "lose")


@settings(max_examples=150, deadline=None)
@given(BASE, st.integers(0, 10))
def test_more_for_the_monsters_never_turns_a_loss_into_a_win(fight, bonus):
    before = evaluate(fight)["outcome"]
    after = evaluate({**fight, "one_shots": [{"bonus": bonus, "side": "monsters"}]})["outcome"]
    assert not (before == "lose" and after == "win")


@settings(max_examples=150, deadline=None)
@given(BASE)
def test_a_warrior_never_does_worse(fight):
    plain = {**fight, "fighter": {**fight["fighter"], "classes": []}}
    warrior = {**fight, "fighter": {**fight["fighter"], "classes": ["warrior"]}}
    order = {"lose": 0, "win": 1}
    assert order[evaluate(warrior)["outcome"]] >= order[evaluate(plain)["outcome"]]


@settings(max_examples=150, deadline=None)
@given(BASE)
def test_rewards_never_take_a_level_away_or_pass_the_top(fight):
    verdict = evaluate(fight)
    assert verdict["levels"]["fighter"] >= 0
    assert fight["fighter"]["level"] + verdict["levels"]["fighter"] <= 10


def test_cli_and_api_judge_the_same_with_card_ids(tmp_path, client):
    path = tmp_path / "fight.json"
    path.write_text(json.dumps(NET_TROLL_CARDS))
    result = CliRunner().invoke(main, ["referee", "combat", str(path), "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    check_net_troll(json.loads(result.output))
    response = client.post("/api/v1/combat/evaluate", json=NET_TROLL_CARDS)
    assert response.status_code == 200
    check_net_troll(response.json)
    assert json.loads(result.output) == response.json


def test_cli_and_api_errors(tmp_path, client):
    bad = {**NET_TROLL_CARDS, "monsters": [{"card": "no-such-monster"}]}
    response = client.post("/api/v1/combat/evaluate", json=bad)
    assert response.status_code == 404 and "no-such-monster" in response.json["error"]
    wrong = client.post("/api/v1/combat/evaluate", json={**NET_TROLL_CARDS, "monsters": [{"card": "magic-missile"}]})
    assert wrong.status_code == 400 and wrong.json["error"] == "monsters.0.card: Magic Missile is a card of kind One-shot, not Monster."
    two = client.post("/api/v1/combat/evaluate", json={**NET_TROLL_INLINE, "helpers": [{"level": 1}, {"level": 2}]})
    assert two.status_code == 400 and two.json["rule"] == "combat.one-helper"
    assert client.post("/api/v1/combat/evaluate", data="nope", content_type="application/json").status_code == 400
    path = tmp_path / "fight.json"
    path.write_text("{broken")
    result = CliRunner().invoke(main, ["referee", "combat", str(path), "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 1 and json.loads(result.output)["error"].startswith("not valid JSON")


def test_a_described_fight_with_words_where_numbers_go_is_refused_not_failed():
    """A character's curse or a monster's Bad Stuff and escape limit are the card schema's parts:
    a word where a number goes, or an effect the referee does not know, is refused (400) with
    where it is wrong — it used to fail in the sums or the escape."""
    base = {"fighter": {"level": 3}, "monsters": [{"level": 5, "treasures": 1}]}
    cases = [({"fighter": {"level": 3, "curses": [{"name": "C", "effects": [{"type": "combat_bonus", "value": "x"}]}]}},
              "fighter.curses.0.effects.0.value"),
             ({"fighter": {"level": 3, "curses": [{"name": "C", "effects": None}]}}, "fighter.curses.0.effects"),
             ({"monsters": [{"level": 5, "treasures": 1, "will_not_pursue": {"max_level": "x"}}]},
              "monsters.0.will_not_pursue.max_level"),
             ({"monsters": [{"level": 5, "treasures": 1, "bad_stuff": {"effects": [{"type": "odd"}]}}], "run_away": True},
              "monsters.0.bad_stuff.effects.0.type")]
    for change, where in cases:
        with pytest.raises(Refused) as exc:
            evaluate({**base, **change})
        assert exc.value.status == 400 and where in exc.value.message, exc.value.message


def test_a_monster_that_does_not_pursue_takes_no_die_from_the_next_one():
    """Plutonium Dragon (will_not_pursue): a low-level character is not chased, so rolls no die for it — as
    for a monster that cannot be run away from, the dice go to the monsters that chase. The Dragon took
    the die typed for the Troll, and the escape was refused for want of a die (1.6, Running Away: a roll
    per monster fled)."""
    verdict = evaluate({"fighter": fighter(3, rolls=[6]), "run_away": True,
                        "monsters": [{"name": "Dragon", "level": 20, "will_not_pursue": {"max_level": 5}},
                                     {"name": "Troll", "level": 10}]})
    dragon, troll = verdict["run_away"]
    assert dragon["escaped"] is True and "roll" not in dragon
    assert troll["roll"] == 6 and troll["escaped"] is True
    verdict = evaluate({"fighter": fighter(3, rolls=[3, 6]), "run_away": True,  # a die for each, as before
                        "monsters": [{"name": "Dragon", "level": 20, "will_not_pursue": {"max_level": 5}},
                                     {"name": "Troll", "level": 10}]})
    assert [r.get("roll") for r in verdict["run_away"]] == [None, 6] and verdict["run_away"][1]["escaped"] is True


def test_a_doppleganger_named_by_its_card_in_a_described_fight_doubles_the_fighter_or_the_helper(client):
    fight = {"fighter": {"level": 3}, "helper": {"level": 2}, "monsters": [{"level": 9}],
             "one_shots": [{"card": "doppleganger", "side": "players"}]}
    assert client.post("/api/v1/combat/evaluate", json=fight).json["players"]["total"] == 3 * 2 + 2
    fight["one_shots"][0]["doubles"] = "helper"
    assert client.post("/api/v1/combat/evaluate", json=fight).json["players"]["total"] == 3 + 2 * 2
