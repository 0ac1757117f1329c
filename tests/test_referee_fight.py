"""The table's shared fight in the referee: monsters, enhancers, help, powers, the objection window."""
import pytest

from companion.referee import fight as fights
from companion.referee import table as t
from companion.referee import turn
from companion.referee.rules import Refused
from sheet_cases import CHAINSAW
from test_referee_sheet import Game

NET_TROLL = {"name": "Net Troll", "level": 10, "treasures": 3}
ENRAGED = {"name": "Enraged", "level_change": 5, "treasure_change": 1}
MISSILE = {"name": "Magic Missile", "bonus": 5}


@pytest.fixture
def g():
    g = Game()
    g.level(4)
    g.do("class.add", **{"class": "warrior"})
    g.do("item.add", item=CHAINSAW)
    return g


def monster_uid(g, index=0):
    return g.state.combat["monsters"][index]["uid"]


def test_the_rulebook_example_at_the_table(g):
    g.do("combat.start")
    g.do("combat.monster.add", monster=NET_TROLL)
    assert fights.verdict(g.state)["outcome"] == "lose"  # "Aric's at a 7, the Net Troll is at a 10"
    g.do("combat.oneshot.add", side="players", one_shot=MISSILE)
    g.do("combat.enhancer.add", actor="b", monster=monster_uid(g), enhancer=ENRAGED)  # Suzan's Enraged
    g.do("combat.power", power="berserk", cards=3)
    verdict = fights.verdict(g.state)
    assert (verdict["players"]["total"], verdict["monsters"]["total"], verdict["outcome"]) == (15, 15, "win")
    g.do("combat.claim", _now=100.0)
    with pytest.raises(Refused) as exc:
        t.decide(g.state, "a", "combat.resolve", {"_now": 101.0})
    assert exc.value.rule.id == "combat.objection" and "more seconds" in exc.value.message
    done = g.do("combat.resolve", _now=102.7)
    assert g.state.players["a"].level == 5 and g.state.combat is None
    assert "+1 level, draw 4 treasures face down" in g.said(done)
    g.undo(done)  # a mistake: the fight is back, the level too
    assert g.state.players["a"].level == 4 and g.state.combat["claim"] is not None


def test_anything_played_reopens_the_objection_window(g):
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Potted Plant", "level": 1, "treasures": 1})
    g.do("combat.claim", _now=100.0)
    g.do("combat.oneshot.add", actor="b", side="monsters", one_shot={"name": "Potion", "bonus": 2})
    with pytest.raises(Refused) as exc:
        t.decide(g.state, "a", "combat.resolve", {"_now": 200.0})
    assert exc.value.rule.id == "combat.objection"
    g.do("combat.claim", _now=200.0)  # claimed again: the window starts over
    g.do("combat.resolve", _now=203.0)
    assert g.state.combat is None


def test_claim_only_when_winning(g):
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Bullrog", "level": 18, "treasures": 5, "levels": 2})
    with pytest.raises(Refused) as exc:
        t.decide(g.state, "a", "combat.claim", {"_now": 1.0})
    assert exc.value.rule.id == "combat.compare"


def test_one_helper_who_accepts_from_their_own_phone(g):
    g._record(t.join(g.state, "c", "Cid", "male"))
    g.do("race.add", actor="b", race="elf")
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Gazebo", "level": 8, "treasures": 2})
    with pytest.raises(Refused):
        t.decide(g.state, "c", "combat.help.accept", {})  # not asked
    g.do("combat.help.ask", seat="b", promise="first pick of the treasure")
    g.do("combat.help.accept", actor="b")
    assert g.state.combat["helper"] == "b"
    with pytest.raises(Refused) as exc:
        t.decide(g.state, "a", "combat.help.ask", {"seat": "c"})
    assert exc.value.rule.id == "combat.one-helper"
    with pytest.raises(Refused) as exc:  # the helper's items are locked too
        t.decide(g.state, "b", "item.add", {"item": {"name": "Late", "bonus": 1}})
    assert exc.value.rule.id == "items.not-in-combat"
    g.do("combat.claim", _now=0.0)
    g.do("combat.resolve", _now=5.0)
    assert g.state.players["a"].level == 5 and g.state.players["b"].level == 2  # an Elf helper goes up too


def test_running_away_with_the_real_die(g):
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Flying Frogs", "level": 2, "treasures": 1, "run_away_modifier": -1})
    g.do("combat.monster.add", monster={"name": "Bigfoot", "level": 12, "treasures": 3})
    with pytest.raises(Refused) as exc:
        t.decide(g.state, "a", "combat.flee", {"fighter_rolls": [6]})
    assert "needs a die" in exc.value.message
    fled = g.do("combat.flee", fighter_rolls=[5, 6])
    assert g.said(fled) == "Ann runs away: Ann is caught by Flying Frogs (5): Bad Stuff — …; Ann escapes Bigfoot (6)"
    assert g.state.combat is None


def test_mate_and_elimination(g):
    g.level(8)
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Maul Rat", "level": 1, "treasures": 1})
    g.do("combat.enhancer.add", actor="b", monster=monster_uid(g), enhancer={"name": "Mate", "mate": True})
    g.do("combat.enhancer.add", actor="b", monster=monster_uid(g), enhancer={"name": "Ancient", "level_change": 10, "treasure_change": 2})
    verdict = fights.verdict(g.state)
    assert verdict["monsters"]["total"] == 22 and len(verdict["monsters"]["each"]) == 2
    g.do("combat.eliminate", monster=monster_uid(g))
    verdict = fights.verdict(g.state)
    assert verdict["monsters"]["total"] == 0 and verdict["outcome"] == "win" and verdict["levels"]["fighter"] == 0


def test_only_the_player_whose_turn_it_is_fights_and_powers_need_the_class(g):
    assert g.refused("combat.start", actor="b").rule.id == "turn.own"
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Mr. Bones", "level": 2, "treasures": 1, "undead": True})
    assert g.refused("combat.power", power="turning", cards=2).rule.id == "combat.powers"  # not a Cleric
    g.do("combat.power", power="berserk", cards=1)
    assert g.refused("combat.power", power="berserk", cards=1).rule.id == "combat.powers"  # once per combat
    assert g.refused("combat.backstab", actor="b", target="fighter").rule.id == "combat.powers"  # not a Thief
    assert g.refused("combat.monster.add", monster={"name": "", "level": 1}).message.startswith("A monster needs a name")


def test_bad_stuff_is_shown_and_death_takes_the_items(g):
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Plutonium Dragon", "level": 20, "treasures": 5, "levels": 2,
                                        "will_not_pursue": {"max_level": 3},
                                        "bad_stuff": {"text": {"en": "Roasted and eaten."}, "death": True}})
    fled = g.do("combat.flee", fighter_rolls=[2])
    assert "Bad Stuff — Roasted and eaten." in g.said(fled) and "Ann dies" in g.said(fled)
    assert g.state.players["a"].items == [] and g.state.players["a"].level == 4  # 1.6 Death
    g.undo(fled)
    assert g.state.players["a"].items and g.state.combat is not None


def test_wizard_flight_charm_and_halfling_reroll(g):
    g.do("class.remove", **{"class": "warrior"})
    g.do("class.add", **{"class": "wizard"})
    g.do("race.add", race="halfling")
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Harpies", "level": 4, "treasures": 2})
    g.do("combat.monster.add", monster={"name": "Bigfoot", "level": 12, "treasures": 3})
    g.do("combat.eliminate", monster=monster_uid(g, 0), charm=True)  # Charm: treasure, no level
    g.do("combat.power", power="flight", cards=1)
    fled = g.do("combat.flee", fighter_rolls=[2], fighter_reroll=4)  # 4 + Flight 1 = 5: escapes on the reroll
    assert g.said(fled) == "Ann runs away: Ann escapes Bigfoot (2→4)"


def test_quick_entry_bonus_against_and_host_objection_setting(g):
    g.do("race.add", race="elf")
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Slime", "level": 1, "against": "race:elf", "against_bonus": 4})
    assert fights.verdict(g.state)["monsters"]["total"] == 5
    assert g.refused("settings.objection", actor="b", seconds=5).rule.id == "table.host"
    g.do("settings.objection", seconds=0)
    g.do("combat.oneshot.add", side="players", one_shot={"name": "Potion", "bonus": 5})
    g.do("combat.claim", _now=50.0)
    g.do("combat.resolve", _now=50.0)  # no wait at this table
    assert g.state.combat is None


def test_a_helper_who_leaves_the_table_leaves_the_fight(g):
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Gazebo", "level": 8, "treasures": 2})
    g.do("combat.help.ask", seat="b")
    g.do("combat.help.accept", actor="b")
    g.do("player.remove", seat="b")
    assert g.state.combat["helper"] is None
    assert fights.verdict(g.state)["players"]["total"] == 4 + 3  # Ann alone: level 4 + Chainsaw
    assert t.replay(g.events).to_json() == g.state.to_json()


def test_a_sheet_in_a_passing_state_does_not_break_the_fight(g):
    g.do("race.add", race="dwarf")
    g.do("item.add", item={"name": "Huge Rock", "bonus": 3, "slot": "two_hands", "big": True, "gold": 0})
    g.do("race.remove", race="dwarf")  # two Big items for now: allowed, flagged on the sheet
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Potted Plant", "level": 1, "treasures": 1})
    assert fights.verdict(g.state)["outcome"] == "win"


def test_a_thief_backstabs_each_victim_once_per_fight(g):
    g._record(t.join(g.state, "c", "Cid", "male"))
    g.do("class.add", actor="c", **{"class": "thief"})
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Gazebo", "level": 8, "treasures": 2})
    g.do("combat.backstab", actor="c", target="fighter")
    assert g.refused("combat.backstab", actor="c", target="fighter").rule.id == "combat.powers"
    assert fights.verdict(g.state)["players"]["total"] == 4 + 3 - 2


def test_fleeing_players_choose_the_order(g):
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Flying Frogs", "level": 2, "treasures": 1, "run_away_modifier": -1})
    g.do("combat.monster.add", monster={"name": "Bigfoot", "level": 12, "treasures": 3})
    frogs, bigfoot = (m["uid"] for m in g.state.combat["monsters"])
    assert g.refused("combat.flee", fighter_rolls=[5, 6], order=[frogs]).message.startswith("order must")
    fled = g.do("combat.flee", fighter_rolls=[5, 6], order=[bigfoot, frogs])  # 1.6 Running Away: any order
    assert g.said(fled) == "Ann runs away: Ann escapes Bigfoot (5); Ann escapes Flying Frogs (6)"


def test_dice_typed_run_together_on_a_number_pad_are_one_die_each():
    """A phone's number pad has no space key: "52" for two monsters is a 5 and a 2 (it was refused
    as "not '52'", and with the word "fighter" in it)."""
    from companion.referee.fight import typed_dice
    assert typed_dice(["52"]) == [5, 2] and typed_dice(["5 2"]) == [5, 2] and typed_dice(["5,2", "6"]) == [5, 2, 6]
    for bad in (["7"], ["50"], ["5x"], ["-1"]):
        with pytest.raises(Refused) as exc:
            typed_dice(bad)
        assert exc.value.status == 400 and "1 to 6" in exc.value.message


def test_the_looting_order_names_the_living_only():
    """1.6, Death: the dead take no cards — when fighter and helper both die in one flee, the second
    death's looting order named the first (2026-11-30)."""
    g = Game()
    g._record(t.join(g.state, "c", "Cid", "male"))
    g.do("combat.start", monster={"name": "Dragon", "level": 20, "bad_stuff": {"death": True}})
    g.do("combat.help.ask", seat="b")
    g.do("combat.help.accept", actor="b")
    fled = g.do("combat.flee", fighter_rolls=[1], helper_rolls=[1])
    text = g.said(fled)
    assert "Ann dies: the stuff is lost, looting order Ben = Cid" in text or "looting order Cid" in text
    assert "Ben dies: the stuff is lost, looting order Cid" in text


def test_a_fight_move_by_the_wrong_player_is_refused_with_the_rule_it_breaks(g):
    """Wrong-player moves in a fight name their rule and citation, as every refusal of a game rule
    does: 1.6, Asking for Help (the fighter asks, the one asked accepts), Combat (the powers of those
    who fight; the win is claimed and its rewards taken by the fighting side), Running Away."""
    g._record(t.join(g.state, "c", "Cid", "male"))
    g.do("class.add", actor="c", **{"class": "warrior"})
    assert g.refused("combat.claim", actor="c", _now=0.0).rule.id == "turn.own"  # no fight is on
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Lame Goblin", "level": 1, "treasures": 1})
    expected = (("combat.help.ask", "b", {"seat": "c"}, "combat.one-helper"),
                ("combat.help.accept", "c", {}, "combat.one-helper"),
                ("combat.help.decline", "c", {}, "combat.one-helper"),
                ("combat.power", "c", {"power": "berserk", "cards": 1}, "combat.powers"),
                ("combat.claim", "b", {"_now": 0.0}, "combat.objection"),
                ("combat.resolve", "c", {"_now": 9.0}, "combat.objection"),
                ("combat.flee", "c", {"fighter_rolls": [6]}, "combat.run-away"))
    for action, actor, params, rule in expected:
        exc = g.refused(action, actor=actor, **params)
        assert exc.status == 403 and exc.rule is not None and exc.rule.id == rule, (action, exc.message)
        assert "Munchkin 1.6" in exc.rule.citation


def test_once_nobody_objected_in_time_the_win_stands(g):
    """1.6, Combat: after about 2.6 seconds without objection the monster is really killed and the
    levels and treasure are really won: a card played later (an enhancer, a curse on the fighter, a
    second claim) no longer changes that fight — the rewards are taken first, then play goes on."""
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Potted Plant", "level": 1, "treasures": 1})
    g.do("combat.claim", _now=100.0)
    late = ((("combat.enhancer.add", "b"), {"monster": monster_uid(g), "enhancer": ENRAGED}),
            (("curse.add", "b"), {"seat": "a", "curse": {"name": "Duck", "effects": [
                {"type": "combat_bonus", "value": -20, "until": "next_combat"}]}}),
            (("combat.claim", "a"), {}), (("dice.roll", "b"), {}))
    for (action, actor), params in late:
        exc = g.refused(action, actor=actor, _now=103.0, **params)
        assert exc.rule.id == "combat.objection" and exc.status == 409, action
    g.do("combat.resolve", _now=103.5)
    assert g.state.players["a"].level == 5 and g.state.combat is None
    g.do("curse.add", actor="b", seat="a", curse={"name": "Duck", "effects": [
        {"type": "combat_bonus", "value": -20, "until": "next_combat"}]}, _now=104.0)  # for the next fight
    assert g.p()["pending"][0]["value"] == -20


def test_a_fight_called_off_before_any_monster_leaves_a_next_combat_curse_waiting(g):
    """1.6, Curses: a "next combat" curse waits for a combat. A fight opened by mistake and called
    off with no monster in it was none: the curse still waits (it was spent, 2026-11-30); a fight
    called off after a monster came in (a Friendship Potion's end, told by the host) spends it."""
    curse = {"name": "Duck", "effects": [{"type": "combat_bonus", "value": -2, "until": "next_combat"}]}
    g.do("curse.add", actor="b", seat="a", curse=curse)
    phase = turn.phase(g.state)
    g.do("combat.start")
    g.do("combat.end")
    assert g.p()["pending"][0]["value"] == -2
    assert turn.phase(g.state) == phase  # the turn's one fight is still to come
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Potted Plant", "level": 1, "treasures": 1})
    g.do("combat.end")
    assert g.p()["pending"] == []


def test_a_claimed_win_stands_while_its_totals_and_rewards_do(g):
    """A die rolled, a bystander's level, a curse on a player out of the fight leave a claimed win
    as it was: every new event voided the claim, and the win had to be claimed and waited for
    again (2026-12-01). What changes the totals or the rewards (a curse on the fighter) does
    void it, as a card played into the fight always has."""
    level = g.state.players["a"].level
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Potted Plant", "level": 1, "treasures": 1})
    g.do("combat.claim", _now=100.0)
    g.do("curse.add", actor="b", seat="a", curse={"name": "Itch", "effects": [
        {"type": "combat_bonus", "value": -1, "until": "removed"}]}, _now=100.5)
    assert g.refused("combat.resolve", _now=104.0).message == "Claim the win first: something was played since."
    g.do("combat.claim", _now=105.0)
    g.do("dice.roll", actor="b", _now=105.5)
    g.do("level.up", actor="b", seat="b", _now=106.0)
    g.do("curse.add", actor="a", seat="b", curse={"name": "Duck", "effects": [
        {"type": "combat_bonus", "value": -2, "until": "next_combat"}]}, _now=106.5)
    g.do("combat.resolve", _now=108.0)
    assert g.state.combat is None and g.state.players["a"].level == level + 1


def test_the_host_may_still_let_a_late_card_in_and_the_win_is_claimed_again(g):
    """The owner of the game has the last word: a card a player was a moment too late with may
    be let in as a house ruling, recorded; it changes the fight, so the rewards wait for a new claim."""
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Potted Plant", "level": 1, "treasures": 1})
    g.do("combat.claim", _now=100.0)
    params = {"monster": monster_uid(g), "enhancer": ENRAGED, "_now": 103.0}
    assert g.refused("combat.enhancer.add", actor="b", override="combat.objection", **params).rule.id == "table.host"
    let_in = g.do("combat.enhancer.add", actor="a", override="combat.objection", **params)
    assert let_in.payload["override"]["rule"] == "combat.objection"
    assert g.refused("combat.resolve", _now=104.0).message == "Claim the win first: something was played since."
    g.do("combat.claim", _now=104.0)
    g.do("combat.resolve", _now=107.0)
    assert g.state.combat is None and g.state.players["a"].level == 5


def test_a_monster_or_item_not_in_the_fight_is_named_so_in_every_language(g):
    """The 404s say what is missing in a whole sentence (a translator could not translate an
    English word passed in: "There is no such monster or item" came out half English)."""
    g.do("combat.start")
    g.do("combat.monster.add", monster={"name": "Pit Bull", "level": 20, "treasures": 1})
    exc = g.refused("combat.enhancer.add", monster="nope", enhancer=ENRAGED)
    assert exc.status == 404 and exc.message == "There is no such monster in this fight."
    exc = g.refused("combat.flee", fighter_rolls=[1], fighter_gives=[f"{monster_uid(g)}:nope"])
    assert exc.status == 404 and exc.message == "There is no such monster in this fight, or Ann has no such item."


def test_turning_takes_an_undead_monster_and_is_once_per_combat():
    """Cleric card (base set): Turning gives +3 a card discarded *against Undead*, once per combat (as
    Berserking: 1.6, Asking for Help). Against a Net Troll it was taken — the cards gone for nothing,
    nothing in the breakdown — and a second Turning silently replaced the first."""
    g = Game()
    g.do("class.add", **{"class": "cleric"})
    g.do("combat.start", monster=NET_TROLL)
    refused = g.refused("combat.power", power="turning", cards=3)
    assert refused.rule.id == "combat.powers" and "Undead" in refused.message
    g.do("combat.monster.add", actor="b", monster={"name": "Mr. Bones", "level": 2, "treasures": 1, "undead": True})
    g.do("combat.power", power="turning", cards=2)
    assert g.refused("combat.power", power="turning", cards=1).rule.id == "combat.powers"
    assert [line["value"] for line in fights.verdict(g.state)["players"]["lines"] if "Turning" in line["source"]] == [6]


@pytest.mark.parametrize("power, klass, monster", [("berserk", "warrior", NET_TROLL),
                                                   ("turning", "cleric", {**NET_TROLL, "undead": True})])
def test_a_power_used_by_a_class_lost_in_the_fight_stops_counting_and_the_fight_goes_on(power, klass, monster):
    """1.6, Character Stats: a class may be discarded at any time, even in a fight, and its powers count
    only while its card is out. A Warrior who had berserked and then lost the class (Lose Your Class,
    played by anyone) left a fight whose every verdict was refused ("not a Warrior: no Berserking"):
    nobody could see it, win it or run from it."""
    g = Game()
    g.do("class.add", **{"class": klass})
    g.do("combat.start", monster=monster)
    g.do("combat.power", power=power, cards=3)
    g.do("class.remove", **{"class": klass})
    verdict = fights.verdict(g.state)
    assert verdict["players"]["total"] == 1
    (gone,) = [line for line in verdict["players"]["not_counting"] if line["rule"] == "combat.powers"]
    assert klass.title() in gone["reason"]
    g.do("combat.flee", fighter_rolls=[6])
    assert g.state.combat is None


def test_a_wizard_who_lost_the_class_runs_away_without_the_flight_spell():
    g = Game()
    g.do("class.add", **{"class": "wizard"})
    g.do("combat.start", monster=NET_TROLL)
    g.do("combat.power", power="flight", cards=3)
    g.do("class.remove", **{"class": "wizard"})
    fled = g.do("combat.flee", fighter_rolls=[3])  # 3 + 3 would have escaped; without the spell it does not
    assert "caught" in g.said(fled)


def test_a_fight_takes_no_more_cards_than_the_referee_can_judge(g):
    """Every one-shot, monster and enhancer was taken, but past the fight's limits (combat.INPUT_SCHEMA)
    no verdict could be made any more ("one_shots ... is too long"), and the fight could be neither shown,
    won nor run from: the card past the limit is refused instead."""
    g.do("combat.start", monster=NET_TROLL)
    for _ in range(20):
        g.do("combat.oneshot.add", actor="b", side="monsters", one_shot={"name": "Sleep Potion", "bonus": 2})
    assert g.refused("combat.oneshot.add", actor="b", side="monsters", one_shot={"name": "Sleep Potion", "bonus": 2}).status == 409
    for _ in range(10):
        g.do("combat.enhancer.add", actor="b", monster=monster_uid(g), enhancer=ENRAGED)
    assert g.refused("combat.enhancer.add", actor="b", monster=monster_uid(g), enhancer=ENRAGED).status == 409
    for _ in range(9):
        g.do("combat.monster.add", actor="b", monster={"name": "Rat", "level": 1})
    assert g.refused("combat.monster.add", actor="b", monster={"name": "Rat", "level": 1}).status == 409
    assert fights.verdict(g.state)["outcome"] == "lose"
    g.do("combat.flee", fighter_rolls=[6] * 10)


def test_a_second_flight_spell_adds_to_the_first_up_to_three_cards():
    """Wizard card (base set): Flight is up to 3 cards discarded for +1 each to Run Away — in all, for the
    combat. A second Flight replaced the first (Flight 2, then Flight 1 left +1: the cards of the first
    went for nothing); it adds to it now, and past 3 cards in all it is refused."""
    g = Game()
    g.do("class.add", **{"class": "wizard"})
    g.do("combat.start", monster=NET_TROLL)
    g.do("combat.power", power="flight", cards=2)
    again = g.do("combat.power", power="flight", cards=1)
    assert g.state.combat["powers"]["fighter"]["flight"] == 3
    assert g.said(again) == "Ann uses Flight again (1 more card, 3 in all)"
    refused = g.refused("combat.power", power="flight", cards=1)
    assert refused.rule.id == "combat.powers" and "3" in refused.message
    g.undo(again)
    assert g.state.combat["powers"]["fighter"]["flight"] == 2
    fled = g.do("combat.flee", fighter_rolls=[3])  # 3 + Flight 2 = 5: away
    assert "escapes" in g.said(fled)
