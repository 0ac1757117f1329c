"""The card database without Flask: schema, bundled data, search, import and export."""
import json

import pytest

from card_db import formats, search, store
from card_db.schema import validate
from companion.db import connect, migrate


@pytest.fixture
def db(tmp_path):
    conn = connect(tmp_path / "cards.sqlite3")
    migrate(conn)
    yield conn
    conn.conn.close()


def card(db, card_id):
    return store.get(db, card_id)


def test_the_bundled_base_game_has_the_boxs_168_cards():
    records = [r for r in store.bundled_records() if r["set"] == "munchkin-base"]
    count = {deck: sum(r.get("copies", 1) for r in records if r["deck"] == deck) for deck in ("door", "treasure")}
    assert count == {"door": 94, "treasure": 74}  # 1.6 rules: "This game includes 168 cards"


def test_every_bundled_card_is_valid():
    records = store.bundled_records()
    assert validate(records) == []
    assert len({r["id"] for r in records}) == len(records)
    for record in records:
        assert record.get("sources"), f"{record['id']} does not say where its facts were checked"


# (card id, path, value, where the rulebooks give it)
RULEBOOK_NUMBERS = [
    ("net-troll", "monster.level", 10, "1.6 Combat example: 'a Level 10 monster'"),
    ("net-troll", "monster.treasures", 3, "1.6 Combat example: three treasures from the card"),
    ("enraged", "enhancer.level_change", 5, "1.6 Combat example: Enraged adds 5"),
    ("enraged", "enhancer.treasure_change", 1, "1.6 Combat example: one extra treasure"),
    ("chainsaw-of-bloody-dismemberment", "item.bonus", 3, "1.6 Combat example: +3"),
    ("magic-missile", "one_shot.bonus", 5, "1.6 Combat example: +5 for this fight"),
    ("boots-of-butt-kicking", "item.bonus", 2, "1.6 Combat example: Level 2 Elf with the boots has 4"),
    ("yuppie-water", "one_shot.usable_by", [{"race": "elf"}], "1.6 Combat example: usable only to help an Elf"),
    ("mace-of-sharpness", "item.usable_by", [{"class": "cleric"}], "1.6 Items: only a Cleric may wield it"),
    ("drooling-slime", "monster.modifiers", [{"against": {"race": "elf"}, "value": 4}], "1.6 Asking for Help: +4 with an Elf"),
    ("mate", "enhancer.mate", True, "1.6 Monster Enhancers"),
    ("wishing-ring", "one_shot.either_side", False, "1.6 One-shot Treasures: usable outside combat"),
    ("whine-at-the-gm", "levels", 1, "1.6 Other Treasures: a Go Up a Level card gives one level"),
]


@pytest.mark.parametrize("card_id, path, value, source", RULEBOOK_NUMBERS)
def test_rulebook_named_cards_have_the_books_numbers(db, card_id, path, value, source):
    record = card(db, card_id)
    for part in path.split("."):
        record = record[part]
    assert record == value, source


RULEBOOK_NAMES = {
    "ancient": {"de": "Uralt", "nl": "Oeroud", "it": "Antico", "ru": "Древний"},
    "enraged": {"de": "Wütend", "nl": "Laaiend", "it": "Infuriato", "ru": "Псих"},
    "mate": {"de": "Kumpel", "nl": "Partner", "it": "Partner"},
    "net-troll": {"it": "Impiegatroll"},
    "humongous": {"de": "Gigantisch", "nl": "Reusachtig"},
    "wandering-monster": {"de": "Wanderndes Monster", "nl": "Rondzwervend Monster", "it": "Mostro Errante"},
    "half-breed": {"de": "Halb-Blut", "nl": "Halfbloed", "it": "Mezzosangue"},
    "divine-intervention": {"de": "Göttliche Intervention", "nl": "Goddelijke Interventie"},
    "change-sex": {"de": "Geschlechtsumwandlung"},
    "chicken-on-your-head": {"de": "Huhn auf deinem Kopf"},
    "lose-your-armor": {"it": "Perdi la tua Armatura"},
}


@pytest.mark.parametrize("card_id, names", RULEBOOK_NAMES.items())
def test_names_in_the_books_languages(db, card_id, names):
    assert card(db, card_id)["names"].items() >= names.items()


def test_every_card_the_rulebooks_mention_is_there(db):
    for card_id in ["net-troll", "enraged", "ancient", "baby", "intelligent", "humongous", "mate",
                    "wandering-monster", "magic-missile", "chainsaw-of-bloody-dismemberment",
                    "boots-of-butt-kicking", "yuppie-water", "drooling-slime", "wannabe-vampire",
                    "mace-of-sharpness", "flaming-armor", "staff-of-napalm", "kneepads-of-allure", "wishing-ring",
                    "elf", "dwarf", "halfling", "warrior", "wizard", "cleric", "thief", "half-breed",
                    "super-munchkin", "divine-intervention", "lose-your-armor", "change-sex",
                    "chicken-on-your-head"]:
        assert card(db, card_id) is not None, card_id
    go_up = search.search(db, "go up a level", kind="go_up_a_level", limit=20, cache_key=str(id(db)))
    assert len(go_up) == 9 and all(card(db, h.card_id)["levels"] == 1 for h in go_up)
    assert search.search(db, "Получи Уровень", limit=1, cache_key=str(id(db)))[0].card_id in {h.card_id for h in go_up}


@pytest.mark.parametrize("query, expected", [
    ("chainsw", "chainsaw-of-bloody-dismemberment"),   # unfinished word
    ("Wutend", "enraged"),                              # accent left out
    ("WÜTEND", "enraged"),
    ("wuetend", "enraged"),                             # umlaut spelt out
    ("impiegatroll", "net-troll"),                      # Italian name
    ("Сетевой", "net-troll"),                           # Russian name
    ("plutonium dragn", "plutonium-dragon"),            # typo
    ("kneepads of alure", "kneepads-of-allure"),        # typo
    ("butt kicking", "boots-of-butt-kicking"),          # a word inside the name
    ("boots butt", "boots-of-butt-kicking"),            # words in another order (#17)
    ("butt boots", "boots-of-butt-kicking"),
    ("dragon plutonium", "plutonium-dragon"),
    ("Holtrapper", "boots-of-butt-kicking"),            # Dutch
    ("3872 orcs", "3-872-orcs"),
])
def test_search_finds_any_name_in_any_language(db, query, expected):
    hits = search.search(db, query, limit=5, cache_key=str(id(db)))
    assert hits and hits[0].card_id == expected, [(h.card_id, h.score) for h in hits]


def test_search_filters_and_nonsense(db):
    key = str(id(db))
    hits = search.search(db, "boots", kind="item", cache_key=key)
    assert hits and all(card(db, h.card_id)["kind"] == "item" for h in hits)
    assert all(card(db, h.card_id)["deck"] == "door" for h in search.search(db, "e", deck="door", limit=50, cache_key=key))
    assert search.search(db, "qqxxzz", cache_key=key) == []
    assert search.search(db, "   ", cache_key=key) == []


def house_card(**overrides):
    return {"id": "gelatinous-dodecahedron", "deck": "door", "kind": "monster", "set": "house",
            "names": {"en": "Gelatinous Dodecahedron", "de": "Gallertartiges Dodekaeder"},
            "monster": {"level": 3, "treasures": 1}, **overrides}


def test_import_adds_cards_and_search_sees_them(db):
    assert store.import_cards(db, [house_card()]) == 1
    assert card(db, "gelatinous-dodecahedron")["origin"] == "imported"
    assert search.search(db, "dodekaeder", cache_key=str(id(db)))[0].card_id == "gelatinous-dodecahedron"


def test_bad_import_names_record_and_field_and_changes_nothing(db):
    before = store.count(db)
    records = [house_card(id="fine-card"),
               house_card(id="broken", monster={"level": "high", "treasures": 1}),
               house_card(id="fine-card"),
               {"id": "Bad Id", "deck": "door", "kind": "item", "set": "x", "names": {"en": "X"}}]
    with pytest.raises(store.InvalidCards) as exc:
        store.import_cards(db, records)
    problems = [str(p) for p in exc.value.problems]
    assert "record 2 (broken), monster.level: 'high' is not of type 'integer'" in problems
    assert "record 3 (fine-card), id: the id is already used by record 1" in problems
    assert any(p.startswith("record 4 (Bad Id), id: 'Bad Id' does not match") for p in problems)
    assert "record 4 (Bad Id), kind: 'item' is not one of monster, curse, monster_enhancer, race, class, special" in problems
    assert "record 4 (Bad Id), record: 'item' is required" in problems
    assert store.count(db) == before and card(db, "fine-card") is None


def test_import_cannot_overwrite_the_base_game(db):
    with pytest.raises(store.InvalidCards, match="bundled card"):
        store.import_cards(db, [house_card(id="net-troll")])
    assert card(db, "net-troll")["monster"]["level"] == 10


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_export_round_trips(db, fmt):
    store.import_cards(db, [house_card(), house_card(id="second", names={"en": "Second, \"quoted\""},
                                                      monster={"level": 1, "treasures": 1, "undead": True})])
    exported = store.export(db, origin="imported")
    text = formats.to_json(exported) if fmt == "json" else formats.to_csv(exported)
    assert formats.parse(text.encode(), fmt) == exported
    everything = store.export(db)
    text = formats.to_json(everything) if fmt == "json" else formats.to_csv(everything)
    assert formats.parse(text.encode(), fmt) == everything


@pytest.mark.parametrize("data, fmt, message", [
    (b"{not json", "json", "not valid JSON"),
    (b'{"x": 1}', "json", "list of cards"),
    (b"\xff\xfe\x00", "json", "not UTF-8"),
    (b"name,level\nX,1\n", "csv", "'id' column"),
    (b"id,colour\nx,red\n", "csv", "unknown CSV column"),
])
def test_unreadable_files_say_why(data, fmt, message):
    with pytest.raises(formats.FormatError, match=message):
        formats.parse(data, fmt)


def test_bundled_data_reloads_only_when_changed(db):
    version = store.version(db)
    assert store.load_bundled(db) is False
    assert store.version(db) == version
    db.execute("UPDATE card_meta SET value = 'stale' WHERE key = 'bundled_sha256'")
    assert store.load_bundled(db) is True
    assert json.loads(json.dumps(card(db, "net-troll")))["names"]["en"] == "Net Troll"


def test_the_cards_fight_fields_are_described():
    """treasure_instead, extra_treasures, extra_levels and fire appear on the card's page facts."""
    from card_db import describe
    from test_game_flow import CARDS as cards
    said = {card_id: dict(describe.facts(cards[card_id])) for card_id in
            ("amazon", "wannabe-vampire", "potted-plant", "pukachu", "large-angry-chicken", "staff-of-napalm")}
    assert said["amazon"]["Instead of a fight"] == "female characters: 1 treasure, no level"
    assert said["wannabe-vampire"]["Instead of a fight"] == "Clerics may send it off: 1 treasure, no level"
    assert said["potted-plant"]["Extra treasures for a kill"] == "Elves: +1"
    assert said["pukachu"]["Extra levels for a kill"] == "+1 if killed alone, with no bonus"
    assert said["large-angry-chicken"]["Extra levels for a kill"] == "+1 if killed with fire"
    assert said["staff-of-napalm"]["Fire attack"] == "yes" and said["staff-of-napalm"]["It is a"] == "staff"
    assert dict(describe.facts(cards["pit-bull"]))["Lets you go for an item"] == "wand, staff, pole"
    assert dict(describe.facts(cards["tongue-demon"]))["Before the fight"] == "discard an item"
    assert dict(describe.facts(cards["floating-nose"]))["Lets you go for an item"] == "worth 200 gold or more"
