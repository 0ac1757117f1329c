"""The table's state, the actions players take on it, and the events those become.

The table is event-sourced: :func:`decide` checks an action against the rules and the
current :class:`TableState` and answers the :class:`Event` to record (or raises
:class:`Refused`); the action's declaration in :mod:`.catalogue` says who may ask for it
and when, and the functions registered here with :func:`~.catalogue.decides` decide it.
Events record *operations* (on the characters, the turn, the seat order), so that
:func:`apply` folds them the same way for every action. :func:`replay` rebuilds a
state from its events, which is how the store proves its snapshot after a crash.
:func:`inverse` turns a recorded event into the compensating event that undoes it,
checked by the same rules, so undo can never produce an illegal state.
"""
from __future__ import annotations

import copy
import secrets
import unicodedata
from dataclasses import asdict, dataclass, field

from card_db import schema
from card_db.words import SEXES

from . import catalogue, combat, effects, played, quest, sheet, turn
from . import fight as fights
from .catalogue import CATALOGUE, decides
from .levels import change_level
from .history import said, thing, undone
from .profiles import OPTIONS, PROFILES, TOP_LEVEL_RANGE, OptionError, clean_options, get_profile
from .rules import N_, OVERRIDABLE, RULES, Refused, refuse, waiving

MAX_SEATS = 8
NAME_MAX = 24

#: Sheet actions refused for whoever is in a fight (1.6 Items; When to Play Cards).
NOT_IN_COMBAT = {"item.add", "item.use", "item.carry", "item.give", "item.sell"}
THEFT_SUCCEEDS = 4  # a Thief's theft: a die of this or more takes the item (the Thief card)


@dataclass
class Player:
    seat: str
    name: str
    sex: str
    level: int = 1
    races: list = field(default_factory=list)
    classes: list = field(default_factory=list)
    half_breed: bool = False
    super_munchkin: bool = False
    items: list = field(default_factory=list)
    curses: list = field(default_factory=list)
    double_sale_turn: int = 0  # the turn in which a Halfling last sold at double price
    dead: bool = False  # dead until the next player's turn begins (no cards, no levels)
    choices: list = field(default_factory=list)  # what a curse or Bad Stuff left someone to pick (see effects)
    quest: dict = field(default_factory=dict)  # Munchkin Quest: health, tokens, gold, hand counts, gear, room (see quest)

    def as_dict(self) -> dict:
        data = asdict(self)
        if self.quest:
            strength = quest.strength(data)
            return {**data, "strength": strength["total"], "strength_breakdown": strength["lines"],
                    "not_counting": strength["not_counting"], "pending": strength["pending"], "problems": []}
        strength = sheet.strength(data)
        return {**data, "strength": strength["total"], "strength_breakdown": strength["lines"],
                "not_counting": strength["not_counting"], "pending": strength["pending"],
                "problems": [{"rule": v.rule, "message": v.message, "template": v.template, "params": v.params}
                             for v in sheet.check(data)]}


@dataclass
class TableState:
    id: str
    name: str
    profile_id: str
    version: int = 0
    host: str | None = None
    winners: list = field(default_factory=list)  # everyone who won (a joint or shared victory has two)
    players: dict[str, Player] = field(default_factory=dict)
    combat: dict | None = None  # the fight on now (see companion/referee/fight.py)
    turn: dict | None = None  # {"seat": whose turn, "number": 1, 2, ...}
    settings: dict = field(default_factory=dict)  # the host's table settings (objection_seconds, options)
    board: dict | None = None  # Munchkin Quest's map: rooms, joins, monsters, dropped things, the Boss (see quest)

    @property
    def winner(self) -> str | None:
        """The first to win (the fighter of the winning fight), or ``None`` while the game runs."""
        return self.winners[0] if self.winners else None

    @property
    def profile(self):
        """The table's rule profile with the options chosen for this table."""
        return get_profile(self.profile_id, self.settings.get("options"))

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "profile_id": self.profile_id,
            "version": self.version,
            "host": self.host,
            "winner": self.winner,
            "winners": self.winners,
            "players": [asdict(p) for p in self.players.values()],
            "combat": self.combat,
            "turn": self.turn,
            "settings": self.settings,
            "board": self.board,
        }

    @classmethod
    def from_json(cls, data: dict) -> "TableState":
        players = {p["seat"]: Player(**p) for p in data["players"]}
        fields = {k: v for k, v in data.items() if k != "winner"}
        winners = data.get("winners") or ([data["winner"]] if data.get("winner") else [])  # older snapshots
        return cls(**{**fields, "players": players, "winners": winners})

    def public(self) -> dict:
        """The state as the API shows it, with each player's combat strength and the fight's ``verdict``
        (both totals with every line, who is winning, the rewards; ``None`` with no fight or no monster
        yet), as every phone shows it: a client need not work the sums out itself."""
        data = self.to_json()
        try:  # a fight the referee cannot judge must not hide the table (to undo what broke it)
            data["verdict"] = (quest_table.verdict(self) if self.profile.quest else fights.verdict(self)) \
                if self.combat else None
        except Refused:
            data["verdict"] = None
        data["profile"] = self.profile.as_dict()
        data["profile"]["objection_seconds"] = fights.objection_seconds(self)  # the host's setting, if any
        data["players"] = [p.as_dict() for p in self.players.values()]
        return data


@dataclass(frozen=True)
class Event:
    kind: str
    payload: dict


def clean_name(raw: object) -> str:
    """A player's name, normalised (NFC, single spaces) and checked for length and content."""
    if not isinstance(raw, str):
        raise Refused("A name is required.", status=400)
    name = " ".join(unicodedata.normalize("NFC", raw).split())
    if not name:
        raise Refused("A name is required.", status=400)
    if len(name) > NAME_MAX:
        raise Refused("A name can be at most {NAME_MAX} characters.", status=400, NAME_MAX=NAME_MAX)
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise Refused("A name cannot contain control characters.", status=400)
    return name


def clean_sex(raw: object) -> str:
    if raw not in SEXES:
        raise Refused("Sex must be one of: {names}.", status=400, names=', '.join(SEXES))
    return raw  # type: ignore[return-value]


# --- creating and joining -------------------------------------------------------------

def create(table_id: str, name: str, profile_id: str, options: object = None) -> Event:
    """The event that opens a table with a checked name, a known profile and its options."""
    name = clean_name(name)
    profile_id, options = _clean_profile(profile_id, options)
    return Event("table.created", {"id": table_id, "name": name, "profile": profile_id, "options": options})


def _clean_profile(profile_id: object, options: object) -> tuple[str, dict]:
    if not isinstance(profile_id, str):
        raise Refused("profile must be the id of a rule profile (text).", status=400)
    try:
        profile = get_profile(profile_id)
        return profile_id, clean_options(options, profile)
    except KeyError as exc:
        raise Refused(str(exc.args[0]), status=400) from None
    except OptionError as exc:
        raise Refused(exc.template, status=400, **exc.params) from None


def join(state: TableState, seat: str, name: object, sex: object) -> Event:
    """A new player takes a seat: the name must be free and a seat must be left."""
    name = clean_name(name)
    sex = clean_sex(sex)
    if len(state.players) >= MAX_SEATS:
        raise Refused("The table is full ({MAX_SEATS} seats).", rule="table.players", status=409, MAX_SEATS=MAX_SEATS)
    _check_name_free(state, name)
    return Event("player.joined", {"seat": seat, "name": name, "sex": sex, "host": state.host is None})


def _check_name_free(state: TableState, name: str) -> None:
    taken = {p.name.casefold() for p in state.players.values()}
    if name.casefold() in taken:
        raise Refused("Somebody at this table is already called {name}.", status=409, name=name)


# --- actions ----------------------------------------------------------------------------

def decide(state: TableState, actor: str, action: str, params: dict) -> Event:
    """Check ``action`` by the player in seat ``actor`` and return the event to record.

    ``params["override"]`` is the host overriding the refusal by that rule for this one
    action (a house ruling): the event then records the rule and who overrode it.
    """
    try:
        return _overridden(state, actor, action, params)
    except Refused as exc:  # cited in the book of the table's edition
        exc.profile_id = state.profile_id
        raise


def _overridden(state: TableState, actor: str, action: str, params: dict) -> Event:
    if actor not in state.players:
        raise Refused("You no longer have a seat at this table.", status=403)
    catalogue.action(action)
    override = params.get("override")
    if override is None:
        return _decide(state, actor, action, params)
    if actor != state.host:
        raise Refused("Only the host can override a rule (the owner of the game has the last word).",
                      rule="table.host", status=403)
    if override not in OVERRIDABLE:
        known = ", ".join(sorted(OVERRIDABLE))
        raise Refused("{override!r} is not a rule the host can override here; these can: {known}.", status=400, override=override, known=known)
    with waiving({override}) as used:
        event = _decide(state, actor, action, params)
    if not used:
        raise Refused("Nothing to override: “{title}” does not forbid this.", status=409, title=RULES[override].title)
    return Event(event.kind, {**event.payload, "override": {"rule": override, "waived": used, "by": actor}})


#: What may still be done once a claimed win stands (its objection window passed with nothing played):
#: take the rewards, or call the fight off without them.
AFTER_THE_WINDOW = ("combat.resolve", "combat.end")


def _check_win_stands(state: TableState, action: str, params: dict) -> None:
    """Once nobody objected within the window (1.6, Combat: "about 2.6 seconds"), the kill is real:
    nothing more is played until the rewards are taken (combat.objection). ``_now`` is the moment
    the action layer received the action; without it (a replay, a nested decision) there is no clock.
    The host may still let a late card in (a house ruling: the owner of the game has the last word);
    it changes the fight, so the win is claimed again."""
    now = params.get("_now")
    if now is None or action in AFTER_THE_WINDOW:
        return
    claim = fights.claim_standing(state)
    if not claim:
        return
    window = fights.objection_seconds(state)
    if float(now) - claim["at"] >= window:
        refuse("Nobody objected within {seconds:g} seconds: {name}'s win stands. Take the rewards first, "
               "then play on.", rule="combat.objection", status=409, seconds=window,
               name=state.players[state.combat["fighter"]].name)


def _decide(state: TableState, actor: str, action: str, params: dict) -> Event:
    declared = CATALOGUE[action]
    _check_win_stands(state, action, params)
    seat = catalogue.check(state, actor, declared, params)
    if seat is not None:
        params = {**params, "seat": seat}
    return declared.decide(state, actor, action, params)


# --- settings and the host ----------------------------------------------------------------------

catalogue.declare_profile_params(OPTIONS, TOP_LEVEL_RANGE, PROFILES)


@decides("settings.objection")
def _decide_objection(state: TableState, actor: str, action: str, params: dict) -> Event:
    seconds = params.get("seconds")
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 <= seconds <= 30:
        raise Refused("The objection window is 0 to 30 seconds.", status=400)
    before = fights.objection_seconds(state)
    return Event("settings.changed", {"key": "objection_seconds", "from": before, "to": float(seconds)})


@decides("settings.profile")
def _decide_profile(state: TableState, actor: str, action: str, params: dict) -> Event:
    """The host changes the edition or its options: never mid-fight, never under a player's level."""
    flat = {k: v for k, v in params.items() if k in OPTIONS}
    profile_id, options = _clean_profile(params.get("profile", state.profile_id), params.get("options", flat or None))
    before = {"profile": state.profile_id, "options": state.settings.get("options", {})}
    after = {"profile": profile_id, "options": options}
    if after == before:
        raise Refused("Those are already the table's rules.", status=409)
    if get_profile(profile_id).game != state.profile.game:
        raise Refused("A table's game (the card game or Munchkin Quest) is chosen when it is created.", status=409)
    _check_profile_fits(state, after)
    return Event("profile.changed", {"from": before, "to": after})


def _check_profile_fits(state: TableState, after: dict) -> None:
    """A new profile cannot start mid-fight or below a player's level (the game would be over)."""
    if state.combat:
        raise Refused("Finish the fight before changing the rules.", rule="combat.one", status=409)
    top = get_profile(after["profile"], after["options"]).top_level
    over = [p.name for p in state.players.values() if p.level >= top and p.seat not in state.winners]
    if over:
        raise Refused("{names} already at Level {top} or above: choose a higher top level.",
                      rule="game.won", status=409, names=', '.join(over), top=top)


def _check_game_running(state: TableState) -> None:
    if state.winner:
        winner = state.players[state.winner].name if state.winner in state.players else "Someone"
        raise Refused("The game is over: {winner} has won.", rule="game.won", status=409, winner=winner)


@decides("player.remove", "host.transfer")
def _decide_host_action(state: TableState, actor: str, action: str, params: dict) -> Event:
    seat = params.get("seat")
    if seat not in state.players:
        raise Refused("There is no such player at this table.", status=404)
    if seat == actor:
        if action == "player.remove":
            raise Refused("You cannot remove yourself; hand the host role to someone first.", status=409)
        raise Refused("You cannot hand the host role to yourself.", status=409)
    if action == "host.transfer":
        return Event("host.transferred", {"from": actor, "to": seat})
    return _removal(state, seat)


def _removal(state: TableState, seat: str) -> Event:
    """The event of ``seat`` leaving: the character, its place in the seating order, and the
    turn and fight as they were (its leaving may pass the turn or end the fight), so that
    undoing it puts everything back."""
    return Event("player.removed", {"player": asdict(state.players[seat]), "at": list(state.players).index(seat),
                                    "turn": state.turn, "combat": state.combat})


# --- levels -----------------------------------------------------------------------------------------

@decides("level.up", "level.down", "level.kill")
def _decide_level(state: TableState, actor: str, action: str, params: dict) -> Event:
    """Levels have causes (level.causes): a Go Up a Level card on anyone (the classic rules: on oneself);
    a level lost by a card's word on one's own character; a kill only through a fight the players won."""
    seat = params["seat"]
    if action == "level.kill":
        levels = params.get("levels", 1)
        if levels not in range(1, state.profile.max_kill_levels + 1):
            raise Refused("A kill gives 1 to {max_kill_levels} levels.", status=400, max_kill_levels=state.profile.max_kill_levels)
        refuse("A kill gives levels only through a fight the players won: open the fight, and the referee "
               "gives the levels when it is resolved.", rule="level.causes")
        return _level_event(state, seat, levels, "kill", actor)
    if action == "level.down":
        if seat != actor:
            refuse("Only {name} loses a level on their own; the host corrects a count as a house ruling.",
                   rule="level.causes", name=state.players[seat].name)
        return _level_event(state, seat, -1, "down", actor)
    card = params.get("card")
    if card == "divine_intervention":
        return _divine_intervention(state, actor)
    if seat != actor and not state.profile.level_card_on_anyone:
        # the classic books: whoever plays a Go Up a Level card goes up a level (#13); 1.6 and 1.71
        # let it be played on any player. The host may still correct a count as a house ruling.
        refuse("In these rules a Go Up a Level card raises the player who plays it, not someone else: {name} plays their own.",
               rule="level.causes", name=state.players[seat].name)
    record = params.get("_card")  # the Go Up a Level card, when the action layer found it by its id
    if record and record.get("not_for_highest"):
        _check_not_highest(state, seat, record)
    if record and record.get("discards_item"):
        return _level_with_discard(state, actor, seat, record)
    return _level_event(state, seat, 1, "up", actor, card)


def _level_with_discard(state: TableState, actor: str, seat: str, card: dict) -> Event:
    """A Go Up a Level card played only while a certain item is in play, which goes to the
    discards (Kill the Hireling: the card beats the rules, cards.override)."""
    wanted = card["discards_item"]
    held = next(((owner, item) for owner, p in state.players.items() for item in p.items
                 if item.get("card_id") == wanted), None)
    if held is None:
        raise Refused("{card} needs a {item} in play, and nobody has one.", rule="cards.override", status=409,
                      card=card["names"]["en"], item=wanted.replace("-", " ").title())
    owner, item = held
    ops = [{"op": "level", "seat": seat, "delta": 1, "cause": "up"},
           {"op": "remove", "seat": owner, "field": "items", "value": item}]
    return _changed(actor, "level.up", ops, said("{who} plays {card}: {name} goes up a level, and {owner}'s {item} "
                                                 "goes to the discards", card=_named(card), name=state.players[seat].name,
                                                 owner=state.players[owner].name, item=thing(item)), state)


def _divine_intervention(state: TableState, actor: str) -> Event:
    """Every living Cleric goes up a level at once, whoever plays it and whomever it names (the
    card; in the classic books it may win the game: German 2003, Stufe 10). A Cleric whom the
    level would take to the winning level where the edition does not allow it (1.6) stays where
    they are and the others still go up. Several Clerics reaching the winning level together
    would be a joint win, which the app does not record: that is refused, for the table to settle."""
    clerics = [s for s, p in state.players.items() if "cleric" in p.classes and not p.dead]
    if not clerics:
        raise Refused("Divine Intervention raises every Cleric, and no living character is a Cleric.",
                      rule="level.causes", status=409)
    verdicts, held = {}, None
    for seat in clerics:
        try:
            verdicts[seat] = change_level(state.profile, state.players[seat].level, 1, "divine_intervention")
        except Refused as exc:  # the winning level is not the card's to give here
            held = held or exc
    if not verdicts:
        raise held
    if len(verdicts) == 1 and held is None:
        (seat,) = verdicts
        return _level_event(state, seat, 1, "divine_intervention", actor)
    winners = [s for s, v in verdicts.items() if v.wins]
    if len(winners) > 1:
        raise Refused("Divine Intervention would take {names} to the winning level together: settle it at the table.",
                      rule="level.win-by-kill", status=409, names=", ".join(state.players[s].name for s in winners))
    ops = [{"op": "level", "seat": s, "delta": 1, "cause": "divine_intervention"} for s in verdicts]
    summary = said("{who} plays Divine Intervention: every Cleric goes up a level ({names})",
                   names=", ".join(state.players[s].name for s in verdicts))
    if held is not None:
        summary = said("{first}; {names} stays below the winning level, which only a kill gives", first=summary,
                       names=", ".join(state.players[s].name for s in clerics if s not in verdicts))
    event = _changed(actor, "level.up", ops, summary, state)
    if winners:
        event.payload["winner"] = winners[0]
    return event


def _level_event(state: TableState, seat: str, delta: int, cause: str, actor: str, card: str | None = None) -> Event:
    verdict = change_level(state.profile, state.players[seat].level, delta, cause)
    payload = {"seat": seat, "cause": cause, "delta": verdict.after - verdict.before, "from": verdict.before,
               "to": verdict.after, "wins": verdict.wins}
    if actor != seat:
        payload["by"] = actor
    if card:
        payload["card"] = card
    return Event("level.changed", payload)


@decides("sex.set")
def _decide_sex(state: TableState, actor: str, action: str, params: dict) -> Event:
    player = state.players[params["seat"]]
    sex = clean_sex(params.get("sex"))
    if sex == player.sex:
        raise Refused("{name} is already {word}.", status=409, name=player.name, word=sex)
    return Event("sex.changed", {"seat": player.seat, "from": player.sex, "to": sex})


# --- cards in play -------------------------------------------------------------------------------

def playable_now(card: dict, state: TableState, seat: str | None = None) -> bool:
    """Whether the player in ``seat`` can play ``card`` now: most cards at any time; enhancers
    and one-shots into a fight, except a one-shot that acts out of one too (:data:`ONE_SHOT_ACTS`);
    a monster into the fight, or to open one on its player's turn; a Transferral Potion to the fighter
    when the phase allows; Divine Intervention while a living character is a Cleric (whom it raises). A special card the
    referee does not play itself (Wandering Monster: the monster it brings is the card to play) is
    never offered, as card.play would refuse it."""
    kind = card["kind"]
    if kind == "one_shot" and any(card["one_shot"].get(key) for key in ONE_SHOT_ACTS):
        return True
    if kind == "one_shot" and card["one_shot"].get("on_escape_roll"):  # right after a roll it can act on
        return bool(escape_targets(state, card, seat))
    if kind == "one_shot" and card["one_shot"].get("transfers_fight"):  # the fighter's, on their own monsters
        return bool(state.combat) and state.combat["fighter"] == seat
    if kind in ("monster_enhancer", "one_shot"):
        return bool(state.combat)
    if kind == "monster":
        return bool(state.combat) or catalogue.allowed(state, seat, "combat.start")
    if card["id"] == "divine-intervention":  # every edition has it; only the classic one lets it give the win
        return any("cleric" in p.classes and not p.dead for p in state.players.values())
    return kind != "special" or SPECIAL_CARDS.get(card["id"]) is not None


#: The special cards the referee knows what to do with, as the action they become.
SPECIAL_CARDS = {"half-breed": "half_breed.add", "super-munchkin": "super_munchkin.add",
                 "divine-intervention": "level.up", "wandering-monster": None}


@decides("card.play")
def _decide_card(state: TableState, actor: str, action: str, params: dict) -> Event:
    """A card by its id (the action layer looks it up: ``params["_card"]``) does what its kind does."""
    card = params["_card"]
    kind, seat = card["kind"], params.get("seat") or actor
    named = played.named(card)
    if kind == "item":
        return decide(state, actor, "item.add", {"seat": seat, "item": {**named, **card["item"]}})
    if kind == "curse":
        return decide(state, actor, "curse.add", {"seat": seat, "curse": played.curse(card)})
    if kind in ("race", "class"):
        return decide(state, actor, f"{kind}.add", {"seat": seat, kind: card["id"], "_card": card})
    if kind == "go_up_a_level":
        return decide(state, actor, "level.up", {"seat": seat, "card": card["id"], "_card": card})
    if kind == "monster":
        monster = {**named, **card["monster"]}
        if state.combat:
            return decide(state, actor, "combat.monster.add", {"monster": monster})
        return decide(state, actor, "combat.start", {"monster": monster})
    if kind == "monster_enhancer":
        return decide(state, actor, "combat.enhancer.add", {"monster": params.get("monster"),
                                                            "enhancer": {**named, **card["enhancer"]}})
    if kind == "one_shot":
        acts = next((key for key in ONE_SHOT_ACTS if card["one_shot"].get(key)), None)
        if acts:
            return ONE_SHOT_ACTS[acts](state, actor, seat, card, params)
        if card["one_shot"].get("rids_of"):
            return _rid_of_monsters(state, actor, card, params)
        if card["one_shot"].get("transfers_fight"):
            return _transfer_fight(state, actor, seat, card, params)
        if card["one_shot"].get("on_escape_roll"):
            return _after_escape_roll(state, actor, seat, card, params)
        return decide(state, actor, "combat.oneshot.add", {"side": params.get("side") or "players",
                                                          "one_shot": played.one_shot(card), "role": params.get("role")})
    special = SPECIAL_CARDS.get(card["id"])
    if special == "level.up":
        return decide(state, actor, "level.up", {"seat": seat, "card": "divine_intervention"})
    if special:
        return decide(state, actor, special, {"seat": seat})
    raise Refused("{name}: the referee cannot play this card; play it at the table as its text says.", status=409,
                  name=card["names"]["en"])


def _check_not_highest(state: TableState, seat: str, card: dict) -> None:
    """A Go Up a Level card that is not for the leader (Whine at the GM): refused to the highest-level
    player and to anyone tied for it (the card beats the rules: cards.override)."""
    top = max(p.level for p in state.players.values())
    if state.players[seat].level == top:
        raise Refused("{card} is not for {name}: nobody has a higher level.", rule="cards.override", status=409,
                      card=card["names"]["en"], name=state.players[seat].name)


def _cancel_curse(state: TableState, actor: str, seat: str, card: dict, params: dict) -> Event:
    """A one-shot that cancels a curse (Wishing Ring), in or out of a fight: the curse ``uid`` on
    ``seat``'s sheet is removed (the only one there when ``uid`` is unsaid)."""
    player = state.players[seat]
    if not player.curses:
        raise Refused("{name} has no curse for {card} to cancel.", status=409, name=player.name, card=card["names"]["en"])
    uid = params.get("uid")
    if uid is None and len(player.curses) > 1:
        raise Refused("Which curse does {card} cancel? Give uid: one of {names}.", status=400, card=card["names"]["en"],
                      names=", ".join(f"{c['uid']} ({c['name']})" for c in player.curses))
    curse = player.curses[0] if uid is None else next((c for c in player.curses if c["uid"] == uid), None)
    if curse is None:
        raise Refused("There is no such curse on {name}'s sheet.", status=404, name=player.name)
    ops = [{"op": "remove", "seat": seat, "field": "curses", "value": curse}]
    return _changed(actor, "card.play", ops, said("{who} plays {card}: {curse} on {name} is cancelled", card=_named(card),
                                                  curse=thing(curse), name=player.name), state)


def _steal_levels(state: TableState, actor: str, seat: str, card: dict, params: dict) -> Event:
    """A one-shot that steals levels (Steal a Level), in or out of a fight: ``seat`` goes down, the
    player goes up as many — never below the floor, never to the winning level."""
    levels = card["one_shot"]["steal_levels"]
    if seat == actor:
        raise Refused("{card}: take the level from another player (seat).", status=400, card=card["names"]["en"])
    victim, thief = state.players[seat], state.players[actor]
    for p in (victim, thief):
        if p.dead:
            raise Refused("{name} is dead: no cards and no levels until the next player's turn begins.",
                          rule="death.state", status=409, name=p.name)
    if victim.level - levels < state.profile.min_level:
        raise Refused("{name} is at Level {level}: nobody goes below Level {min_level}.", rule="level.floor",
                      status=409, name=victim.name, level=victim.level, min_level=state.profile.min_level)
    if thief.level + levels >= state.profile.top_level:
        raise Refused("{card} cannot take {name} to Level {top_level}: the winning level takes a kill.",
                      rule="level.win-by-kill", status=409, card=card["names"]["en"], name=thief.name,
                      top_level=state.profile.top_level)
    ops = [{"op": "level", "seat": seat, "delta": -levels, "cause": "down"},
           {"op": "level", "seat": actor, "delta": levels, "cause": "up"}]
    template = (N_("{who} plays {card}: takes a level from {name}") if levels == 1
                else N_("{who} plays {card}: takes {n} levels from {name}"))
    return _changed(actor, "card.play", ops, said(template, card=_named(card), name=victim.name, n=levels), state)


def _draw_treasures(state: TableState, actor: str, seat: str, card: dict, params: dict) -> Event:
    """A one-shot that only draws cards (Hoard!): nothing to track, the history tells the table."""
    return _changed(actor, "card.play", [], said("{who} plays {card}: draw {n} Treasures at the table (face up if "
                                                 "{card} was drawn face up)", card=_named(card),
                                                 n=card["one_shot"]["draw_treasures"]), state)


def _check_for_players(card: dict, params: dict) -> None:
    """A one-shot that acts on the fight by its card (getting rid of monsters, transferring the fight,
    a die just rolled to run away) is for its player's side only (combat.one-shots)."""
    if params.get("side") == "monsters":
        raise Refused("{card} helps its player's side only, never the monsters.", rule="combat.one-shots", status=409,
                      card=card["names"]["en"])


def _rid_of_monsters(state: TableState, actor: str, card: dict, params: dict) -> Event:
    """A one-shot that sends monsters out of the fight without a kill (the card beats the rules:
    cards.override). ``rids_of: one`` — the monster ``params["monster"]`` (the only one left when
    unsaid) goes and its treasure stays for the players, no level (Polymorph Potion, Magic Lamp);
    ``all`` — every monster goes with its treasure and the fight is over, no level, no treasure
    (Friendship Potion). With several monsters left and none named, there is no such monster (404). ``own_turn``: only the player whose turn it is plays it (Magic Lamp).
    Played by its card these were a "+0" one-shot that left the monsters fighting."""
    shot = card["one_shot"]
    if not state.combat:
        raise Refused("No fight is on: the player whose turn it is starts one.", rule="turn.own", status=409)
    _check_for_players(card, params)
    if shot.get("own_turn") and state.turn and state.turn["seat"] != actor:
        raise Refused(catalogue.TURN_OWN, rule="turn.own", status=409, name=state.players[state.turn["seat"]].name)
    if shot["rids_of"] == "all":
        return _fight_event(state, None, [], said("{who} plays {card}: every monster leaves the fight with its "
                                                  "treasure; no level, no treasure", card=_named(card)), None, actor)
    left = [m for m in state.combat["monsters"] if not m["eliminated"]]
    uid = params.get("monster") or (left[0]["uid"] if len(left) == 1 else None)  # else: no such monster
    return decide(state, actor, "combat.eliminate", {"monster": uid, "_card": card})


def _transfer_fight(state: TableState, actor: str, seat: str, card: dict, params: dict) -> Event:
    """A one-shot that makes another player fight the fighter's monsters (``transfers_fight``:
    Transferral Potion; the card beats the rules, cards.override). Played by the fighter on their own
    fight (the card's "your monster"); ``seat`` is the player who fights in their place — the helper
    (who then fights alone) or anyone else living (the helper then leaves: the help was for the old
    fighter). It stays the turn of the player whose turn it was; the new fighter takes the fight's
    levels and treasure, or runs away and takes its Bad Stuff (our reading: :func:`fight.with_new_fighter`)."""
    fight = state.combat
    if not fight:
        raise Refused("No fight is on: the player whose turn it is starts one.", rule="turn.own", status=409)
    _check_for_players(card, params)
    if actor != fight["fighter"]:
        raise Refused("{card} is played by the fighter on their own monsters: {name} is fighting.",
                      rule="cards.override", status=409, card=card["names"]["en"],
                      name=state.players[fight["fighter"]].name)
    if seat == actor:
        raise Refused("{card}: name the player who must fight in your place (seat).", status=400,
                      card=card["names"]["en"])
    if state.players[seat].dead:
        raise Refused("{name} is dead: no cards and no levels until the next player's turn begins.",
                      rule="death.state", status=409, name=state.players[seat].name)
    after = copy.deepcopy(fight)
    after["claim"] = None
    fights.with_new_fighter(after, seat)
    summary = said("{who} plays {card}: {name} must fight in {name2}'s place", card=_named(card),
                   name=state.players[seat].name, name2=state.players[actor].name)
    gone = fight["helper"] if fight["helper"] not in (None, seat) else None
    if gone:
        summary = said("{first}, and {name} no longer helps", first=summary, name=state.players[gone].name)
    return _fight_event(state, after, [], summary, None, actor)


#: What each card on a die just rolled to run away needs, and what it says when there is none.
ESCAPE_NEEDS = {
    "escape": (lambda e: e["rolled"] and not e["escaped"],
               N_("{card} is for a failed roll to run away: {name} failed none.")),
    "set": (lambda e: e["rolled"], N_("{card} changes a die {name} just rolled to run away, and {name} rolled none.")),
    "again": (lambda e: e["rolled"] and e["escaped"],
              N_("{card} is for an escape by a roll: {name} escaped no monster by a die.")),
}


def just_escaped(state: TableState) -> dict | None:
    """The escape just rolled, while a card may still act on its dice (nothing else has happened since)."""
    record = (state.turn or {}).get("escape")
    return record if record and record["version"] == state.version and not state.combat else None


def escape_targets(state: TableState, card: dict, seat: str | None) -> list[dict]:
    """The run-away entries of the escape just rolled that ``card`` (``on_escape_roll``) may act on when
    the player in ``seat`` plays it: their own dice for an Invisibility Potion or a Loaded Die, anyone's
    escape by a die for a Flask of Glue."""
    record = just_escaped(state)
    kind = card["one_shot"]["on_escape_roll"]
    if not record:
        return []
    wanted = ESCAPE_NEEDS[kind][0]
    return [e for e in record["entries"] if wanted(e) and (kind == "again" or record["fight"][e["role"]] == seat)]


def _after_escape_roll(state: TableState, actor: str, seat: str, card: dict, params: dict) -> Event:
    """A one-shot played on a die just rolled to run away (``on_escape_roll``; the card beats the rules,
    cards.override): ``escape`` — the player who failed a roll escapes anyway (Invisibility Potion);
    ``set`` — the player's own die becomes ``die`` (Loaded Die, a die the app rolled too); ``again`` —
    someone who escaped by a die rolls again for that monster (Flask of Glue: ``die``, or the app rolls,
    and then only the host takes it back). ``role`` says whose roll (unsaid: the player's own; for a
    Flask of Glue the only one who escaped by a die) and ``monster`` which (unsaid: the only one). The
    escape is run again with the card, and what the first run did to the characters is taken back."""
    kind, name = card["one_shot"]["on_escape_roll"], card["names"]["en"]
    record = just_escaped(state)
    if record is None:
        raise Refused("{card} acts on a die just rolled to run away, and none was: play it right after the roll.",
                      rule="combat.run-away", status=409, card=name)
    _check_for_players(card, params)
    fight = record["fight"]
    fled = {role: fight[role] for role in ("fighter", "helper") if fight[role]}
    wanted, none = ESCAPE_NEEDS[kind]
    role = params.get("role")
    if role in (None, "") and kind == "again":
        roles = list(dict.fromkeys(e["role"] for e in record["entries"] if wanted(e)))
        role = roles[0] if len(roles) == 1 else "fighter" if not roles else None
        if role is None:
            raise Refused("{card}: say whose roll (role: fighter or helper).", status=400, card=name)
    elif role in (None, ""):
        role = next((r for r, s in fled.items() if s == actor), "fighter")
    if role not in fled:
        raise Refused("{card}: role is the fighter or the helper who ran away.", status=400, card=name)
    if kind != "again" and fled[role] != actor:
        raise Refused("{card} is played by the player who rolled the die: {name}.", rule="combat.run-away",
                      status=409, card=name, name=state.players[fled[role]].name)
    entries = [e for e in record["entries"] if e["role"] == role and wanted(e)
               and params.get("monster") in (None, "", e["uid"])]
    if not entries:
        raise Refused(none, rule="combat.run-away", status=409, card=name, name=state.players[fled[role]].name)
    if len({e["uid"] for e in entries}) > 1:
        raise Refused("Which monster? {card} acts on one roll: give monster, one of {names}.", status=400, card=name,
                      names=", ".join(f"{e['uid']} ({e['monster']})" for e in entries))
    entry = entries[0]  # (a Mate's copy shares its monster's uid: the first roll against them)
    amend = {"kind": kind, "entry": entry["entry"], "card": _named(card)}
    app_die = False
    if kind != "escape":
        die = params.get("die")
        if die in (None, "") and kind == "again":  # the app rolls the new die
            die, app_die = secrets.randbelow(6) + 1, True
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
            raise Refused("{card}: die is the number the die shows, 1 to 6.", status=400, card=name)
        amend["die"] = die
    before = copy.deepcopy(state)  # the table as it was before the escape, to run it again with the card
    _apply_all(before, invert(record["ops"]))
    before.combat = copy.deepcopy(fight)
    again = {**record["params"], "_escape_cards": record["cards"] + [amend]}
    _, flee_ops, fled_said, _ = fights.decide(before, record["actor"], "combat.flee", again)
    rerun = _fight_event(before, None, flee_ops, fled_said, None, record["actor"])
    new_ops = [op for op in rerun.payload["ops"] if op["op"] not in TABLE_OPS]
    results, _, order = fights.escape_results(before, before.combat, again)
    kept = {**record, "version": state.version + 1, "cards": again["_escape_cards"], "ops": new_ops,
            "entries": fights.escape_entries(results, order)}
    ops = invert(record["ops"]) + new_ops + [{"op": "turn", "from": state.turn, "to": {**state.turn, "escape": kept}}]
    ops = ops + _choices_left_empty(state, ops)
    _check_ops(state, ops, frozenset({"items.big"}))
    summary = said("{who} plays {card} on the escape roll: {parts}", card=_named(card),
                   parts=fled_said["p"].get("parts") or [])  # the escape as it now went, its dice in the order rolled
    event = Event("table.changed", {"actor": actor, "action": "card.play", "summary": summary, "ops": ops})
    if app_die:
        event.payload["app_dice"] = True  # the app's die: not taken back but by the host (inverse)
    return event


def _named(card: dict) -> dict:
    return thing(played.named(card))


#: What a one-shot does besides a bonus, by its card field: playable in a fight or out of one.
ONE_SHOT_ACTS = {"cancels_curse": _cancel_curse, "steal_levels": _steal_levels, "draw_treasures": _draw_treasures}


@decides("dice.roll")
def _decide_dice(state: TableState, actor: str, action: str, params: dict) -> Event:
    count, sides = params.get("count", 1), params.get("sides", 6)
    rolls = [secrets.randbelow(sides) + 1 for _ in range(count)]
    return Event("dice.rolled", {"actor": actor, "sides": sides, "rolls": rolls,
                                 "summary": said("{who} rolls {rolls} (d{sides})", rolls=" + ".join(map(str, rolls))
                                                 + (f" = {sum(rolls)}" if count > 1 else ""), sides=sides)})


# --- the turn --------------------------------------------------------------------------------------

def _changed(actor: str, action: str, ops: list[dict], summary, state: TableState, allow: frozenset = frozenset()) -> Event:
    """The event of a change made of ``ops`` (characters, turn, seat order), checked like any sheet change."""
    ops = ops + (_curses_lost_with(state, ops) if action != "undo" else [])
    ops = ops + _choices_left_empty(state, ops)
    _check_ops(state, ops, allow)
    return Event("table.changed", {"actor": actor, "action": action, "summary": summary, "ops": ops})


@decides("turn.first")
def _decide_first(state: TableState, actor: str, action: str, params: dict) -> Event:
    if not turn.can_choose_first(state):
        raise Refused("Who begins is decided before the first door of the game.", rule="turn.first", status=409)
    chosen = params.get("seat")
    if chosen is not None and params.get("roll"):
        raise Refused("Roll for it or choose the player, not both.", status=400)
    if chosen is None and not params.get("roll"):
        raise Refused("Say who begins (seat), or roll for it (roll).", status=400)
    if chosen is not None:
        if chosen not in state.players:
            raise Refused("There is no such player at this table.", status=404)
        summary = said("{who} chooses {name} to begin (a ruling)", name=state.players[chosen].name)
    else:
        chosen, rounds = turn.first_by_roll(list(state.players))
        rolls = "; ".join(", ".join(f"{state.players[s].name} {r}" for s, r in rolls) for rolls in rounds)
        summary = said("Everyone rolls for who begins ({rolls}): {name} begins", rolls=rolls, name=state.players[chosen].name)
    ops = [{"op": "turn", "from": state.turn, "to": {"seat": chosen, "number": 1, "phase": "start"}}]
    event = _changed(actor, action, ops, summary, state)
    if not params.get("roll"):
        return Event(event.kind, {**event.payload, "ruling": {"rule": "turn.first", "by": actor}})
    return event


@decides("seats.order")
def _decide_order(state: TableState, actor: str, action: str, params: dict) -> Event:
    order = params.get("order") or []
    if sorted(order) != sorted(state.players):
        raise Refused("order must name every seat of the table once.", status=400)
    if order == list(state.players):
        raise Refused("That is already the seat order.", status=409)
    names = ", ".join(state.players[s].name for s in order)
    return _changed(actor, action, [{"op": "order", "from": list(state.players), "to": order}],
                    said("{who} sets the seat order: {names}", names=names), state)


@decides("turn.door")
def _decide_door(state: TableState, actor: str, action: str, params: dict) -> Event:
    """Kick open the door (turn.door): a monster is fought at once, a curse acts on the opener."""
    found = params.get("found")
    if found is None:
        raise Refused("found must be one of: monster, curse, other.", status=400)
    turn.require(state, "door")
    if found == "monster":
        return _open_fight(state, actor, params, said("{who} kicks open the door: a monster!"), "door:monster")
    ops = turn.moved(state, f"door:{found}")
    if found == "other":
        return _changed(actor, action, ops, said("{who} kicks open the door and takes the card into the hand"), state)
    if state.players[actor].dead:
        raise Refused("{name} is dead: no cards and no levels until the next player's turn begins.",
                      rule="death.state", status=409, name=state.players[actor].name)
    curse = params.get("curse") or {}
    shield = next((i for i in state.players[actor].items if i.get("in_use") and i.get("door_curse_immune")
                   and not sheet.restriction_problem(asdict(state.players[actor]), i)), None)
    if shield:  # the card beats the rules (cards.override): Sandals of Protection
        return _changed(actor, action, ops, said("{who} kicks open the door: a curse, {curse}, which {item} keeps off",
                                                 curse=thing({"name": str(curse.get("name") or "?"),
                                                              "card_id": curse.get("card_id")}),
                                                 item=thing(shield)), state)
    return _curse_event(state, actor, actor, curse, ops, action, "{who} kicks open the door: a curse! {curse}")


@decides("combat.start", "turn.trouble")
def _decide_fight_start(state: TableState, actor: str, action: str, params: dict) -> Event:
    """One fight a turn (turn.door): the door's monster, or a monster from the hand after an empty door."""
    if state.players[actor].dead:
        raise Refused("{name} is dead: no cards and no levels until the next player's turn begins.",
                      rule="death.state", status=409, name=state.players[actor].name)
    now = turn.phase(state)
    turn.require(state, "trouble" if action == "turn.trouble" else "fight")
    if now == "door":
        return _open_fight(state, actor, params, said("{who} looks for trouble"), "fight")
    return _open_fight(state, actor, params, said("{who} fights a monster"), "fight")


def _open_fight(state: TableState, actor: str, params: dict, summary: dict, step: str) -> Event:
    fight = {**fights.new_fight(actor), "opened_in": turn.phase(state)}  # where a fight called off empty goes back
    monster = params.get("monster")
    ops = []
    if monster:
        fight["monsters"].append(fights.monster_of(monster, f"f{state.version + 1}", state.profile.monster_min_level))
        summary = said("{first} — {monster} (level {level})", first=summary, monster=thing(fight["monsters"][0]),
                       level=fight["monsters"][0]["level"])
        ops, lines = fights.before_fight(state, fight["monsters"][0], actor)  # the card beats the rules (Tongue Demon)
        if lines:
            summary = said("{first}; {parts}", first=summary, parts=lines)
    return _fight_event(state, fight, turn.moved(state, step) + ops, summary, None, actor)


@decides("turn.loot")
def _decide_loot(state: TableState, actor: str, action: str, params: dict) -> Event:
    turn.require(state, "loot")
    deck = "treasure" if state.profile.loot_draws_treasure else "door"
    return _changed(actor, action, turn.moved(state, "loot"),
                    said("{who} loots the room: draws a face-down {word} card", word=deck), state)


#: The history's Charity sentences, by case, for several cards (``False``) and for one (``True``).
CHARITY = {
    "discard": {False: N_("Charity: {n} cards over the limit go to the discards"),
                True: N_("Charity: 1 card over the limit goes to the discards")},
    "tied": {False: N_("Charity: {n} cards over the limit go to {names}, tied for the lowest level, as evenly as "
                       "possible; {name} chooses who gets the bigger shares"),
             True: N_("Charity: 1 card over the limit goes to {names}, tied for the lowest level; {name} chooses who "
                      "gets it")},
    "shares": {False: N_("Charity: {n} cards over the limit go to {shares}"),
               True: N_("Charity: 1 card over the limit goes to {shares}")},
}


@decides("turn.end")
def _decide_turn_end(state: TableState, actor: str, action: str, params: dict) -> Event:
    """The turn passes on (turn.door, charity): the dead come back as the next player's turn begins."""
    if state.profile.quest:
        return quest_table.turn_end(state, actor, action, params)
    current = state.turn["seat"] if state.turn else actor
    dead = state.turn is not None and state.players[current].dead
    if not dead or state.combat:  # the dead have no door to open and no hand to give (death.state)
        turn.require(state, "end")
    parts = []
    hand = params.get("hand")
    if hand is not None and not dead:
        verdict = sheet.charity({s: asdict(p) for s, p in state.players.items()}, current, hand, state.profile)
        one = verdict["excess"] == 1  # a sentence of its own for a single card, as "+1 level" has
        if verdict["discard"]:
            parts.append(said(CHARITY["discard"][one], n=verdict["excess"]))
        elif verdict.get("giver_chooses_bigger"):  # the giver picks who gets the bigger shares (1.6, Charity)
            names = ", ".join(state.players[s["seat"]].name for s in verdict["shares"])
            parts.append(said(CHARITY["tied"][one], n=verdict["excess"], names=names, name=state.players[current].name))
        elif verdict["excess"]:
            shares = ", ".join(f"{state.players[s['seat']].name} {s['cards']}" for s in verdict["shares"])
            parts.append(said(CHARITY["shares"][one], n=verdict["excess"], shares=shares))
    ops, revived = turn.passed(state, current, state.profile)
    number = ops[0]["to"]["number"]
    summary = said("{name}'s turn (turn {number})", name=state.players[ops[0]["to"]["seat"]].name, number=number)
    if parts or revived:
        summary = said("{first}; {parts}", first=summary, parts=parts + revived)
    return Event("turn.passed", {"from": current, "to": ops[0]["to"]["seat"], "number": number, "actor": actor,
                                 "ops": ops, "summary": summary})


# --- the fight ---------------------------------------------------------------------------------------

def in_fight(state: TableState) -> set[str]:
    """The seats taking part in the current fight (fighter and helper)."""
    if not state.combat:
        return set()
    return {state.combat["fighter"]} | ({state.combat["helper"]} if state.combat["helper"] else set())


def _check_not_fighting(state: TableState, *seats: str | None) -> None:
    for seat in seats:
        if seat in in_fight(state):
            refuse("{name} is in a fight: items cannot be played, swapped, traded or sold until it is over.", rule="items.not-in-combat", name=state.players[seat].name)


#: What only the player whose turn it is may do, as each refusal says it.
OWN_TURN = {"sell": N_("It is {name}'s turn: you sell items only on your own turn.")}


def _check_own_turn(state: TableState, seat: str, what: str) -> None:
    if state.turn and state.turn["seat"] != seat:
        refuse(OWN_TURN[what], rule="turn.own", name=state.players[state.turn['seat']].name)


@decides(*(name for name in CATALOGUE if name.startswith("combat.") and name != "combat.start"))
def _decide_combat(state: TableState, actor: str, action: str, params: dict) -> Event:
    if action == "combat.end" and actor not in (state.combat["fighter"], state.host):  # either game
        raise Refused("Only the fighter or the host can call the fight off.", rule="table.host", status=403)
    if state.profile.quest:
        return quest_table.fight_action(state, actor, action, params)
    if action == "combat.end":
        _check_not_losing(state)
        if not state.combat["monsters"]:  # opened by mistake: no combat was had, the turn goes back
            return _fight_event(state, None, turn.back_to(state, state.combat.get("opened_in")),
                                said("{who} calls the fight off"), None, actor, fought=False)
        return _fight_event(state, None, [], said("{who} calls the fight off"), None, actor)
    if action in ("combat.help.accept",) and state.players[actor].dead:
        raise Refused("{name} is dead: no cards and no levels until the next player's turn begins.",
                      rule="death.state", status=409, name=state.players[actor].name)
    after, ops, summary, winners = fights.decide(state, actor, action, params)
    event = _fight_event(state, after, ops, summary, winners, actor)
    fleeing = {"fighter"} | ({"helper"} if state.combat["helper"] else set())
    fleeing -= {role for shot in state.combat["one_shots"] for role in shot.get("escape", ())}  # no die (Instant Wall)
    if action == "combat.flee" and fleeing & set(params.get("_app_dice") or ()):
        event.payload["app_dice"] = True  # the app's die: not taken back but by the host (inverse)
    if action == "combat.flee":
        _keep_escape(state, actor, params, event)
    return event


def _keep_escape(state: TableState, actor: str, params: dict, event: Event) -> None:
    """Keep the escape just rolled on the turn (``turn["escape"]``), for a card played on its dice right
    after (``on_escape_roll``: Invisibility Potion, Loaded Die, Flask of Glue): the fight as it was, the
    flee's dice and choices, the cards played on them since, what it did to the characters (``ops``, to
    take back when a card changes it) and its entries in short. It is the turn's until anything else
    happens (``version``)."""
    if not state.turn or not state.combat["monsters"]:
        return
    results, _, fled = fights.escape_results(state, state.combat, params)
    ops = event.payload["ops"]
    record = {"version": state.version + 1, "actor": actor, "fight": state.combat, "cards": [],
              "params": {k: v for k, v in params.items() if not k.startswith("_") and k != "override"},
              "ops": [op for op in ops if op["op"] not in TABLE_OPS], "entries": fights.escape_entries(results, fled)}
    moved = next((op for op in ops if op["op"] == "turn"), None)
    if moved is None:
        moved = {"op": "turn", "from": state.turn, "to": dict(state.turn)}
        ops.append(moved)
    moved["to"] = {**moved["to"], "escape": record}


def _check_not_losing(state: TableState) -> None:
    """A fight the players are losing ends by running away (1.6, Running Away), not by calling it
    off, which would spare them the Bad Stuff; a card that ends it (a Friendship Potion) is told by
    getting rid of the monsters, and the host may still overrule (a house ruling). Monsters whose
    cards let the fighter by (``may_pass``: the Stoned Golem) may be left without a fight."""
    judged = fights.verdict(state)
    left = [m for m in state.combat["monsters"] if not m["eliminated"]]
    fighter = asdict(state.players[state.combat["fighter"]])
    if left and all(combat.lets_by(m, fighter) for m in left):  # the card beats the rules (cards.override)
        return
    if judged and judged["outcome"] == "lose":
        refuse("The monsters are winning ({monsters} to {players}): run away, or get rid of the monsters if a card "
               "ends the fight.", rule="combat.run-away", monsters=judged["monsters"]["total"],
               players=judged["players"]["total"])


def _fight_event(state: TableState, after: dict | None, ops: list[dict], summary: dict, winners: list[str] | None,
                 actor: str, fought: bool = True) -> Event:
    """A change of the fight; when a fight that was ``fought`` ends, the turn moves on and "next
    combat" curses of those who fought are spent (curses.effects) — not when one was called off
    before any monster came in (``ops`` then take the turn back)."""
    if after is None and state.combat and fought:
        ops = ops + turn.moved(state, "fight over") + _spent_curses(state, ops)
    ops = ops + _curses_lost_with(state, ops)
    ops = ops + _choices_left_empty(state, ops)
    _check_ops(state, ops)
    return Event("fight.changed", {"actor": actor, "summary": summary, "before": state.combat, "after": after,
                                   "ops": ops, "winner": winners[0] if winners else None, "winners": winners or []})


def _spent_curses(state: TableState, ops: list[dict]) -> list[dict]:
    """Remove the curses that waited for this fight (every effect ``until: next_combat``)."""
    removed = {op["value"]["uid"] for op in ops if op["op"] == "remove" and op["field"] == "curses"}
    out = []
    for seat in in_fight(state):
        for curse in state.players[seat].curses:
            effects_ = curse.get("effects") or []
            if effects_ and curse["uid"] not in removed and all(e.get("until") == "next_combat" for e in effects_):
                out.append({"op": "remove", "seat": seat, "field": "curses", "value": curse})
    return out


# --- curses and choices ------------------------------------------------------------------------------

@decides("curse.add")
def _decide_curse(state: TableState, actor: str, action: str, params: dict) -> Event:
    """A curse on any player, by anyone (curses.effects)."""
    return _curse_event(state, actor, params["seat"], params.get("curse") or {}, [], action,
                        "{who} curses {name}: {curse}" if params["seat"] != actor else "{who} is cursed: {curse}")


def _curse_event(state: TableState, actor: str, seat: str, raw: dict, ops: list[dict], action: str, template: str) -> Event:
    name = str(raw.get("name") or "").strip()
    if not name or len(name) > 60:
        raise Refused("A curse needs a name of at most 60 characters.", status=400)
    effects_ = raw.get("effects") or []
    problem = schema.part_problem(("curse", "effects"), effects_)
    if problem:
        raise Refused("A curse's effects must be as the card schema describes them: {problem}", status=400,
                      problem=problem)
    uid = f"u{state.version + 1}"
    curse = {"uid": uid, "name": name, **({"card_id": raw["card_id"]} if raw.get("card_id") else {})}
    characters = {s: asdict(p) for s, p in state.players.items()}
    _apply_ops_to(characters, ops, state.profile)
    outcome = effects.perform(characters, seat, effects_, state.profile)
    ops = ops + outcome.ops
    if outcome.lasting or not effects_:  # a curse typed in by name only stays until removed
        ops.append({"op": "add", "seat": seat, "field": "curses", "value": {**curse, "effects": outcome.lasting}})
    ops += _choice_ops(state, seat, actor, outcome.choices, curse, uid)
    parts = list(outcome.lines) + [said("{card}: {text}", card=thing(curse), text=_instruction(raw, e))
                                   for e in outcome.instructions]
    if outcome.dies:
        ops += _death(state, seat, characters, ops)
        parts.append(fights.death_said(state, seat))
    summary = said(template, name=state.players[seat].name, curse=thing(curse))
    if parts:
        summary = said("{first}: {parts}", first=summary, parts=parts)
    if outcome.dies and seat in in_fight(state):
        return _left_the_fight(state, seat, actor, ops, summary)
    return _changed(actor, action, ops, summary, state, frozenset({"items.big"}))


def _instruction(card: dict, effect: dict) -> str:
    """What the table does by hand for an effect the app cannot perform: the card's text."""
    return effect.get("text") or card.get("text") or card.get("name", "")


def _choice_ops(state: TableState, seat: str, caster: str, choices: list[dict], source: dict, uid: str) -> list[dict]:
    out = []
    for index, choice in enumerate(choices):
        chooser = caster if choice.get("chooser") == "caster" else seat
        out.append({"op": "add", "seat": seat, "field": "choices",
                    "value": {**choice, "uid": f"{uid}-{index}", "source": thing(source), "chooser": chooser,
                              "rule": "curses.effects"}})
    return out


def _death(state: TableState, seat: str, characters: dict, ops_before: list[dict]) -> list[dict]:
    """Death as the edition says (death.keep, death.state), after ``ops_before``."""
    after = copy.deepcopy(characters)
    _apply_ops_to(after, [op for op in ops_before if op.get("seat") == seat and op["op"] != "turn"], state.profile)
    return sheet.death_ops(after[seat], seat, state.profile)


@decides("choice.make")
def _decide_choice(state: TableState, actor: str, action: str, params: dict) -> Event:
    found = next(((s, c) for s, p in state.players.items() for c in p.choices if c["uid"] == params.get("uid")), None)
    if found is None:
        raise Refused("There is no such choice to make.", status=404)
    seat, choice = found
    if actor not in (choice["chooser"], state.host):
        raise Refused("{name} makes this choice.", rule=choice.get("rule"), status=403,
                      name=state.players[choice["chooser"]].name)
    characters = {s: asdict(p) for s, p in state.players.items()}
    ops, lines = effects.choose(characters, seat, choice, list(params.get("picks") or []), state.profile)
    ops = [{"op": "remove", "seat": seat, "field": "choices", "value": choice}] + ops
    summary = said("{who} chooses for {name} ({card}): {parts}", name=state.players[seat].name,
                   card=choice["source"], parts=lines)
    return _changed(actor, action, ops, summary, state, frozenset({"items.big"}))


# --- the character sheet -------------------------------------------------------------------

@decides(*(name for name in CATALOGUE if name.split(".")[0] in
           ("race", "class", "half_breed", "super_munchkin", "item", "character") or name == "curse.remove"))
def _decide_sheet(state: TableState, actor: str, action: str, params: dict) -> Event:
    seat = params["seat"]
    if action in NOT_IN_COMBAT:
        _check_not_fighting(state, seat, params.get("to"))
    if action in ITEM_LEAVES:
        uids = (params.get("uids") or []) if action == "item.sell" else [params.get("uid")]
        effects.check_not_chosen_over(state, params.get("target") if action == "item.steal" else seat, uids)
    p = asdict(state.players[seat])
    uid = f"u{state.version + 1}"
    profile = state.profile
    if action in ("race.add", "race.remove", "class.add", "class.remove"):
        field_name = "races" if action.startswith("race") else "classes"
        value = params.get("race" if field_name == "races" else "class")
        ops = sheet.race_ops(p, seat, field_name, value, action.endswith(".add"), from_card="_card" in params)
        summary = said("{who} plays {word}", word=value) if action.endswith(".add") else \
            said("{who} discards {word}", word=value)
    elif action.startswith(("half_breed.", "super_munchkin.")):
        flag = action.split(".")[0]
        on = action.endswith(".add")
        ops = sheet.flag_ops(p, seat, flag, on)
        summary = said("{who} plays {word}", word=flag) if on else said("{who} discards {word}", word=flag)
    elif action == "item.add":
        item = sheet.new_item(params.get("item") or {}, uid)
        ops = sheet.add_item_ops(p, seat, item)
        if ops[0]["value"]["in_use"]:
            summary = said("{who} plays {item} (in use)", item=thing(item))
        else:
            summary = said("{who} plays {item} (carried)", item=thing(item))
    elif action == "item.use":
        ops = sheet.use_item_ops(p, seat, params.get("uid"))
        summary = said("{who} uses {item}", item=thing(sheet.item_of(p, params.get("uid"))))
    elif action == "item.carry":
        item = sheet.item_of(p, params.get("uid"))
        if not item.get("in_use"):
            raise Refused("{name} is already only carried.", status=409, name=item['name'])
        ops = [{"op": "patch", "seat": seat, "field": "items", "uid": item["uid"], "key": "in_use", "from": True, "to": False}]
        summary = said("{who} carries {item} without using it", item=thing(item))
    elif action == "item.remove":
        item = sheet.item_of(p, params.get("uid"))
        ops = [{"op": "remove", "seat": seat, "field": "items", "value": item}]
        summary = said("{who} loses {item}", item=thing(item))
    elif action == "item.sell":
        _check_own_turn(state, seat, "sell")
        turn_number = state.turn["number"] if state.turn else 0
        if params.get("double") and p.get("double_sale_turn") == turn_number and turn_number:
            refuse("A Halfling sells only one item a turn at double price.", rule="halfling.double")
        ops, gold, levels = sheet.sell_ops(p, seat, params.get("uids") or [], profile, params.get("double"))
        if params.get("double"):
            ops.append({"op": "set", "seat": seat, "field": "double_sale_turn", "from": p.get("double_sale_turn", 0),
                        "to": turn_number})
        if levels == 1:
            summary = said("{who} sells items worth {gold:,} gold for 1 level", gold=gold)
        else:
            summary = said("{who} sells items worth {gold:,} gold for {levels} levels", gold=gold, levels=levels)
    elif action == "item.give":
        item = sheet.item_of(p, params.get("uid"))
        to = params.get("to")
        if to not in state.players or to == seat:
            raise Refused("Give it to another player at this table.", status=400)
        if state.players[to].dead:
            raise Refused("{name} is dead: no cards and no levels until the next player's turn begins.",
                          rule="death.state", status=409, name=state.players[to].name)
        receiver = asdict(state.players[to])
        moved = {**item, "in_use": False}
        ops = [{"op": "remove", "seat": seat, "field": "items", "value": item}] + sheet.add_item_ops(receiver, to, moved)
        summary = said("{who} gives {item} to {name}", item=thing(item), name=state.players[to].name)
    elif action == "item.steal":
        ops, summary = _theft(state, seat, p, params)
    elif action == "curse.remove":
        curse = next((c for c in p.get("curses", []) if c["uid"] == params.get("uid")), None)
        if curse is None:
            raise Refused("There is no such curse on this character.", status=404)
        ops = [{"op": "remove", "seat": seat, "field": "curses", "value": curse}]
        summary = said("{who} is rid of {curse}", curse=thing(curse))
    else:  # character.die: allowed with nothing in play too (death.state)
        ops = sheet.death_ops(p, seat, profile)
        picks = fights.looting_picks(state, seat)
        door, treasure = profile.death_draw
        if "curses" in profile.death_keeps:
            summary = said("{who} dies and loses every item; looting order: {order}; "
                           "draws {door} Door and {treasure} Treasure cards next turn",
                           order=picks, door=door, treasure=treasure)
        else:
            summary = said("{who} dies and loses every item and every curse; looting order: {order}; "
                           "draws {door} Door and {treasure} Treasure cards next turn",
                           order=picks, door=door, treasure=treasure)
    allow = frozenset({"items.big"}) if action == "race.remove" else frozenset()
    if action == "character.die" and seat in in_fight(state):
        return _left_the_fight(state, seat, actor, ops, summary)
    return _sheet_event(state, seat, action, ops, summary, allow)


#: The sheet actions by which an item leaves its owner's play (sold, given, lost, stolen).
ITEM_LEAVES = ("item.remove", "item.sell", "item.give", "item.steal")


def _left_the_fight(state: TableState, seat: str, actor: str, ops: list[dict], summary: dict) -> Event:
    """A character who dies in the middle of a fight leaves it (death.state: the dead get no levels):
    a dead helper adds nothing more and gains nothing — a claim made with them is claimed again —
    and with the fighter dead the fight is over, without rewards."""
    fight = state.combat
    if seat == fight["fighter"]:
        return _fight_event(state, None, ops, summary, None, actor)
    after = copy.deepcopy(fight)
    fights.without_helper(after)  # the backstabs on them too: they were left, and no verdict could be made
    after["claim"] = None
    return _fight_event(state, after, ops, summary, None, actor)


def _theft(state: TableState, seat: str, p: dict, params: dict) -> tuple[list[dict], dict]:
    """A Thief's theft (thief.theft): a card discarded (the players' business), a die rolled —
    the player's own, or the app's when none is given. On 4 or more the small item goes into
    the Thief's play (in use where it fits, as a gift does); on less the Thief is caught and
    loses a level (none below the lowest). Never while the Thief or the victim is in a
    fight, which begins when the monster is shown."""
    if "thief" not in p["classes"]:
        raise Refused("{name} is not a Thief: only a Thief steals.", rule="thief.theft", name=p["name"])
    target = params.get("target")
    if target not in state.players or target == seat:
        raise Refused("Steal from another player at this table.", status=400)
    victim = state.players[target]
    for who in (seat, target):
        if who in in_fight(state):
            raise Refused("{name} is in a fight: a Thief steals only when neither is fighting.",
                          rule="thief.theft", name=state.players[who].name)
    item = sheet.item_of(asdict(victim), params.get("uid"))
    if not sheet.stealable(item):
        raise Refused("{item} is Big: a Thief steals only small items.", rule="thief.theft", item=item["name"])
    rolled = params.get("die") or secrets.randbelow(6) + 1
    modifier = sheet.die_bonus(p)  # a curse on every roll (Chicken on Your Head: -1)
    die = f"{rolled}{modifier:+d}".replace("-", "−") if modifier else str(rolled)
    if rolled + modifier >= THEFT_SUCCEEDS:
        ops = [{"op": "remove", "seat": target, "field": "items", "value": item}] + sheet.add_item_ops(
            p, seat, {**item, "in_use": False})
        return ops, said("{who} steals {item} from {name} (die: {die})", item=thing(item), name=victim.name, die=die)
    if p["level"] > state.profile.min_level:
        return ([{"op": "level", "seat": seat, "delta": -1, "cause": "down"}],
                said("{who} is caught stealing from {name} (die: {die}) and loses a level", name=victim.name, die=die))
    return [], said("{who} is caught stealing from {name} (die: {die}); no level to lose", name=victim.name, die=die)


def _sheet_event(state: TableState, seat: str, action: str, ops: list[dict], summary: dict | str,
                 allow: frozenset = frozenset()) -> Event:
    """The event for ``ops``, refused if they leave any character breaking a new rule."""
    ops = ops + (_curses_lost_with(state, ops) if action != "undo" else [])
    ops = ops + _choices_left_empty(state, ops)
    _check_ops(state, ops, allow)
    return Event("sheet.changed", {"seat": seat, "action": action, "summary": summary, "ops": ops})


def _curses_lost_with(state: TableState, ops: list[dict]) -> list[dict]:
    """The lasting curses that go with an item (an effect's ``lost_with``: Chicken on Your Head and
    the headgear) when ``ops`` take the item in use in that slot from the cursed character — lost,
    sold, given, stolen or taken by Bad Stuff. An undo puts both back; undoing an item's arrival
    is a correction, not a loss, and takes no curse."""
    removed = {op["value"]["uid"] for op in ops if op["op"] == "remove" and op.get("field") == "curses"}
    out = []
    for op in ops:
        if op["op"] != "remove" or op.get("field", "items") != "items" or not op["value"].get("in_use") or op["seat"] not in state.players:
            continue
        for curse in state.players[op["seat"]].curses:
            if curse["uid"] not in removed and any(e.get("lost_with") == op["value"].get("slot") for e in curse.get("effects", [])):
                removed.add(curse["uid"])
                out.append({"op": "remove", "seat": op["seat"], "field": "curses", "value": curse})
    return out


def _choices_left_empty(state: TableState, ops: list[dict]) -> list[dict]:
    """The pending choices of which item goes that ``ops`` leave with none of their items — gone
    some other way (another curse, an undo): nothing is left to choose, so the choice goes too (in
    the same event, so an undo brings it back with the items)."""
    after = {s: asdict(p) for s, p in state.players.items()}
    _apply_ops_to(after, ops, state.profile)
    out = []
    for seat in {op["seat"] for op in ops if "seat" in op} & set(after):
        left = {item["uid"] for item in after[seat]["items"]}
        for choice in after[seat]["choices"]:
            if choice.get("effect", {}).get("type") == "lose_item" and not left & set(choice["options"]):
                out.append({"op": "remove", "seat": seat, "field": "choices", "value": choice})
    return out


def _check_ops(state: TableState, ops: list[dict], allow: frozenset = frozenset()) -> None:
    """Refuse ``ops`` if they leave any character breaking a rule it did not break before."""
    before = {s: asdict(p) for s, p in state.players.items()}
    after = copy.deepcopy(before)
    _apply_ops_to(after, ops, state.profile)
    for touched in {op["seat"] for op in ops if "seat" in op}:
        sheet.refuse_new_violations(before[touched], after[touched], allow)
        was, now = before[touched], after[touched]
        if was.get("dead") and now.get("dead") and (was["level"] != now["level"] or len(now["items"]) > len(was["items"])):
            raise Refused("{name} is dead: no cards and no levels until the next player's turn begins.",
                          rule="death.state", status=409, name=was["name"])


def _apply_ops_to(characters: dict[str, dict], ops: list[dict], profile) -> None:
    """The character operations of ``ops`` on ``characters`` (the turn and seat order are the table's)."""
    sheet.apply_ops(characters, [op for op in ops if op["op"] not in TABLE_OPS], profile)


# --- undo --------------------------------------------------------------------------------

UNDOABLE = {"level.changed", "sex.changed", "host.transferred", "player.removed", "player.restored", "sheet.changed",
            "fight.changed", "turn.passed", "settings.changed", "profile.changed", "table.changed"}
#: Operations on the table rather than on a character: the turn and the seat order.
TABLE_OPS = ("turn", "order", "board")


def dice_kept(state: TableState, seat: str, event: Event) -> bool:
    """Whether ``event`` is an escape the app's die decided that ``seat`` may not take back: only
    the host does, or undo would be a second roll."""
    return bool(event.payload.get("app_dice")) and seat != state.host


def may_undo(state: TableState, seat: str | None, author: str | None) -> bool:
    """Who may undo a change: its author or the host, while seated (the one home of this rule)."""
    return seat is not None and seat in state.players and seat in (state.host, author)


def invert(ops: list[dict]) -> list[dict]:
    """The operations that undo ``ops`` (in reverse order): the table's and the characters'."""
    out = []
    for op in reversed(ops):
        if op["op"] in TABLE_OPS:
            out.append({**op, "from": op["to"], "to": op["from"]})
        else:
            out.extend(sheet.invert_ops([op]))
    return out


#: The mark of a Munchkin Quest fight whose helper can no longer leave (quest.help: a helper cannot back
#: out). Undoing the helper's joining is refused once the fight has moved on (dice, cards, monsters…);
#: undoing those later changes puts the fight back as it was but leaves this mark, so undoing them
#: first does not reopen the way out.
HELPER_BOUND = "helper_bound"


def _same_fight(a: dict | None, b: dict | None) -> bool:
    """Whether two states of the fight are the same, the helper's mark aside."""
    def bare(fight):
        return {k: v for k, v in fight.items() if k != HELPER_BOUND} if fight else fight
    return bare(a) == bare(b)


def _helper_joined(p: dict) -> bool:
    """Whether the fight change ``p`` is a Quest helper joining the fight (combat.help.accept)."""
    before, after = p.get("before"), p.get("after")
    return bool(before and after and after.get("game") == "munchkin-quest" and not before.get("helper")
                and after.get("helper") and after["helper"] == p.get("actor"))


def _restored_fight(p: dict) -> dict | None:
    """The fight an undo of the change ``p`` goes back to: the one before it, marked when a Quest helper
    was in it and stayed through the change undone (the fight had moved on with them in it)."""
    before, after = p.get("before"), p.get("after")
    if before and before.get("game") == "munchkin-quest" and before.get("helper") and \
            (after is None or after.get("helper") == before["helper"]):
        return {**before, HELPER_BOUND: True}
    return before


def _seat_name(state: TableState, seat: str) -> str:
    return state.players[seat].name if seat in state.players else seat


def inverse(state: TableState, event: Event, actor: str | None = None) -> Event:
    """The event that undoes ``event`` in today's state, checked by the same rules; a refusal
    cites the book of the table's edition, as :func:`decide`'s do. ``actor`` is who undoes it
    (the store checks they may: :func:`may_undo`): an escape the app's die decided is taken back
    by the host alone, or undo would be a free second roll."""
    try:
        if actor is not None and dice_kept(state, actor, event):
            kind = event.payload["app_dice"]
            if kind in quest_table.APP_DICE_RULES:  # a Quest fight's dice (quest_table._app_rolled), a search's d6
                raise Refused(quest_table.APP_DIE_KEPT, rule=quest_table.APP_DICE_RULES[kind], status=403)
            raise Refused("The app's die decided that escape: only the host takes it back, or undo would be a "
                          "second roll.", rule="quest.flee" if state.profile.quest else "combat.run-away", status=403)
        return _inverse(state, event)
    except Refused as exc:
        exc.profile_id = state.profile_id
        raise


def _inverse(state: TableState, event: Event) -> Event:
    p = event.payload
    if event.kind not in UNDOABLE:
        raise Refused("This kind of change cannot be undone.", status=409)
    if event.kind == "level.changed":
        if p["seat"] not in state.players:
            raise Refused("That player has left the table.", status=409)
        if state.winner and not p.get("wins"):
            _check_game_running(state)
        player = state.players[p["seat"]]
        if player.dead:
            raise Refused("{name} is dead: no levels until the next player's turn begins.", rule="death.state",
                          status=409, name=player.name)
        verdict = change_level(state.profile, player.level, -p["delta"], "undo")
        return Event(
            "level.changed",
            {"seat": p["seat"], "cause": "undo", "delta": -p["delta"], "from": verdict.before,
             "to": verdict.after, "wins": False, "clears_win": bool(p.get("wins"))},
        )
    if event.kind == "sex.changed":
        player = state.players.get(p["seat"])
        if player is None:
            raise Refused("That player has left the table.", status=409)
        _check_game_running(state)
        if player.sex != p["to"]:
            raise Refused("{name}'s sex has changed again since; undo that first.", status=409, name=player.name)
        return Event("sex.changed", {"seat": p["seat"], "from": p["to"], "to": p["from"]})
    if event.kind == "settings.changed":
        return Event("settings.changed", {"key": p["key"], "from": p["to"], "to": p["from"]})
    if event.kind == "profile.changed":
        now = {"profile": state.profile_id, "options": state.settings.get("options", {})}
        if now != p["to"]:
            raise Refused("The rules have changed again since; undo that first.", status=409)
        _check_profile_fits(state, p["from"])
        return Event("profile.changed", {"from": p["to"], "to": p["from"]})
    _check_same_escape(state, p.get("ops") or [])
    if event.kind in ("turn.passed", "table.changed"):
        ops = p["ops"] if "ops" in p else [{"op": "turn", "from": {"seat": p["from"], "number": p["number"] - 1},
                                            "to": {"seat": p["to"], "number": p["number"]}}]  # turns passed before phases
        # (a change of nothing — a curse whose effects found nothing to take — is undone as nothing)
        if any(op["op"] == "turn" for op in ops):
            if not _same_turn(state.turn, next(op["to"] for op in ops if op["op"] == "turn")):
                raise Refused("The turn has moved on since; it cannot go back.", status=409)
            if state.combat:
                raise Refused("Finish the fight first.", rule="turn.own", status=409)
        missing = {op["seat"] for op in ops if "seat" in op} - set(state.players)
        if missing or any(seat not in state.players for op in ops if op["op"] == "turn" for seat in [op["from"]["seat"]]):
            raise Refused("A player this change touched has left the table.", status=409)
        if not (state.winner and p.get("winner")):
            _check_game_running(state)
        _check_still_new(state, ops)
        summary = p.get("summary") or said("{name}'s turn (turn {number})", name=p["to"], number=p["number"])
        event = _changed(p.get("actor") or p["to"], "undo", _escape_again(state, invert(ops)), undone(summary), state,
                         frozenset({"items.big"}))
        if p.get("winner"):
            event.payload["clears_win"] = True
        return event
    if event.kind == "fight.changed":
        moved_on = not state.combat or state.combat.get(HELPER_BOUND) or not _same_fight(state.combat, p["after"])
        if _helper_joined(p) and moved_on:
            raise Refused("{name} has joined the fight and it has moved on since: a helper cannot back out.",
                          rule="quest.help", status=409, name=_seat_name(state, p["after"]["helper"]))
        if not _same_fight(state.combat, p["after"]):
            raise Refused("The fight has changed since; undo the later changes first.", status=409)
        missing = {op["seat"] for op in p["ops"] if "seat" in op} - set(state.players)
        if missing:
            raise Refused("A player this change touched has left the table.", status=409)
        if state.winner and not p.get("winner"):
            _check_game_running(state)
        ops = invert(p["ops"])
        ops = ops + _choices_left_empty(state, ops)
        if any(op["op"] == "turn" for op in ops) and not _same_turn(state.turn, next(op["from"] for op in ops if op["op"] == "turn")):
            raise Refused("The turn has moved on since; it cannot go back.", status=409)
        characters = {s: asdict(pl) for s, pl in state.players.items()}
        _apply_ops_to(characters, ops, state.profile)
        return Event("fight.changed", {"actor": p["actor"], "summary": undone(p["summary"]), "before": state.combat,
                                       "after": _restored_fight(p), "ops": ops, "winner": None, "winners": [],
                                       "clears_win": bool(p.get("winner"))})
    if event.kind == "sheet.changed":
        missing = {op["seat"] for op in p["ops"]} - set(state.players)
        if missing:
            raise Refused("A player this change touched has left the table.", status=409)
        _check_game_running(state)
        return _sheet_event(state, p["seat"], "undo", invert(p["ops"]), undone(p["summary"]))
    if event.kind == "host.transferred":
        if state.host != p["to"] or p["from"] not in state.players:
            raise Refused("The host role has moved on since; it cannot go back.", status=409)
        return Event("host.transferred", {"from": p["to"], "to": p["from"]})
    if event.kind == "player.removed":
        player = p["player"]
        if len(state.players) >= MAX_SEATS:
            raise Refused("The table is full ({MAX_SEATS} seats).", rule="table.players", status=409, MAX_SEATS=MAX_SEATS)
        _check_name_free(state, player["name"])
        restored = {"player": player}
        if "at" in p:  # back in the same seat; the turn and the fight as they were, unless they moved on since
            restored["at"] = p["at"]
            before = copy.deepcopy(state)
            before.players = _seated(state.players, Player(**player), p["at"])
            before.turn, before.combat = p["turn"], p["combat"]
            left = apply(before, event)
            if left.turn == state.turn and left.combat == state.combat:
                restored.update(turn=p["turn"], combat=p["combat"])
        return Event("player.restored", restored)
    # player.restored
    seat = p["player"]["seat"]
    if seat not in state.players or seat == state.host:
        raise Refused("That player cannot be removed now.", status=409)
    return _removal(state, seat)


def _escape_again(state: TableState, ops: list[dict]) -> list[dict]:
    """``ops`` with the escape they bring back (undoing a card played on its dice) open again to cards:
    just rolled as of the undo, so another card may be played on it instead."""
    return [{**op, "to": {**op["to"], "escape": {**op["to"]["escape"], "version": state.version + 1}}}
            if op["op"] == "turn" and (op["to"] or {}).get("escape") else op for op in ops]


def _check_same_escape(state: TableState, ops: list[dict]) -> None:
    """An escape a card changed since (Invisibility Potion, Loaded Die, Flask of Glue) is taken back after
    that card: undoing the escape first would take back what the card's run did not do."""
    kept = next((op["to"]["escape"] for op in ops if op["op"] == "turn" and (op["to"] or {}).get("escape")), None)
    now = (state.turn or {}).get("escape")
    if kept and (not now or {**now, "version": 0} != {**kept, "version": 0}):  # (reopened by an undo: a new version)
        raise Refused("A card has changed that escape since; undo it first.", rule="combat.run-away", status=409)


def _check_still_new(state: TableState, ops: list[dict]) -> None:
    """Undoing a turn that brought the dead back as new characters makes them dead again: refused
    once a new character has played (an item, a level, a race…) — it would be dead with what it
    did since. The coming back records the sheet it came back with (``turn.passed``)."""
    for op in ops:
        if op["op"] == "set" and op.get("field") == "dead" and not op["to"] and "sheet" in op:
            player = state.players[op["seat"]]
            if turn.sheet_digest(player) != op["sheet"]:
                raise Refused("{name}'s new character has played since coming back: undo that first.", rule="death.state",
                              status=409, name=player.name)


def _seated(players: dict, player: Player, at: int) -> dict:
    """The seating ``players`` with ``player`` back at place ``at`` (turn order is seating order)."""
    order = list(players.items())
    order.insert(min(at, len(order)), (player.seat, player))
    return dict(order)


# --- folding events -----------------------------------------------------------------------

def apply(state: TableState | None, event: Event) -> TableState:
    """The state after ``event``; the input state is not modified.

    An event the host decided with an override is folded with the same rules waived, so
    the house ruling holds on replay too.
    """
    p = event.payload
    if event.kind == "table.created":
        settings = {"options": p["options"]} if p.get("options") else {}
        board = quest.new_board() if get_profile(p["profile"]).quest else None
        return TableState(id=p["id"], name=p["name"], profile_id=p["profile"], version=1, settings=settings, board=board)
    assert state is not None, "the first event must be table.created"
    with waiving((p.get("override") or {}).get("waived", ())):
        return _apply(state, event)


def _apply(state: TableState, event: Event) -> TableState:
    p = event.payload
    new = copy.deepcopy(state)
    new.version += 1
    if event.kind == "player.joined":
        numbers = state.profile.quest
        new.players[p["seat"]] = Player(seat=p["seat"], name=p["name"], sex=p["sex"],
                                        quest=quest.new_character(numbers) if numbers else {})
        if p["host"]:
            new.host = p["seat"]
            new.turn = {"seat": p["seat"], "number": 1, "phase": "start"}  # the host starts, unless turn.first says otherwise
    elif event.kind == "level.changed":
        new.players[p["seat"]].level = p["to"]
        if p.get("wins"):
            new.winners = [p["seat"]]
        if p.get("clears_win"):
            new.winners = []
    elif event.kind == "sex.changed":
        new.players[p["seat"]].sex = p["to"]
    elif event.kind == "host.transferred":
        new.host = p["to"]
    elif event.kind == "player.removed":
        del new.players[p["player"]["seat"]]
        gone = p["player"]["seat"]
        if new.combat and new.combat["fighter"] == gone:
            new.combat = None
        elif new.combat:  # a helper or an invited player who leaves is no longer part of the fight
            if new.combat["helper"] == gone:
                new.combat = copy.deepcopy(new.combat)
                fights.without_helper(new.combat)
            if new.combat["invited"] == gone:
                new.combat = {**new.combat, "invited": None}
        if new.turn and new.turn["seat"] == gone and new.players:
            new.turn = {"seat": turn.next_seat(list(state.players), gone), "number": new.turn["number"] + 1,
                        "phase": "start"}
    elif event.kind == "player.restored":  # (restored at the end of the seating before it was recorded)
        new.players = _seated(new.players, Player(**p["player"]), p.get("at", len(new.players)))
        if "turn" in p:
            new.turn, new.combat = p["turn"], p["combat"]
    elif event.kind == "turn.passed" and "ops" not in p:  # recorded before turns had phases
        new.turn = {"seat": p["to"], "number": p["number"]}
    elif event.kind in ("turn.passed", "table.changed"):
        _apply_all(new, p["ops"])
        if p.get("winner"):  # Divine Intervention raising several Clerics, one to the winning level
            new.winners = [p["winner"]]
        if p.get("clears_win"):
            new.winners = []
    elif event.kind == "dice.rolled":
        pass
    elif event.kind == "settings.changed":
        new.settings = {**new.settings, p["key"]: p["to"]}
    elif event.kind == "profile.changed":
        new.profile_id = p["to"]["profile"]
        new.settings = {**{k: v for k, v in new.settings.items() if k != "options"},
                        **({"options": p["to"]["options"]} if p["to"]["options"] else {})}
    elif event.kind == "fight.changed":
        new.combat = copy.deepcopy(p["after"])
        _apply_all(new, p["ops"])
        if p.get("winner"):
            new.winners = list(p.get("winners") or [p["winner"]])
        if p.get("clears_win"):
            new.winners = []
    elif event.kind == "sheet.changed":
        _apply_all(new, p["ops"])
    else:
        raise ValueError(f"unknown event kind {event.kind!r}")
    return new


def _same_turn(now: dict | None, expected: dict | None) -> bool:
    """Whether the turn is still the one an operation expects (turns recorded before phases had none)."""
    if not now or not expected:
        return now == expected
    return (now["seat"], now["number"], now.get("phase", "start")) == \
        (expected["seat"], expected["number"], expected.get("phase", now.get("phase", "start")))


def _apply_all(new: TableState, ops: list[dict]) -> None:
    """Perform ``ops`` on ``new`` (a copy being built): the turn, the seat order, the characters."""
    for op in ops:
        if op["op"] == "turn":
            if not _same_turn(new.turn, op["from"]):
                raise Refused("The turn has moved on since.", status=409)
            new.turn = copy.deepcopy(op["to"])
        elif op["op"] == "order":
            if list(new.players) != op["from"]:
                raise Refused("The seat order has changed since.", status=409)
            new.players = {seat: new.players[seat] for seat in op["to"]}
        elif op["op"] == "board":
            quest.apply_board_op(new.board, op)
    touched = {op["seat"] for op in ops if op["op"] not in TABLE_OPS}
    if touched:
        characters = {seat: asdict(player) for seat, player in new.players.items()}
        _apply_ops_to(characters, ops, new.profile)
        for seat in touched:
            new.players[seat] = Player(**characters[seat])


def replay(events: list[Event]) -> TableState:
    """Rebuild a table's state from all its events, in order."""
    state = None
    for event in events:
        state = apply(state, event)
    if state is None:
        raise ValueError("no events")
    return state


# Munchkin Quest's decisions (the board game shares the catalogue, the events and undo): registered by
# quest_table, which builds on this module, imported last.
from . import quest_table  # noqa: E402
