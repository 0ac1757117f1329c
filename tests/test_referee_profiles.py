"""Editions as data: each profile's differences change what the referee allows, and the
host's change of rules and house rulings are events like any other (replayed, undone)."""
import pytest

from companion.referee import table as t
from companion.referee.profiles import PROFILES, clean_options, get_profile
from companion.referee.rules import Refused
from test_referee_sheet import Game

TROLL = {"name": "Net Troll", "level": 1, "treasures": 1}


def win_a_fight_with_an_elf_helper(g, fighter_level, helper_level):
    g.level(fighter_level)
    g.level(helper_level, "b")
    g.do("race.add", actor="b", race="elf")
    g.do("combat.start")
    g.do("combat.monster.add", monster=TROLL)
    g.do("combat.help.ask", seat="b")
    g.do("combat.help.accept", actor="b")
    g.do("combat.claim", _now=100.0)
    return g.do("combat.resolve", _now=200.0)


def test_the_three_card_game_editions_differ_as_their_books_do():
    classic, v16, v171 = (PROFILES[i] for i in ("munchkin-classic", "munchkin-1.6", "munchkin-1.71"))
    assert {p.game for p in (classic, v16, v171)} == {"munchkin"}
    assert PROFILES["munchkin-quest"].game == "munchkin-quest"  # the board game sits beside them (#15)
    assert classic.starting_hand == (2, 2) and classic.fast_starting_hand == (4, 4)  # German 2003 Setup
    assert v16.starting_hand == v171.starting_hand == (4, 4)
    assert classic.top_level_cards == ("divine_intervention",) and not v16.top_level_cards
    assert (classic.helper_gains_levels, v16.helper_gains_levels, v171.helper_gains_levels) == ("elf", "elf", "none")
    assert v171.monster_min_level == 1 and v16.monster_min_level == 0
    assert "curses" not in classic.death_keeps and "curses" in v16.death_keeps
    # the classic books (Weglaufen / Vluchten): Halflings run away with a penalty, -1 by our reading;
    # 1.6 and 1.71 (the Halfling card): the reroll of a failed escape
    assert (classic.halfling_run_away, classic.halfling_run_away_penalty) == ("penalty", -1)
    assert v16.halfling_run_away == v171.halfling_run_away == "reroll"
    assert classic.as_dict()["halfling_run_away_penalty"] == -1 and v16.as_dict()["halfling_run_away_penalty"] == 0


@pytest.mark.parametrize("options, top", [({}, 10), ({"epic": True}, 20), ({"top_level": 5}, 5)])
def test_options_set_the_top_level(options, top):
    assert get_profile("munchkin-1.6", clean_options(options, PROFILES["munchkin-1.6"])).top_level == top


@pytest.mark.parametrize("options, message", [
    ("epic", "must be an object"), ({"speed": True}, "unknown option 'speed'"), ({"epic": "yes"}, "true or false"),
    ({"top_level": 1}, "from 2 to 30"), ({"top_level": 40}, "from 2 to 30"), ({"epic": True, "top_level": 12}, "not both"),
    ({"fast_start": True}, "has no quick deal"),
])
def test_bad_options_are_refused_with_a_reason(options, message):
    with pytest.raises(Refused) as exc:
        t.create("tid", "T", "munchkin-1.6", options)
    assert message in exc.value.message and exc.value.status == 400


def test_divine_intervention_reaches_the_top_only_in_the_classic_rules():
    classic = Game("munchkin-classic")
    classic.level(9)
    classic.do("class.add", **{"class": "cleric"})
    event = classic.do("level.up", actor="b", seat="b", card="divine_intervention")  # every Cleric: Ann
    assert event.payload["wins"] and classic.state.winner == "a"
    modern = Game("munchkin-1.6")
    modern.level(9)
    modern.do("class.add", **{"class": "cleric"})
    assert modern.refused("level.up", card="divine_intervention").rule.id == "level.win-by-kill"


def test_divine_intervention_raises_every_cleric_and_nobody_else():
    """The card: every Cleric goes up a level at once — not the player named, Cleric or not
    (German 2003, Stufe 10; the card's text in card_db)."""
    game = Game("munchkin-classic")
    assert game.refused("level.up", card="divine_intervention").rule.id == "level.causes"  # no Cleric at all
    game.do("class.add", **{"class": "cleric"})
    game.do("class.add", actor="b", **{"class": "cleric"})
    event = game.do("level.up", actor="b", seat="b", card="divine_intervention")
    assert (game.state.players["a"].level, game.state.players["b"].level) == (2, 2)
    game.undo(event)
    assert (game.state.players["a"].level, game.state.players["b"].level) == (1, 1)


def test_an_elf_helper_levels_up_except_in_1_71():
    for profile, gained in (("munchkin-1.6", 1), ("munchkin-classic", 1), ("munchkin-1.71", 0)):
        g = Game(profile)
        win_a_fight_with_an_elf_helper(g, 3, 3)
        assert g.state.players["b"].level == 3 + gained, profile


def test_classic_fighter_and_elf_helper_reaching_the_top_together_both_win():
    g = Game("munchkin-classic")
    done = win_a_fight_with_an_elf_helper(g, 9, 9)
    assert g.state.winners == ["a", "b"] and "together with Ben" in g.said(done)
    g.undo(done)
    assert g.state.winners == [] and g.state.winner is None
    modern = Game("munchkin-1.6")
    win_a_fight_with_an_elf_helper(modern, 9, 9)
    assert modern.state.winners == ["a"] and modern.state.players["b"].level == 9  # 1.6: the helper stops at 9


def test_shared_victory_option_lets_any_helper_win():
    g = Game("munchkin-1.6", {"shared_victory": True})
    g.level(9)
    g.do("combat.start")
    g.do("combat.monster.add", monster=TROLL)
    g.do("combat.help.ask", seat="b")
    g.do("combat.help.accept", actor="b")
    g.do("combat.claim", _now=100.0)
    g.do("combat.resolve", _now=200.0)
    assert g.state.winners == ["a", "b"] and g.state.players["b"].level == 1


def test_epic_plays_on_past_level_10():
    g = Game("munchkin-1.6", {"epic": True})
    g.level(12)
    assert g.state.players["a"].level == 12 and g.state.winner is None
    g.level(19)
    assert g.refused("level.up").rule.id == "level.win-by-kill"


def test_a_monster_level_below_1_is_refused_only_in_1_71():
    for profile, allowed in (("munchkin-1.6", True), ("munchkin-1.71", False)):
        g = Game(profile)
        g.do("combat.start")
        if allowed:
            g.do("combat.monster.add", monster={"name": "Shadow", "level": 0})
        else:
            assert g.refused("combat.monster.add", monster={"name": "Shadow", "level": 0}).rule.id == "monster.level-floor"


def test_what_death_takes_depends_on_the_edition():
    for profile, curses_left in (("munchkin-1.6", 1), ("munchkin-classic", 0)):
        g = Game(profile)
        g.do("curse.add", curse={"name": "Chicken on Your Head", "effects": []})
        g.do("item.add", item={"name": "Sneaky Bastard Sword", "bonus": 2, "slot": "one_hand"})
        event = g.do("character.die")
        assert len(g.state.players["a"].curses) == curses_left, profile
        assert ("draws 2 Door" in g.said(event)) == (profile == "munchkin-classic")


def test_only_the_host_changes_the_rules_and_it_is_an_undoable_event():
    g = Game()
    assert g.refused("settings.profile", actor="b", profile="munchkin-1.71").rule.id == "table.host"
    event = g.do("settings.profile", profile="munchkin-1.71", options={"epic": True})
    assert g.state.profile.id == "munchkin-1.71" and g.state.profile.top_level == 20
    assert "Munchkin 1.71 (Italian, 2014), Epic" in g.said(event)
    assert g.refused("settings.profile", profile="munchkin-1.71", options={"epic": True}).status == 409
    g.undo(event)
    assert g.state.profile.id == "munchkin-1.6" and g.state.profile.top_level == 10
    assert t.replay(g.events).to_json() == g.state.to_json()


def test_the_rules_cannot_change_under_a_player_or_mid_fight():
    g = Game("munchkin-1.6", {"epic": True})
    g.level(12)
    refusal = g.refused("settings.profile", profile="munchkin-1.6", options={})
    assert refusal.rule.id == "game.won" and "Ann" in refusal.message
    g.do("combat.start")
    assert g.refused("settings.profile", options={"top_level": 15}).rule.id == "combat.one"


def test_the_host_overrides_a_refusal_once_and_the_event_says_so():
    g = Game()
    g.do("class.add", **{"class": "warrior"})
    assert g.refused("class.add", **{"class": "wizard"}).rule.id == "class.one"
    assert g.refused("class.add", actor="b", seat="a", **{"class": "wizard"}).status == 403
    assert g.refused("class.add", actor="b", override="class.one", **{"class": "wizard"}).rule.id == "table.host"
    event = g.do("class.add", override="class.one", **{"class": "wizard"})
    assert g.state.players["a"].classes == ["warrior", "wizard"]
    assert event.payload["override"] == {"rule": "class.one", "waived": ["class.one"], "by": "a"}
    assert "house ruling by Ann" in g.said(event)
    assert t.replay(g.events).to_json() == g.state.to_json()  # the ruling holds on replay
    assert g.refused("class.add", **{"class": "thief"}).rule.id == "class.one"  # only that once
    assert g.refused("level.up", override="class.one").status == 409  # nothing to override
    assert g.refused("level.up", override="level.floor").status == 400  # not overridable


def test_an_override_of_the_winning_kill_wins_the_game():
    g = Game()
    g.level(9)
    event = g.do("level.up", override="level.win-by-kill")
    assert event.payload["wins"] and g.state.winner == "a"


def test_options_outside_the_editions_book_are_labelled_house_rules():
    """Epic and Faster Play are in the 1.6 and 1.71 books; the quick deal only in the classic ones
    (German rules 2003, Spielvorbereitung); a custom top level is in no book."""
    from companion.referee.history import profile_label
    assert get_profile("munchkin-1.6", {"epic": True}).house_rules == []
    assert get_profile("munchkin-classic", {"epic": True, "fast_start": True}).house_rules == ["epic"]
    assert profile_label({"profile": "munchkin-classic", "options": {"epic": True}}).endswith("Epic (house rule)")
    assert "(house rule)" in profile_label({"profile": "munchkin-1.6", "options": {"top_level": 12}})
    assert "house rule" not in profile_label({"profile": "munchkin-1.71", "options": {"shared_victory": True}})


def test_go_up_a_level_on_another_player_only_in_1_6_and_1_71():
    """1.6 and 1.71 (Treasure) let a Go Up a Level card be played on any player; the classic books
    (German 2003 Schätze – spielen, Dutch 2001 Schatten – spelen) have its player go up (#13)."""
    for profile in ("munchkin-1.6", "munchkin-1.71"):
        g = Game(profile)
        g.do("level.up", seat="b")
        assert g.state.players["b"].level == 2, profile
    classic = Game("munchkin-classic")
    refused = classic.refused("level.up", seat="b")
    assert refused.rule.id == "level.causes" and "not someone else" in refused.message
    assert refused.rule.cite_for("munchkin-classic").startswith("Munchkin, German rules (2003), ")
    classic.do("level.up", actor="b", seat="b")  # on yourself, as the book says
    assert classic.state.players["b"].level == 2
    classic.do("level.up", seat="b", override="level.causes")  # the host may rule otherwise
    assert classic.state.players["b"].level == 3
