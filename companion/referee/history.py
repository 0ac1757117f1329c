"""The history's sentences: what each event says, in any language.

Events keep their sentence as an English template with parameters (:func:`said`), never as
finished text, so that each phone reads the history in its own language: :func:`describe`
takes a gettext function (the web layer passes the phone's; the API and CLI use English)
and translates the template, then fills in names, numbers and game words. Events recorded
before templates existed carry plain English text and are shown as they are.
"""
from __future__ import annotations

from collections.abc import Callable

from .languages import fill
from .profiles import get_profile
from .rules import RULES

Gettext = Callable[[str], str]

#: Game words that may appear as parameters (``word``, ``word2``): English names here, the
#: web layer translates the keys.
WORDS = {"elf": "Elf", "dwarf": "Dwarf", "halfling": "Halfling", "human": "Human", "warrior": "Warrior",
         "wizard": "Wizard", "cleric": "Cleric", "thief": "Thief", "male": "male", "female": "female",
         "players": "players", "monsters": "monsters", "half_breed": "Half-Breed", "super_munchkin": "Super Munchkin",
         "berserk": "Berserk", "turning": "Turning", "flight": "Flight", "door": "Door", "treasure": "Treasure",
         "Entrance": "Entrance",
         "worn": "worn", "belt": "belt", "backpack": "backpack"}
WORD_PARAMS = ("word", "word2", "room")  # (a room: the Entrance is a game word, other rooms are named by the players)


def said(template: str, **params) -> dict:
    """A history sentence: an English template (``{who}`` is the player it is about) and its parameters."""
    return {"t": template, "p": params}


def thing(named: dict) -> dict:
    """A card in play as a sentence parameter: its name, and its card id so that each phone can
    name it in its own language."""
    return {"name": named["name"], **({"card_id": named["card_id"]} if named.get("card_id") else {})}


def undone(summary) -> dict | str:
    """The sentence of the change that undoes one with ``summary``."""
    if isinstance(summary, dict):
        return {**summary, "undo": summary.get("undo", 0) + 1}
    return f"undo: {summary}"


def _english(message: str) -> str:
    return message


def render(summary, who: str, _: Gettext = _english, word: Callable[[str], str] | None = None,
           name: Callable[[dict], str] | None = None, number: Callable[[float], str] | None = None) -> str:
    """A stored sentence as text: translated, with its parameters and the player's name filled in.

    ``word`` names game words, ``name`` cards in play (see :func:`thing`) and ``number``
    writes numbers (``languages.fill``) in the reader's language; all default to English.
    """
    if isinstance(summary, str):  # recorded before sentences were templates
        return f"{who} {summary}"
    word = word or (lambda key: WORDS.get(key, key))
    name = name or (lambda named: named["name"])

    def value(key, v):
        if isinstance(v, list):  # several sentences in one (each monster fled from), or a card's own words
            return "; ".join(render(part, who, _, word, name, number) if isinstance(part, dict) else str(part) for part in v)
        if isinstance(v, dict) and "t" in v:  # a phrase with its own words ("+2 levels")
            return render(v, who, _, word, name, number)
        if isinstance(v, dict):  # a card in play
            return name(v)
        return word(v) if key in WORD_PARAMS else v

    params = {k: value(k, v) for k, v in summary["p"].items()}
    template = summary["t"]
    try:
        text = fill(_(template), dict(params, who=who), number)
    except (KeyError, IndexError, ValueError):  # a broken translation: English rather than nothing
        text = fill(template, dict(params, who=who), number)
    undos = summary.get("undo", 0)  # undone once: "undo"; the undo undone: "redo"; and so on
    if undos:
        text = (_("undo: {what}") if undos % 2 else _("redo: {what}")).format(what=text)
    return text


def profile_label(chosen: dict, _: Gettext = _english) -> str:
    """A profile and its options in a few words: "Munchkin 1.6 (English, 2011), Epic"."""
    profile = get_profile(chosen["profile"], chosen.get("options"))
    house = profile.house_rules
    extras = [label + (_(" (house rule)") if key in house else "")
              for key, label in (("epic", _("Epic")), ("listen_at_door", _("Listen at the Door")),
                                 ("loot_draws_treasure", _("looting draws Treasure")),
                                 ("shared_victory", _("shared victory")), ("fast_start", _("quick deal")))
              if profile.options.get(key)]
    if profile.options.get("top_level"):
        extras.append(_("to Level {n}").format(n=profile.top_level) + _(" (house rule)"))
    return ", ".join([_(profile.name)] + extras)


def describe(event, names: dict[str, str], _: Gettext = _english, word: Callable[[str], str] | None = None,
             rule_title: Callable[[str], str] | None = None, name: Callable[[dict], str] | None = None,
             number: Callable[[float], str] | None = None) -> str:
    """One line of history for ``event``; ``names`` maps seats to names.

    ``rule_title`` names a rule, ``name`` a card and ``number`` writes numbers in the reader's
    language; English by default.
    """
    text = _sentence(event, names, _, word, name, number)
    override = event.payload.get("override")
    if override:
        title = rule_title(override["rule"]) if rule_title else RULES[override["rule"]].title
        text += _(" — house ruling by {host}, overriding “{rule}”").format(
            host=names.get(override["by"], _("the host")), rule=title)
    return text


def _sentence(event, names: dict[str, str], _: Gettext, word, name, number) -> str:
    p = event.payload
    word = word or (lambda key: WORDS.get(key, key))

    def who(seat):
        return names.get(seat, _("a former player"))

    kind = event.kind
    if kind == "table.created":
        return _("Table “{name}” opened").format(name=p["name"])
    if kind == "player.joined":
        return (_("{name} joined as host") if p["host"] else _("{name} joined")).format(name=p["name"])
    if kind == "level.changed":
        text = {"kill": _("{who} killed a monster: level {before} → {after}"),
                "undo": _("undo: {who} level {before} → {after}")}.get(
            p["cause"], _("{who} level {before} → {after}")).format(who=who(p["seat"]), before=p["from"], after=p["to"])
        if p.get("by"):
            text += _(" (played by {name})").format(name=who(p["by"]))
        return text + (_(" and wins the game") if p.get("wins") else "")
    if kind == "sex.changed":
        return _("{who} is now {word}").format(who=who(p["seat"]), word=word(p["to"]))
    if kind == "host.transferred":
        return _("{who} is now the host (was {before})").format(who=who(p["to"]), before=who(p["from"]))
    if kind == "player.removed":
        return _("{name} was removed from the table").format(name=p["player"]["name"])
    if kind == "player.restored":
        return _("{name} is back at the table").format(name=p["player"]["name"])
    if kind == "turn.passed" and "summary" in p:
        return render(p["summary"], who(p.get("actor")), _, word, name, number)
    if kind == "turn.passed":
        return _("{who}'s turn (turn {number})").format(who=who(p["to"]), number=p["number"])
    if kind in ("table.changed", "dice.rolled"):
        return render(p["summary"], who(p["actor"]), _, word, name, number)
    if kind == "settings.changed":
        return fill(_("Objection window: {after:g} seconds (was {before:g})"), {"after": p["to"], "before": p["from"]},
                    number)
    if kind == "profile.changed":
        return _("Rules changed to {after} (were {before})").format(after=profile_label(p["to"], _),
                                                                    before=profile_label(p["from"], _))
    if kind == "sheet.changed":
        return render(p["summary"], who(p["seat"]), _, word, name, number)
    if kind == "fight.changed":
        return render(p["summary"], who(p["actor"]), _, word, name, number)
    return kind
