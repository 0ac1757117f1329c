"""Languages: the UI and the rules in the six languages of the rulebooks, chosen per phone.

A phone's language is the one it chose (a cookie, set from the language switcher) or else
the best match for its browser's Accept-Language, or English. Flask-Babel serves the
gettext catalogues in ``companion/translations``; ``scripts/i18n`` extracts, updates and
compiles them. Card names come from the card database in the same language.
"""
from __future__ import annotations

from pathlib import Path

from flask import Flask, g, request
from flask_babel import Babel, format_decimal, get_locale, get_translations

from card_db import describe
from card_db import store as card_store

from .db import get_db
from .referee import history
from .referee.combat import ELIMINATED, LEFT_INSTEAD
from .referee.languages import fill
from .referee.rules import LANGUAGES, N_, localized

#: Each language in its own name, as the switcher shows it.
NATIVE_NAMES = {"en": "English", "de": "Deutsch", "fr": "Français", "nl": "Nederlands", "it": "Italiano",
                "ru": "Русский"}
COOKIE = "companion_lang"
COOKIE_MAX_AGE = 365 * 24 * 3600
TRANSLATIONS = Path(__file__).with_name("translations")


#: The game's own words as the sheet shows them (races, classes, sexes, slots, sides).
WORDS = {
    "elf": N_("Elf"), "dwarf": N_("Dwarf"), "halfling": N_("Halfling"), "human": N_("Human"),
    "warrior": N_("Warrior"), "wizard": N_("Wizard"), "cleric": N_("Cleric"), "thief": N_("Thief"),
    "male": N_("male"), "female": N_("female"), "Level": N_("Level"), "level": N_("level"),
    "none": N_("no slot"), "headgear": N_("headgear"), "armor": N_("armor"), "footgear": N_("footgear"),
    "one_hand": N_("1 hand"), "two_hands": N_("2 hands"),
    "players": N_("players"), "monsters": N_("monsters"), "fighter": N_("fighter"), "helper": N_("helper"),
    "door": N_("Door"), "treasure": N_("Treasure"),
    # Munchkin Quest: the other worn things and potions, and where an item is
    "other": N_("trinket, clothing, gadget"), "potion": N_("potion or scroll"),
    "worn": N_("worn"), "belt": N_("belt"), "backpack": N_("backpack"), "gold": N_("gold"), "dxm": N_("DxM cards"),
    "Entrance": N_("Entrance"),
    # a monster gone from the fight without a kill, in the breakdown
    ELIMINATED: N_("eliminated (no level, treasure kept)"),
    LEFT_INSTEAD: N_("leaves without a fight (treasure instead, no level)"),
}


def word(key: str) -> str:
    """A game word in the phone's language (unknown words are shown as they are)."""
    return _template_gettext(WORDS[key]) if key in WORDS else key


def kind_name(kind: str) -> str:
    """A card kind ("monster_enhancer") as the phone's language names it."""
    return describe.kind_name(kind, _template_gettext)


def translate(template: str, params: dict | None = None) -> str:
    """An engine message (English with ``{placeholders}``) in the phone's language, its
    numbers as that language writes them (``languages.fill``).

    A catalogue entry with a broken placeholder falls back to English rather than fail.
    """
    translated = _template_gettext(template)
    if not params:
        return translated
    try:
        return fill(translated, params, format_decimal)
    except (KeyError, IndexError, ValueError):
        return fill(template, params, format_decimal)


def refusal_text(exc) -> str:
    """A :class:`~companion.referee.rules.Refused` as the phone's language says it: a ``word``
    parameter is a game word, ``kind`` and ``wanted`` are card kinds (English names, several
    apart by ``describe.KIND_APART``), and a ``name`` given with its ``card_id`` is the card's,
    all translated too."""
    params = dict(exc.params)
    if "word" in params:
        params["word"] = word(params["word"])
    for key in ("kind", "wanted"):
        if key in params:
            names = params[key].split(describe.KIND_APART)
            params[key] = describe.KIND_APART.join(_template_gettext(name) for name in names)
    if "card_id" in params and "name" in params:
        params["name"] = local_name({"name": params["name"], "card_id": params["card_id"]})
    return translate(exc.template, params)


def history_line(event, names: dict) -> str:
    """One line of a table's history in the phone's language."""
    return history.describe(event, names, _template_gettext, word,
                            lambda rule_id: localized(rule_id, language())["title"], local_name, format_decimal)


def profile_label(chosen: dict) -> str:
    """A table's edition and options in a few words, in the phone's language."""
    return history.profile_label(chosen, _template_gettext)


def select_locale() -> str:
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES) or "en"


def language() -> str:
    """The current request's language code ("en", "de", …)."""
    return str(get_locale() or "en")


def card_name(card: dict) -> str:
    """A card's name in the phone's language, else in English."""
    names = card.get("names") or {}
    return names.get(language()) or names.get("en") or next(iter(names.values()), "")


def local_name(thing: dict) -> str:
    """The name of an item, curse, monster or one-shot in play: the card's name in the phone's
    language when it came from the card database, else the name it was typed in with."""
    typed = thing.get("name", thing.get("source", ""))  # a strength line names its item "source"
    card_id = thing.get("card_id")
    if not card_id or language() == "en":
        return typed
    cache = g.setdefault("_card_names", {})
    if card_id not in cache:
        card = card_store.get(get_db(), card_id)
        cache[card_id] = (card or {}).get("names", {}).get(language())
    return cache[card_id] or typed


def line_source(line: dict, names: dict[str, str]) -> str:
    """A line of a fight's breakdown in the phone's language: the engine writes it in English as
    "Ann: Level", "Orc: level", "Orc: Enraged", "Magic Missile"; each part that is a card in the
    fight (``names``: its English name → the phone's, from :func:`fight_names`) or a game word
    is told in the phone's words, the rest (a player's name) as it is. A line whose words are a
    template (``say``: "{name}: against {whom}", "Backstab on {name}") is told as that template
    translated, its card name and conditions in the phone's words."""
    if language() == "en":
        return line["source"]
    if "say" in line:
        params = {key: value for key, value in line["say"].items() if key != "template"}
        if "name" in params:
            params["name"] = names.get(params["name"]) or params["name"]
        if "whom" in params:
            params["whom"] = describe.who(params["whom"], _template_gettext)
        return translate(line["say"]["template"], params)
    return ": ".join(names.get(part) or (word(part) if part in WORDS else part) for part in line["source"].split(": "))


def fight_names(state) -> dict[str, str]:
    """The cards of the table's fight and its fighters' sheets, by English name, in the phone's language."""
    fight = state.combat or {}
    things = list(fight.get("monsters", [])) + list(fight.get("one_shots", []))
    things += [e for m in fight.get("monsters", []) for e in m.get("enhancers", [])]
    for seat in (fight.get("fighter"), fight.get("helper")):
        if seat in state.players:
            things += state.players[seat].items + state.players[seat].curses
    return {t["name"]: local_name(t) for t in things if t.get("card_id") and t.get("name")}


def reason_text(line: dict) -> str:
    """Why an item does not count, in the phone's language (a line of ``not_counting``)."""
    if "only_for" in line:
        return _template_gettext(N_("only for {who}")).format(who=describe.who(line["only_for"], _template_gettext))
    if "not_for" in line:
        return _template_gettext(N_("not for {who}")).format(who=describe.who(line["not_for"], _template_gettext))
    if line.get("rule") == "items.carried":
        return _template_gettext(N_("carried, not in use"))
    if "level_only" in line:
        return _template_gettext(N_("only Level counts against {monsters}")).format(monsters=line["level_only"])
    if "no_level" in line:
        return _template_gettext(N_("Level does not count against {monsters}")).format(monsters=line["no_level"])
    return line.get("reason", "")


def card_text(texts: dict | None) -> str:
    """A card's text (or Bad Stuff) in the phone's language, else in English."""
    texts = texts or {}
    return texts.get(language()) or texts.get("en") or ""


def _translations():
    """The request's catalogue, looked up once per request: a board calls gettext dozens of
    times per phone, and Flask-Babel's own lookup walks the context on every call."""
    found = g.get("_translations")
    if found is None:
        found = g._translations = get_translations()
    return found


def _template_gettext(message: str) -> str:
    """gettext on the request's cached catalogue (no formatting: templates and callers format)."""
    return _translations().ugettext(message)


def _template_ngettext(singular: str, plural: str, n: int) -> str:
    return _translations().ungettext(singular, plural, n)


def init_app(app: Flask) -> None:
    Babel(app, locale_selector=select_locale, default_translation_directories=str(TRANSLATIONS))
    # Templates use the cached catalogue (newstyle: Jinja fills %(name)s and escapes, as Flask-Babel's would).
    app.jinja_env.install_gettext_callables(_template_gettext, _template_ngettext, newstyle=True)
    app.jinja_env.filters["card_name"] = card_name
    app.jinja_env.filters["card_text"] = card_text
    app.jinja_env.filters["word"] = word
    app.jinja_env.filters["local_name"] = local_name
    app.jinja_env.filters["reason_text"] = reason_text
    app.jinja_env.filters["line_source"] = line_source
    app.jinja_env.filters["kind_name"] = kind_name
    app.jinja_env.filters["refusal"] = refusal_text
    app.jinja_env.filters["decimal"] = format_decimal  # 2.6 → "2,6" on a German phone
    app.jinja_env.filters["problem_text"] = lambda problem: translate(problem["template"], dict(problem["params"]))
    app.jinja_env.globals.update(LANGUAGES=LANGUAGES, NATIVE_NAMES=NATIVE_NAMES, language=language)
