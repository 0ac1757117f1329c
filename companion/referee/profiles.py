"""Rule profiles: one per edition, stating as data what the referee needs to know.

Editions disagree (starting hand, whether a helper gains levels, how the winning level may
be reached, what a dead character keeps, …). A profile carries those differences as fields
so that the rest of the engine asks the profile instead of hard-coding one book. ``game``
names the game family, so that a profile for the board game (Munchkin Quest) can sit
beside the card-game editions without the engine assuming every game is the card game.

A table plays one profile with its *options* (the variants the books offer: Epic, Faster
Play, a custom top level); :meth:`Profile.with_options` gives the profile the referee uses.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from .languages import N_

#: What a dead character may keep, in the words the sheet uses.
DEATH_PARTS = ("level", "races", "classes", "half_breed", "super_munchkin", "curses")
#: The game families: the card game, and the board game Munchkin Quest.
GAMES = {"munchkin": "Munchkin (the card game)", "munchkin-quest": "Munchkin Quest (the board game)"}


@dataclass(frozen=True)
class QuestNumbers:
    """The board game's numbers (Munchkin Quest, seed summary): what a character starts and restarts with,
    what things cost. The card game's profiles have none."""

    health: int = 4  # health tokens at the start and after a death
    tokens: int = 3  # move/action tokens each turn
    gold: int = 300  # gold at the start and after a death
    hand: tuple[int, int] = (3, 3)  # DxM cards, Treasure cards dealt at the start
    restart_hand: tuple[int, int] = (2, 2)  # DxM cards, Treasure cards after a death
    backpack: int = 2  # cards the backpack holds
    level_price: int = 1000  # gold for a level, once per turn
    heal_health: int = 3  # health a level buys back (heal: -1 level)
    caught_up_to: int = 4  # fleeing: a die from 1 to this number applies the monster's Bad Stuff
    big_free: int = 1  # Big items carried without a cost; each further one costs a move/action token a turn
    stands: int = 3  # monster stands of each player's colour

    def as_dict(self) -> dict:
        return {"health": self.health, "tokens": self.tokens, "gold": self.gold,
                "hand": {"dxm": self.hand[0], "treasure": self.hand[1]},
                "restart_hand": {"dxm": self.restart_hand[0], "treasure": self.restart_hand[1]},
                "backpack": self.backpack, "level_price": self.level_price, "heal_health": self.heal_health,
                "caught_up_to": self.caught_up_to, "big_free": self.big_free, "stands": self.stands}


@dataclass(frozen=True)
class Profile:
    """The rules of one edition that the referee uses, with where they come from."""

    id: str
    name: str
    game: str  # a key of GAMES: "munchkin" (the card game) or "munchkin-quest" (the board game)
    edition: str
    year: int
    language: str  # the rulebook's language (ISO 639-1)
    books: tuple[str, ...]  # how citations name the rulebook(s) this profile follows
    min_level: int = 1
    monster_min_level: int = 0  # 1.71: nothing takes a monster's level below 1 either
    top_level: int = 10
    top_level_needs_kill: bool = True
    top_level_cards: tuple[str, ...] = ()  # cards that may give the winning level anyway (classic: Divine Intervention)
    max_kill_levels: int = 2  # the most levels a single kill gives (some monsters give 2)
    starting_hand: tuple[int, int] = (4, 4)  # Door cards, Treasure cards dealt to each player
    fast_starting_hand: tuple[int, int] | None = None  # the book's deal for a quicker game, when it has one
    death_draw: tuple[int, int] = (4, 4)  # what a dead character draws on their next turn
    death_keeps: tuple[str, ...] = DEATH_PARTS
    hand_limit: int = 5  # cards kept at the end of a turn (Charity)
    dwarf_hand_limit: int = 6  # 1.6 and 1.71 print it on the Dwarf card; the classic books put it in the rules
    # How a Halfling runs away: "reroll" (1.6 and 1.71, the Halfling card: discard a card to roll a failed
    # escape again, once) or "penalty" (the classic books, Weglaufen / Vluchten: Halflings run away worse,
    # no reroll). The classic books print no amount: halfling_run_away_penalty is our reading (-1 a roll).
    halfling_run_away: str = "reroll"
    halfling_run_away_penalty: int = -1  # used only when halfling_run_away == "penalty"
    # 1.6 and 1.71 (Treasure): a Go Up a Level card may be played on any player; the classic books
    # (Schätze – spielen / Schatten – spelen) have the one who plays it go up
    level_card_on_anyone: bool = True
    helper_gains_levels: str = "elf"  # "elf": an Elf who helps gains a level per monster slain; "none"
    joint_kill_wins: bool = False  # classic: fighter and helper who reach the top with one kill both win
    shared_victory: bool = False  # Faster Play option: the helper also wins when the fighter reaches the top
    listen_at_door: bool = False  # Faster Play option: draw a face-down Door card before kicking the door open
    loot_draws_treasure: bool = False  # Faster Play option: looting the room draws a Treasure, not a Door
    epic: bool = False  # Epic option: play on to Level 20
    # the options this edition's book offers; any other option chosen is a house rule, labelled so
    book_options: tuple[str, ...] = ("epic", "listen_at_door", "loot_draws_treasure", "shared_victory")
    objection_seconds: float = 2.6  # the wait before rewards are taken
    recommended_players: tuple[int, int] = (3, 6)
    wins_at_top_level: bool = True  # Munchkin Quest: the top level is not enough, the Boss at the Entrance must fall
    quest: QuestNumbers | None = None  # the board game's numbers (None for the card game)
    options: dict = field(default_factory=dict, compare=False)  # the options this profile was built with

    @property
    def house_rules(self) -> list[str]:
        """The options in force that this edition's book does not offer (top_level is always a house rule)."""
        return [key for key in self.options if key not in self.book_options]

    @property
    def book(self) -> str:
        """The rulebook citations start with."""
        return self.books[0]

    def with_options(self, options: dict | None) -> "Profile":
        """This profile with a table's options applied (already checked by :func:`clean_options`)."""
        options = options or {}
        changes: dict = {"options": dict(options)}
        if options.get("epic"):
            changes.update(epic=True, top_level=20)
        if options.get("top_level"):
            changes["top_level"] = options["top_level"]
        for flag in ("listen_at_door", "loot_draws_treasure", "shared_victory"):
            if options.get(flag):
                changes[flag] = True
        if options.get("fast_start") and self.fast_starting_hand:
            changes["starting_hand"] = self.fast_starting_hand
        return replace(self, **changes)

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "game": self.game,
            "edition": self.edition,
            "year": self.year,
            "language": self.language,
            "books": list(self.books),
            "min_level": self.min_level,
            "monster_min_level": self.monster_min_level,
            "top_level": self.top_level,
            "top_level_needs_kill": self.top_level_needs_kill,
            "top_level_cards": list(self.top_level_cards),
            "recommended_players": list(self.recommended_players),
            "starting_hand": {"door": self.starting_hand[0], "treasure": self.starting_hand[1]},
            "fast_starting_hand": ({"door": self.fast_starting_hand[0], "treasure": self.fast_starting_hand[1]}
                                   if self.fast_starting_hand else None),
            "death_draw": {"door": self.death_draw[0], "treasure": self.death_draw[1]},
            "death_keeps": list(self.death_keeps),
            "hand_limit": self.hand_limit,
            "dwarf_hand_limit": self.dwarf_hand_limit,
            "halfling_run_away": self.halfling_run_away,
            "halfling_run_away_penalty": self.halfling_run_away_penalty if self.halfling_run_away == "penalty" else 0,
            "level_card_on_anyone": self.level_card_on_anyone,
            "helper_gains_levels": self.helper_gains_levels,
            "joint_kill_wins": self.joint_kill_wins,
            "shared_victory": self.shared_victory,
            "listen_at_door": self.listen_at_door,
            "loot_draws_treasure": self.loot_draws_treasure,
            "epic": self.epic,
            "objection_seconds": self.objection_seconds,
            "options": dict(self.options),
            "book_options": list(self.book_options),
            "house_rules": self.house_rules,
            "wins_at_top_level": self.wins_at_top_level,
            "quest": self.quest.as_dict() if self.quest else None,
        }


DEFAULT_PROFILE = "munchkin-1.6"

PROFILES: dict[str, Profile] = {
    p.id: p
    for p in [
        Profile(
            id="munchkin-classic",
            name=N_("Munchkin, classic rules (German 2003 / Dutch 2001)"),
            game="munchkin",
            edition="classic",
            year=2003,
            language="de",
            books=("Munchkin, German rules (2003)", "Munchkin, Dutch rules (2001)"),
            top_level_cards=("divine_intervention",),
            starting_hand=(2, 2),
            fast_starting_hand=(4, 4),
            death_draw=(2, 2),
            death_keeps=("level", "races", "classes", "half_breed", "super_munchkin"),
            joint_kill_wins=True,
            level_card_on_anyone=False,
            halfling_run_away="penalty",
            book_options=("fast_start",),
        ),
        Profile(
            id="munchkin-1.6",
            name=N_("Munchkin 1.6 (English, 2011)"),
            game="munchkin",
            edition="1.6",
            year=2011,
            language="en",
            books=("Munchkin 1.6 (2011)",),
        ),
        Profile(
            id="munchkin-1.71",
            name=N_("Munchkin 1.71 (Italian, 2014)"),
            game="munchkin",
            edition="1.71",
            year=2014,
            language="it",
            books=("Munchkin 1.71 (2014)",),
            monster_min_level=1,
            helper_gains_levels="none",
        ),
        Profile(
            id="munchkin-quest",
            name=N_("Munchkin Quest (the board game, French summary)"),
            game="munchkin-quest",
            edition="quest",
            year=2008,
            language="fr",
            books=("Munchkin Quest (seed summary)",),
            monster_min_level=1,
            starting_hand=(3, 3),  # DxM cards, Treasure cards
            death_draw=(2, 2),
            death_keeps=("curses",),  # and the DxM cards in play; a level is lost, gold and items are dropped
            helper_gains_levels="dreadful",  # a helper gains only the extra level of a dreadful monster
            book_options=(),
            wins_at_top_level=False,
            recommended_players=(2, 4),
            quest=QuestNumbers(),
        ),
    ]
}

#: The options a table may choose, with what each value may be.
OPTIONS = {
    "epic": "Epic: play on to Level 20 (Epic Munchkin, offered in the 1.6 and 1.71 books).",
    "top_level": "A custom winning level, 2 to 30 (a house variant; Epic sets 20).",
    "listen_at_door": "Faster Play: draw a face-down Door card at the start of the turn (1.6, 1.71).",
    "loot_draws_treasure": "Faster Play: looting the room draws a face-down Treasure, not a Door (1.6, 1.71).",
    "shared_victory": "Faster Play: a helper in the winning fight wins too, whatever their level (1.6, 1.71).",
    "fast_start": "Quick deal: 4 Door and 4 Treasure cards instead of 2 and 2 (classic rules only).",
}
TOP_LEVEL_RANGE = (2, 30)


class OptionError(ValueError):
    """Options that cannot be: ``template`` (English, ``{placeholders}``) and ``params`` say why."""

    def __init__(self, template: str, **params):
        super().__init__(template.format(**params))
        self.template, self.params = template, params


def clean_options(raw: object, profile: Profile) -> dict:
    """The options a table asked for, checked; :class:`OptionError` says what is wrong.

    Only options that are switched on are kept, so two tables with the same rules have
    equal options.
    """
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise OptionError("options must be an object such as {example}.", example='{"epic": true}')
    if profile.quest and any(value not in (None, False, "", 0) for value in raw.values()):
        raise OptionError("{name} takes no options.", name=profile.name)
    unknown = set(raw) - set(OPTIONS)
    if unknown:
        raise OptionError("unknown option {name!r}; known: {known}.", name=sorted(unknown)[0], known=", ".join(OPTIONS))
    out: dict = {}
    for key, value in raw.items():
        if key == "top_level":
            if value in (None, "", 0):
                continue
            low, high = TOP_LEVEL_RANGE
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise OptionError("top_level must be a whole number from {low} to {high}.", low=low, high=high)
            out[key] = value
        elif not isinstance(value, bool):
            raise OptionError("{key} must be true or false.", key=key)
        elif value:
            out[key] = True
    if out.get("epic") and "top_level" in out:
        raise OptionError("Choose Epic or a custom top level, not both.")
    if out.get("fast_start") and not profile.fast_starting_hand:
        raise OptionError("{name} has no quick deal: every player starts with {door} Door and {treasure} Treasure cards.",
                          name=profile.name, door=profile.starting_hand[0], treasure=profile.starting_hand[1])
    return out


def get_profile(profile_id: str, options: dict | None = None) -> Profile:
    """The profile with this id (and options); ``KeyError`` names the known ids when it does not exist."""
    try:
        profile = PROFILES[profile_id]
    except KeyError:
        raise KeyError(f"unknown rule profile {profile_id!r}; known: {', '.join(sorted(PROFILES))}") from None
    return profile.with_options(options) if options else profile
