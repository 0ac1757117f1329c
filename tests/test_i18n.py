"""Six languages: every string of the UI is in every catalogue, compiled, and served per phone."""
import ast
import html
import gettext
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from conftest import Phone

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "companion" / "translations"
LANGUAGES = ("de", "fr", "nl", "it", "ru")
#: The same keywords as scripts/i18n: gettext, lazy gettext, plurals, and engine messages.
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "_l": None, "N_": None, "said": None, "Refused": None, "refuse": None,
            "Violation": (2,), "OptionError": None}
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|\{[A-Za-z_0-9]+(?:![rsa])?(?::[^}]*)?\}")


def extracted() -> set:
    """Every message the code and templates ask to be translated (singular msgid)."""
    found = set()
    for subdir, method in (("companion", "python"), ("card_db", "python"), ("templates", "jinja2")):
        for _file, _line, message, _comments, _context in extract_from_dir(
                ROOT / subdir, method_map=[("**.py" if method == "python" else "**.html", method)],
                keywords=KEYWORDS):
            found.add(message[0] if isinstance(message, tuple) else message)
    return {m for m in found if m}


@pytest.fixture(scope="module")
def messages():
    return extracted()


def test_every_message_the_code_passes_is_extracted(messages):
    """Every string literal the Python code hands a translation keyword is in what the extractor
    finds: Babel 2.19 skips a call nested in a list (``parts=[said("...")]``), and such a string
    would stay English in every language without any other test noticing."""
    plain = {k for k, spec in KEYWORDS.items() if spec is None}
    passed = set()
    for subdir in ("companion", "card_db"):
        for path in (ROOT / subdir).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in plain
                        and node.args and isinstance(node.args[0], ast.Constant)
                        and isinstance(node.args[0].value, str)):
                    passed.add((node.args[0].value, f"{path.relative_to(ROOT)}:{node.lineno}"))
    missing = sorted(where for text, where in passed if text not in messages)
    assert not missing, f"not extracted (write the call on its own): {missing}"


def catalogue(lang):
    with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po", "rb") as fh:
        return read_po(fh, locale=lang)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_ui_string_is_translated(lang, messages):
    """Fails when a supported language's catalogue misses a string (run scripts/i18n, then translate)."""
    cat = catalogue(lang)
    translated = {}
    for m in cat:
        if not m.id:
            continue
        key = m.id[0] if isinstance(m.id, tuple) else m.id
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        assert "fuzzy" not in m.flags, (lang, key)
        assert all(s.strip() for s in strings), f"{lang}: no translation for {key!r}"
        if isinstance(m.id, tuple):
            assert len(strings) == cat.num_plurals, (lang, key)
        translated[key] = strings
    missing = sorted(messages - set(translated))
    assert not missing, f"{lang} misses {len(missing)}: {missing[:5]}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_translations_keep_every_placeholder(lang):
    for m in catalogue(lang):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        wanted = set(PLACEHOLDER.findall(ids[-1])) - {"%(num)d"}
        for s in (m.string if isinstance(m.string, tuple) else (m.string,)):
            assert set(PLACEHOLDER.findall(s)) - {"%(num)d"} == wanted, (lang, m.id, s)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_compiled_catalogue_is_the_current_one(lang):
    """The .mo the app serves says what the .po says (scripts/i18n compile after an edit)."""
    with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.mo", "rb") as fh:
        mo = gettext.GNUTranslations(fh)
    for m in catalogue(lang):
        if m.id and not isinstance(m.id, tuple):
            assert mo.gettext(m.id) == m.string, (lang, m.id)


def test_the_browser_language_picks_the_ui_and_a_phone_can_switch(app):
    phone = Phone(app)
    page = phone.get("/", headers={"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}).get_data(as_text=True)
    assert '<html lang="de">' in page and "Einen Tisch eröffnen" in page
    page = phone.get("/", headers={"Accept-Language": "xx, ru;q=0.8"}).get_data(as_text=True)
    assert "Открыть стол" in page
    switched = phone.post("/lang", {"lang": "it", "next": "/rules"})
    assert switched.status_code == 303 and switched.headers["Location"].endswith("/rules")
    page = phone.get("/rules", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert '<html lang="it">' in page and "Cosa dice il regolamento?" in page  # the choice wins over the browser
    assert phone.post("/lang", {"lang": "xx"}).status_code == 400
    assert phone.post("/lang", {"lang": "fr", "next": "https://evil.example/"}).headers["Location"] == "/"


def test_refusals_card_names_and_rules_answer_in_the_phones_language(phones):
    alice, bob, _ = phones
    bob.post("/lang", {"lang": "de"})
    refused = bob.act("level.down")
    page = refused.get_data(as_text=True)
    assert refused.status_code == 422
    assert "Stufe 1 ist schon die niedrigste: Nichts bringt einen Charakter unter Stufe 1." in page
    assert "Stufe 1 ist die Untergrenze" in page  # the rule entry's title, in German
    found = bob.get("/rules?q=Elf+hilft+Kampf+Stufe").get_data(as_text=True)
    assert "Steigt der Helfer eine Stufe auf?" in found and "Munchkin 1.6 (2011), Asking for Help" in found
    german = bob.get(f"/t/{bob.table_id}/pick?q=flaming", headers={"HX-Request": "true"}).get_data(as_text=True)
    english = alice.get(f"/t/{alice.table_id}/pick?q=flammende", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "<strong>Flammende Rüstung</strong>" in german and "<strong>Flaming Armor</strong>" in english
    assert "Hinzufügen" in german
    alice.act("item.add", card="flaming-armor")  # on the sheet, too, each phone reads its own language
    bob.act("item.add", card="flaming-armor")
    board = bob.get(f"/t/{bob.table_id}").get_data(as_text=True)
    assert "<strong>Flammende Rüstung</strong>" in board and "Stufe 1 Flammende Rüstung +2" in board
    history = bob.get(f"/t/{bob.table_id}/history").get_data(as_text=True)
    assert "Bob spielt Flammende Rüstung (benutzt)" in history and "Alice spielt Flammende Rüstung" in history
    assert "<strong>Flaming Armor</strong>" in alice.get(f"/t/{alice.table_id}").get_data(as_text=True)


def test_a_card_of_the_wrong_kind_is_refused_in_the_phones_language(phones):
    """The card errors are templates with their parameters apart, as every refusal: the kinds
    and the card's name come in the phone's language too (they were English in all six)."""
    alice, bob, _ = phones
    bob.post("/lang", {"lang": "it"})
    wrong = bob.act("item.add", card="net-troll")
    assert wrong.status_code == 400
    assert "Impiegatroll è una carta di tipo Mostro, non Oggetto." in wrong.get_data(as_text=True)
    bob.post("/lang", {"lang": "de"})
    missing = bob.act("curse.add", card="no-such-curse")
    assert missing.status_code == 404 and "Es gibt keine Karte 'no-such-curse'." in html.unescape(missing.get_data(as_text=True))
    english = alice.act("item.add", card="net-troll").get_data(as_text=True)
    assert "Net Troll is a card of kind Monster, not Item." in english


def test_the_history_reads_in_each_phones_language(phones):
    alice, bob, _ = phones
    bob.act("level.up")
    alice.act("class.add", **{"class": "warrior"})
    alice.act("class.add", override="class.one", **{"class": "wizard"})
    bob.post("/lang", {"lang": "de"})
    german = bob.get(f"/t/{bob.table_id}/history").get_data(as_text=True)
    assert "Bob Stufe 1 → 2" in german and "Alice spielt Krieger" in german
    assert "Alice spielt Zauberer — Hausregel von Alice, überstimmt „Eine Klasse, zwei nur mit Super-Munchkin“" in german
    bob.post("/lang", {"lang": "ru"})
    assert "Alice играет карту: Воин" in bob.get(f"/t/{bob.table_id}/history").get_data(as_text=True)
    english = alice.get(f"/t/{alice.table_id}/history").get_data(as_text=True)
    assert "Alice plays Warrior" in english and "Bob level 1 → 2" in english


def test_plural_forms_follow_each_language():
    """Russian counts in three forms (1 карта, 2 карты, 5 карт); the others in two."""
    with open(TRANSLATIONS / "ru" / "LC_MESSAGES" / "messages.mo", "rb") as fh:
        ru = gettext.GNUTranslations(fh)
    forms = [ru.ngettext("%(num)d card.", "%(num)d cards.", n) % {"num": n} for n in (1, 2, 5, 21)]
    assert forms == ["1 карта.", "2 карты.", "5 карт.", "21 карта."]
    for lang in LANGUAGES:
        assert catalogue(lang).num_plurals == (3 if lang == "ru" else 2), lang


def test_why_an_item_does_not_count_reads_in_the_phones_language(phones):
    alice, bob, _ = phones
    bob.post("/lang", {"lang": "de"})
    bob.act("item.add", card="mace-of-sharpness")  # only for Clerics
    sheet = bob.get(f"/t/{bob.table_id}").get_data(as_text=True)
    assert "zählt nicht: nur für Kleriker" in sheet
    alice.act("item.add", card="mace-of-sharpness")
    assert "does not count: only for Clerics" in alice.get(f"/t/{alice.table_id}").get_data(as_text=True)


def test_numbers_are_written_the_way_each_phones_language_writes_them(phones):
    """Gold and seconds in history lines and refusals come in the phone's own way of writing
    numbers: a German reads "2,700 Gold" as two point seven, and "2.5 Sekunden" is English."""
    alice, bob, _ = phones
    alice.act("item.add", name="Golden Idol", bonus="0", gold="1500")
    alice.act("item.add", name="Pewter Cup", bonus="0", gold="1200")
    board = alice.get(f"/t/{alice.table_id}").get_data(as_text=True)
    uids = re.findall(r'name="uids" value="([^"]+)"', board)
    assert len(uids) == 2
    sold = alice.post(f"/t/{alice.table_id}/act/item.sell", {"uids": uids}, htmx=True)
    assert sold.status_code == 200, sold.get_data(as_text=True)[:300]
    assert alice.act("settings.objection", seconds="2.5").status_code == 200
    bob.post("/lang", {"lang": "de"})
    german = html.unescape(bob.get(f"/t/{bob.table_id}/history").get_data(as_text=True))
    assert "Alice verkauft Gegenstände für 2.700 Gold für 2 Stufen" in german
    assert "Einspruchszeit: 2,5 Sekunden" in german
    bob.post("/lang", {"lang": "fr"})
    french = html.unescape(bob.get(f"/t/{bob.table_id}/history").get_data(as_text=True))
    assert "Alice vend des objets pour 2\u202f700 PO contre 2 niveaux" in french
    english = html.unescape(alice.get(f"/t/{alice.table_id}/history").get_data(as_text=True))
    assert "Alice sells items worth 2,700 gold for 2 levels" in english and "Objection window: 2.5 seconds" in english
