"""The table's state, the actions players take on it, and the events those become.

The table is event-sourced: :func:`decide` checks an action against the rules and the
current :class:`TableState` and answers the :class:`Event` to record (or raises
:class:`Refused`); :func:`apply` folds an event into the state. :func:`replay` rebuilds a
state from its events, which is how the store proves its snapshot after a crash.
:func:`inverse` turns a recorded event into the compensating event that undoes it,
checked by the same rules, so undo can never produce an illegal state.
"""
from __future__ import annotations

import copy
import unicodedata
from dataclasses import asdict, dataclass, field

from . import fight as fights
from . import sheet
from .levels import change_level
from .history import said, thing, undone
from .profiles import OptionError, clean_options, get_profile
from .rules import N_, OVERRIDABLE, RULES, Refused, refuse, waiving

SEXES = ("male", "female")
MAX_SEATS = 8
NAME_MAX = 24

#: Actions a seated player can ask for, with the parameters each takes.
ACTIONS = {
    "level.up": "Go up a level (a card, a sale, or a correction).",
    "level.down": "Go down a level (a curse, Bad Stuff, or a correction).",
    "level.kill": "Killed a monster: gain 1 or 2 levels; the only way to reach the top level.",
    "sex.set": "Change the character's sex.",
    "player.remove": "Host only: remove a player from the table.",
    "host.transfer": "Host only: hand the host role to another player.",
    "race.add": "Play a race card (elf, dwarf, halfling); a second one needs Half-Breed.",
    "race.remove": "Discard a race (allowed at any time).",
    "class.add": "Play a class card (warrior, wizard, cleric, thief); a second one needs Super Munchkin.",
    "class.remove": "Discard a class (allowed at any time).",
    "half_breed.add": "Play Half-Breed on your race.",
    "half_breed.remove": "Discard Half-Breed.",
    "super_munchkin.add": "Play Super Munchkin on your class.",
    "super_munchkin.remove": "Discard Super Munchkin.",
    "item.add": "Put an item into play (from the card database or typed in); in use if it fits, else carried.",
    "item.use": "Put a carried item to use; what it displaces is turned to carried.",
    "item.carry": "Turn an item sideways: carried, not in use.",
    "item.remove": "An item leaves play (lost to a curse or Bad Stuff, discarded for a power, ...).",
    "item.sell": "Sell items for levels: 1,000 gold a level, no change, never the winning level.",
    "item.give": "Give an item to another player (it goes into their play).",
    "curse.add": "A curse with a lasting effect stays on the character.",
    "curse.remove": "A lasting curse is removed.",
    "character.die": "Death: lose every item; level, race, class and curses stay.",
    "combat.start": "A monster: your fight begins, on every phone (your turn only).",
    "combat.end": "Call the fight off without rewards (the fighter or the host).",
    "combat.monster.add": "Add a monster to the fight (from the door, or a Wandering Monster).",
    "combat.enhancer.add": "Play a monster enhancer on one monster of the fight (Mate copies it all).",
    "combat.oneshot.add": "Play a one-shot for the players or for the monsters.",
    "combat.help.ask": "The fighter asks one player for help, noting what was promised.",
    "combat.help.accept": "The player asked accepts to help.",
    "combat.help.decline": "Refuse to help, or stop helping.",
    "combat.power": "Fighter or helper: Berserking (Warrior) or Turning (Cleric), 1 to 3 cards.",
    "combat.backstab": "A Thief backstabs the fighter or the helper (-2).",
    "combat.eliminate": "A monster leaves the fight without being killed (treasure, no level).",
    "combat.claim": "Claim the win: the objection window opens.",
    "combat.resolve": "After the objection window: take the levels and treasures.",
    "combat.flee": "Run away: a roll per monster per fleeing player (the app's die or the real one).",
    "turn.end": "End your turn (after Charity): the next player's turn begins (the player or the host).",
    "settings.objection": "Host only: seconds to wait for objections before rewards (the books say about 2.6).",
    "settings.profile": "Host only: change the edition (rule profile) and its options; recorded in the history.",
}
#: Sheet actions refused for whoever is in a fight (1.6 Items; When to Play Cards).
NOT_IN_COMBAT = {"item.add", "item.use", "item.carry", "item.give", "item.sell"}
SHEET_ACTIONS = {name for name in ACTIONS if name.split(".")[0] in
                 ("race", "class", "half_breed", "super_munchkin", "item", "curse", "character")}


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

    def as_dict(self) -> dict:
        data = asdict(self)
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
        }

    @classmethod
    def from_json(cls, data: dict) -> "TableState":
        players = {p["seat"]: Player(**p) for p in data["players"]}
        fields = {k: v for k, v in data.items() if k != "winner"}
        winners = data.get("winners") or ([data["winner"]] if data.get("winner") else [])  # older snapshots
        return cls(**{**fields, "players": players, "winners": winners})

    def public(self) -> dict:
        """The state as the API shows it, with each player's combat strength."""
        data = self.to_json()
        data["profile"] = self.profile.as_dict()
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
    if actor not in state.players:
        raise Refused("You no longer have a seat at this table.", status=403)
    if action not in ACTIONS:
        raise Refused("Unknown action {action!r}; known: {names}.", status=400, action=action, names=', '.join(ACTIONS))
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


def _decide(state: TableState, actor: str, action: str, params: dict) -> Event:
    if action in ("player.remove", "host.transfer"):
        return _decide_host_action(state, actor, action, params)
    if action.startswith("combat."):
        return _decide_combat(state, actor, action, params)
    if action == "turn.end":
        return _decide_turn_end(state, actor)
    if action == "settings.objection":
        if actor != state.host:
            raise Refused("Only the host changes the table's settings.", rule="table.host", status=403)
        seconds = params.get("seconds")
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 <= seconds <= 30:
            raise Refused("The objection window is 0 to 30 seconds.", status=400)
        before = state.settings.get("objection_seconds", state.profile.objection_seconds)
        return Event("settings.changed", {"key": "objection_seconds", "from": before, "to": float(seconds)})
    if action == "settings.profile":
        return _decide_profile(state, actor, params)
    seat = _target(state, actor, params)
    _check_game_running(state)
    if action in NOT_IN_COMBAT:
        _check_not_fighting(state, seat, params.get("to"))
    if action in SHEET_ACTIONS:
        return _decide_sheet(state, seat, action, params)
    player = state.players[seat]
    if action == "sex.set":
        sex = clean_sex(params.get("sex"))
        if sex == player.sex:
            raise Refused("{name} is already {word}.", status=409, name=player.name, word=sex)
        return Event("sex.changed", {"seat": seat, "from": player.sex, "to": sex})
    if action == "level.up" and params.get("card") is not None:
        if params["card"] != "divine_intervention":
            raise Refused("card may only be \"divine_intervention\" (the card the classic rules let reach the top).",
                          status=400)
        return _level_event(state, seat, 1, "divine_intervention")
    if action == "level.kill":
        levels = params.get("levels", 1)
        if levels not in range(1, state.profile.max_kill_levels + 1):
            raise Refused("A kill gives 1 to {max_kill_levels} levels.", status=400, max_kill_levels=state.profile.max_kill_levels)
        return _level_event(state, seat, levels, "kill")
    delta = 1 if action == "level.up" else -1
    return _level_event(state, seat, delta, action.removeprefix("level."))


def _target(state: TableState, actor: str, params: dict) -> str:
    seat = params.get("seat") or actor
    if seat not in state.players:
        raise Refused("There is no such player at this table.", status=404)
    if seat != actor and actor != state.host:
        raise Refused("Only the host can change another player's character.", rule="table.host", status=403)
    return seat


def _decide_profile(state: TableState, actor: str, params: dict) -> Event:
    """The host changes the edition or its options: never mid-fight, never under a player's level."""
    if actor != state.host:
        raise Refused("Only the host changes the table's rules.", rule="table.host", status=403)
    profile_id, options = _clean_profile(params.get("profile", state.profile_id), params.get("options"))
    before = {"profile": state.profile_id, "options": state.settings.get("options", {})}
    after = {"profile": profile_id, "options": options}
    if after == before:
        raise Refused("Those are already the table's rules.", status=409)
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


def _level_event(state: TableState, seat: str, delta: int, cause: str) -> Event:
    verdict = change_level(state.profile, state.players[seat].level, delta, cause)
    return Event(
        "level.changed",
        {
            "seat": seat,
            "cause": cause,
            "delta": verdict.after - verdict.before,
            "from": verdict.before,
            "to": verdict.after,
            "wins": verdict.wins,
        },
    )


def _decide_host_action(state: TableState, actor: str, action: str, params: dict) -> Event:
    if actor != state.host:
        raise Refused("Only the host can do that.", rule="table.host", status=403)
    seat = params.get("seat")
    if seat not in state.players:
        raise Refused("There is no such player at this table.", status=404)
    if seat == actor:
        if action == "player.remove":
            raise Refused("You cannot remove yourself; hand the host role to someone first.", status=409)
        raise Refused("You cannot hand the host role to yourself.", status=409)
    if action == "host.transfer":
        return Event("host.transferred", {"from": actor, "to": seat})
    return Event("player.removed", {"player": asdict(state.players[seat])})


# --- the fight (the frame the combat issue fills in) ------------------------------------------

def playable_now(card: dict, state: TableState) -> bool:
    """Whether a player at ``state`` can play ``card`` now: items and lasting curses onto the
    sheet at any time; monsters, enhancers and one-shots while the table has a fight."""
    kind = card["kind"]
    return (kind == "item" or (kind == "curse" and card["curse"]["timing"] == "persistent")
            or (bool(state.combat) and kind in ("monster", "monster_enhancer", "one_shot")))


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
OWN_TURN = {"fight": N_("It is {name}'s turn: you fight a monster from the door only on your own turn."),
            "sell": N_("It is {name}'s turn: you sell items only on your own turn.")}


def _check_own_turn(state: TableState, seat: str, what: str) -> None:
    if state.turn and state.turn["seat"] != seat:
        refuse(OWN_TURN[what], rule="turn.own", name=state.players[state.turn['seat']].name)


def next_seat(state: TableState, after: str) -> str:
    """The seat after ``after`` in joining order (players who left are skipped)."""
    seats = list(state.players)
    if after not in seats:
        return seats[0]
    return seats[(seats.index(after) + 1) % len(seats)]


def _decide_turn_end(state: TableState, actor: str) -> Event:
    _check_game_running(state)
    current = state.turn["seat"] if state.turn else actor
    if actor not in (current, state.host):
        raise Refused("It is {name}'s turn: only they or the host can end it.", rule="turn.own",
                      status=403, name=state.players[current].name)
    if state.combat:
        raise Refused("Finish the fight before ending the turn.", rule="turn.own", status=409)
    number = state.turn["number"] if state.turn else 0
    return Event("turn.passed", {"from": current, "to": next_seat(state, current), "number": number + 1})


def _decide_combat(state: TableState, actor: str, action: str, params: dict) -> Event:
    _check_game_running(state)
    if action == "combat.start":
        _check_own_turn(state, actor, "fight")
        if state.combat:
            fighter = state.players[state.combat["fighter"]].name
            raise Refused("{fighter} is already fighting; that fight ends first.", rule="combat.one", status=409, fighter=fighter)
        return _fight_event(state, fights.new_fight(actor), [], said("{who} fights a monster"), None, actor)
    if action == "combat.end":
        if not state.combat:
            raise Refused("No fight is on.", status=409)
        if actor not in (state.combat["fighter"], state.host):
            raise Refused("Only the fighter or the host can call the fight off.", rule="table.host", status=403)
        return _fight_event(state, None, [], said("{who} calls the fight off"), None, actor)
    after, ops, summary, winners = fights.decide(state, actor, action, params)
    return _fight_event(state, after, ops, summary, winners, actor)


def _fight_event(state: TableState, after: dict | None, ops: list[dict], summary: dict, winners: list[str] | None,
                 actor: str) -> Event:
    if ops:  # level changes from the rewards: checked like any sheet change
        characters = {s: asdict(p) for s, p in state.players.items()}
        sheet.apply_ops(characters, ops, state.profile)
    return Event("fight.changed", {"actor": actor, "summary": summary, "before": state.combat, "after": after,
                                   "ops": ops, "winner": winners[0] if winners else None, "winners": winners or []})


# --- the character sheet -------------------------------------------------------------------

def _decide_sheet(state: TableState, seat: str, action: str, params: dict) -> Event:
    p = asdict(state.players[seat])
    uid = f"u{state.version + 1}"
    profile = state.profile
    if action in ("race.add", "race.remove", "class.add", "class.remove"):
        field_name = "races" if action.startswith("race") else "classes"
        value = params.get("race" if field_name == "races" else "class")
        ops = sheet.race_ops(p, seat, field_name, value, action.endswith(".add"))
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
        receiver = asdict(state.players[to])
        moved = {**item, "in_use": False}
        ops = [{"op": "remove", "seat": seat, "field": "items", "value": item}] + sheet.add_item_ops(receiver, to, moved)
        summary = said("{who} gives {item} to {name}", item=thing(item), name=state.players[to].name)
    elif action == "curse.add":
        raw = params.get("curse") or {}
        name = str(raw.get("name") or "").strip()
        if not name or len(name) > 60:
            raise Refused("A curse needs a name of at most 60 characters.", status=400)
        if raw.get("timing", "persistent") != "persistent":
            raise Refused("{name} is not a curse that stays: it acts once and is discarded.", rule="curses.lasting", name=name)
        curse = {"uid": uid, "name": name, "effects": list(raw.get("effects") or [])}
        if raw.get("card_id"):
            curse["card_id"] = raw["card_id"]
        ops = [{"op": "add", "seat": seat, "field": "curses", "value": curse}]
        summary = said("{who} is cursed: {curse}", curse=thing(curse))
    elif action == "curse.remove":
        curse = next((c for c in p.get("curses", []) if c["uid"] == params.get("uid")), None)
        if curse is None:
            raise Refused("There is no such curse on this character.", status=404)
        ops = [{"op": "remove", "seat": seat, "field": "curses", "value": curse}]
        summary = said("{who} is rid of {curse}", curse=thing(curse))
    else:  # character.die
        ops = sheet.die_ops(p, seat, profile)
        order = sheet.looting_order({s: asdict(pl) for s, pl in state.players.items()}, seat)
        picks = " → ".join(" = ".join(state.players[s].name for s in group) + (" (🎲)" if len(group) > 1 else "")
                           for group in order)
        door, treasure = profile.death_draw
        if "curses" in profile.death_keeps:
            summary = said("{who} dies and loses every item; looting order: {order}; "
                           "draws {door} Door and {treasure} Treasure cards next turn",
                           order=picks or "—", door=door, treasure=treasure)
        else:
            summary = said("{who} dies and loses every item and every curse; looting order: {order}; "
                           "draws {door} Door and {treasure} Treasure cards next turn",
                           order=picks or "—", door=door, treasure=treasure)
    allow = frozenset({"items.big"}) if action == "race.remove" else frozenset()
    return _sheet_event(state, seat, action, ops, summary, allow)


def _sheet_event(state: TableState, seat: str, action: str, ops: list[dict], summary: dict | str,
                 allow: frozenset = frozenset()) -> Event:
    """The event for ``ops``, refused if they leave any character breaking a new rule."""
    before = {s: asdict(p) for s, p in state.players.items()}
    after = copy.deepcopy(before)
    sheet.apply_ops(after, ops, state.profile)
    for touched in {op["seat"] for op in ops}:
        sheet.refuse_new_violations(before[touched], after[touched], allow)
    return Event("sheet.changed", {"seat": seat, "action": action, "summary": summary, "ops": ops})


# --- undo --------------------------------------------------------------------------------

UNDOABLE = {"level.changed", "sex.changed", "host.transferred", "player.removed", "player.restored", "sheet.changed",
            "fight.changed", "turn.passed", "settings.changed", "profile.changed"}


def inverse(state: TableState, event: Event) -> Event:
    """The event that undoes ``event`` in today's state, checked by the same rules."""
    p = event.payload
    if event.kind not in UNDOABLE:
        raise Refused("This kind of change cannot be undone.", status=409)
    if event.kind == "level.changed":
        if p["seat"] not in state.players:
            raise Refused("That player has left the table.", status=409)
        if state.winner and not p.get("wins"):
            _check_game_running(state)
        level = state.players[p["seat"]].level
        verdict = change_level(state.profile, level, -p["delta"], "undo")
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
    if event.kind == "turn.passed":
        if not state.turn or state.turn["seat"] != p["to"] or state.turn["number"] != p["number"]:
            raise Refused("The turn has moved on since; it cannot go back.", status=409)
        if p["from"] not in state.players:
            raise Refused("That player has left the table.", status=409)
        if state.combat:
            raise Refused("Finish the fight first.", rule="turn.own", status=409)
        return Event("turn.passed", {"from": p["to"], "to": p["from"], "number": p["number"] - 1})
    if event.kind == "fight.changed":
        if state.combat != p["after"]:
            raise Refused("The fight has changed since; undo the later changes first.", status=409)
        missing = {op["seat"] for op in p["ops"]} - set(state.players)
        if missing:
            raise Refused("A player this change touched has left the table.", status=409)
        if state.winner and not p.get("winner"):
            _check_game_running(state)
        ops = sheet.invert_ops(p["ops"])
        characters = {s: asdict(pl) for s, pl in state.players.items()}
        sheet.apply_ops(characters, ops, state.profile)
        return Event("fight.changed", {"actor": p["actor"], "summary": undone(p["summary"]), "before": p["after"],
                                       "after": p["before"], "ops": ops, "winner": None, "winners": [],
                                       "clears_win": bool(p.get("winner"))})
    if event.kind == "sheet.changed":
        missing = {op["seat"] for op in p["ops"]} - set(state.players)
        if missing:
            raise Refused("A player this change touched has left the table.", status=409)
        _check_game_running(state)
        return _sheet_event(state, p["seat"], "undo", sheet.invert_ops(p["ops"]), undone(p["summary"]))
    if event.kind == "host.transferred":
        if state.host != p["to"] or p["from"] not in state.players:
            raise Refused("The host role has moved on since; it cannot go back.", status=409)
        return Event("host.transferred", {"from": p["to"], "to": p["from"]})
    if event.kind == "player.removed":
        player = p["player"]
        if len(state.players) >= MAX_SEATS:
            raise Refused("The table is full ({MAX_SEATS} seats).", rule="table.players", status=409, MAX_SEATS=MAX_SEATS)
        _check_name_free(state, player["name"])
        return Event("player.restored", {"player": player})
    # player.restored
    seat = p["player"]["seat"]
    if seat not in state.players or seat == state.host:
        raise Refused("That player cannot be removed now.", status=409)
    return Event("player.removed", {"player": asdict(state.players[seat])})


# --- folding events -----------------------------------------------------------------------

def apply(state: TableState | None, event: Event) -> TableState:
    """The state after ``event``; the input state is not modified.

    An event the host decided with an override is folded with the same rules waived, so
    the house ruling holds on replay too.
    """
    p = event.payload
    if event.kind == "table.created":
        settings = {"options": p["options"]} if p.get("options") else {}
        return TableState(id=p["id"], name=p["name"], profile_id=p["profile"], version=1, settings=settings)
    assert state is not None, "the first event must be table.created"
    with waiving((p.get("override") or {}).get("waived", ())):
        return _apply(state, event)


def _apply(state: TableState, event: Event) -> TableState:
    p = event.payload
    new = copy.deepcopy(state)
    new.version += 1
    if event.kind == "player.joined":
        new.players[p["seat"]] = Player(seat=p["seat"], name=p["name"], sex=p["sex"])
        if p["host"]:
            new.host = p["seat"]
            new.turn = {"seat": p["seat"], "number": 1}  # the host starts
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
                new.combat = {**new.combat, "helper": None,
                              "backstabs": [b for b in new.combat["backstabs"] if b["target"] != "helper"],
                              "powers": {k: v for k, v in new.combat["powers"].items() if k != "helper"}}
            if new.combat["invited"] == gone:
                new.combat = {**new.combat, "invited": None}
        if new.turn and new.turn["seat"] == p["player"]["seat"] and new.players:
            new.turn = {"seat": next_seat(state, p["player"]["seat"]), "number": new.turn["number"] + 1}
    elif event.kind == "player.restored":
        new.players[p["player"]["seat"]] = Player(**p["player"])
    elif event.kind == "turn.passed":
        new.turn = {"seat": p["to"], "number": p["number"]}
    elif event.kind == "settings.changed":
        new.settings = {**new.settings, p["key"]: p["to"]}
    elif event.kind == "profile.changed":
        new.profile_id = p["to"]["profile"]
        new.settings = {**{k: v for k, v in new.settings.items() if k != "options"},
                        **({"options": p["to"]["options"]} if p["to"]["options"] else {})}
    elif event.kind == "fight.changed":
        new.combat = copy.deepcopy(p["after"])
        if p["ops"]:
            characters = {seat: asdict(player) for seat, player in new.players.items()}
            sheet.apply_ops(characters, p["ops"], new.profile)
            for seat in {op["seat"] for op in p["ops"]}:
                new.players[seat] = Player(**characters[seat])
        if p.get("winner"):
            new.winners = list(p.get("winners") or [p["winner"]])
        if p.get("clears_win"):
            new.winners = []
    elif event.kind == "sheet.changed":
        characters = {seat: asdict(player) for seat, player in new.players.items()}
        sheet.apply_ops(characters, p["ops"], new.profile)
        for seat in {op["seat"] for op in p["ops"]}:
            new.players[seat] = Player(**characters[seat])
    else:
        raise ValueError(f"unknown event kind {event.kind!r}")
    return new


def replay(events: list[Event]) -> TableState:
    """Rebuild a table's state from all its events, in order."""
    state = None
    for event in events:
        state = apply(state, event)
    if state is None:
        raise ValueError("no events")
    return state
