"""The referee's level rules, case by case from the rulebook and as properties."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.referee.levels import change_level
from companion.referee.profiles import PROFILES, get_profile
from companion.referee.rules import RULES, Refused

P16 = get_profile("munchkin-1.6")


@pytest.mark.parametrize(
    "level, delta, cause, after, wins, source",
    [
        (1, 1, "up", 2, False, "1.6 Character Stats: a card may give a level"),
        (5, -1, "down", 4, False, "1.6 Character Stats: a card may take a level"),
        (8, 1, "up", 9, False, "1.6: any level below 10 by any means"),
        (9, 1, "kill", 10, True, "1.6 Starting and Finishing: reach 10 by a kill and win"),
        (8, 2, "kill", 10, True, "1.6 Monsters: a monster giving 2 levels from 8 wins"),
        (9, 2, "kill", 10, True, "1.6 Contradictions rule 4: a kill never goes past the top level"),
        (3, 2, "kill", 5, False, "1.6 Monsters: some monsters give 2 levels"),
    ],
)
def test_allowed_changes(level, delta, cause, after, wins, source):
    verdict = change_level(P16, level, delta, cause)
    assert (verdict.after, verdict.wins) == (after, wins), source


@pytest.mark.parametrize(
    "level, delta, cause, rule, source",
    [
        (1, -1, "down", "level.floor", "1.6 Contradictions rule 1: nothing reduces a player below Level 1"),
        (9, 1, "up", "level.win-by-kill", "1.6 Contradictions rule 4: you must kill a monster to reach Level 10"),
        (8, 2, "up", "level.win-by-kill", "1.6 Contradictions rule 4: not by two cards either"),
        (9, 1, "undo", "level.win-by-kill", "undoing a level loss never sneaks to 10"),
    ],
)
def test_refused_changes_name_their_rule(level, delta, cause, rule, source):
    with pytest.raises(Refused) as exc:
        change_level(P16, level, delta, cause)
    assert exc.value.rule.id == rule, source
    assert "Munchkin 1.6" in exc.value.rule.citation
    assert exc.value.as_dict()["rule"] == rule


def test_every_refusal_rule_is_documented():
    for rule in RULES.values():
        assert rule.summary and rule.citation and rule.title


def test_unknown_profile_names_the_known_ones():
    with pytest.raises(KeyError, match="munchkin-1.6"):
        get_profile("munchkin-99")


@given(st.sampled_from(list(PROFILES.values())), st.integers(1, 9),
       st.lists(st.tuples(st.sampled_from(["up", "down", "kill"]), st.integers(1, 2)), max_size=40))
def test_level_stays_in_bounds_and_top_needs_a_kill(profile, start, steps):
    level = start
    for cause, size in steps:
        delta = -size if cause == "down" else size
        try:
            verdict = change_level(profile, level, delta, cause)
        except Refused:
            continue
        assert profile.min_level <= verdict.after <= profile.top_level
        if verdict.after == profile.top_level:
            assert cause == "kill" and verdict.wins == profile.wins_at_top_level  # Quest: only the Boss wins
            break
        level = verdict.after
