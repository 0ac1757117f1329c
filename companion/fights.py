"""Fights described with card ids: the card database fills in the numbers, then the referee judges.

Used by ``companion referee combat`` and ``POST /api/v1/combat/evaluate``, so both accept the
same descriptions and answer the same verdicts.
"""
from __future__ import annotations

import copy

import sqlite_utils

from card_db import store as card_store

from .referee import combat, quest_fight
from .referee.profiles import PROFILES
from .referee.rules import Refused


def card_of(db: sqlite_utils.Database, card_id, kinds: tuple[str, ...], where: str = "") -> dict:
    """The card ``card_id``, refused clearly when it is unknown or not of one of ``kinds``."""
    def refuse(message: str, status: int):
        raise Refused(f"{where}: {message}" if where else message[0].upper() + message[1:], status=status)

    def a(kind: str) -> str:
        words = kind.replace("_", " ")
        return ("an " if words[0] in "aeiou" else "a ") + words

    if not isinstance(card_id, str):
        refuse("card must be a card id.", 400)
    card = card_store.get(db, card_id)
    if card is None:
        refuse(f"there is no card {card_id!r}.", 404)
    if card["kind"] not in kinds:
        refuse(f"{card['names']['en']} is {a(card['kind'])}, not {' or '.join(a(k) for k in kinds)}.", 400)
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
                    card = card_of(db, item.pop("card"), ("item",), f"{who}.items.{index}")
                    character["items"][index] = {"name": card["names"]["en"], **card["item"], **item}
    for index, monster in enumerate(fight.get("monsters") or []):
        if not isinstance(monster, dict):
            continue
        if "card" in monster:
            card = card_of(db, monster.pop("card"), ("monster",), f"monsters.{index}")
            fight["monsters"][index] = monster = {"name": card["names"]["en"], **card["monster"], **monster}
        for e_index, enhancer in enumerate(monster.get("enhancers") or []):
            if isinstance(enhancer, dict) and "card" in enhancer:
                card = card_of(db, enhancer.pop("card"), ("monster_enhancer",), f"monsters.{index}.enhancers.{e_index}")
                monster["enhancers"][e_index] = {"name": card["names"]["en"], **card["enhancer"], **enhancer}
    for index, shot in enumerate(fight.get("one_shots") or []):
        if isinstance(shot, dict) and "card" in shot:
            card = card_of(db, shot.pop("card"), ("one_shot",), f"one_shots.{index}")
            fight["one_shots"][index] = {"name": card["names"]["en"], "bonus": card["one_shot"].get("bonus", 0), **shot}
    return fight


def evaluate(db: sqlite_utils.Database, fight: dict) -> dict:
    """The verdict on ``fight``: a Munchkin Quest fight (``"profile": "munchkin-quest"``) is judged by the
    board game's rules (dice on both sides, ties to the monsters), any other by its card-game edition."""
    if isinstance(fight, dict) and (fight.get("game") == "munchkin-quest" or (
            fight.get("profile") in PROFILES and PROFILES[fight["profile"]].quest)):
        return quest_fight.evaluate(fight)
    return combat.evaluate(resolve(db, fight))
