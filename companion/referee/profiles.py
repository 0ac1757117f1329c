"""Rule profiles: one per edition, stating as data what the referee needs to know.

Editions disagree (starting hand, Dwarf hand limit, how the winning level may be reached,
…). A profile carries those differences as fields so that the rest of the engine asks
the profile instead of hard-coding one book. ``game`` names the game family, so that a
profile for the board game (Munchkin Quest) can sit beside the card-game editions
without the engine assuming every game is the card game.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    """The rules of one edition that the referee uses, with where they come from."""

    id: str
    name: str
    game: str  # "munchkin" (the card game); other families get their own value
    edition: str
    year: int
    language: str  # the rulebook's language (ISO 639-1)
    min_level: int = 1
    top_level: int = 10
    top_level_needs_kill: bool = True
    max_kill_levels: int = 2  # the most levels a single kill gives (some monsters give 2)
    hand_limit: int = 5  # cards kept at the end of a turn (Charity)
    dwarf_hand_limit: int = 6  # 1.6: printed on the Dwarf card; the classic books put it in the rules
    elf_helper_levels: bool = True  # 1.6: an Elf who helps gains a level per monster slain
    shared_victory: bool = False  # Faster Play option: the helper also wins when the fighter reaches the top
    objection_seconds: float = 2.6  # the wait before rewards are taken
    recommended_players: tuple[int, int] = (3, 6)

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "game": self.game,
            "edition": self.edition,
            "year": self.year,
            "language": self.language,
            "min_level": self.min_level,
            "top_level": self.top_level,
            "top_level_needs_kill": self.top_level_needs_kill,
            "recommended_players": list(self.recommended_players),
            "hand_limit": self.hand_limit,
            "dwarf_hand_limit": self.dwarf_hand_limit,
            "elf_helper_levels": self.elf_helper_levels,
            "shared_victory": self.shared_victory,
            "objection_seconds": self.objection_seconds,
        }


DEFAULT_PROFILE = "munchkin-1.6"

PROFILES: dict[str, Profile] = {
    p.id: p
    for p in [
        Profile(
            id="munchkin-1.6",
            name="Munchkin 1.6 (English, 2011)",
            game="munchkin",
            edition="1.6",
            year=2011,
            language="en",
        ),
    ]
}


def get_profile(profile_id: str) -> Profile:
    """The profile with this id; ``KeyError`` names the known ids when it does not exist."""
    try:
        return PROFILES[profile_id]
    except KeyError:
        raise KeyError(f"unknown rule profile {profile_id!r}; known: {', '.join(sorted(PROFILES))}") from None
