"""The turn as a state machine: its phases, what each allows, and how play moves on.

A turn (``state.turn``: whose, which number, which phase) goes through the phases the books
describe (Munchkin 1.6, "Turn Phases"; the classic books, "Spielablauf"):

``start``
    the door is still shut: cards may be played, items sold; kicking open the door (or
    fighting the monster behind it) ends this phase.
``door``
    the door showed no monster (a curse acted, or a card went to the hand): look for
    trouble (a fight) or loot the room, once.
``fight``
    this turn's one fight is on; Wandering Monsters join it.
``charity``
    the fight is over or the room was looted: nothing more happens this turn but Charity
    and ending it.

Munchkin Quest's turn has its own phases (seed summary, "Tour de jeu"):

``start``
    the turn's DxM card is still to be drawn; a character who starts the turn in a room
    with a monster fights it as soon as the card is drawn.
``actions``
    moves and actions (explore, search, market) paid with move/action tokens.
``fight``
    a fight is on (after exploring, or entering or starting in a room with a monster).
``monsters``
    Charity is done and the monsters move; then the turn passes. A death goes straight here.

Each game's phases, steps and refusals are one :class:`Machine` in :data:`MACHINES`; the
profile's ``game`` picks it. Phase changes are operations (``{"op": "turn", "from": ..., "to": ...}``) inside the event
of the action that causes them, so undoing that action puts the turn back too.
"""
from __future__ import annotations

import secrets

from .history import said
from .rules import N_, Refused, refuse

from dataclasses import dataclass


@dataclass(frozen=True)
class Machine:
    """One game's turn: its phases, where each step leads, why a step is refused in a phase, and
    where a step the host let through out of order leads."""

    phases: tuple[str, ...]
    transitions: dict
    refusals: dict
    fallback: dict


#: Where each step leads: (phase, step) -> next phase.
TRANSITIONS = {
    ("start", "door:monster"): "fight", ("start", "door:curse"): "door", ("start", "door:other"): "door",
    ("start", "fight"): "fight", ("door", "fight"): "fight", ("door", "loot"): "charity",
    ("fight", "fight over"): "charity",
}
#: Why a step is refused in a phase: (step, phase) -> (rule, message).
REFUSALS = {
    ("door", "door"): ("turn.door", N_("The door has been kicked open this turn: one door a turn.")),
    ("door", "fight"): ("turn.door", N_("The door has been kicked open this turn: one door a turn.")),
    ("door", "charity"): ("turn.door", N_("The door has been kicked open this turn: one door a turn.")),
    ("fight", "fight"): ("turn.door", N_("This turn's fight is on: a second monster joins it as a Wandering Monster.")),
    ("fight", "charity"): ("turn.door", N_("This turn has had its fight: one fight a turn.")),
    ("loot", "start"): ("turn.door", N_("Kick open the door first.")),
    ("loot", "fight"): ("turn.trouble-or-loot", N_("Looting the room is instead of a fight; this turn has its fight.")),
    ("loot", "charity"): ("turn.trouble-or-loot", N_("This turn has had its fight or its loot: once a turn.")),
    ("trouble", "start"): ("turn.door", N_("Kick open the door first: looking for trouble comes after an empty door.")),
    ("trouble", "charity"): ("turn.trouble-or-loot", N_("This turn has had its fight or its loot: once a turn.")),
    ("end", "start"): ("turn.door", N_("Kick open the door first: every turn begins with the door.")),
    ("end", "door"): ("turn.trouble-or-loot", N_("Look for trouble or loot the room before ending the turn.")),
}


CARD_GAME = Machine(("start", "door", "fight", "charity"), TRANSITIONS, REFUSALS,
                    {"door:monster": "fight", "fight": "fight", "loot": "charity"})

_QUEST_DRAW_FIRST = ("quest.turn", N_("Draw the turn's DxM card first."))
_QUEST_MONSTERS = ("quest.turn", N_("The monsters are moving: this turn's moves and actions are over."))
QUEST = Machine(
    ("start", "actions", "fight", "monsters"),
    {("start", "draw"): "actions", ("start", "draw:fight"): "fight", ("actions", "explore"): "fight",
     ("actions", "move:fight"): "fight", ("actions", "search:fight"): "fight", ("fight", "fight over"): "actions",
     ("actions", "monsters"): "monsters", ("start", "death"): "monsters", ("actions", "death"): "monsters",
     ("fight", "death"): "monsters"},
    {("draw", "actions"): ("quest.turn", N_("This turn's DxM card has been drawn: one a turn.")),
     ("draw", "monsters"): ("quest.turn", N_("This turn's DxM card has been drawn: one a turn.")),
     **{(step, "start"): _QUEST_DRAW_FIRST for step in ("explore", "move", "search", "market", "monsters", "buy")},
     **{(step, "monsters"): _QUEST_MONSTERS for step in ("explore", "move", "search", "market", "monsters", "buy")},
     ("end", "start"): ("quest.turn", N_("Draw the turn's DxM card first: every turn begins with it.")),
     ("monster", "start"): ("quest.turn", N_("The monsters move at the end of the turn, after Charity.")),
     ("monster", "actions"): ("quest.turn", N_("The monsters move at the end of the turn, after Charity.")),
     ("end", "actions"): ("quest.turn", N_("Charity and the monsters' move come before the turn passes."))},
    {"draw": "actions", "draw:fight": "fight", "explore": "fight", "move:fight": "fight", "search:fight": "fight",
     "monsters": "monsters", "death": "monsters"},
)
#: The turn of each game family (the profile's ``game``).
MACHINES = {"munchkin": CARD_GAME, "munchkin-quest": QUEST}


def machine(state) -> Machine:
    return MACHINES[state.profile.game]


def phase(state) -> str:
    """The phase of the turn now (turns recorded before phases existed count as ``start``)."""
    if state.combat:
        return "fight"
    return (state.turn or {}).get("phase", "start")


def require(state, step: str) -> None:
    """Refuse ``step`` (door, fight, trouble, loot, end) if the turn's phase does not allow it."""
    now = phase(state)
    if step == "end" and now == "fight":
        raise Refused("Finish the fight before ending the turn.", rule="turn.own", status=409)
    if step in ("fight", "trouble", "explore", "move", "search", "market", "monsters", "draw", "monster") and now == "fight":
        fighter = state.players[state.combat["fighter"]].name if state.combat else "?"
        raise Refused("{fighter} is already fighting; that fight ends first.", rule="combat.one", status=409,
                      fighter=fighter)
    found = machine(state).refusals.get((step, now))
    if found:
        rule, message = found
        refuse(message, rule=rule)


def moved(state, step: str) -> list[dict]:
    """The operation that moves the turn on by ``step`` (none outside a turn or when it stays)."""
    if not state.turn:
        return []
    before = {**state.turn, "phase": state.turn.get("phase", "start")}
    rules = machine(state)
    after_phase = rules.transitions.get((before["phase"], step))
    if step == "fight over":
        after_phase = rules.transitions[("fight", "fight over")]
    if after_phase is None:  # a house ruling let the step through out of order: the turn goes on from here
        after_phase = rules.fallback.get(step, before["phase"] if rules is QUEST else "door")
    if after_phase == before["phase"]:
        return []
    return [{"op": "turn", "from": before, "to": {**before, "phase": after_phase}}]


def back_to(state, phase_before: str | None) -> list[dict]:
    """The operation that takes the turn back to ``phase_before`` (the phase a fight was opened
    in, when it is called off with no monster: none was fought); none outside a turn, or for a
    fight recorded before fights kept it."""
    if not state.turn or phase_before is None or phase_before == state.turn.get("phase", "start"):
        return []
    return [{"op": "turn", "from": {**state.turn, "phase": state.turn.get("phase", "start")},
             "to": {**state.turn, "phase": phase_before}}]


def next_seat(order: list[str], after: str) -> str:
    """The seat after ``after`` in the table's seat order."""
    if after not in order:
        return order[0]
    return order[(order.index(after) + 1) % len(order)]


def passed(state, current: str, profile) -> tuple[list[dict], list[dict]]:
    """Operations and sentences for the turn passing to the next player.

    The dead come back as new characters as the next player's turn begins (1.6, Death), with no
    cards: they draw what the edition deals a new character at the start of their own next turn
    (which is this one when the turn passes to them).
    """
    number = (state.turn or {}).get("number", 0)
    after = {"seat": next_seat(list(state.players), current), "number": number + 1, "phase": "start"}
    ops = [{"op": "turn", "from": state.turn, "to": after}]
    parts = []
    door, treasure = profile.death_draw
    for seat, player in state.players.items():
        if player.dead:
            ops.append({"op": "set", "seat": seat, "field": "dead", "from": True, "to": False,
                        "sheet": sheet_digest(player)})
            template = (N_("{name}'s new character is back and, as the turn is theirs, first draws {door} Door and "
                           "{treasure} Treasure cards") if seat == after["seat"] else
                        N_("{name}'s new character is back, with no cards: at the start of their next turn they draw "
                           "{door} Door and {treasure} Treasure cards"))
            parts.append(said(template, name=player.name, door=door, treasure=treasure))
    return ops, parts


def sheet_digest(player) -> dict:
    """What a character holds, in short (level, sex, races, classes, flags, the items' and curses'
    uids): a new character's sheet as it came back, to tell later whether it has played since."""
    return {"level": player.level, "sex": player.sex, "races": list(player.races), "classes": list(player.classes),
            "half_breed": player.half_breed, "super_munchkin": player.super_munchkin,
            "items": [i["uid"] for i in player.items], "curses": [c["uid"] for c in player.curses]}


def first_by_roll(seats: list[str]) -> tuple[str, list[list[tuple[str, int]]]]:
    """Who begins by the books' way: everyone rolls a die, the highest begins, ties roll again.

    Answers the seat and every round of rolls (for the history).
    """
    rounds, rolling = [], list(seats)
    while True:
        rolls = [(seat, secrets.randbelow(6) + 1) for seat in rolling]
        rounds.append(rolls)
        best = max(r for _, r in rolls)
        rolling = [seat for seat, r in rolls if r == best]
        if len(rolling) == 1:
            return rolling[0], rounds


def can_choose_first(state) -> bool:
    """Who begins may be decided until the first door of the game is opened."""
    return bool(state.turn) and state.turn["number"] == 1 and phase(state) == "start"
