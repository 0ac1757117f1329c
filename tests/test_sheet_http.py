"""The character sheet through the pages and the JSON API: the same rules, the same answers."""
import re

import pytest


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def me(client, table_id, token):
    body = client.get(f"/api/v1/tables/{table_id}", headers=auth(token)).json
    return next(p for p in body["table"]["players"] if p["seat"] == body["seat"])


def act(client, table_id, token, **body):
    return client.post(f"/api/v1/tables/{table_id}/actions", json=body, headers=auth(token))


def pass_turn(client, table_id, token):
    """A quiet turn (1.6, Turn Phases): a door with no monster, loot the room, end the turn."""
    for body in ({"action": "turn.door", "found": "other"}, {"action": "turn.loot"}, {"action": "turn.end"}):
        assert act(client, table_id, token, **body).status_code == 200


# (steps, expected status of the last one, rule, edition and section) — the same cases as the referee tests
CASES = [
    ([{"action": "race.add", "race": "elf"}, {"action": "race.add", "race": "dwarf"}], 422, "race.one",
     "1.6 Character Stats, Race"),
    ([{"action": "half_breed.add"}], 422, "half-breed.needs-race", "1.6 Classes and Races"),
    ([{"action": "class.add", "class": "thief"}, {"action": "class.add", "class": "thief"}], 422, "class.one",
     "1.6 Character Stats, Class"),
    ([{"action": "item.add", "card": "chainsaw-of-bloody-dismemberment"}, {"action": "item.add", "card": "huge-rock"}],
     422, "items.big", "1.6 Items"),
    ([{"action": "item.add", "card": "boots-of-butt-kicking"}, {"action": "item.sell", "uids": ["FIRST"]}], 422,
     "items.sell", "1.6 Selling Items for Levels"),
]


@pytest.mark.parametrize("steps, status, rule, source", CASES)
def test_api_refusals_name_the_rule(api, steps, status, rule, source):
    client, table_id, tokens, _ = api
    pass_turn(client, table_id, tokens["Hana"])  # Ivo's turn (selling needs it)
    response = None
    for step in steps:
        if step.get("uids") == ["FIRST"]:
            step = {**step, "uids": [me(client, table_id, tokens["Ivo"])["items"][0]["uid"]]}
        response = act(client, table_id, tokens["Ivo"], **step)
    assert response.status_code == status and response.json["rule"] == rule, source
    assert response.json["citation"].startswith("Munchkin 1.6")


def test_api_item_from_card_and_strength_breakdown(api):
    client, table_id, tokens, _ = api
    assert act(client, table_id, tokens["Ivo"], action="item.add", card="mace-of-sharpness").status_code == 200
    sheet = me(client, table_id, tokens["Ivo"])
    assert sheet["strength"] == 1
    assert sheet["not_counting"][0]["reason"] == "only for Clerics"
    assert sheet["not_counting"][0]["citation"] == "Munchkin 1.6 (2011), Items"
    act(client, table_id, tokens["Ivo"], action="class.add", **{"class": "cleric"})
    uid = sheet["items"][0]["uid"]
    assert act(client, table_id, tokens["Ivo"], action="item.use", uid=uid).status_code == 200
    sheet = me(client, table_id, tokens["Ivo"])
    assert sheet["strength"] == 5 and sheet["strength_breakdown"][1] == {"source": "Mace of Sharpness", "value": 4, "uid": uid,
                                                               "card_id": "mace-of-sharpness"}


def test_api_card_errors(api):
    client, table_id, tokens, _ = api
    missing = act(client, table_id, tokens["Ivo"], action="item.add", card="no-such-card")
    assert missing.status_code == 404 and "no-such-card" in missing.json["error"]
    monster = act(client, table_id, tokens["Ivo"], action="item.add", card="net-troll")
    assert monster.status_code == 400 and monster.json["error"] == "Net Troll is a card of kind Monster, not Item."
    once = act(client, table_id, tokens["Ivo"], action="curse.add", card="lose-your-armor")  # acts at once
    assert once.status_code == 200 and me(client, table_id, tokens["Ivo"])["curses"] == []
    assert act(client, table_id, tokens["Ivo"], action="curse.add", card="chicken-on-your-head").status_code == 200
    assert act(client, table_id, tokens["Ivo"], action="item.sell", uids="not a list").status_code == 400
    assert act(client, table_id, tokens["Ivo"], action="item.add", item="boots").status_code == 400


def test_api_give_and_undo(api):
    client, table_id, tokens, _ = api
    act(client, table_id, tokens["Ivo"], action="item.add", card="boots-of-butt-kicking")
    uid = me(client, table_id, tokens["Ivo"])["items"][0]["uid"]
    jana = me(client, table_id, tokens["Jana"])["seat"]
    given = act(client, table_id, tokens["Ivo"], action="item.give", uid=uid, to=jana)
    assert given.status_code == 200 and "gives Boots of Butt-Kicking to Jana" in given.json["event"]["text"]
    assert me(client, table_id, tokens["Jana"])["strength"] == 3
    undone = client.post(f"/api/v1/tables/{table_id}/history/{given.json['event']['seq']}/undo", headers=auth(tokens["Ivo"]))
    assert undone.status_code == 200
    assert me(client, table_id, tokens["Ivo"])["items"][0]["uid"] == uid and me(client, table_id, tokens["Jana"])["items"] == []


def test_api_theft_is_refused_with_its_rule_and_undone(api):
    client, table_id, tokens, _ = api
    act(client, table_id, tokens["Jana"], action="item.add", card="boots-of-butt-kicking")
    jana = me(client, table_id, tokens["Jana"])
    uid = jana["items"][0]["uid"]
    refused = act(client, table_id, tokens["Ivo"], action="item.steal", target=jana["seat"], uid=uid, die=6)
    assert refused.status_code == 422 and refused.json["rule"] == "thief.theft" and "Character Stats" in refused.json["citation"]
    act(client, table_id, tokens["Ivo"], action="class.add", **{"class": "thief"})
    assert act(client, table_id, tokens["Ivo"], action="item.steal", target=jana["seat"], uid=uid, die=7).status_code == 400
    stolen = act(client, table_id, tokens["Ivo"], action="item.steal", target=jana["seat"], uid=uid, die=4)
    assert stolen.status_code == 200 and "steals Boots of Butt-Kicking from Jana (die: 4)" in stolen.json["event"]["text"]
    undone = client.post(f"/api/v1/tables/{table_id}/history/{stolen.json['event']['seq']}/undo", headers=auth(tokens["Ivo"]))
    assert undone.status_code == 200 and me(client, table_id, tokens["Jana"])["items"][0]["uid"] == uid


def test_pages_sheet_forms(phones):
    alice, bob, _ = phones
    alice.pass_turn()  # Bob's turn: he may sell
    html = bob.act("item.add", name="Lucky Sock", bonus=2, slot="footgear", gold=300).get_data(as_text=True)
    assert 'data-item="Lucky Sock"' in html and re.search(r'id="my-strength">3<', html)
    assert "Bob plays Lucky Sock (in use)" in html
    html = bob.act("item.add", card="boots-of-butt-kicking").get_data(as_text=True)
    assert re.search(r'data-item="Boots of Butt-Kicking"', html)  # second footgear: carried
    uids = re.findall(r'name="uids" value="([^"]+)"', html)
    response = bob.post(f"/t/{bob.table_id}/act/item.sell", {"uids": uids}, htmx=True)  # 700 gold: refused
    assert response.status_code == 422 and "no change" in response.get_data(as_text=True)
    bob.act("item.add", name="Gold Tooth", gold=300)
    uids = re.findall(r'name="uids" value="([^"]+)"', bob.get(f"/t/{bob.table_id}").get_data(as_text=True))
    response = bob.client.post(f"/t/{bob.table_id}/act/item.sell", data={"csrf_token": bob.csrf, "uids": uids},
                               headers={"HX-Request": "true"})
    assert response.status_code == 200 and re.search(r'id="my-level">2<', response.get_data(as_text=True))


def test_a_thief_steals_from_the_phone(phones):
    """A Thief's sheet offers every small item of the other players to steal (not a Big one),
    each one tap; the app rolls the die unless one is given (thief.theft). With none, it says so."""
    _, bob, cleo = phones

    def steal_menu(html: str) -> str:
        menu = html[html.index('id="menu-steal"'):]
        return menu[:menu.index("</details>")]
    html = bob.act("class.add", **{"class": "thief"}).get_data(as_text=True)
    assert 'id="nothing-to-steal"' in steal_menu(html) and 'name="uid"' not in steal_menu(html)
    bob.act("class.remove", **{"class": "thief"})
    cleo.act("item.add", card="boots-of-butt-kicking")
    cleo.act("item.add", name="Huge Rock", bonus=3, slot="two_hands", big="true", gold=0)
    html = bob.get(f"/t/{bob.table_id}").get_data(as_text=True)
    assert 'id="menu-steal"' not in html  # not a Thief
    html = bob.act("class.add", **{"class": "thief"}).get_data(as_text=True)
    menu = steal_menu(html)
    assert 'id="nothing-to-steal"' not in menu
    assert "Boots of Butt-Kicking from Cleo" in menu and "Huge Rock" not in menu and "rules/thief.theft" in menu
    target = re.search(r'name="target" value="([^"]+)"', menu).group(1)
    uid = re.search(r'name="uid" value="([^"]+)"', menu).group(1)
    html = bob.act("item.steal", target=target, uid=uid, die=5).get_data(as_text=True)
    assert "Bob steals Boots of Butt-Kicking from Cleo (die: 5)" in html and 'data-item="Boots of Butt-Kicking"' in html
    assert 'id="nothing-to-steal"' in steal_menu(html)  # the Huge Rock is Big
    refused = bob.act("item.steal", target=target, uid=uid, die=5)  # no longer Cleo's
    assert refused.status_code == 404


def test_pick_shows_items_and_lasting_curses_only(phones):
    _, bob, _ = phones
    html = bob.get(f"/t/{bob.table_id}/pick?q=boots", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'data-card="boots-of-butt-kicking"' in html
    html = bob.get(f"/t/{bob.table_id}/pick?q=chicken", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'data-card="chicken-on-your-head"' in html and 'data-card="large-angry-chicken"' not in html


def test_card_page_adds_to_my_sheet_in_one_tap(phones):
    _, bob, _ = phones
    html = bob.get("/cards/boots-of-butt-kicking").get_data(as_text=True)
    assert f'data-use="{bob.table_id}"' in html and "At “Friday”" in html and "Add to my sheet" in html
    response = bob.post(f"/t/{bob.table_id}/act/item.add", {"card": "boots-of-butt-kicking"})
    assert response.status_code == 303
    assert 'data-item="Boots of Butt-Kicking"' in bob.get(f"/t/{bob.table_id}").get_data(as_text=True)
    assert "data-use" not in bob.get("/cards/net-troll").get_data(as_text=True)  # a monster is not for the sheet


def test_charity_page_and_api(phones, api):
    alice, bob, _ = phones
    bob.act("level.up")
    html = bob.get(f"/t/{bob.table_id}/charity?hand=8").get_data(as_text=True)
    assert "3 cards over your limit of 5" in html and "Alice" in html and "Cleo" in html
    assert bob.get(f"/t/{bob.table_id}/charity?hand=lots").status_code == 400
    client, table_id, tokens, _ = api
    verdict = client.get(f"/api/v1/tables/{table_id}/charity?hand=5", headers=auth(tokens["Ivo"])).json
    assert verdict["excess"] == 0 and verdict["citation"].startswith("Munchkin 1.6")


def test_hand_typed_restricted_item(phones):
    _, bob, _ = phones
    html = bob.act("item.add", name="Holy Sock", bonus=2, only_for="class:cleric").get_data(as_text=True)
    assert "does not count: only for Clerics" in html
    assert bob.act("item.add", name="Odd", only_for="planet:mars").status_code == 400


def test_fight_banner_and_item_lock(phones, api):
    alice, bob, cleo = phones
    refused = bob.act("combat.start")
    assert refused.status_code == 422 and "It is Alice&#39;s turn" in refused.get_data(as_text=True)
    passed = alice.pass_turn().get_data(as_text=True)
    assert "Bob&#39;s turn" in passed and 'data-action="turn.door"' in bob.get(f"/t/{bob.table_id}").get_data(as_text=True)
    html = bob.act("combat.start").get_data(as_text=True)
    assert "Bob is fighting" in html and 'data-action="combat.end"' in html
    assert "Bob is fighting" in cleo.get(f"/t/{cleo.table_id}").get_data(as_text=True)
    response = bob.act("item.add", name="Late Sword", bonus=3, slot="one_hand")
    assert response.status_code == 422 and "is in a fight" in response.get_data(as_text=True)
    assert 'data-action="combat.end"' not in cleo.get(f"/t/{cleo.table_id}").get_data(as_text=True)
    assert alice.act("combat.end").status_code == 200  # the host may end it
    client, table_id, tokens, _ = api
    pass_turn(client, table_id, tokens["Hana"])
    assert act(client, table_id, tokens["Ivo"], action="combat.start").status_code == 200
    refused = act(client, table_id, tokens["Ivo"], action="item.add", card="boots-of-butt-kicking")
    assert refused.status_code == 422 and refused.json["rule"] == "items.not-in-combat"


from sheet_cases import CASES, resolve  # noqa: E402


@pytest.mark.parametrize("steps, expected", CASES.values(), ids=list(CASES))
def test_rulebook_cases_through_the_api(client, steps, expected):
    created = client.post("/api/v1/tables", json={"name": "Cases", "host": {"name": "Ann", "sex": "female"}}).json
    tokens = {"Ann": created["token"]}
    join = created["join_url"].rsplit("/", 1)[-1]
    tokens["Ben"] = client.post(f"/api/v1/join/{join}", json={"name": "Ben", "sex": "male"}).json["token"]
    table_id = created["table"]["id"]
    response = None
    for who, action, params in steps:
        params = resolve(params, me(client, table_id, tokens["Ann"])["items"])
        response = act(client, table_id, tokens[who], action=action, **params)
    if expected[0] == "refused":
        assert response.status_code in (403, 409, 422) and response.json["rule"] == expected[1]
        assert response.json["citation"]
    else:
        assert response.status_code == 200, response.json
        sheet = me(client, table_id, tokens["Ann"])
        assert {k: sheet[k] for k in expected[1]} == expected[1]


@pytest.mark.parametrize("field, value", [
    ("usable_by", "elf"),                                  # not a list
    ("usable_by", [["race", "elf"]]),                      # a condition that is not an object
    ("usable_by", [{"race": 5}]),                          # a race that is not a word
    ("usable_by", [{"race": "elf", "class": "thief"}]),    # two conditions in one
    ("not_usable_by", [{"colour": "red"}]),                # not a race, class or sex
    ("usable_by", [{"sex": "robot"}]),                     # not a sex
    ("bonus_if", [{"who": {"race": "elf"}}]),              # no value
    ("bonus_if", [{"who": {"race": "elf"}, "value": "3"}]),  # a value that is not a whole number
])
def test_a_typed_in_item_with_a_malformed_restriction_is_refused_and_changes_nothing(api, field, value):
    client, table_id, tokens, _ = api
    before = me(client, table_id, tokens["Ivo"])
    answer = act(client, table_id, tokens["Ivo"], action="item.add", item={"name": "Odd Hat", "slot": "headgear",
                                                                          "bonus": 1, "gold": 100, field: value})
    assert answer.status_code == 400 and field in answer.json["error"]
    assert me(client, table_id, tokens["Ivo"]) == before


def test_a_typed_in_item_restricted_to_a_race_an_expansion_adds_is_kept(api):
    client, table_id, tokens, _ = api
    item = {"name": "Gnome Hat", "slot": "headgear", "bonus": 2, "gold": 200, "usable_by": [{"race": "gnome"}],
            "bonus_if": [{"who": {"sex": "female"}, "value": 3}]}
    assert act(client, table_id, tokens["Ivo"], action="item.add", item=item).status_code == 200
    hat = me(client, table_id, tokens["Ivo"])["items"][-1]
    assert hat["usable_by"] == [{"race": "gnome"}] and hat["in_use"] is False
