"""Fights described with card ids: the card database fills in the numbers, then the referee judges.

Used by ``companion referee combat`` and ``POST /api/v1/combat/evaluate``, so both accept the
same descriptions and answer the same verdicts.
"""
from __future__ import annotations

import copy

import sqlite_utils

from card_db import describe
from card_db import store as card_store

from .referee import combat, played, quest_fight
from .referee.profiles import PROFILES
from .referee.rules import Refused


def card_of(db: sqlite_utils.Database, card_id, kinds: tuple[str, ...], where: str | None = None) -> dict:
    """The card ``card_id``, refused clearly when it is unknown or not of one of ``kinds``.

    ``where`` names the field of a fight description (``monsters.0.card``); a table action's
    one ``card`` needs no naming. The messages are templates with their parameters apart, so
    that the phone shows them in its language (``i18n.refusal_text`` names the kinds there too)."""
    if not isinstance(card_id, str):
        raise (Refused("{where} must be a card id.", status=400, where=where) if where else
               Refused("A card is given by its id.", status=400))
    card = card_store.get(db, card_id)
    if card is None:
        raise (Refused("{where}: there is no card {card!r}.", status=404, where=where, card=card_id) if where else
               Refused("There is no card {card!r}.", status=404, card=card_id))
    if card["kind"] not in kinds:
        named = {"name": card["names"]["en"], "card_id": card["id"], "kind": describe.kind_name(card["kind"]),
                 "wanted": describe.kind_names(kinds)}
        raise (Refused("{where}: {name} is a card of kind {kind}, not {wanted}.", status=400, where=where, **named)
               if where else Refused("{name} is a card of kind {kind}, not {wanted}.", status=400, **named))
    return card


def resolve(db: sqlite_utils.Database, fight: dict) -> dict:
    """A copy of ``fight`` where every ``card`` reference is replaced by the card's numbers.

    Inline values given next to a card id win over the card's (a house ruling, a typo on a print).
    """
    if not isinstance(fight, dict):
        raise Refused("The fight must be a JSON object.", status=400)
    fight = copy.deepcopy(fight)
    for who in ("fighter", "helper"):
        character = fight.get(who)
        if isinstance(character, dict):
            for index, item in enumerate(character.get("items") or []):
                if isinstance(item, dict) and "card" in item:
                    card = card_of(db, item.pop("card"), ("item",), f"{who}.items.{index}.card")
                    character["items"][index] = {"name": card["names"]["en"], **card["item"], **item}
    for index, monster in enumerate(fight.get("monsters") or []):
        if not isinstance(monster, dict):
            continue
        if "card" in monster:
            card = card_of(db, monster.pop("card"), ("monster",), f"monsters.{index}.card")
            fight["monsters"][index] = monster = {"name": card["names"]["en"], **card["monster"], **monster}
        for e_index, enhancer in enumerate(monster.get("enhancers") or []):
            if isinstance(enhancer, dict) and "card" in enhancer:
                card = card_of(db, enhancer.pop("card"), ("monster_enhancer",), f"monsters.{index}.enhancers.{e_index}.card")
                monster["enhancers"][e_index] = {"name": card["names"]["en"], **card["enhancer"], **enhancer}
    for index, shot in enumerate(fight.get("one_shots") or []):
        if isinstance(shot, dict) and "card" in shot:
            card = card_of(db, shot.pop("card"), ("one_shot",), f"one_shots.{index}.card")
            shot = {**{k: v for k, v in played.one_shot(card).items() if k != "card_id"}, **shot}
            if shot.pop("doubles_strength", False):  # Doppleganger: the fighter's own, unless "doubles" says the helper
                shot.setdefault("doubles", "fighter")
            fight["one_shots"][index] = shot
    return fight


def evaluate(db: sqlite_utils.Database, fight: dict) -> dict:
    """The verdict on ``fight``: a Munchkin Quest fight (``"profile": "munchkin-quest"``) is judged by the
    board game's rules (dice on both sides, ties to the monsters), any other by its card-game edition."""
    if isinstance(fight, dict) and (fight.get("game") == "munchkin-quest" or (
            fight.get("profile") in PROFILES and PROFILES[fight["profile"]].quest)):
        return quest_fight.evaluate(fight)
    return combat.evaluate(resolve(db, fight))
