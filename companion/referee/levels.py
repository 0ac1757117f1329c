"""Level arithmetic: the floor, the top level, and winning by a kill.

Every level change goes through :func:`change_level`, which returns the new level and
whether it wins, or raises :class:`Refused` with the rule that forbids it.
"""
from __future__ import annotations

from dataclasses import dataclass

from .profiles import Profile
from .rules import Refused, refuse

#: Why a level changes. ``kill`` is the only cause that may reach the top level, apart from
#: the cards a profile names in ``top_level_cards`` (Divine Intervention in the classic rules).
CAUSES = ("up", "down", "kill", "undo", "divine_intervention")


@dataclass(frozen=True)
class LevelVerdict:
    before: int
    after: int
    wins: bool


def change_level(profile: Profile, level: int, delta: int, cause: str) -> LevelVerdict:
    """Apply ``delta`` levels for ``cause`` under ``profile``'s rules.

    - nothing takes a character below the profile's minimum level (``level.floor``);
    - the top level can only be reached by killing a monster (``level.win-by-kill``), or by a
      card the profile lets through (the classic rules' Divine Intervention);
    - a kill that reaches the top level wins (Munchkin Quest: only the Boss wins); a kill never goes past it.
    """
    if cause not in CAUSES:
        raise ValueError(f"unknown cause {cause!r}")
    if delta == 0:
        raise Refused("That would not change the level.")
    after = level + delta
    if after < profile.min_level:
        raise Refused(
            "Level {level} is already the lowest: nothing can take a character below Level {min_level}.",
            rule="level.floor",
        level=level, min_level=profile.min_level)
    if after >= profile.top_level:
        if cause != "kill" and cause not in profile.top_level_cards and profile.top_level_needs_kill:
            refuse(
                "Level {top_level} can only be reached by killing a monster.",
                rule="level.win-by-kill",
            top_level=profile.top_level)
        return LevelVerdict(level, profile.top_level, wins=profile.wins_at_top_level)
    return LevelVerdict(level, after, wins=False)
