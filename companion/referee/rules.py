"""The rules the referee enforces, each summarised in our own words with its citation.

A refusal always names one of these entries, so a phone can say *why* an action is
illegal and where the book says so. Summaries are the project's own wording; the
citation names the edition and the section of the rulebook it follows.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
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
            "race.one",
            "One race, or two with Half-Breed",
            "Without a race card you are human. You may have one race, two only with Half-Breed, "
            "and never two copies of the same race. You may discard a race at any time.",
            "Munchkin 1.6 (2011), Character Stats, Race",
        ),
        Rule(
            "class.one",
            "One class, or two with Super Munchkin",
            "You may have one class, two only with Super Munchkin, and never two copies of the same class. "
            "You may discard a class at any time.",
            "Munchkin 1.6 (2011), Character Stats, Class",
        ),
        Rule(
            "half-breed.needs-race",
            "Half-Breed and Super Munchkin need something to hang on",
            "Half-Breed can only be played on a race and Super Munchkin only on a class. Half-Breed goes when "
            "the last race goes; Super Munchkin goes as soon as either class goes.",
            "Munchkin 1.6 (2011), Classes and Races; German rules (2003) and Dutch rules (2001), Half-Breed and Super Munchkin",
        ),
        Rule(
            "items.big",
            "Only one Big item",
            "You may carry any number of small items but only one Big one, unless something such as the Dwarf "
            "race lets you have more. Losing that ability means getting rid of all but one Big item at once.",
            "Munchkin 1.6 (2011), Items",
        ),
        Rule(
            "items.slots",
            "One hat, one armor, one footgear, two hands",
            "Only one headgear, one armor, one footgear and two 1-hand items (or one 2-hands item) can be in use; "
            "the rest is carried and does not help.",
            "Munchkin 1.6 (2011), Items",
        ),
        Rule(
            "items.restricted",
            "Restricted items help only who qualifies",
            "Anyone may carry any item, but an item for a race, class or sex only counts while the character "
            "is, at that moment, of that race, class or sex.",
            "Munchkin 1.6 (2011), Items",
        ),
        Rule(
            "items.carried",
            "Carried items do not count",
            "Items turned sideways are carried but not in use: they give no bonus until they are put to use, "
            "which cannot happen during a combat or while running away.",
            "Munchkin 1.6 (2011), Items; When to Play Cards, Items – Using Them",
        ),
        Rule(
            "items.not-in-combat",
            "No shopping in the middle of a fight",
            "While you are in a fight (fighting or helping) you may not play new items, change which items are "
            "in use, trade, give or sell them: you fight with what you had when the fight began. Races and "
            "classes may still be discarded, and one-shots are played as usual.",
            "Munchkin 1.6 (2011), Items (Trading; no changes during combat); When to Play Cards, Items; "
            "German rules (2003), Gegenstände verkaufen",
        ),
        Rule(
            "turn.own",
            "Your turn, your door",
            "Players take turns in order. Kicking open the door (and so starting a fight) and selling items for "
            "levels happen on your own turn; a turn ends after Charity, never in the middle of a fight.",
            "Munchkin 1.6 (2011), Turn Phases; Items, Selling Items for Levels",
        ),
        Rule(
            "halfling.double",
            "The Halfling's double price: once a turn",
            "A Halfling may sell one item a turn for double its value (the Halfling card).",
            "Munchkin 1.6 (2011), the Halfling card; German rules (2003), Gegenstände verkaufen",
        ),
        Rule(
            "combat.compare",
            "Higher total wins the fight",
            "Each side adds its levels and every modifier. The players win only with a higher total; a tie or "
            "less means they lose and must run away.",
            "Munchkin 1.6 (2011), Combat",
        ),
        Rule(
            "combat.warrior-ties",
            "A Warrior wins ties",
            "If a Warrior is fighting or helping, the players also win when the totals are equal.",
            "Munchkin 1.6 (2011), Combat example; Asking for Help (the Warrior card)",
        ),
        Rule(
            "combat.enhancers",
            "Enhancers add up, and Mate copies them all",
            "Every enhancer on a monster adds to its level and treasure. Mate brings an identical monster that "
            "carries all the enhancers played on the original, in whatever order they came.",
            "Munchkin 1.6 (2011), Monster Enhancers",
        ),
        Rule(
            "combat.helper-shares",
            "The helper shares the monster's likes and dislikes",
            "A monster's bonuses and weaknesses apply to the helper too, but a bonus against a race or class "
            "counts once even if both fighters have it.",
            "Munchkin 1.6 (2011), Asking for Help",
        ),
        Rule(
            "combat.one-helper",
            "Only one helper",
            "One other player at most may help in a fight; anyone else may still play cards into it.",
            "Munchkin 1.6 (2011), Asking for Help",
        ),
        Rule(
            "combat.one-shots",
            "One-shots for either side",
            "One-shot items can be played in any fight, from the hand or the table, for either side; they are "
            "discarded afterwards.",
            "Munchkin 1.6 (2011), Combat; Interfering With Combat",
        ),
        Rule(
            "combat.powers",
            "Class and race powers",
            "Warrior: discard up to 3 cards for +1 each, once per fight. Cleric: up to 3 cards for +3 each against "
            "Undead. Wizard: up to 3 cards for +1 each to run away, or the whole hand (3 or more) to charm one "
            "monster away. Thief: discard a card to give a fighter -2, once per victim and fight. "
            "Halfling: reroll one failed escape. Elf: +1 to run away. (As the 1.6 race and class cards give them.)",
            "Munchkin 1.6 (2011), Combat example; Asking for Help; the race and class cards",
        ),
        Rule(
            "combat.eliminated",
            "Getting rid of a monster is not killing it",
            "A monster removed by a card or power is beaten but gives no level; its treasure still counts.",
            "Munchkin 1.6 (2011), Combat; Fighting Multiple Monsters",
        ),
        Rule(
            "combat.run-away",
            "Running away: 5 or better",
            "Each fleeing player rolls once per monster, in the order they choose: 5 or more escapes, with every "
            "bonus and penalty; a monster that catches you does its Bad Stuff.",
            "Munchkin 1.6 (2011), Running Away",
        ),
        Rule(
            "combat.objection",
            "Wait before taking the rewards",
            "Before taking levels and treasure after a win, wait about 2.6 seconds so anyone can still play a "
            "card; anything played means the win must be claimed again.",
            "Munchkin 1.6 (2011), Combat (\"a reasonable time, defined as about 2.6 seconds\")",
        ),
        Rule(
            "combat.one",
            "One fight at a time",
            "A fight belongs to the player who kicked open the door; it ends before the next one starts.",
            "Munchkin 1.6 (2011), Turn Phases; Combat",
        ),
        Rule(
            "items.sell",
            "Sell items for levels: 1,000 gold a level, no change",
            "On your turn you may discard items worth 1,000 gold pieces or more for one level per full 1,000; "
            "whatever is left over is lost.",
            "Munchkin 1.6 (2011), Items, Selling Items for Levels",
        ),
        Rule(
            "items.sell-not-to-win",
            "No buying the winning level",
            "Selling items can never take you to the winning level.",
            "Munchkin 1.6 (2011), Items, Selling Items for Levels",
        ),
        Rule(
            "curses.lasting",
            "Lasting curses stay until removed",
            "Most curses act at once and are discarded; those with a lasting effect stay in front of you and "
            "keep affecting you until removed or until their penalty has taken effect.",
            "Munchkin 1.6 (2011), Curses",
        ),
        Rule(
            "death.keep",
            "Death takes your stuff, not your character",
            "A dead character loses every item but keeps level, race(s), class(es), Half-Breed and Super Munchkin, "
            "and the curses that were affecting it.",
            "Munchkin 1.6 (2011), Death",
        ),
        Rule(
            "death.looting",
            "Looting the body",
            "The dead character's hand and items are laid out; starting with the highest level (a die settles "
            "ties), every other player takes one card; the rest is discarded.",
            "Munchkin 1.6 (2011), Death, Looting the Body",
        ),
        Rule(
            "charity",
            "Charity: five cards at the end of the turn",
            "Cards over the hand limit (5; 6 for a Dwarf) go to the lowest-level player, split as evenly as "
            "possible when several are tied; if you are the lowest yourself, discard them.",
            "Munchkin 1.6 (2011), Turn Phases, Charity; the Dwarf card",
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


#: The rules the host may override for one action (a house ruling), and what each lets through.
#: Checks that keep the game state coherent (the level floor, rewards, the fight's order)
#: cannot be overridden.
OVERRIDABLE: dict[str, frozenset] = {
    rule: frozenset({rule}) for rule in
    ("level.win-by-kill", "items.big", "race.one", "class.one", "items.not-in-combat", "turn.own", "halfling.double")
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


#: Rules the host has waived for the decision being made, and those a check actually waived.
_waived: ContextVar[frozenset] = ContextVar("waived", default=frozenset())
_used: ContextVar[list | None] = ContextVar("used", default=None)


def refuse(message: str, rule: str, status: int = 422) -> None:
    """Refuse with ``rule`` unless the host has waived it for this decision (a house ruling).

    Only checks after which the action still makes sense call this (a second class, a
    card giving the winning level, …); checks that protect the state itself raise
    :class:`Refused` directly and cannot be waived.
    """
    if rule in _waived.get():
        used = _used.get()
        if used is not None and rule not in used:
            used.append(rule)
        return
    raise Refused(message, rule=rule, status=status)


@contextmanager
def waiving(rules):
    """Within the block, :func:`refuse` lets ``rules`` through; yields the list of those it did."""
    used: list = []
    tokens = (_waived.set(frozenset(rules)), _used.set(used))
    try:
        yield used
    finally:
        _used.reset(tokens[1])
        _waived.reset(tokens[0])
