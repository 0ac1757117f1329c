"""The rules the referee enforces, each summarised in our own words with its citation.

A refusal always names one of these entries, so a phone can say *why* an action is
illegal and where the book says so. Summaries are the project's own wording; the
citation names the edition and the section of the rulebook it follows.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One rule entry: a stable id, a one-line summary in our words, and its source."""

    id: str
    title: str
    summary: str
    citation: str

    def as_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "summary": self.summary, "citation": self.citation}


RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in [
        Rule(
            "level.floor",
            "Level 1 is the floor",
            "No card or rule can take a character below Level 1; only combat strength may drop lower.",
            "Munchkin 1.6 (2011), Contradictions Between Cards and Rules, rule 1; Character Stats, Level",
        ),
        Rule(
            "level.win-by-kill",
            "The winning level takes a kill",
            "The last level before winning can only be gained by killing a monster, "
            "not by a card, a sale or any other way, unless a card says it overrides this.",
            "Munchkin 1.6 (2011), Contradictions Between Cards and Rules, rule 4; Starting and Finishing the Game",
        ),
        Rule(
            "game.won",
            "First to the top level wins",
            "The first character to reach the top level by killing a monster wins, and the game ends there.",
            "Munchkin 1.6 (2011), Starting and Finishing the Game",
        ),
        Rule(
            "character.sex",
            "Your character starts as your own sex",
            "A new character has the player's own sex; only cards change it afterwards.",
            "Munchkin 1.6 (2011), Character Stats",
        ),
        Rule(
            "table.host",
            "The host has the last word",
            "Disputes the rules do not settle go to the owner of the game, so the table's host "
            "manages seats and may change or undo anyone's moves; players manage their own character.",
            "Munchkin 1.6 (2011), Contradictions Between Cards and Rules (the owner of the game has the last word)",
        ),
        Rule(
            "table.players",
            "Three to six players",
            "The game is written for three to six players; the app seats up to eight for house variants.",
            "Munchkin 1.6 (2011), Setup",
        ),
    ]
}


class Refused(Exception):
    """An action the rules (or the table's roles) forbid.

    ``rule`` is the id of the entry in :data:`RULES` that forbids it, or ``None`` when the
    refusal is about the request itself (an unknown player, a name already taken) rather
    than about a rule of the game. ``status`` is the HTTP status the web layer answers with.
    """

    def __init__(self, message: str, rule: str | None = None, status: int = 422):
        super().__init__(message)
        self.message = message
        self.rule = RULES[rule] if rule else None
        self.status = status

    def as_dict(self) -> dict:
        data: dict = {"error": self.message, "rule": self.rule.id if self.rule else None}
        if self.rule:
            data["citation"] = self.rule.citation
            data["rule_summary"] = self.rule.summary
        return data
