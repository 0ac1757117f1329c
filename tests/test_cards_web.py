"""Cards over HTTP: search page and partial, card page, API, import and export pages."""
import io
import json
import re


def test_type_ahead_page_and_partial(client):
    full = client.get("/cards?q=chainsw")
    assert full.status_code == 200 and "<html" in full.get_data(as_text=True)
    assert 'data-card="chainsaw-of-bloody-dismemberment"' in full.get_data(as_text=True)
    partial = client.get("/cards?q=Wutend", headers={"HX-Request": "true"})
    html = partial.get_data(as_text=True)
    assert "<html" not in html and 'data-card="enraged"' in html and "Wütend" in html
    assert "HX-Request" in partial.headers["Vary"]


def test_filters_and_bad_filters(client):
    html = client.get("/cards?q=boots&kind=monster").get_data(as_text=True)
    assert "boots-of-butt-kicking" not in html
    assert client.get("/cards?q=x&deck=attic").status_code == 400
    assert client.get("/api/v1/cards?q=x&limit=0").status_code == 400
    assert client.get("/api/v1/cards?q=" + "x" * 101).status_code == 400


def test_card_page_shows_numbers_names_and_sources(client):
    html = client.get("/cards/net-troll").get_data(as_text=True)
    assert re.search(r"<dt>Level</dt><dd>10</dd>", html) and re.search(r"<dt>Treasures</dt><dd>3</dd>", html)
    assert "Impiegatroll" in html and "Combat example" in html
    assert client.get("/cards/no-such-card").status_code == 404


def test_api_search_and_detail(client):
    found = client.get("/api/v1/cards?q=impiegatroll").json["cards"]
    assert found[0]["id"] == "net-troll" and found[0]["matched"] == "Impiegatroll" and found[0]["lang"] == "it"
    detail = client.get("/api/v1/cards/mace-of-sharpness").json["card"]
    assert detail["item"]["usable_by"] == [{"class": "cleric"}]
    missing = client.get("/api/v1/cards/nope")
    assert missing.status_code == 404 and "nope" in missing.json["error"]


def csrf(client):
    return re.search(r'name="csrf_token" value="([^"]+)"', client.get("/cards/import").get_data(as_text=True)).group(1)


def upload(client, name, data: bytes):
    return client.post("/cards/import", data={"csrf_token": csrf(client), "file": (io.BytesIO(data), name)},
                       content_type="multipart/form-data")


HOUSE = {"id": "tax-collector", "deck": "door", "kind": "monster", "set": "house",
         "names": {"en": "Tax Collector", "de": "Steuereintreiber"}, "monster": {"level": 7, "treasures": 2}}


def test_import_page_adds_cards(operator):
    response = upload(operator, "house.json", json.dumps([HOUSE]).encode())
    assert response.status_code == 200 and "Imported 1 card." in response.get_data(as_text=True)
    assert operator.get("/api/v1/cards?q=steuer").json["cards"][0]["id"] == "tax-collector"


def test_import_page_lists_problems_and_imports_nothing(operator):
    bad = [HOUSE, {**HOUSE, "id": "second", "monster": {"level": -1}}]
    response = upload(operator, "house.json", json.dumps(bad).encode())
    html = response.get_data(as_text=True)
    assert response.status_code == 400 and "Nothing was imported" in html
    assert "record 2 (second), monster: &#39;treasures&#39; is required" in html
    assert "record 2 (second), monster.level: -1 is less than the minimum of 0" in html
    assert operator.get("/api/v1/cards/tax-collector").status_code == 404


def test_import_page_refuses_garbage_and_oversized_files(operator):
    assert "not valid JSON" in upload(operator, "x.json", b"{oops").get_data(as_text=True)
    assert "not UTF-8" in upload(operator, "x.csv", b"\xff\xfe\xfa").get_data(as_text=True)
    big = upload(operator, "big.json", b"[" + b" " * (1024 * 1024 + 10) + b"]")
    assert big.status_code in (400, 413)
    assert operator.post("/cards/import", data={"file": (io.BytesIO(b"[]"), "x.json")},
                         content_type="multipart/form-data").status_code == 400  # no CSRF token


def test_export_downloads_round_trip_through_import(operator):
    upload(operator, "house.json", json.dumps([HOUSE]).encode())
    csv_text = operator.get("/cards/export.csv?origin=imported")
    assert csv_text.headers["Content-Disposition"].endswith('cards-imported.csv"')
    exported = operator.get("/cards/export.json?origin=imported").json["cards"]
    assert exported == [HOUSE]
    again = upload(operator, "again.csv", csv_text.data)
    assert "Imported 1 card." in again.get_data(as_text=True)
    assert operator.get("/cards/export.xml").status_code == 404


def test_card_page_rulings_and_related_rules(client):
    html = client.get("/cards/whine-at-the-gm").get_data(as_text=True)
    assert "Can a Go Up a Level card make me 10?" in html
    assert "Contradictions Between Cards and Rules, rule 4" in html
    assert 'href="/rules/level.win-by-kill"' in html
    mate = client.get("/cards/mate").get_data(as_text=True)
    assert "whatever order" in mate and "Monster Enhancers" in mate
