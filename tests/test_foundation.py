"""The foundation: data directory, secret key, migrations, and errors that never leak."""
import os
import sqlite3

from companion import create_app


def test_secret_key_is_generated_once_private_and_reused(tmp_path):
    first = create_app({"DATA_DIR": str(tmp_path)})
    second = create_app({"DATA_DIR": str(tmp_path)})
    key_file = tmp_path / "secret_key"
    assert first.config["SECRET_KEY"] == second.config["SECRET_KEY"] == key_file.read_text().strip()
    assert len(first.config["SECRET_KEY"]) >= 64
    assert os.stat(key_file).st_mode & 0o077 == 0
    other = create_app({"DATA_DIR": str(tmp_path / "elsewhere")})
    assert other.config["SECRET_KEY"] != first.config["SECRET_KEY"]  # never a hard-coded key


def test_migrations_are_recorded_and_wal_is_on(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path)})
    create_app({"DATA_DIR": str(tmp_path)})  # a second start applies nothing again
    conn = sqlite3.connect(app.config["DATABASE"])
    rows = sorted(conn.execute("SELECT migration_set, name FROM _sqlite_migrations").fetchall())
    assert rows == [("card_db", "001_cards"), ("companion", "001_tables_seats_events"), ("companion", "002_idempotency_keys"),
                    ("companion", "003_idempotency_fingerprints")]
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_data_dir_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA", str(tmp_path / "env"))
    app = create_app()
    assert app.config["DATABASE"] == str(tmp_path / "env" / "companion.sqlite3")


def break_every_table(app):
    conn = sqlite3.connect(app.config["DATABASE"])
    conn.execute("UPDATE tables SET state = '{broken'")
    conn.commit()
    conn.close()


def test_server_errors_say_nothing_about_the_code(app, phones):
    alice, _, _ = phones
    break_every_table(app)
    page = alice.get(f"/t/{alice.table_id}")
    assert page.status_code == 500
    body = page.get_data(as_text=True)
    assert "Traceback" not in body and "json" not in body.lower() and "nothing was changed" in body


def test_api_errors_say_nothing_about_the_code(app, api):
    client, table_id, tokens, _ = api
    break_every_table(app)
    api = client.post(f"/api/v1/tables/{table_id}/actions", json={"action": "level.up"},
                      headers={"Authorization": f"Bearer {tokens['Ivo']}"})
    assert api.status_code == 500 and api.json == {"error": "Something went wrong on the server; nothing was changed."}
