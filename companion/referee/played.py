"""A card of the database as the referee takes it when it is played: the parts of its record the
actions read — a curse with its own words, a one-shot with whom and which side it may help —
made in one place for ``card.play`` (the engine looks the card up through the action layer)
and for the actions that name a card by its id (``curse.add card=…``, ``combat.oneshot.add card=…``)."""
from __future__ import annotations


def named(card: dict) -> dict:
    return {"name": card["names"]["en"], "card_id": card["id"]}


def curse(card: dict) -> dict:
    """A curse card: its effects, and its words for what the table does by hand."""
    return {**named(card), "text": (card.get("text") or {}).get("en", ""), **card["curse"]}


def one_shot(card: dict) -> dict:
    """A one-shot card: its bonus, whom it may help (``usable_by``) and whether the monsters' side
    may have it (``either_side``: false for a card that helps its player's side only)."""
    shot = card["one_shot"]
    out = {**named(card), "bonus": shot.get("bonus", 0)}
    if shot.get("usable_by"):
        out["usable_by"] = shot["usable_by"]
    if shot.get("either_side", True) is False:
        out["either_side"] = False
    if shot.get("fire"):  # a fire attack (a monster's extra_levels when: fire)
        out["fire"] = True
    if shot.get("escapes"):  # Instant Wall: up to that many of the fighter and helper run away with no die
        out["escapes"] = shot["escapes"]
    if shot.get("doubles_strength"):  # Doppleganger: the player's own strength again
        out["doubles_strength"] = True
    return out
