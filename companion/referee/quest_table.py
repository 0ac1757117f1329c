"""Munchkin Quest at the table: the board game's actions decided on the shared machinery.

The catalogue declares the ``quest.*`` actions (and says the card game's own ones are not
part of this game); the functions here decide them into the same events as the card game
(``table.changed``, ``sheet.changed``, ``fight.changed``, ``turn.passed``) made of the same
operations, so history, replay and undo need nothing new. The turn's phases are
:data:`.turn.QUEST`; the map and the sheet's facts are :mod:`.quest`; the arithmetic of a
fight is :mod:`.quest_fight`.

A :class:`Draft` builds the operations of one decision step by step on a copy of the
characters and the map, so a decision that hurts, kills and drops things in a row records
each step with the values it found.
"""
from __future__ import annotations

import copy
import secrets
from dataclasses import asdict

from . import quest as Q
from . import quest_fight, sheet, turn
from .catalogue import decides
from .fight import checked_object, draw_said, gain_said, typed_dice, whole
from .history import said
from .levels import change_level
from .rules import N_, Refused, refuse
from .table import Event, TableState, _changed, _check_ops, _spent_curses, in_fight


class Draft:
    """The characters and the map as a decision changes them, and the operations that do it."""

    def __init__(self, state: TableState):
        self.state = state
        self.profile = state.profile
        self.numbers = state.profile.quest
        self.chars = {seat: asdict(p) for seat, p in state.players.items()}
        self.board = copy.deepcopy(state.board or Q.new_board())
        self.ops: list[dict] = []

    def q(self, seat: str) -> dict:
        return self.chars[seat]["quest"]

    def _do(self, op: dict) -> None:
        if op["op"] == "board":
            Q.apply_board_op(self.board, op)
        elif op["op"] != "turn":
            sheet.apply_ops(self.chars, [op], self.profile)
        self.ops.append(op)

    def set(self, seat: str, key: str, to) -> None:
        if self.q(seat).get(key) != to:
            self._do(Q.set_op(seat, self.chars[seat], key, to))

    def add(self, seat: str, key: str, delta: int) -> None:
        self.set(seat, key, self.q(seat).get(key, 0) + delta)

    def flag(self, seat: str, field: str, to) -> None:
        self._do({"op": "set", "seat": seat, "field": field, "from": self.chars[seat].get(field), "to": to})

    def level(self, seat: str, delta: int, cause: str) -> None:
        self._do({"op": "level", "seat": seat, "delta": delta, "cause": cause})

    def put(self, key: str, entry: str, to) -> None:
        self._do(Q.board_op(self.board, key, entry, to))

    def turn(self, step: str) -> None:
        for op in turn.moved(self.state, step):
            self.ops.append(op)


def monster_param(params: dict) -> dict | None:
    """The monster of an action: the ``monster`` object, or the flat ``monster_*`` fields a form sends."""
    flat_keys = sorted(k for k in params if k.startswith("monster_"))
    if params.get("monster"):
        if flat_keys:  # both: which one was meant?
            raise Refused("Give the monster as an object or as monster_* fields, not both ({key}).", status=400,
                          key=flat_keys[0])
        return params["monster"]
    if not params.get("monster_name"):
        return None
    flat = {key: params[f"monster_{key}"] for key in ("name", "level", "bonus", "dice", "dreadful", "owner")
            if f"monster_{key}" in params}
    if params.get("monster_bad_health"):
        flat["bad_stuff"] = {"health": params["monster_bad_health"]}
    return flat


def _name(state: TableState, seat: str) -> str:
    return state.players[seat].name


#: What each paid action's refusal says when the tokens are short.
TOKEN_COSTS = {"move": N_("A move costs {cost} move/action token(s); {left} left this turn."),
               "explore": N_("Exploring costs {cost} move/action token(s); {left} left this turn."),
               "search": N_("A search costs {cost} move/action token(s); {left} left this turn."),
               "market": N_("The market costs {cost} move/action token(s); {left} left this turn.")}


def _tokens(draft: Draft, seat: str, cost: int, what: str) -> None:
    """Pay ``cost`` move/action tokens for ``what`` (quest.turn), refused when too few are left."""
    left = draft.q(seat)["tokens"]
    if left < cost:
        raise Refused(TOKEN_COSTS[what], rule="quest.turn", status=409, cost=cost, left=left)
    draft.add(seat, "tokens", -cost)


def _no_monster(draft: Draft, room: str, rule: str, message: str) -> None:
    here = Q.monsters_in(draft.board, room)
    if here:
        raise Refused(message, rule=rule, status=409, monsters=", ".join(m["name"] for m in here))


def _stand_for(draft: Draft, monster: dict) -> None:
    """A monster stands on its owner's stand: each player has ``stands`` of them (Début de partie); with
    none left, the table takes another colour (Exploration, step 3)."""
    owner = monster["owner"]
    if owner and sum(1 for m in draft.board["monsters"].values() if m.get("owner") == owner) >= draft.numbers.stands:
        raise Refused("{name}'s {n} stands are all on the map: put the monster on another colour's stand.",
                      rule="quest.explore", status=409, name=_name(draft.state, owner), n=draft.numbers.stands)


# --- death and health ------------------------------------------------------------------------

def die(draft: Draft, seat: str) -> list:
    """Death (quest.death): the hand is discarded, gold and items are dropped in the room, DxM cards and
    curses stay, one level is lost (never below 1); the character is dead until its next turn."""
    q = draft.q(seat)
    room = q["room"]
    pile = list(draft.board["dropped"].get(room) or [])
    pile += [{k: v for k, v in item.items() if k != "where"} for item in q["gear"]]
    if q["gold"]:
        pile.append({"uid": f"g{draft.state.version + 1}-{seat}", "name": f"{q['gold']} gold", "gold_pile": q["gold"]})
    if pile != (draft.board["dropped"].get(room) or []):
        draft.put("dropped", room, pile)
    for key in ("gear", "gold", "dxm", "treasure", "health", "tokens"):
        draft.set(seat, key, [] if key == "gear" else 0)
    if draft.chars[seat]["level"] > draft.profile.min_level:
        draft.level(seat, -1, "down")
    draft.flag(seat, "dead", True)
    return [said("{name} dies: hand discarded, gold and items left in {room}, DxM cards and curses kept, "
                 "one level lost; back next turn", name=_name(draft.state, seat), room=Q.room_name(draft.board, room))]


def hurt(draft: Draft, seat: str, amount: int) -> bool:
    """Lose ``amount`` health; no health left is death. Answers whether the character died."""
    if amount <= 0 or draft.chars[seat]["dead"]:
        return False
    health = max(0, draft.q(seat)["health"] - amount)
    draft.set(seat, "health", health)
    return health == 0


def _death_step(draft: Draft, seat: str) -> None:
    """A death on one's own turn sends the turn to the monsters' move."""
    if draft.state.turn and draft.state.turn["seat"] == seat:
        draft.turn("death")


# --- the turn --------------------------------------------------------------------------------

@decides("quest.draw")
def _draw(state: TableState, actor: str, action: str, params: dict) -> Event:
    """The turn begins with its DxM card (Tour de jeu, 1), and this is when its move/action tokens are
    counted: 3, one fewer for each Big item past the first (Gestion des cartes). Counted only as a
    turn passed, they missed the Big items of the first turn (the starting Treasure cards are put into
    play before it) and any received between the turn passing and the draw."""
    turn.require(state, "draw")
    draft = Draft(state)
    draft.set(actor, "tokens", Q.tokens_per_turn(draft.chars[actor], draft.numbers))
    draft.add(actor, "dxm", 1)
    room = draft.q(actor)["room"]
    if Q.monsters_in(draft.board, room):
        return _open_fight(draft, actor, room, "draw:fight",
                           said("{who} draws the turn's DxM card and must fight in {room}", room=Q.room_name(draft.board, room)))
    draft.turn("draw")
    return _changed(actor, action, draft.ops, said("{who} draws the turn's DxM card"), state)


@decides("quest.move")
def _move(state: TableState, actor: str, action: str, params: dict) -> Event:
    """A move to a joined explored room for the tokens its passage costs: what a junction costs
    depends on its kind, as the summary says for exploring through one (Tour de jeu, Exploration),
    and moving back through it later costs the same, so the price paid to explore it is kept on the
    board (``quest.passage_cost``); ``cost`` says otherwise when a card changes it for this move. A
    fixed 1 left a dearer door short with no way to pay the rest. A monster there means a fight at once."""
    turn.require(state, "move")
    draft = Draft(state)
    here, there = draft.q(actor)["room"], params.get("room")
    Q.room_of(draft.board, there or "")
    if there == here or not Q.adjacent(draft.board, here, there):
        raise Refused("{room} is not next to {here}: move one room at a time, through an open passage.",
                      rule="quest.map", status=409, room=Q.room_name(draft.board, there), here=Q.room_name(draft.board, here))
    cost = params.get("cost")
    _tokens(draft, actor, Q.passage_cost(draft.board, here, there) if cost is None else cost, "move")
    draft.set(actor, "room", there)
    summary = said("{who} moves to {room}", room=Q.room_name(draft.board, there))
    if Q.monsters_in(draft.board, there):
        return _open_fight(draft, actor, there, "move:fight", summary)
    return _changed(actor, action, draft.ops, summary, state)


@decides("quest.explore")
def _explore(state: TableState, actor: str, action: str, params: dict) -> Event:
    turn.require(state, "explore")
    draft = Draft(state)
    name = str(params.get("name") or "").strip()
    if not name:
        raise Refused("Name the new room (its tile).", status=400)
    raw = monster_param(params)
    if not raw:
        raise Refused("A new room always holds a monster: say which.", rule="quest.explore", status=400)
    cost = params.get("cost", 1)
    _tokens(draft, actor, cost, "explore")
    here = draft.q(actor)["room"]
    room = f"r{state.version + 1}"
    monster = Q.new_monster(raw, f"m{state.version + 1}", room, state.players)
    _stand_for(draft, monster)
    draft.put("rooms", room, {"name": name, "market": bool(params.get("market"))})
    draft.put("joins", Q.join_key(here, room), cost)  # what crossing it costs from now on
    draft.put("monsters", monster["uid"], monster)
    draft.set(actor, "room", room)
    draft.add(actor, "dxm", 1)
    parts = []
    if monster["owner"] and not state.players[monster["owner"]].dead:
        draft.add(monster["owner"], "dxm", 1)
        parts.append(said("{name} owns it and draws a DxM card", name=_name(state, monster["owner"])))
    summary = said("{who} explores {room}: {monster} (level {level}) — fight!", room=name, monster=monster["name"],
                   level=monster["level"])
    if parts:
        summary = said("{first}; {parts}", first=summary, parts=parts)
    return _open_fight(draft, actor, room, "explore", summary)


@decides("quest.search")
def _search(state: TableState, actor: str, action: str, params: dict) -> Event:
    turn.require(state, "search")
    draft = Draft(state)
    q = draft.q(actor)
    room, number = q["room"], state.turn["number"]
    _no_monster(draft, room, "quest.search", "No search with a monster in the room ({monsters}).")
    if [number, room] in q.get("searched", []):
        raise Refused("{room} has been searched this turn: once a room a turn.", rule="quest.search", status=409,
                      room=Q.room_name(draft.board, room))
    _tokens(draft, actor, 1, "search")
    die = params.get("die") or secrets.randbelow(6) + 1
    total = die + params.get("modifier", 0)
    draft.set(actor, "searched", [s for s in q.get("searched", []) if s[0] == number] + [[number, room]])
    pile = list(draft.board["dropped"].get(room) or [])
    picked = _pick(draft, actor, room, params.get("pick") or [])
    if picked:  # kept on the turn until anything else happens: a monster the search turned up takes it back
        things = [thing for uid in params["pick"] for thing in pile if thing["uid"] == uid]
        draft.ops.append({"op": "turn", "from": state.turn, "to": {**state.turn, "search": {
            "version": state.version + 1, "seat": actor, "room": room, "things": things}}})
    found = params.get("found")
    summary = said("{who} searches {room}: {die} on the die, {total} on the search table", room=Q.room_name(draft.board, room),
                   die=die, total=total)
    if found:
        summary = said("{first} ({found})", first=summary, found=found)
    if picked:
        summary = said("{first}; picks up {things}", first=summary, things=", ".join(picked))
    event = _changed(actor, action, draft.ops, summary, state)
    if not params.get("die"):
        # the app rolled the search's d6: undone by the player, the search could be made again for a
        # second roll on the table; like a fight's die, only the host takes it back (table.inverse)
        event.payload["app_dice"] = "search"
    return event


def _pick(draft: Draft, seat: str, room: str, uids: list) -> list[str]:
    """Pick up things dropped in the room: items to the sheet, gold to the purse."""
    pile = list(draft.board["dropped"].get(room) or [])
    picked = []
    for uid in uids:
        thing = next((t for t in pile if t["uid"] == uid), None)
        if thing is None:
            raise Refused("Nothing like that lies in this room.", status=404)
        pile.remove(thing)
        picked.append(thing["name"])
        if thing.get("gold_pile"):
            draft.add(seat, "gold", thing["gold_pile"])
        else:
            gear = draft.q(seat)["gear"]
            draft.set(seat, "gear", gear + [{**thing, "where": Q.place_for(gear, thing, None, draft.numbers.backpack)}])
    if picked:
        draft.put("dropped", room, pile or None)
    return picked


@decides("quest.market")
def _market(state: TableState, actor: str, action: str, params: dict) -> Event:
    turn.require(state, "market")
    draft = Draft(state)
    room = draft.q(actor)["room"]
    if not Q.room_of(draft.board, room).get("market"):
        raise Refused("{room} has no market.", rule="quest.market", status=409, room=Q.room_name(draft.board, room))
    _no_monster(draft, room, "quest.market", "No market with a monster in the room ({monsters}).")
    uids = params.get("uids") or []  # items sold: they leave the sheet, for their worth unless a price is said
    if len(set(uids)) != len(uids):
        raise Refused("Name each item once.", status=400)
    sold = [Q.gear_item(draft.chars[actor], uid) for uid in uids]
    change = params.get("gold", sum(item["gold"] for item in sold))
    if draft.q(actor)["gold"] + change < 0:
        raise Refused("{name} has only {gold} gold.", rule="quest.market", status=409, name=_name(state, actor),
                      gold=draft.q(actor)["gold"])
    _tokens(draft, actor, 1, "market")
    draft.add(actor, "gold", change)
    if sold:
        draft.set(actor, "gear", [i for i in draft.q(actor)["gear"] if i["uid"] not in set(uids)])
    what = params.get("what") or ", ".join(item["name"] for item in sold) or "—"
    return _changed(actor, action, draft.ops, said("{who} trades at the market ({what}): {change:+} gold", what=what,
                                                   change=change), state)


@decides("quest.monsters")
def _monsters(state: TableState, actor: str, action: str, params: dict) -> Event:
    """End the moves and actions: Charity, the colour die, the monsters' move (Tour de jeu, 3 and 4).
    The turn is marked ``colour_die``: the die is rolled once a turn, even if a card kills the player
    during the monsters' move.

    A death sends the turn straight to the monsters' move (Mort), past Charity (the hand is gone),
    but the colour die belongs to that move (Tour de jeu, 4): with the turn's player dead, this
    records the colour die alone, once (the turn keeps ``colour_die``)."""
    current = state.turn["seat"] if state.turn else None
    if turn.phase(state) == "monsters" and current and state.players[current].dead:
        return _colour_after_death(state, actor, action, params)
    turn.require(state, "monsters")
    draft = Draft(state)
    parts = _charity(draft, current, params)
    colour = params.get("colour")
    if colour:
        if colour not in state.players:
            raise Refused("There is no such player at this table.", status=404)
        if not state.players[colour].dead:
            draft.add(colour, "dxm", 1)
            parts.append(said("the colour die shows {name}, who draws a DxM card", name=_name(state, colour)))
    # the colour die is rolled here, with or without a colour (Tour de jeu, 4): the turn says so, so that a
    # death during the monsters' move does not offer it again (_colour_after_death: a second DxM card)
    draft.ops += [{**op, "to": {**op["to"], "colour_die": True}} for op in turn.moved(state, "monsters")]
    summary = said("{who} ends the moves and actions: the monsters move")
    if parts:
        summary = said("{first}; {parts}", first=summary, parts=parts)
    return _changed(actor, action, draft.ops, summary, state)


def _colour_after_death(state: TableState, actor: str, action: str, params: dict) -> Event:
    """The colour die of a monsters' move a death jumped to (quest.death, quest.turn): the living player
    it names draws a DxM card, once a turn; no Charity (the dead player's hand was discarded). A die
    showing nobody's colour, or a dead player's, changes nothing and is not recorded."""
    if state.turn.get("colour_die"):
        rule, message = turn.QUEST.refusals[("monsters", "monsters")]  # as a second end of the moves is
        raise Refused(message, rule=rule, status=422)
    colour = params.get("colour")
    if not colour:
        raise Refused("Nothing changes.", status=400)
    if colour not in state.players:
        raise Refused("There is no such player at this table.", status=404)
    if state.players[colour].dead:
        raise Refused("{name} is dead: no cards and no levels until the next turn.", rule="death.state", status=409,
                      name=_name(state, colour))
    draft = Draft(state)
    draft.ops.append({"op": "turn", "from": state.turn, "to": {**state.turn, "colour_die": True}})
    draft.add(colour, "dxm", 1)
    return _changed(actor, action, draft.ops, said("the colour die shows {name}, who draws a DxM card",
                                                   name=_name(state, colour)), state)


def _charity(draft: Draft, seat: str, params: dict) -> list:
    """Charity (quest.charity) on the hand counts: the cards over the limit leave ``seat``'s DxM and
    Treasure counts and reach the lowest-level living players' (``sheet.charity``), or the discards.

    The hand is what the player says (``hand``) or, unsaid, what the app counts (DxM + Treasure): the
    turn cannot pass with more than the limit unnoticed. Which cards go is the giver's choice:
    ``dxm_given`` of them are DxM cards, the rest Treasure (unsaid: the DxM cards first, as far as the
    app counts them). A count never drops below 0: with a hand said larger than the counts, the
    giver's counts stop at 0 while the receivers get every card given. Shared among several, the DxM
    cards go to the first shares first."""
    q = draft.q(seat)
    hand = params.get("hand")
    hand = q["dxm"] + q["treasure"] if hand is None else hand
    verdict = sheet.charity(draft.chars, seat, hand, draft.profile)
    excess = verdict["excess"]
    given = params.get("dxm_given")
    if given is not None and given > excess:
        raise Refused(N_("Only 1 card goes in Charity: {given} DxM cards among them is too many.") if excess == 1 else
                      N_("Only {n} cards go in Charity: {given} DxM cards among them is too many."), rule="quest.charity",
                      status=400, n=excess, given=given)
    if not excess:
        return []
    dxm = min(excess, q["dxm"]) if given is None else given
    draft.set(seat, "dxm", max(0, q["dxm"] - dxm))
    draft.set(seat, "treasure", max(0, q["treasure"] - (excess - dxm)))
    if verdict["discard"]:
        template = (N_("Charity: 1 card over the limit goes to the discards ({dxm} DxM, {treasure} Treasure)")
                    if excess == 1 else N_("Charity: {n} cards over the limit go to the discards ({dxm} DxM, {treasure} Treasure)"))
        return [said(template, n=excess, dxm=dxm, treasure=excess - dxm)]
    shares = []
    for share in verdict["shares"]:
        of_dxm = min(dxm, share["cards"])
        dxm -= of_dxm
        draft.add(share["seat"], "dxm", of_dxm)
        draft.add(share["seat"], "treasure", share["cards"] - of_dxm)
        shares.append(said("{name} {dxm} DxM, {treasure} Treasure", name=_name(draft.state, share["seat"]),
                           dxm=of_dxm, treasure=share["cards"] - of_dxm))
    template = (N_("Charity: 1 card over the limit goes to {shares}") if excess == 1
                else N_("Charity: {n} cards over the limit go to {shares}"))
    return [said(template, n=excess, shares=shares)]


@decides("quest.monster.move")
def _monster_move(state: TableState, actor: str, action: str, params: dict) -> Event:
    """One step of a monster's move (quest.map): to a joined explored room, or through the Entrance
    (``through="entrance"``) to the room beyond it — no monster stops there (Règles inamovibles). A
    monster never goes back into a room it has been in during this move (Déplacement des monstres:
    no U-turn), kept as its ``trail`` of the turn; it stops on meeting its owner (quest.monster-owner)."""
    turn.require(state, "monster")
    draft = Draft(state)
    monster = draft.board["monsters"].get(params.get("monster"))
    if monster is None:
        raise Refused("There is no such monster on the map.", status=404)
    there = params.get("room") or ""
    Q.room_of(draft.board, there)
    here, through = monster["room"], params.get("through")
    if there == Q.ENTRANCE:
        raise Refused("No monster stops in the Entrance: it goes through to the room beyond it (through the Entrance, "
                      "to that room), or not at all.", rule="quest.map", status=409)
    if through:
        if here == Q.ENTRANCE or not Q.adjacent(draft.board, here, Q.ENTRANCE):
            raise Refused("{monster} is not next to the Entrance: it cannot go through it.", rule="quest.map",
                          status=409, monster=monster["name"])
        if there == here or not Q.adjacent(draft.board, Q.ENTRANCE, there):
            raise Refused("A monster goes through the Entrance and out by the opposite door into an explored room; "
                          "{room} is not beyond the Entrance, so it does not go through.", rule="quest.map",
                          status=409, room=Q.room_name(draft.board, there))
    elif there == here or not Q.adjacent(draft.board, here, there):
        raise Refused("A monster moves to an adjacent explored room.", rule="quest.map", status=409)
    number = state.turn["number"]
    if monster.get("stopped") == number:
        raise Refused("{monster} met its owner and stops moving this turn.", rule="quest.monster-owner", status=409,
                      monster=monster["name"])
    trail = monster.get("trail") or {}
    been = trail["rooms"] if trail.get("turn") == number else [here]
    back = next((room for room in ([Q.ENTRANCE] if through else []) + [there] if room in been), None)
    if back:
        raise Refused("{monster} has been in {room} during this move: no monster turns back.", rule="quest.map",
                      status=409, monster=monster["name"], room=Q.room_name(draft.board, back))
    owner = monster.get("owner")
    meets = owner in state.players and not state.players[owner].dead and draft.q(owner)["room"] == there
    trail = {"turn": number, "rooms": been + ([Q.ENTRANCE] if through else []) + [there]}
    moved = {**monster, "room": there, "trail": trail, **({"stopped": number} if meets else {})}
    draft.put("monsters", monster["uid"], moved)
    if through:
        summary = said("{who} moves {monster} through the Entrance to {room}", monster=monster["name"],
                       room=Q.room_name(draft.board, there))
    else:
        summary = said("{who} moves {monster} to {room}", monster=monster["name"], room=Q.room_name(draft.board, there))
    if meets:
        summary = said("{first}: it meets its owner {name} and stops", first=summary, name=_name(state, owner))
    return _changed(actor, action, draft.ops, summary, state)


@decides("quest.monster.place")
def _monster_place(state: TableState, actor: str, action: str, params: dict) -> Event:
    """A monster put on the map (a search, a card). In the current player's room during the moves and
    actions it is fought at once; in the room of a fight going on it joins that fight, as every
    monster in a room fights together (Combat) — it stood beside the fight, out of it."""
    draft = Draft(state)
    room = params.get("room") or ""
    Q.room_of(draft.board, room)
    if state.combat and state.combat["room"] == room and state.combat["stage"] == "fight":
        return _fight_monster(state, actor, "quest.fight.monster", params)
    seat = (state.turn or {}).get("seat")
    fought = bool(seat) and turn.phase(state) == "actions" and draft.q(seat)["room"] == room and not state.players[seat].dead
    if room == Q.ENTRANCE and not fought:  # (one a search there turns up is fought at once)
        raise Refused("No monster stops in the Entrance.", rule="quest.map", status=409)
    monster = Q.new_monster(monster_param(params) or {}, f"m{state.version + 1}", room, state.players)
    _stand_for(draft, monster)
    draft.put("monsters", monster["uid"], monster)
    summary = said("{who} puts {monster} (level {level}) in {room}", monster=monster["name"], level=monster["level"],
                   room=Q.room_name(draft.board, room))
    if fought:
        back = _picked_back(draft, seat, room)
        if back:
            summary = said("{first}; nothing is picked up on a search that turns up a monster: {things} stay in {room}",
                           first=summary, things=", ".join(back), room=Q.room_name(draft.board, room))
        return _open_fight(draft, seat, room, "search:fight", summary, actor=actor)
    return _changed(actor, action, draft.ops, summary, state)


def _picked_back(draft: Draft, seat: str, room: str) -> list[str]:
    """The things a search picked up go back to the room's pile when the monster put there right after
    it is the one the search turned up (Fouille: dropped things are picked up on top of a search, not
    when it finds a monster — then it is a fight at once). The search keeps what it picked on the turn
    (``turn["search"]``) for the very next change only, so a monster a card brings later takes nothing
    back. Their names."""
    record = (draft.state.turn or {}).get("search")
    if not record or record["version"] != draft.state.version or record["seat"] != seat or record["room"] != room:
        return []
    gear, gold = draft.q(seat)["gear"], sum(t.get("gold_pile", 0) for t in record["things"])
    uids = {t["uid"] for t in record["things"]}
    draft.set(seat, "gear", [i for i in gear if i["uid"] not in uids])
    draft.add(seat, "gold", -gold)
    draft.put("dropped", room, list(draft.board["dropped"].get(room) or []) + copy.deepcopy(record["things"]))
    return [t["name"] for t in record["things"]]


@decides("quest.room.join")
def _join_rooms(state: TableState, actor: str, action: str, params: dict) -> Event:
    draft = Draft(state)
    a, b = params.get("room") or "", params.get("to") or ""
    Q.room_of(draft.board, a), Q.room_of(draft.board, b)
    if Q.ENTRANCE in (a, b):
        raise Refused("Nothing changes the Entrance's passages.", rule="quest.map", status=409)
    if a == b or Q.adjacent(draft.board, a, b):
        raise Refused("Those rooms are already joined.", status=409)
    draft.put("joins", Q.join_key(a, b), params.get("cost", 1))
    return _changed(actor, action, draft.ops, said("{who} records a passage between {room} and {room2}",
                                                   room=Q.room_name(draft.board, a), room2=Q.room_name(draft.board, b)), state)


def turn_end(state: TableState, actor: str, action: str, params: dict) -> Event:
    """The turn passes after the monsters' move: the next player gets their move/action tokens back (one
    fewer for each Big item past the first), and a dead character restarts (quest.death)."""
    turn.require(state, "end")
    draft = Draft(state)
    current = state.turn["seat"]
    seat = turn.next_seat(list(state.players), current)
    number = state.turn["number"] + 1
    ops = [{"op": "turn", "from": state.turn, "to": {"seat": seat, "number": number, "phase": "start"}}]
    numbers = draft.numbers
    parts = []
    if state.players[seat].dead:
        draft.flag(seat, "dead", False)
        for key, value in (("health", numbers.health), ("gold", numbers.gold), ("dxm", numbers.restart_hand[0]),
                           ("treasure", numbers.restart_hand[1]), ("room", Q.ENTRANCE)):
            draft.set(seat, key, value)
        parts.append(said("{name} starts again at the Entrance: {health} health, {tokens} tokens, {gold} gold, "
                          "{dxm} DxM and {treasure} Treasure cards", name=_name(state, seat), health=numbers.health,
                          tokens=numbers.tokens, gold=numbers.gold, dxm=numbers.restart_hand[0],
                          treasure=numbers.restart_hand[1]))
    draft.set(seat, "tokens", Q.tokens_per_turn(draft.chars[seat], numbers))
    draft.set(seat, "searched", [])
    summary = said("{name}'s turn (turn {number})", name=_name(state, seat), number=number)
    if parts:
        summary = said("{first}; {parts}", first=summary, parts=parts)
    ops += draft.ops
    _check_ops(state, ops)
    return Event("turn.passed", {"from": current, "to": seat, "number": number, "actor": actor, "ops": ops,
                                 "summary": summary})


# --- the character ------------------------------------------------------------------------------

@decides("quest.heal")
def _heal(state: TableState, actor: str, action: str, params: dict) -> Event:
    seat = params["seat"]
    draft = Draft(state)
    numbers, level = draft.numbers, draft.chars[seat]["level"]
    health = draft.q(seat)["health"]
    if level <= state.profile.min_level:
        raise Refused("Healing costs a level and {name} is at Level 1: nothing goes below Level 1.", rule="quest.heal",
                      status=409, name=_name(state, seat))
    if health >= numbers.health:
        raise Refused("{name} has all {n} health.", rule="quest.heal", status=409, name=_name(state, seat), n=numbers.health)
    after = min(numbers.health, health + numbers.heal_health)
    draft.level(seat, -1, "down")
    draft.set(seat, "health", after)
    return _changed(actor, action, draft.ops, said("{who} heals: one level for health {before} → {after}",
                                                   before=health, after=after), state)


@decides("quest.level.buy")
def _buy_level(state: TableState, actor: str, action: str, params: dict) -> Event:
    seat = params["seat"]
    draft = Draft(state)
    price, number = draft.numbers.level_price, (state.turn or {}).get("number", 0)
    if state.turn and state.turn["seat"] != seat:
        refuse("It is {name}'s turn: a level is bought on your own turn.", rule="turn.own",
               name=_name(state, state.turn["seat"]))
    if state.combat:  # our reading: not in a fight, as cards in hand are played (Gestion des cartes)
        raise Refused("A level is bought outside a fight: settle the fight first.", rule="quest.level.buy", status=409)
    if draft.q(seat).get("bought_turn") == number:
        raise Refused("A level can be bought once a turn.", rule="quest.level.buy", status=409)
    uids = params.get("uids") or []
    if len(set(uids)) != len(uids):
        raise Refused("Name each item once.", status=400)
    items = [Q.gear_item(draft.chars[seat], uid) for uid in uids]
    worth = sum(item["gold"] for item in items)
    coins = max(0, price - worth)  # the items' worth first, the coins make up the rest (no change is given)
    if draft.q(seat)["gold"] < coins:
        raise Refused("A level costs {price:,} gold; {name} has {gold:,} in coins and {worth:,} in the items named.",
                      rule="quest.level.buy", status=409, price=price, name=_name(state, seat),
                      gold=draft.q(seat)["gold"], worth=worth)
    change_level(state.profile, draft.chars[seat]["level"], 1, "up")  # never level 10 (level.win-by-kill)
    if items:
        draft.set(seat, "gear", [i for i in draft.q(seat)["gear"] if i["uid"] not in uids])
    if coins:
        draft.add(seat, "gold", -coins)
    draft.set(seat, "bought_turn", number)
    draft.level(seat, 1, "up")
    if not items:
        return _changed(actor, action, draft.ops, said("{who} buys a level for {price:,} gold", price=price), state)
    return _changed(actor, action, draft.ops, said("{who} buys a level with {items} ({worth:,} gold) and {coins:,} gold "
                                                   "in coins", items=", ".join(i["name"] for i in items), worth=worth,
                                                   coins=coins), state)


@decides("quest.health")
def _health(state: TableState, actor: str, action: str, params: dict) -> Event:
    seat, change = params["seat"], params.get("change") or 0
    draft = Draft(state)
    if change == 0:
        raise Refused("change must not be 0.", status=400)
    if change > 0:
        after = min(draft.numbers.health, draft.q(seat)["health"] + change)
        if after == draft.q(seat)["health"]:
            raise Refused("{name} has all {n} health.", rule="quest.heal", status=409, name=_name(state, seat),
                          n=draft.numbers.health)
        draft.set(seat, "health", after)
        return _changed(actor, action, draft.ops, said("{who} regains health: {after}", after=after), state)
    parts = []
    died = hurt(draft, seat, -change)
    if died:
        parts = die(draft, seat)
    summary = said("{who} loses {n} health", n=-change)
    if parts:
        summary = said("{first}; {parts}", first=summary, parts=parts)
    if died and seat in in_fight(state):
        return _dead_in_fight(draft, seat, summary, actor)
    if died:
        _death_step(draft, seat)
    return _changed(actor, action, draft.ops, summary, state)


def _dead_in_fight(draft: Draft, seat: str, summary: dict, actor: str) -> Event:
    """A character killed in the middle of a fight leaves it (quest.death): a dead helper adds nothing
    more and gains nothing, and with the fighter dead the fight is over, the turn going straight to the
    monsters' move; the monsters stay where they are."""
    fight = draft.state.combat
    if seat == fight["helper"]:
        after = {**copy.deepcopy(fight), "helper": None, "dice": {**copy.deepcopy(fight["dice"]), "helper": None}}
        return _fight_event(draft, after, summary, actor)
    return _fight_event(draft, None, summary, actor, step="death")


@decides("quest.gold", "quest.cards")
def _counts(state: TableState, actor: str, action: str, params: dict) -> Event:
    seat = params["seat"]
    draft = Draft(state)
    keys = ("gold",) if action == "quest.gold" else ("dxm", "treasure")
    changes = {key: params.get("change" if key == "gold" else key) or 0 for key in keys}
    if not any(changes.values()):
        raise Refused("Nothing changes.", status=400)
    for key, change in changes.items():
        if draft.q(seat)[key] + change < 0:
            raise Refused("{name} has only {n} ({word}).", status=409, name=_name(state, seat), n=draft.q(seat)[key],
                          word=key)
        draft.add(seat, key, change)
    if action == "quest.gold":
        return _changed(actor, action, draft.ops, said("{who}: {change:+} gold", change=changes["gold"]), state)
    return _changed(actor, action, draft.ops, said("{who}: DxM cards {dxm:+}, Treasure cards {treasure:+}", **changes), state)


@decides("quest.die")
def _die(state: TableState, actor: str, action: str, params: dict) -> Event:
    seat = params["seat"]
    if seat in in_fight(state):
        raise Refused("Finish the fight first.", rule="combat.one", status=409)
    draft = Draft(state)
    parts = die(draft, seat)
    _death_step(draft, seat)
    return _changed(actor, action, draft.ops, said("{who} chooses to die: {parts}", parts=parts), state)


@decides("quest.item.add", "quest.item.move", "quest.item.drop", "quest.item.give")
def _gear(state: TableState, actor: str, action: str, params: dict) -> Event:
    seat = params["seat"]
    draft = Draft(state)
    gear = draft.q(seat)["gear"]
    backpack = draft.numbers.backpack
    if action == "quest.item.add":
        if seat in in_fight(state):
            raise Refused("Items are put into play outside a fight; in it, only what hangs on the belt is used "
                          "(or a one-shot card played from the hand).", rule="quest.gear", status=409)
        raw = params.get("item") or {k: params[k] for k in ("name", "slot", "bonus", "big", "gold") if k in params}
        item = Q.new_item(raw, f"u{state.version + 1}")
        where = Q.place_for(gear, item, params.get("place"), backpack)
        draft.set(seat, "gear", gear + [{**item, "where": where}])
        summary = said("{who} puts {item} into play ({word})", item=item["name"], word=where)
        if item["big"] and Q.bigs_over(draft.chars[seat], draft.numbers):
            summary = said("{first}; a further Big item costs a move/action token each turn", first=summary)
        return _sheet(state, seat, action, draft, summary)
    item = Q.gear_item(draft.chars[seat], params.get("uid"))
    rest = [i for i in gear if i["uid"] != item["uid"]]
    if action == "quest.item.move":
        if seat in in_fight(state):
            raise Refused("No swapping between the backpack and what is worn during a fight.", rule="quest.backpack",
                          status=409)
        place = params.get("place")
        if place is None or place == item["where"]:
            raise Refused("Say where it goes: worn, belt or backpack (not where it is).", status=400)
        swapped = _swap(gear, item, place, backpack)
        if swapped:
            draft.set(seat, "gear", swapped[0])
            return _sheet(state, seat, action, draft, said("{who} wears {item}; {others} into the backpack",
                                                           item=item["name"], others=", ".join(swapped[1])))
        where = Q.place_for(rest, item, place, backpack)
        draft.set(seat, "gear", [dict(i, where=where) if i["uid"] == item["uid"] else i for i in gear])
        return _sheet(state, seat, action, draft, said("{who} moves {item} ({word})", item=item["name"], word=where))
    if action == "quest.item.drop":
        room = draft.q(seat)["room"]
        draft.set(seat, "gear", rest)
        draft.put("dropped", room, list(draft.board["dropped"].get(room) or []) +
                  [{k: v for k, v in item.items() if k != "where"}])
        return _sheet(state, seat, action, draft, said("{who} drops {item} in {room}", item=item["name"],
                                                       room=Q.room_name(draft.board, room)))
    to = params.get("to")
    if to not in state.players or to == seat:
        raise Refused("Give it to another player at this table.", status=400)
    if state.players[to].dead:
        raise Refused("{name} is dead: no cards and no levels until the next turn.", rule="death.state", status=409,
                      name=_name(state, to))
    if {seat, to} & in_fight(state):
        raise Refused("No trading during a fight.", rule="quest.trade", status=409)
    if not Q.adjacent(draft.board, draft.q(seat)["room"], draft.q(to)["room"]):
        raise Refused("{name} is not in the same or an adjacent room: no trade.", rule="quest.trade", status=409,
                      name=_name(state, to))
    draft.set(seat, "gear", rest)
    theirs = draft.q(to)["gear"]
    draft.set(to, "gear", theirs + [{**item, "where": Q.place_for(theirs, item, None, backpack)}])
    return _sheet(state, seat, action, draft, said("{who} gives {item} to {name}", item=item["name"], name=_name(state, to)))


def _swap(gear: list[dict], item: dict, place: str, backpack: int) -> tuple[list[dict], list[str]] | None:
    """Wearing an item from the backpack in place of what is worn in its slot (Sac à dos: a swap, even
    with the backpack full): the gear after, and the names that went into the backpack — or ``None``
    when it is no such swap or the backpack cannot take what comes off."""
    if place != "worn" or item["where"] != "backpack" or Q.wear_problem(gear, item) is None:
        return None
    off = {i["uid"] for i in Q.in_the_way(gear, item)}
    after = [dict(i, where="worn") if i["uid"] == item["uid"] else dict(i, where="backpack") if i["uid"] in off else i
             for i in gear]
    if not off or Q.wear_problem(after, item) or sum(i["where"] == "backpack" for i in after) > backpack:
        return None
    return after, [i["name"] for i in gear if i["uid"] in off]


def _sheet(state: TableState, seat: str, action: str, draft: Draft, summary: dict) -> Event:
    if any(op["op"] == "board" for op in draft.ops):
        return _changed(seat, action, draft.ops, summary, state)
    return Event("sheet.changed", {"seat": seat, "action": action, "summary": summary, "ops": draft.ops})


# --- the fight ---------------------------------------------------------------------------------

def new_fight(fighter: str, room: str, monsters: list[dict], boss: bool = False, came_from: str | None = None) -> dict:
    """A Quest fight in ``room``; ``came_from`` is the room the fighter entered from (where a flight goes
    unless the players say otherwise)."""
    return {"game": "munchkin-quest", "fighter": fighter, "helper": None, "invited": None, "promise": None,
            "room": room, "came_from": came_from, "monsters": copy.deepcopy(monsters), "one_shots": [],
            "stage": "fight", "boss": boss, "dice": {"fighter": None, "helper": None, "monsters": {}}}


def _open_fight(draft: Draft, fighter: str, room: str, step: str, summary: dict, actor: str | None = None) -> Event:
    """The fight starts at once: every monster in the room fights together (quest.combat)."""
    before = draft.state.players[fighter].quest["room"]
    fight = new_fight(fighter, room, Q.monsters_in(draft.board, room), came_from=before if before != room else None)
    draft.turn(step)
    return _fight_event(draft, fight, summary, actor or fighter)


def _fight_event(draft: Draft, after: dict | None, summary: dict, actor: str, winners: list | None = None,
                 step: str | None = None) -> Event:
    state = draft.state
    if after is None and state.combat:
        draft.turn(step or "fight over")
        draft.ops += _spent_curses(state, draft.ops)
        left = _out_of_the_entrance(draft, state.combat)
        if left:
            summary = said("{first}; no monster stays in the Entrance: {names} leaves the map", first=summary,
                           names=", ".join(left))
    _check_ops(state, draft.ops)
    return Event("fight.changed", {"actor": actor, "summary": summary, "before": state.combat, "after": after,
                                   "ops": draft.ops, "winner": winners[0] if winners else None,
                                   "winners": winners or []})


def _out_of_the_entrance(draft: Draft, fight: dict) -> list[str]:
    """A fight in the Entrance that ends with monsters left (one a search turned up there, fled from):
    no monster stays in the Entrance (Règles inamovibles), so they leave the map — our reading, as
    nothing says where else they would go. Their names. In the Boss fight that is a monster that
    joined it (the Boss itself is not on the map and never leaves the Entrance). Every monster
    standing there goes, not only those still in the fight: one that ignored the fighter and was
    left out of it (quest.fight.ignore) stayed in the Entrance."""
    if fight["room"] != Q.ENTRANCE:
        return []
    left = [m for m in draft.board["monsters"].values() if m["room"] == Q.ENTRANCE]
    for monster in left:
        draft.put("monsters", monster["uid"], None)
    return [m["name"] for m in left]


@decides("quest.boss")
def _boss(state: TableState, actor: str, action: str, params: dict) -> Event:
    turn.require(state, "move")
    draft = Draft(state)
    if draft.q(actor)["room"] != Q.ENTRANCE:
        raise Refused("The Boss waits at the Entrance: go back there first.", rule="quest.win", status=409)
    if draft.chars[actor]["level"] < state.profile.top_level:
        raise Refused("Only a Level {top} character challenges the Boss.", rule="quest.win", status=409,
                      top=state.profile.top_level)
    monster = {**Q.new_monster({**(monster_param(params) or {}), "boss": True}, f"m{state.version + 1}",
                               Q.ENTRANCE, state.players)}
    fight = new_fight(actor, Q.ENTRANCE, [monster], boss=True)
    draft.turn("move:fight")
    return _fight_event(draft, fight, said("{who} challenges the Boss: {monster} (level {level})",
                                           monster=monster["name"], level=monster["level"]), actor)


def _description(state: TableState, fight: dict) -> dict:
    """The fight as :func:`quest_fight.judge` takes it, from the sheets and the dice given."""
    out = {"monsters": [], "one_shots": fight["one_shots"],
           "others_in_room": any(p.quest.get("room") == fight["room"] for s, p in state.players.items()
                                 if s != fight["fighter"] and not p.dead)}
    for role in quest_fight.ROLES:
        seat = fight[role]
        if seat:
            p = asdict(state.players[seat])
            out[role] = {"name": p["name"], "seat": seat, "level": p["level"], "die": fight["dice"][role],
                         "gold": p["quest"]["gold"],
                         "items": [i for i in p["quest"]["gear"] if i["where"] == "worn"],
                         "curses": [{"name": line["source"], "bonus": line["value"]}
                                    for line in Q.curse_lines(p) + Q.curse_lines(p, next_combat=True)]}
    for m in fight["monsters"]:
        out["monsters"].append({**m, "rolls": fight["dice"]["monsters"].get(m["uid"]) or []})
    return out


def verdict(state: TableState, fight: dict | None = None) -> dict | None:
    """The referee's verdict on the Quest fight as it stands, once every die is known (else ``None``)."""
    fight = fight or state.combat
    if not fight or not fight["monsters"] or missing_dice(fight):
        return None
    return quest_fight.judge(_description(state, fight), state.profile)


def missing_dice(fight: dict) -> list[str]:
    out = [role for role in quest_fight.ROLES if fight[role] and fight["dice"][role] is None]
    return out + [m["name"] for m in fight["monsters"] if len(fight["dice"]["monsters"].get(m["uid"]) or []) != m["dice"]]


def fight_action(state: TableState, actor: str, action: str, params: dict) -> Event:
    """The shared fight actions (help, one-shots, calling off) on a Quest fight."""
    fight = state.combat
    draft = Draft(state)
    after = copy.deepcopy(fight)
    if action == "combat.end":  # who may was checked for both games (table._decide_combat)
        if fight["boss"]:
            raise Refused("Nothing stops the fight with the Boss.", rule="quest.win", status=409)
        # A monster in the room means a fight at once, and a lost one is fled from (Exploration;
        # Combat, Perdu): calling it off would skip both. A card that ends it is the host's to allow.
        if fight["stage"] == "fight":
            refuse("A Quest fight ends by winning it or fleeing: roll the dice (a monster that ignores you is left "
                   "out); the host may allow calling it off when a card ends it.", rule="quest.combat")
        else:
            refuse("The fight is lost: flee now; the host may allow calling it off when a card ends it.", rule="quest.flee")
        return _fight_event(draft, None, said("{who} calls the fight off"), actor)
    _still_fighting(fight)
    if action == "combat.oneshot.add":
        raw = params.get("one_shot") or {}
        side = params.get("side")
        if side not in ("players", "monsters"):
            raise Refused("side must be players or monsters.", status=400)
        raw = checked_object(raw, "one_shot")  # checked as the card game's are, at the Quest's range
        bonus = whole(raw.get("bonus", 0), "one_shot.bonus", -20, 20)
        after["one_shots"].append({"uid": f"f{state.version + 1}", "name": str(raw.get("name") or "One-shot")[:80],
                                   "bonus": bonus, "side": side, "by": actor})
        return _fight_event(draft, after, said("{who} plays {card} for the {word}", card=after["one_shots"][-1]["name"],
                                               word=side), actor)
    if action == "combat.help.ask":
        seat = params.get("seat")
        if actor != fight["fighter"]:
            raise Refused("Only the fighter asks for help.", status=403)
        if seat not in state.players or seat == fight["fighter"]:
            raise Refused("Ask another player at this table.", status=400)
        if fight["helper"]:
            raise Refused("{name} is already helping: only one helper.", rule="combat.one-helper", status=409,
                          name=_name(state, fight["helper"]))
        if state.players[seat].dead or not Q.adjacent(draft.board, fight["room"], draft.q(seat)["room"]):
            raise Refused("{name} is not in the same or an adjacent room: no help from there.", rule="quest.help",
                          status=409, name=_name(state, seat))
        after["invited"] = seat
        return _fight_event(draft, after, said("{who} asks {name} for help", name=_name(state, seat)), actor)
    if action == "combat.help.accept":
        if actor != fight["invited"]:
            raise Refused("Only the player who was asked can accept.", status=403)
        if state.players[actor].dead:
            raise Refused("{name} is dead: no cards and no levels until the next turn.", rule="death.state",
                          status=409, name=_name(state, actor))
        after["helper"], after["invited"] = actor, None
        draft.set(actor, "room", fight["room"])
        return _fight_event(draft, after, said("{who} helps and moves into {room}", room=Q.room_name(draft.board, fight["room"])),
                            actor)
    if action == "combat.help.decline":
        if actor == fight["helper"]:
            raise Refused("A helper who has joined the fight cannot back out.", rule="quest.help", status=409)
        if actor != fight["invited"]:
            raise Refused("You are not asked to help.", status=403)
        after["invited"] = None
        return _fight_event(draft, after, said("{who} does not help"), actor)
    raise Refused("{action} is not part of {game}.", status=409, action=action, game="Munchkin Quest")


def _still_fighting(fight: dict) -> None:
    """After a lost fight only fleeing is left (quest.flee)."""
    if fight["stage"] != "fight":
        raise Refused("The fight is lost: flee now.", rule="quest.flee", status=409)


def _participant(state: TableState, actor: str, fight: dict, what: str) -> None:
    owners = {m.get("owner") for m in fight["monsters"]}
    if actor not in (fight["fighter"], fight["helper"], state.host) and actor not in owners:
        raise Refused("Only the fighter, the helper, a monster's owner or the host {what}.", status=403, what=what)


@decides("quest.item.use")
def _use_potion(state: TableState, actor: str, action: str, params: dict) -> Event:
    """A potion or scroll on the belt is usable in a fight (quest.gear): a one-shot for either side."""
    fight = state.combat
    _still_fighting(fight)
    draft = Draft(state)
    item = Q.gear_item(draft.chars[actor], params.get("uid"))
    if item["where"] != "belt":
        raise Refused("Only what hangs on the belt is used in a fight; {name} is not there.", rule="quest.gear",
                      status=409, name=item["name"])
    side = params.get("side") or "players"
    draft.set(actor, "gear", [i for i in draft.q(actor)["gear"] if i["uid"] != item["uid"]])
    after = copy.deepcopy(fight)
    after["one_shots"].append({"uid": f"f{state.version + 1}", "name": item["name"], "bonus": item["bonus"],
                               "side": side, "by": actor})
    return _fight_event(draft, after, said("{who} uses {card} for the {word}", card=item["name"], word=side), actor)


@decides("quest.fight.monster")
def _fight_monster(state: TableState, actor: str, action: str, params: dict) -> Event:
    fight = state.combat
    _still_fighting(fight)
    draft = Draft(state)
    monster = Q.new_monster(monster_param(params) or {}, f"m{state.version + 1}", fight["room"], state.players)
    _stand_for(draft, monster)
    draft.put("monsters", monster["uid"], monster)
    after = copy.deepcopy(fight)
    after["monsters"].append(monster)
    return _fight_event(draft, after, said("{who} adds {monster} (level {level}) to the fight", monster=monster["name"],
                                           level=monster["level"]), actor)


@decides("quest.fight.ignore")
def _fight_ignore(state: TableState, actor: str, action: str, params: dict) -> Event:
    """A monster that ignores the fighter stays out of the fight (Combat: fighting it is the
    players' choice, and the others fight without it); with every monster out there is no
    fight. Nothing keeps the Boss out of its fight (Règles inamovibles)."""
    fight = state.combat
    if actor not in (fight["fighter"], fight["helper"], state.host):
        raise Refused("Only the fighter, the helper or the host leaves a monster out.", status=403)
    _still_fighting(fight)
    if fight["boss"]:
        raise Refused("Nothing stops the fight with the Boss.", rule="quest.win", status=409)
    monster = next((m for m in fight["monsters"] if m["uid"] == params.get("monster")), None)
    if monster is None:
        raise Refused("There is no such monster in this fight.", status=404)
    after = copy.deepcopy(fight)
    after["monsters"] = [m for m in after["monsters"] if m["uid"] != monster["uid"]]
    after["dice"]["monsters"].pop(monster["uid"], None)
    summary = said("{who}: {monster} ignores {name} and stays out of the fight", monster=monster["name"],
                   name=_name(state, fight["fighter"]))
    return _fight_event(Draft(state), after if after["monsters"] else None, summary, actor)


def roller(state: TableState, fight: dict, who) -> str:
    """Who rolls the dice of ``who`` — a role of the fight or one of its monsters: each player their
    own die, a monster's dice its owner (quest.monster-owner), the fighter when the owner is not at
    the table."""
    if who in quest_fight.ROLES:
        return fight[who]
    owner = who.get("owner")
    return owner if owner in state.players else fight["fighter"]


def rolls_for(state: TableState, actor: str, fight: dict, who) -> bool:
    """Whether ``actor`` gives the dice of ``who``: its :func:`roller`, or the host (who may enter
    any die, for a player without a phone)."""
    return actor == state.host or actor == roller(state, fight, who)


@decides("quest.fight.dice")
def _fight_dice(state: TableState, actor: str, action: str, params: dict) -> Event:
    fight = state.combat
    _participant(state, actor, fight, "gives the fight's dice")
    _still_fighting(fight)
    after = copy.deepcopy(fight)
    dice = after["dice"]
    roll = params.get("roll", False)
    by_app = set(dice.get(APP_ROLLED) or [])  # the dice the app rolled: not rolled again (see _app_rolled)
    rolled_now = []
    for role in quest_fight.ROLES:
        given = params.get(f"{role}_die")
        if given is not None:
            if not fight[role]:
                raise Refused("There is no {word} in this fight.", status=400, word=role)
            if given != dice[role] and not rolls_for(state, actor, fight, role):
                raise Refused("{name} rolls their own die (or the host enters it).", status=403,
                              name=_name(state, fight[role]))
            if given != dice[role]:
                _app_rolled(state, actor, by_app, role)
            dice[role] = given
        elif roll and fight[role] and dice[role] is None and rolls_for(state, actor, fight, role):
            dice[role] = secrets.randbelow(6) + 1
            rolled_now.append(role)
    given = typed_dice(params.get("monster_dice"))
    needed = sum(m["dice"] for m in fight["monsters"])
    if given and len(given) != needed:
        raise Refused("The monsters roll {n} dice in all (in the fight's order); {m} given.", rule="quest.combat",
                      status=400, n=needed, m=len(given))
    for m in fight["monsters"]:
        if given:
            mine, given = given[:m["dice"]], given[m["dice"]:]
            if mine != dice["monsters"].get(m["uid"]) and not rolls_for(state, actor, fight, m):
                raise Refused("{monster}'s dice are rolled by its owner, {name}.", rule="quest.monster-owner", status=403,
                              monster=m["name"], name=_name(state, m["owner"]))
            if mine != dice["monsters"].get(m["uid"]):
                _app_rolled(state, actor, by_app, m["uid"])
            dice["monsters"][m["uid"]] = mine
        elif roll and len(dice["monsters"].get(m["uid"]) or []) != m["dice"] and rolls_for(state, actor, fight, m):
            dice["monsters"][m["uid"]] = [secrets.randbelow(6) + 1 for _ in range(m["dice"])]
            rolled_now.append(m["uid"])
    if rolled_now:
        dice[APP_ROLLED] = sorted(by_app | set(rolled_now))
    if after == fight:
        raise Refused("No new die: type the dice you roll, or let the app roll the ones of yours still missing.", status=400)
    shown = ", ".join([f"{_name(state, fight[r])} {dice[r]}" for r in quest_fight.ROLES if fight[r] and dice[r]] +
                      [f"{m['name']} {'+'.join(map(str, dice['monsters'][m['uid']]))}" for m in fight["monsters"]
                       if dice["monsters"].get(m["uid"])])
    judged = verdict(state, after)
    summary = said("{who} records the dice: {dice}", dice=shown)
    if judged:
        summary = said("{first} — players {players}, monsters {monsters}", first=summary,
                       players=judged["players"]["total"], monsters=judged["monsters"]["total"])
    event = _fight_event(Draft(state), after, summary, actor)
    if rolled_now:
        event.payload["app_dice"] = "fight"  # not taken back but by the host (table.inverse)
    return event


#: Where a Quest fight keeps which of its dice the app rolled (``"fighter"``, ``"helper"``, monster uids).
APP_ROLLED = "app"
#: Why such a die is not changed (quest.combat): the same words refuse typing over it and undoing its roll.
APP_DIE_KEPT = N_("The app rolled that die: only the host changes it or takes it back, or it would be a second roll.")
#: The rule each kind of Quest die the app rolled cites when a player would take it back (``app_dice`` of
#: the event): the fight's dice and the search's d6 (Fouille). An escape's dice cite quest.flee.
APP_DICE_RULES = {"fight": "quest.combat", "search": "quest.search"}


def _app_rolled(state: TableState, actor: str, by_app: set, key: str) -> None:
    """A die the app rolled (quest.combat: the dice decide the fight) is changed by the host alone:
    typing another value over it, like undoing the roll, would be a second roll. A die a player typed
    in may be corrected (a slip of the finger)."""
    if key in by_app and actor != state.host:
        raise Refused(APP_DIE_KEPT, rule="quest.combat", status=403)


@decides("quest.fight.resolve")
def _fight_resolve(state: TableState, actor: str, action: str, params: dict) -> Event:
    fight = state.combat
    _participant(state, actor, fight, "settles the fight")
    _still_fighting(fight)
    missing = missing_dice(fight)
    if missing:
        raise Refused("Dice are missing ({names}): give them or let the app roll.", rule="quest.combat", status=409,
                      names=", ".join(_name(state, fight[m]) if m in quest_fight.ROLES else m for m in missing))
    judged = verdict(state, fight)
    draft = Draft(state)
    totals = {"players": judged["players"]["total"], "monsters": judged["monsters"]["total"]}
    if judged["outcome"] == "win":
        parts = []
        raised = {}
        for role in quest_fight.ROLES:
            seat, gained = fight[role], judged["levels"][role]
            if seat and gained and draft.chars[seat]["level"] < state.profile.top_level:
                # the levels actually gained (a kill never goes past the top level): the operation
                # records them, so undoing the win takes back what was gained, not what the card was worth
                raised[role] = min(gained, state.profile.top_level - draft.chars[seat]["level"])
                draft.level(seat, raised[role], "kill")
        draft.add(fight["fighter"], "treasure", judged["treasures"])
        for m in fight["monsters"]:
            if m.get("owner") and m["owner"] in (fight["fighter"], fight["helper"]):
                draft.add(m["owner"], "dxm", 1)
                parts.append(said("{name} owns {monster} and draws a DxM card", name=_name(state, m["owner"]),
                                  monster=m["name"]))
            if m["uid"] in draft.board["monsters"]:
                draft.put("monsters", m["uid"], None)
        winners = None
        if fight["boss"]:
            draft.put("boss", "beaten", True)
            if draft.chars[fight["fighter"]]["level"] >= state.profile.top_level:
                winners = [fight["fighter"]]
        levels = ", ".join(f"{_name(state, fight[r])} +{raised[r]}" for r in quest_fight.ROLES if raised.get(r))
        summary = said("{who} wins the fight: {players} to {monsters}, {levels}, {draw}", levels=levels or gain_said(0),
                       draw=draw_said(judged["treasures"], bool(judged["treasures_face_up"])), **totals)
        if winners:
            summary = said("{first} — and wins the game", first=summary)
        if parts:
            summary = said("{first}; {parts}", first=summary, parts=parts)
        return _fight_event(draft, None, summary, actor, winners)
    parts = []
    for role in quest_fight.ROLES:
        seat = fight[role]
        if seat and hurt(draft, seat, 1):
            parts += die(draft, seat)
    template = (N_("{who} loses the fight on a tie ({players} to {monsters}: ties go to the monsters): 1 health lost, flee")
                if judged["tie"] else N_("{who} loses the fight ({players} to {monsters}): 1 health lost, flee"))
    summary = said(template, **totals)
    if parts:
        summary = said("{first}; {parts}", first=summary, parts=parts)
    alive = [fight[r] for r in quest_fight.ROLES if fight[r] and not draft.chars[fight[r]]["dead"]]
    if not alive:
        return _fight_event(draft, None, summary, actor, step="death" if draft.chars[fight["fighter"]]["dead"] else None)
    return _fight_event(draft, {**copy.deepcopy(fight), "stage": "flee"}, summary, actor)


@decides("quest.fight.flee")
def _fight_flee(state: TableState, actor: str, action: str, params: dict) -> Event:
    fight = state.combat
    if actor not in (fight["fighter"], fight["helper"], state.host):
        # a monster's owner rolls its fight dice (quest.monster-owner), but the flight is theirs who flee:
        # where to (Perdu: the fleeing player chooses) and their own dice
        raise Refused("Only the fighter, the helper or the host runs the escape: those who flee choose where.",
                      rule="quest.flee", status=403)
    if fight["stage"] != "flee":
        raise Refused("Flee a lost fight: settle it first.", rule="quest.flee", status=409)
    draft = Draft(state)
    room = params.get("room") or fight.get("came_from")
    if room:
        Q.room_of(draft.board, room)
        if room == fight["room"] or not Q.adjacent(draft.board, fight["room"], room):
            raise Refused("Flee to an explored room next to this one.", rule="quest.flee", status=409)
    elif Q.neighbours(draft.board, fight["room"]):
        raise Refused("Say where to flee: an explored room next to this one.", rule="quest.flee", status=400)
    desc = _description(state, fight)
    fleeing = [r for r in quest_fight.ROLES if fight[r] and not state.players[fight[r]].dead]
    app_dice = any(not params.get(f"{role}_rolls") for role in fleeing)
    for role in fleeing:
        if params.get(f"{role}_rolls") and not rolls_for(state, actor, fight, role):
            # each one who flees rolls their own dice (Perdu), as in the fight; the app rolls those not typed
            raise Refused("{name} rolls their own die (or the host enters it).", status=403,
                          name=_name(state, fight[role]))
        rolls = typed_dice(params.get(f"{role}_rolls")) or [secrets.randbelow(6) + 1 for _ in fight["monsters"]]
        if len(rolls) != len(fight["monsters"]):  # (a die too many is a die meant for something else)
            raise Refused("{who} rolls one die for each monster ({n}).", rule="quest.flee", status=400,
                          who=_name(state, fight[role]), n=len(fight["monsters"]))
        desc[role]["flee"] = rolls
    for role in quest_fight.ROLES:
        if role not in fleeing:
            desc.pop(role, None)
    not_applicable = set(params.get("not_applicable") or [])
    desc["monsters"] = [{**m, "cannot_apply": m["uid"] in not_applicable} for m in desc["monsters"]]
    parts = []
    for result in quest_fight.flee(desc, state.profile):
        seat = fight[result["role"]]
        if draft.chars[seat]["dead"]:
            continue
        if not result["caught"]:
            parts.append(said("{name} escapes {monster} ({roll})", name=_name(state, seat), monster=result["monster"],
                              roll=result["roll"]))
            continue
        monster = fight["monsters"][result["index"]]
        lines = _bad_stuff(draft, seat, monster, monster["uid"] in not_applicable)
        parts.append(said("{name} is caught by {monster} ({roll}): {bad_stuff}", name=_name(state, seat),
                          monster=result["monster"], roll=result["roll"], bad_stuff=lines))
    if room:
        for role in fleeing:
            if not draft.chars[fight[role]]["dead"]:
                draft.set(fight[role], "room", room)
    if not parts:  # said on its own line: Babel (2.19) does not extract a call nested in a list
        parts = [said("nothing to flee from")]
    summary = said("{who} flees: {parts}", parts=parts)
    fighter_dead = draft.chars[fight["fighter"]]["dead"]
    event = _fight_event(draft, None, summary, actor, step="death" if fighter_dead else None)
    if app_dice:
        event.payload["app_dice"] = True  # not taken back but by the host (table.inverse)
    return event


def _bad_stuff(draft: Draft, seat: str, monster: dict, cannot_apply: bool) -> list:
    """Apply a monster's Bad Stuff (quest.flee): what it takes, or one more health when it cannot apply
    (``cannot_apply``: the players say a Bad Stuff in words does not fit this character)."""
    lines = []
    parts, applies = Q.bad_stuff_parts(draft.chars[seat], monster.get("bad_stuff") or {}, draft.profile)
    if cannot_apply:
        parts, applies = [], False
    for what, value in parts:
        if draft.chars[seat]["dead"]:
            break
        if what == "death":
            lines += die(draft, seat)
        elif what == "health":
            lines.append(said("{n} health lost", n=value))
            if hurt(draft, seat, value):
                lines += die(draft, seat)
        elif what == "levels":
            draft.level(seat, -value, "down")
            lines.append(said("{n} level(s) lost", n=value))
        elif what == "gold":
            draft.add(seat, "gold", -value)
            lines.append(said("{n} gold lost", n=value))
        elif what == "item":
            draft.set(seat, "gear", [i for i in draft.q(seat)["gear"] if i["uid"] != value["uid"]])
            lines.append(said("{item} lost", item=value["name"]))
    text = (monster.get("bad_stuff") or {}).get("text")
    if applies and text:
        lines.append(said("{text}", text=text))
    elif applies and not monster.get("bad_stuff"):
        lines.append(said("the Bad Stuff as {monster}'s card says", monster=monster["name"]))
    if not applies and not draft.chars[seat]["dead"]:
        lines.append(said("the Bad Stuff cannot apply: 1 more health lost"))
        if hurt(draft, seat, 1):
            lines += die(draft, seat)
    return lines
