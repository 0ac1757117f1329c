"""The JSON API: create, join, state, actions, history, undo, errors, and its OpenAPI document."""
import pytest
from openapi_spec_validator import validate

from companion.web.openapi import spec

#: every test here runs on the embedded SQLite store and on PostgreSQL (tests/pg.py)
STORE_BACKENDS = ("sqlite", "postgres")


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def test_create_and_join_return_tokens_and_state(api):
    client, table_id, tokens, _ = api
    body = client.get(f"/api/v1/tables/{table_id}", headers=auth(tokens["Ivo"])).json
    assert [p["name"] for p in body["table"]["players"]] == ["Hana", "Ivo", "Jana"]
    assert body["table"]["profile"]["top_level"] == 10
    assert body["table"]["players"][0]["strength"] == 1


def test_actions_use_the_same_rules_as_the_pages(api):
    client, table_id, tokens, _ = api
    url = f"/api/v1/tables/{table_id}/actions"
    for _ in range(8):
        assert client.post(url, json={"action": "level.up"}, headers=auth(tokens["Ivo"])).status_code == 200
    refused = client.post(url, json={"action": "level.up"}, headers=auth(tokens["Ivo"]))
    assert refused.status_code == 422
    assert refused.json["rule"] == "level.win-by-kill" and "Munchkin 1.6" in refused.json["citation"]
    kill = client.post(url, json={"action": "level.kill", "levels": 1}, headers=auth(tokens["Ivo"]))
    assert kill.status_code == 422 and kill.json["rule"] == "level.causes"  # no kill without a fight
    for who, body in (("Hana", {"action": "settings.objection", "seconds": 0}),
                      ("Hana", {"action": "turn.door", "found": "other"}), ("Hana", {"action": "turn.loot"}),
                      ("Hana", {"action": "turn.end"}), ("Ivo", {"action": "turn.door", "found": "monster", "card": "maul-rat"}),
                      ("Ivo", {"action": "combat.claim"})):
        assert client.post(url, json=body, headers=auth(tokens[who])).status_code == 200, body
    table = client.get(f"/api/v1/tables/{table_id}", headers=auth(tokens["Ivo"])).json
    assert table["table"]["profile"]["objection_seconds"] == 0  # the host's window, one value everywhere (#17)
    won = client.post(url, json={"action": "combat.resolve", "reason": "Maul Rat"}, headers=auth(tokens["Ivo"]))
    assert won.status_code == 200 and won.json["table"]["winner"] == won.json["event"]["actor"]
    assert won.json["event"]["reason"] == "Maul Rat" and "wins the game" in won.json["event"]["text"]
    over = client.post(url, json={"action": "level.up"}, headers=auth(tokens["Jana"]))
    assert over.status_code == 409 and over.json["rule"] == "game.won"


def test_a_card_played_after_an_unopposed_claim_waits_for_the_rewards(api):
    """1.6, Combat: once the objection window has passed with nothing played, the win stands; the
    action layer gives every action the moment it arrived, so a late card is refused (409,
    combat.objection) until the rewards are taken, and then played as usual."""
    client, table_id, tokens, _ = api
    url = f"/api/v1/tables/{table_id}/actions"
    for who, body in (("Hana", {"action": "settings.objection", "seconds": 0}),
                      ("Hana", {"action": "turn.door", "found": "monster", "card": "potted-plant"}),
                      ("Hana", {"action": "combat.oneshot.add", "side": "players", "name": "Potion", "bonus": 3}),
                      ("Hana", {"action": "combat.claim"})):
        assert client.post(url, json=body, headers=auth(tokens[who])).status_code == 200, body
    monster = client.get(f"/api/v1/tables/{table_id}", headers=auth(tokens["Ivo"])).json["table"]["combat"]["monsters"][0]
    late = client.post(url, json={"action": "card.play", "card": "enraged", "monster": monster["uid"]},
                       headers=auth(tokens["Ivo"]))
    assert late.status_code == 409 and late.json["rule"] == "combat.objection", late.json
    assert client.post(url, json={"action": "combat.resolve"}, headers=auth(tokens["Hana"])).status_code == 200
    curse = client.post(url, json={"action": "card.play", "card": "change-sex"},
                        headers=auth(tokens["Ivo"]))
    assert curse.status_code == 200  # after the rewards: on Ivo himself, for his next fight


def test_level_floor_refusal(api):
    client, table_id, tokens, _ = api
    response = client.post(f"/api/v1/tables/{table_id}/actions", json={"action": "level.down"}, headers=auth(tokens["Jana"]))
    assert response.status_code == 422 and response.json["rule"] == "level.floor"


def test_history_and_undo(api):
    client, table_id, tokens, _ = api
    done = client.post(f"/api/v1/tables/{table_id}/actions", json={"action": "level.up"}, headers=auth(tokens["Ivo"])).json
    seq = done["event"]["seq"]
    assert client.post(f"/api/v1/tables/{table_id}/history/{seq}/undo", headers=auth(tokens["Jana"])).status_code == 403
    undone = client.post(f"/api/v1/tables/{table_id}/history/{seq}/undo", json={"reason": "mis-tap"}, headers=auth(tokens["Ivo"]))
    assert undone.status_code == 200 and undone.json["event"]["undoes"] == seq
    history = client.get(f"/api/v1/tables/{table_id}/history", headers=auth(tokens["Ivo"])).json["events"]
    assert history[0]["undoes"] == seq and history[1]["undone_by"] == history[0]["seq"]
    assert history[0]["reason"] == "mis-tap"
    assert client.post(f"/api/v1/tables/{table_id}/history/999/undo", headers=auth(tokens["Ivo"])).status_code == 404


def test_expected_version_refuses_stale_writes(api):
    client, table_id, tokens, _ = api
    version = client.get(f"/api/v1/tables/{table_id}", headers=auth(tokens["Ivo"])).json["table"]["version"]
    url = f"/api/v1/tables/{table_id}/actions"
    ok = client.post(url, json={"action": "sex.set", "sex": "female", "expected_version": version}, headers=auth(tokens["Ivo"]))
    assert ok.status_code == 200
    stale = client.post(url, json={"action": "sex.set", "sex": "male", "expected_version": version}, headers=auth(tokens["Jana"]))
    assert stale.status_code == 409 and "changed since" in stale.json["error"]
    fraction = client.post(url, json={"action": "sex.set", "sex": "male", "expected_version": version + 1.9},
                           headers=auth(tokens["Jana"]))  # was taken for version + 1, and applied
    assert fraction.status_code == 400 and "whole number" in fraction.json["error"]


@pytest.mark.parametrize("kwargs, status, fragment", [
    ({"data": "{not json", "content_type": "application/json"}, 400, "JSON object"),
    ({"json": ["a", "list"]}, 400, "JSON object"),
    ({"json": {"action": 5}}, 400, "must name an action"),
    ({"json": {"action": "level.fly"}}, 400, "Unknown action"),
    ({"json": {"action": "level.kill", "levels": "many"}}, 400, "whole number"),
    ({"json": {"action": "level.kill", "levels": True}}, 400, "whole number"),
    ({"json": {"action": "level.up", "bogus": 1}}, 400, "Unknown parameter"),
    ({"json": {"action": "level.up", "seat": "nobody"}}, 404, "no such player"),
    ({"json": {"action": "level.up", "reason": "x" * 141}}, 400, "at most 140"),
])
def test_bad_input_gets_a_clear_error_and_changes_nothing(api, kwargs, status, fragment):
    client, table_id, tokens, _ = api
    before = client.get(f"/api/v1/tables/{table_id}", headers=auth(tokens["Ivo"])).json["table"]
    response = client.post(f"/api/v1/tables/{table_id}/actions", headers=auth(tokens["Ivo"]), **kwargs)
    assert response.status_code == status and fragment in response.json["error"]
    assert "Traceback" not in response.get_data(as_text=True)
    after = client.get(f"/api/v1/tables/{table_id}", headers=auth(tokens["Ivo"])).json["table"]
    assert after == before


def test_tokens_are_scoped_to_their_table(api):
    client, table_id, tokens, _ = api
    other = client.post("/api/v1/tables", json={"name": "Other", "host": {"name": "Zed", "sex": "male"}}).json
    assert client.get(f"/api/v1/tables/{table_id}", headers=auth(other["token"])).status_code == 403
    assert client.get(f"/api/v1/tables/{other['table']['id']}", headers=auth(tokens["Ivo"])).status_code == 403
    assert client.get(f"/api/v1/tables/{table_id}").status_code == 401
    assert client.get(f"/api/v1/tables/{table_id}", headers=auth("garbage")).status_code == 403
    assert len(other["token"]) >= 22 and other["join_url"].rsplit("/", 1)[-1] not in str(tokens)


def test_join_errors(api):
    client, _, _, join_token = api
    assert client.post("/api/v1/join/nope", json={"name": "A", "sex": "male"}).status_code == 404
    assert client.post(f"/api/v1/join/{join_token}", json={"name": "ivo", "sex": "male"}).status_code == 409
    assert client.post(f"/api/v1/join/{join_token}", json={"name": "", "sex": "male"}).status_code == 400
    assert client.post(f"/api/v1/join/{join_token}", json={"name": "Kai"}).status_code == 400
    for i in range(5):
        assert client.post(f"/api/v1/join/{join_token}", json={"name": f"P{i}", "sex": "male"}).status_code == 201
    full = client.post(f"/api/v1/join/{join_token}", json={"name": "Ninth", "sex": "male"})
    assert full.status_code == 409 and full.json["rule"] == "table.players"


def test_create_errors(client):
    assert client.post("/api/v1/tables", json={"name": "T"}).status_code == 400
    odd = client.post("/api/v1/tables", json={"name": "T", "profile": {}, "host": {"name": "A", "sex": "male"}})
    assert odd.status_code == 400 and "profile" in odd.json["error"]  # found by schemathesis: was a 500
    bad = client.post("/api/v1/tables", json={"name": "T", "profile": "munchkin-99", "host": {"name": "A", "sex": "male"}})
    assert bad.status_code == 400 and "unknown rule profile" in bad.json["error"]


def test_spectator_api_is_read_only(api):
    client, table_id, tokens, _ = api
    created = client.post("/api/v1/tables", json={"name": "S", "host": {"name": "A", "sex": "male"}}).json
    token = created["spectator_url"].rsplit("/", 1)[-1]
    assert client.get(f"/api/v1/spectate/{token}").json["table"]["name"] == "S"
    assert client.get("/api/v1/spectate/nope").status_code == 404


def test_unknown_api_route_is_json_404(client):
    response = client.get("/api/v1/nothing-here")
    assert response.status_code == 404 and response.json["error"]


def test_openapi_document_is_valid_and_covers_every_route(app, client):
    document = client.get("/api/v1/openapi.json").json
    validate(document)
    documented = {path for path in document["paths"]}
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/"):
            path = rule.rule.replace("<int:", "{").replace("<", "{").replace(">", "}")
            assert path in documented, f"{rule.rule} is not in openapi.json"
    assert document == spec()


def test_fuzzing_finds_stay_fixed(api):
    """Cases schemathesis found against the OpenAPI document (see docs/api.md)."""
    client, table_id, tokens, _ = api
    huge = client.post(f"/api/v1/tables/{table_id}/history/136327115997305752256512/undo", headers=auth(tokens["Ivo"]))
    assert huge.status_code == 404 and huge.json["error"]
    wrong_method = client.put("/api/v1/tables", json={})
    assert wrong_method.status_code == 405 and wrong_method.json["error"]
    assert "POST" in wrong_method.headers["Allow"]
    assert client.post("/api/v1/cards/net-troll").status_code == 405
