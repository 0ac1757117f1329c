"""Rights: only the server's operator (the admin link `companion serve` prints, or the local
CLI) imports cards and teaches the scanner; visitors and table players read."""
from __future__ import annotations

import io
import json
import re
import stat

import pytest
from click.testing import CliRunner

from companion import create_app, scanning
from companion.cli import main
from companion.web.operator import admin_url

from conftest import Phone, become_operator
from test_scan_http import photo

MAIN = re.compile(r"<main>(.*)</main>", re.S)
HOUSE = {"id": "tax-collector", "deck": "door", "kind": "monster", "set": "house",
         "names": {"en": "Tax Collector"}, "monster": {"level": 7, "treasures": 2}}


def house_file(card=HOUSE):
    return (io.BytesIO(json.dumps([card]).encode()), "house.json")


def card_count(browser) -> int:
    return len(browser.get("/cards/export.json").json["cards"])


def import_as(phone: Phone, card=HOUSE):
    return phone.post("/cards/import", {"file": house_file(card)}, content_type="multipart/form-data")


def teach_as(phone: Phone, card_id: str, image: bytes):
    return phone.post(f"/cards/{card_id}/enroll", {"photo": (io.BytesIO(image), "p.jpg")},
                      content_type="multipart/form-data")


def test_a_visitor_can_neither_open_nor_post_the_import(app, client):
    before = card_count(client)
    page = client.get("/cards/import")
    html = page.get_data(as_text=True)
    assert page.status_code == 403 and "Only the operator" in html
    assert "companion serve" in html and 'name="file"' not in html  # says how, shows no form
    visitor = Phone(app)
    assert import_as(visitor).status_code == 403  # with a valid CSRF token
    no_token = client.post("/cards/import", data={"file": house_file()}, content_type="multipart/form-data")
    assert no_token.status_code == 403  # rights are checked before anything else
    assert client.get("/api/v1/cards/tax-collector").status_code == 404
    assert card_count(client) == before


def test_a_visitors_tap_gets_the_refusal_as_a_toast(app):
    """To htmx a toast (#feedback), as every other error: the whole 403 page was swapped in (2026-11-30)."""
    visitor = Phone(app)
    tapped = visitor.post("/cards/import", {"file": house_file()}, content_type="multipart/form-data", htmx=True)
    assert tapped.status_code == 403 and tapped.headers["HX-Retarget"] == "#feedback"
    assert "only the operator" in tapped.get_data(as_text=True) and "<main>" not in tapped.get_data(as_text=True)


def test_table_players_read_only_too(phones):
    alice, bob, _ = phones  # Alice hosts a table: that makes her host of the table, not of the server
    for phone in (alice, bob):
        assert phone.get("/cards/import").status_code == 403
        assert import_as(phone).status_code == 403
    assert alice.get("/api/v1/cards/tax-collector").status_code == 404


def test_pages_show_the_operators_forms_to_the_operator_only(app, client, operator):
    cards, card = client.get("/cards").get_data(as_text=True), client.get("/cards/net-troll").get_data(as_text=True)
    assert "/cards/import" not in cards and "Add your own cards" not in cards
    assert 'id="teach"' not in card and "/enroll" not in card and "Teach the scanner" not in card
    assert "/cards/import" in operator.get("/cards").get_data(as_text=True)
    assert 'id="teach"' in operator.get("/cards/net-troll").get_data(as_text=True)


@pytest.mark.parametrize("wrong", ["nope", "x" * 43, "é" * 10])
def test_a_wrong_admin_secret_is_a_plain_404(app, client, wrong):
    secret = app.extensions["companion.admin_secret"]
    unknown = MAIN.search(client.get("/no-such-page").get_data(as_text=True)).group(1)
    for path in (f"/admin/{wrong}", f"/admin/{secret[:-1]}", f"/admin/{secret}x"):
        answer = client.get(path)
        assert answer.status_code == 404
        assert MAIN.search(answer.get_data(as_text=True)).group(1) == unknown  # says nothing about why
    assert client.get("/cards/import").status_code == 403
    assert client.get("/admin").status_code == 403


def test_the_admin_link_makes_this_browser_the_operators(app):
    url = admin_url(app, "http://192.168.1.20:8000/")
    assert url.startswith("http://192.168.1.20:8000/admin/") and url.count("//") == 1
    phone = Phone(app)
    client = phone.client
    opened = client.get(url.removeprefix("http://192.168.1.20:8000"))
    assert opened.status_code == 303 and opened.headers["Location"] == "/admin"  # the secret leaves the address bar
    cookie = opened.headers["Set-Cookie"]
    assert cookie.startswith("companion_seat=") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert app.extensions["companion.admin_secret"] not in cookie  # the cookie holds a badge, not the secret
    admin = client.get("/admin").get_data(as_text=True)
    assert app.config["DATA_DIR"] in admin and 'href="/cards/import"' in admin
    page = client.get("/cards/import")
    assert page.status_code == 200 and 'name="file"' in page.get_data(as_text=True)
    imported = import_as(phone)
    assert imported.status_code == 200 and "Imported 1 card." in imported.get_data(as_text=True)
    assert client.get("/api/v1/cards/tax-collector").json["card"]["names"]["en"] == "Tax Collector"


def test_the_operator_keeps_their_seats_and_can_leave(app, phones):
    alice, _, _ = phones
    become_operator(alice, app)
    assert alice.act("level.up").status_code == 200  # the seat in the same cookie still works
    assert import_as(alice).status_code == 200
    assert alice.post("/admin/leave").status_code == 303
    assert alice.get("/cards/import").status_code == 403
    assert alice.act("level.up").status_code == 200


def test_a_visitor_cannot_teach_the_scanner(app, phones):
    """The incident: a visitor replaced the scanner's picture of Net Troll for every table."""
    alice, bob, _ = phones
    index = scanning.index_for(app.config["DATA_DIR"])
    assert teach_as(bob, "net-troll", photo("lame-goblin", size=(1600, 1200))).status_code == 403
    assert len(index.refresh()) == 0 and not index.enrolled("net-troll")

    owner = become_operator(Phone(app), app)
    for card_id in ("net-troll", "lame-goblin"):
        taught = teach_as(owner, card_id, photo(card_id, seed=11, size=(1600, 1200)))
        assert taught.status_code == 200 and "The scanner knows this card now." in taught.get_data(as_text=True)
    assert teach_as(alice, "net-troll", photo("lame-goblin", seed=3, size=(1600, 1200))).status_code == 403
    assert len(index.refresh()) == 2
    seen = bob.client.post("/api/v1/vision/recognize", data=photo("net-troll", seed=12), content_type="image/jpeg")
    assert seen.json["card_id"] == "net-troll"  # still the operator's picture
    # the picture the scanner learned: the operator's to see, nobody else's
    assert owner.client.get("/cards/net-troll/learned.png").status_code == 200
    assert bob.client.get("/cards/net-troll/learned.png").status_code == 403
    assert "learned.png" not in bob.client.get("/cards/net-troll").get_data(as_text=True)
    assert owner.client.get("/cards/super-munchkin/learned.png").status_code == 404  # not taught
    assert owner.client.get("/cards/no-such-card/learned.png").status_code == 404


def test_the_secret_lives_in_the_data_dir_survives_restarts_and_differs_between_servers(tmp_path):
    def app_on(path):
        return create_app({"DATA_DIR": str(path), "TESTING": True})

    first, again, other = app_on(tmp_path / "a"), app_on(tmp_path / "a"), app_on(tmp_path / "b")
    try:
        secret_file = tmp_path / "a" / "admin_secret"
        secret = secret_file.read_text().strip()
        assert len(secret) >= 43 and stat.S_IMODE(secret_file.stat().st_mode) == 0o600
        assert admin_url(first, "") == admin_url(again, "") == f"/admin/{secret}"
        assert admin_url(other, "") != admin_url(first, "")
        before = first.test_client()
        become_operator(before, first)
        badge = before.get_cookie("companion_seat").value
        after = again.test_client()  # the server restarted: the operator's browser still is
        after.set_cookie("companion_seat", badge)
        assert after.get("/cards/import").status_code == 200
        elsewhere = other.test_client()  # the same cookie means nothing to another server
        elsewhere.set_cookie("companion_seat", badge)
        assert elsewhere.get("/cards/import").status_code == 403
        assert elsewhere.get(admin_url(first, "")).status_code == 404
        secret_file.unlink()  # a new secret shuts out every browser that had the old link
        renewed = app_on(tmp_path / "a")
        try:
            shut_out = renewed.test_client()
            shut_out.set_cookie("companion_seat", badge)
            assert shut_out.get("/cards/import").status_code == 403
            assert admin_url(renewed, "") != admin_url(first, "")
        finally:
            renewed.extensions["companion.live"].stop()
    finally:
        for app in (first, again, other):
            app.extensions["companion.live"].stop()


def test_the_local_cli_stays_allowed(app, tmp_path):
    house = tmp_path / "house.json"
    house.write_text(json.dumps([HOUSE]))
    result = CliRunner().invoke(main, ["cards", "import", str(house), "--data-dir", app.config["DATA_DIR"]])
    assert result.exit_code == 0, result.output
    assert app.test_client().get("/api/v1/cards/tax-collector").status_code == 200
