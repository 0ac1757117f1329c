"""Rights of strangers on the network: rate limits on opening and joining tables, Secure
cookies over HTTPS, the client's address behind a trusted proxy, idle tables expiring (#14)."""
from __future__ import annotations

import re
import sqlite3
from datetime import datetime, timedelta, timezone

from companion import create_app


def make(tmp_path, **config):
    return create_app({"DATA_DIR": str(tmp_path), "TESTING": True, "RATE_LIMIT_TRUST_LOOPBACK": False, **config})


def open_table(client, **environ):
    return client.post("/api/v1/tables", json={"name": "T", "host": {"name": "Ann", "sex": "female"}},
                       environ_base=environ)


def test_opening_tables_is_limited_per_client_and_pages_share_the_budget(tmp_path):
    app = make(tmp_path, RATE_LIMIT_CREATE="3 per 10 minutes")
    client = app.test_client()
    stranger = {"REMOTE_ADDR": "203.0.113.7"}
    opened = [open_table(client, **stranger) for _ in range(3)]
    assert [r.status_code for r in opened] == [201] * 3
    assert not any("Retry-After" in r.headers for r in opened)  # only a refusal says when to come back
    refused = open_table(client, **stranger)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert "Too many new tables" in refused.json["error"] and "within 10 min" in refused.json["error"]
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/").get_data(as_text=True)).group(1)
    page = client.post("/tables", data={"csrf_token": token, "name": "T", "player_name": "Ann", "sex": "female"},
                       environ_base=stranger)  # the page counts against the same budget
    assert page.status_code == 429
    assert open_table(client, REMOTE_ADDR="198.51.100.9").status_code == 201  # another client is not affected


def test_loopback_is_trusted_by_default(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "TESTING": True, "RATE_LIMIT_CREATE": "1 per 10 minutes"})
    client = app.test_client()
    assert [open_table(client, REMOTE_ADDR="127.0.0.1").status_code for _ in range(3)] == [201] * 3


def test_behind_a_trusted_proxy_each_client_has_its_own_budget(tmp_path):
    app = make(tmp_path, RATE_LIMIT_CREATE="1 per 10 minutes", TRUSTED_PROXIES=1)
    client = app.test_client()
    proxy = {"REMOTE_ADDR": "127.0.0.1"}
    assert open_table(client, **proxy, HTTP_X_FORWARDED_FOR="203.0.113.1").status_code == 201
    assert open_table(client, **proxy, HTTP_X_FORWARDED_FOR="203.0.113.1").status_code == 429
    assert open_table(client, **proxy, HTTP_X_FORWARDED_FOR="203.0.113.2").status_code == 201


def test_the_seat_cookie_is_secure_when_served_over_https(tmp_path):
    app = make(tmp_path, PUBLIC_URL="https://referee.example")
    response = app.test_client().post("/tables", data={"name": "T", "player_name": "Ann", "sex": "female"},
                                      base_url="https://referee.example")
    cookie = response.headers.get("Set-Cookie", "")
    assert "Secure" in cookie and "SameSite=Lax" in cookie and "HttpOnly" in cookie
    plain = make(tmp_path / "plain").test_client().post("/tables", data={"name": "T", "player_name": "Ann",
                                                                            "sex": "female"})
    assert "Secure" not in plain.headers.get("Set-Cookie", "")


def test_tables_idle_past_the_limit_are_deleted_at_start(tmp_path):
    app = make(tmp_path)
    client = app.test_client()
    old, fresh = open_table(client).json["table"]["id"], open_table(client).json["table"]["id"]
    long_ago = (datetime.now(timezone.utc) - timedelta(days=90)).isoformat(timespec="milliseconds")
    with sqlite3.connect(app.config["DATABASE"]) as conn:
        conn.execute("UPDATE events SET created_at = ? WHERE table_id = ?", [long_ago, old])
    again = make(tmp_path, TABLE_IDLE_DAYS=60)
    with sqlite3.connect(again.config["DATABASE"]) as conn:
        left = {row[0] for row in conn.execute("SELECT id FROM tables")}
        assert conn.execute("SELECT COUNT(*) FROM events WHERE table_id = ?", [old]).fetchone()[0] == 0
    assert left == {fresh}


def test_a_server_left_running_deletes_idle_tables_when_a_table_is_opened(tmp_path):
    """Not only at start: the sweep runs again when a table is opened once the sweep interval
    has passed (here at once), in the same process."""
    app = make(tmp_path, TABLE_IDLE_DAYS=60, TABLE_IDLE_SWEEP_SECONDS=0)
    client = app.test_client()
    old, kept = open_table(client).json["table"]["id"], open_table(client).json["table"]["id"]
    long_ago = (datetime.now(timezone.utc) - timedelta(days=90)).isoformat(timespec="milliseconds")
    with sqlite3.connect(app.config["DATABASE"]) as conn:
        conn.execute("UPDATE events SET created_at = ? WHERE table_id = ?", [long_ago, old])
    new = open_table(client).json["table"]["id"]
    with sqlite3.connect(app.config["DATABASE"]) as conn:
        left = {row[0] for row in conn.execute("SELECT id FROM tables")}
    assert left == {kept, new}


def test_between_two_sweeps_an_idle_table_stays(tmp_path):
    app = make(tmp_path, TABLE_IDLE_DAYS=60)  # swept at start; the next sweep is hours away
    client = app.test_client()
    old = open_table(client).json["table"]["id"]
    long_ago = (datetime.now(timezone.utc) - timedelta(days=90)).isoformat(timespec="milliseconds")
    with sqlite3.connect(app.config["DATABASE"]) as conn:
        conn.execute("UPDATE events SET created_at = ? WHERE table_id = ?", [long_ago, old])
    open_table(client)
    with sqlite3.connect(app.config["DATABASE"]) as conn:
        assert old in {row[0] for row in conn.execute("SELECT id FROM tables")}
