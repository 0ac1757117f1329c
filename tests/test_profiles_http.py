"""Editions, options and house rulings through the pages and the JSON API."""
import re

import pytest

from conftest import Phone


def test_a_table_opens_with_an_edition_and_options_shown_to_every_phone(app):
    alice, bob = Phone(app), Phone(app)
    alice.get("/")
    page = alice.get("/").get_data(as_text=True)
    assert "munchkin-classic" in page and "munchkin-1.71" in page and 'name="epic"' in page
    response = alice.post("/tables", {"name": "Old school", "player_name": "Alice", "sex": "female",
                                      "profile": "munchkin-classic", "fast_start": "1", "top_level": "12"})
    assert response.status_code == 303
    alice.table_id = response.headers["Location"].rsplit("/", 1)[-1]
    bob.join(alice.join_url(), "Bob")
    board = bob.get(f"/t/{bob.table_id}").get_data(as_text=True)
    assert "Munchkin, classic rules (German 2003 / Dutch 2001), quick deal, to Level 12" in board
    assert "Deal 4 Door and 4 Treasure" in board and "Level 12 wins" in board and "Divine Intervention" in board
    assert 'id="change-rules"' not in board  # only the host's phone offers the change


def test_bad_options_on_the_form_are_refused_and_nothing_is_created(app):
    alice = Phone(app)
    response = alice.post("/tables", {"name": "T", "player_name": "Alice", "sex": "female",
                                      "profile": "munchkin-1.6", "epic": "1", "top_level": "12"})
    assert response.status_code == 400 and "not both" in response.get_data(as_text=True)
    response = alice.post("/tables", {"name": "T", "player_name": "Alice", "sex": "female",
                                      "profile": "munchkin-1.6", "top_level": "ten"})
    assert response.status_code == 400 and "whole number" in response.get_data(as_text=True)


def test_the_host_changes_the_rules_and_the_history_says_so(phones):
    alice, bob, _ = phones
    refused = bob.act("settings.profile", profile="munchkin-1.71", epic="1")
    assert refused.status_code == 403
    done = alice.act("settings.profile", profile="munchkin-1.71", epic="1")
    assert done.status_code == 200, done.get_data(as_text=True)
    assert "Rules: Munchkin 1.71 (Italian, 2014), Epic" in bob.get(f"/t/{bob.table_id}").get_data(as_text=True)
    history = bob.get(f"/t/{bob.table_id}/history").get_data(as_text=True)
    assert "Rules changed to Munchkin 1.71 (Italian, 2014), Epic (were Munchkin 1.6 (English, 2011))" in history


def test_the_host_overrides_a_refusal_and_the_table_lists_its_house_rulings(phones):
    alice, bob, _ = phones
    alice.act("class.add", **{"class": "warrior"})
    refused = alice.act("class.add", **{"class": "wizard"})
    assert refused.status_code == 422
    page = refused.get_data(as_text=True)
    assert 'data-override="class.one"' in page and 'name="class" value="wizard"' in page
    bob.act("class.add", **{"class": "warrior"})
    bob_refused = bob.act("class.add", **{"class": "wizard"}).get_data(as_text=True)
    assert "data-override" not in bob_refused  # only the host rules
    assert bob.act("class.add", override="class.one", **{"class": "wizard"}).status_code == 403
    done = alice.act("class.add", override="class.one", reason="we always play it so", **{"class": "wizard"})
    assert done.status_code == 200, done.get_data(as_text=True)
    assert "house ruling by Alice" in done.get_data(as_text=True)
    history = bob.get(f"/t/{bob.table_id}/history").get_data(as_text=True)
    rulings = re.search(r'id="house-rulings".*?</section>', history, re.S).group(0)
    assert "One class, or two with Super Munchkin" in rulings and "we always play it so" in rulings


def test_house_rulings_and_rule_changes_over_the_api(api):
    client, table_id, tokens, _ = api
    auth = {"Authorization": f"Bearer {tokens['Hana']}"}
    url = f"/api/v1/tables/{table_id}"
    client.post(f"{url}/actions", json={"action": "level.up"}, headers=auth)
    for _ in range(8):
        client.post(f"{url}/actions", json={"action": "level.up"}, headers=auth)
    refused = client.post(f"{url}/actions", json={"action": "level.up"}, headers=auth)
    assert refused.status_code == 422 and refused.json["rule"] == "level.win-by-kill"
    ivo = {"Authorization": f"Bearer {tokens['Ivo']}"}
    assert client.post(f"{url}/actions", json={"action": "level.up", "override": "level.win-by-kill"}, headers=ivo).status_code == 403
    assert client.post(f"{url}/actions", json={"action": "level.up", "override": 7}, headers=auth).status_code == 400
    done = client.post(f"{url}/actions", json={"action": "level.up", "override": "level.win-by-kill"}, headers=auth)
    assert done.status_code == 200, done.json
    assert done.json["table"]["winners"] == [done.json["table"]["host"]]
    rulings = client.get(f"{url}/house-rulings", headers=ivo).json["rulings"]
    assert [(r["rule"], r["by_name"]) for r in rulings] == [("level.win-by-kill", "Hana")]
    changed = client.post(f"{url}/actions", json={"action": "settings.profile", "options": {"epic": True}}, headers=auth)
    assert changed.status_code == 200 and changed.json["table"]["profile"]["top_level"] == 20
    bad = client.post(f"{url}/actions", json={"action": "settings.profile", "options": {"epic": "very"}}, headers=auth)
    assert bad.status_code == 400 and "true or false" in bad.json["error"]
    profiles = client.get("/api/v1/profiles").json
    assert {p["id"] for p in profiles["profiles"]} == {"munchkin-classic", "munchkin-1.6", "munchkin-1.71", "munchkin-quest"}
    assert "epic" in profiles["options"]


def edition_table(client, profile):
    """A table in ``profile`` opened over the API by Hana, joined by Ivo: ``(url, {name: auth header})``."""
    body = client.post("/api/v1/tables", json={"name": "T", "profile": profile,
                                               "host": {"name": "Hana", "sex": "female"}}).json
    joined = client.post(f"/api/v1/join/{body['join_url'].rsplit('/', 1)[-1]}", json={"name": "Ivo", "sex": "male"}).json
    return (f"/api/v1/tables/{body['table']['id']}",
            {"Hana": {"Authorization": f"Bearer {body['token']}"}, "Ivo": {"Authorization": f"Bearer {joined['token']}"}})


@pytest.mark.parametrize("profile, book", [("munchkin-classic", "Munchkin, German rules (2003), Kampf"),
                                           ("munchkin-1.71", "Munchkin 1.71 (2014), Combattimento")])
def test_taking_the_rewards_too_early_cites_the_tables_own_book(client, profile, book):
    """The 2.6-second wait is in all four books: a classic or 1.71 table's refusal cites its own (#13)."""
    url, auth = edition_table(client, profile)
    client.post(f"{url}/actions", json={"action": "turn.door", "found": "monster",
                                        "monster": {"name": "Troll", "level": 1}}, headers=auth["Hana"])
    refused = client.post(f"{url}/actions", json={"action": "combat.resolve"}, headers=auth["Hana"])
    assert refused.status_code == 409 and refused.json["rule"] == "combat.objection"
    assert refused.json["citation"].startswith(book)


def citations(data) -> list[str]:
    """Every ``citation`` anywhere in a JSON answer."""
    if isinstance(data, dict):
        return [v for k, v in data.items() if k == "citation"] + [c for k, v in data.items() if k != "citation"
                                                                   for c in citations(v)]
    return [c for v in data for c in citations(v)] if isinstance(data, list) else []


@pytest.mark.parametrize("profile, book", [("munchkin-classic", "Munchkin, German rules (2003), "),
                                           ("munchkin-1.71", "Munchkin 1.71 (2014), ")])
def test_the_fights_verdict_over_the_api_cites_the_tables_own_book(client, profile, book):
    """The breakdown's lines and the run-away rolls of a classic or 1.71 table's fight cite that
    edition's sections (#13); they cited the 1.6 book whatever the table played."""
    url, auth = edition_table(client, profile)
    client.post(f"{url}/actions", json={"action": "race.add", "race": "halfling"}, headers=auth["Hana"])
    answer = client.post(f"{url}/actions", json={"action": "turn.door", "found": "monster",
                                                 "monster": {"name": "Troll", "level": 8}}, headers=auth["Hana"]).json
    verdict = answer["table"]["verdict"]
    assert verdict["run_away"] and citations(verdict)
    assert [c for c in citations(verdict) if not c.startswith(book)] == []


def test_a_house_ruling_over_the_api_cites_the_tables_own_book(client):
    """The house rulings of a classic table cite the German book's section the host set aside (#13);
    they cited the 1.6 book."""
    url, auth = edition_table(client, "munchkin-classic")
    for _ in range(9):
        client.post(f"{url}/actions", json={"action": "level.up"}, headers=auth["Hana"])
    done = client.post(f"{url}/actions", json={"action": "level.up", "override": "level.win-by-kill"}, headers=auth["Hana"])
    assert done.status_code == 200, done.json
    (ruling,) = client.get(f"{url}/house-rulings", headers=auth["Ivo"]).json["rulings"]
    assert ruling["citation"] == "Munchkin, German rules (2003), Stufe 10; Das Spiel beginnen und beenden"


def test_classic_phones_offer_go_up_a_level_only_on_oneself(app):
    """The classic books have a Go Up a Level card raise its player (#13): a classic table's phones
    offer no "+1" on someone else (the host keeps it, to correct a count as a house ruling)."""
    alice, bob = Phone(app), Phone(app)
    response = alice.post("/tables", {"name": "Old school", "player_name": "Alice", "sex": "female",
                                      "profile": "munchkin-classic"})
    alice.table_id = response.headers["Location"].rsplit("/", 1)[-1]
    bob.join(alice.join_url(), "Bob")
    assert "Play Go Up a Level on Alice" not in bob.get(f"/t/{bob.table_id}").get_data(as_text=True)
    assert "Play Go Up a Level on Bob" in alice.get(f"/t/{alice.table_id}").get_data(as_text=True)


@pytest.mark.parametrize("profile, shown, not_shown", [
    ("munchkin-classic", ["a Halfling takes 1 off", "raises the player who plays it"],
     ["roll a failed escape again", "may be played on any player"]),
    ("munchkin-1.6", ["roll a failed escape again", "may be played on any player"],
     ["a Halfling takes 1 off", "raises the player who plays it"]),
    ("munchkin-1.71", ["roll a failed escape again", "may be played on any player"],
     ["a Halfling takes 1 off", "raises the player who plays it"]),
])
def test_the_table_rules_say_how_a_halfling_runs_away_and_whom_go_up_a_level_raises(app, profile, shown, not_shown):
    """Two differences between the editions the phones' summary of the rules did not show (#13): the
    classic books' Halfling runs away with a penalty where 1.6 and 1.71 give a second roll, and only
    1.6 and 1.71 let a Go Up a Level card be played on someone else."""
    alice = Phone(app)
    response = alice.post("/tables", {"name": "T", "player_name": "Alice", "sex": "female", "profile": profile})
    alice.table_id = response.headers["Location"].rsplit("/", 1)[-1]
    board = alice.get(f"/t/{alice.table_id}").get_data(as_text=True)
    summary = re.search(r'<details class="profile".*?</details>', board, re.S).group(0)
    assert "Running away takes 5 or more on the die" in summary
    assert all(words in summary for words in shown) and not any(words in summary for words in not_shown)
