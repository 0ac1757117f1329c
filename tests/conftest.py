"""Shared fixtures: the app on a temporary data directory, and phones that talk to it."""
from __future__ import annotations

import os
import re

import pytest

from companion import create_app
from companion.web.operator import admin_url

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


#: The test files that take longest, longest first, started first (scripts/test runs pytest-xdist
#: with ``--no-loadscope-reorder``, so that it hands files out in this order; by default it starts
#: the files with most tests first, which left the browser files, a few long tests each, for the
#: end, one worker running them alone). Seconds of each on 2026-12-02 (2 cores, AMD EPYC; the
#: whole suite's files 1,798 s): 223, 202, 201, 161, 143, 92, 87, 85, 81, 52, 51, 51, 43, 41, 38, 30.
LONGEST_FIRST = ("test_vision.py", "test_vision_outside.py", "test_phone_feedback.py", "test_browser.py",
                 "test_vision_enrolment.py", "test_accessibility.py", "test_phone_table.py", "test_phone_app.py",
                 "test_action_fuzz.py", "test_postgres.py", "test_uploads.py", "test_camera_browser.py",
                 "test_packaging.py", "test_serving.py", "test_server.py", "test_scan_http.py")


def pytest_collection_modifyitems(items):
    """The longest files first (``LONGEST_FIRST``); the rest, and each file's tests, in their order."""
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def pytest_generate_tests(metafunc):
    """A test module that sets ``STORE_BACKENDS = ("sqlite", "postgres")`` runs each of its
    tests that use the app (or ``store_backend``) once per table store."""
    backends = getattr(metafunc.module, "STORE_BACKENDS", None)
    chosen = any("store_backend" in mark.args[0] for mark in metafunc.definition.iter_markers("parametrize"))
    if backends and "store_backend" in metafunc.fixturenames and not chosen:  # (unless the test says which)
        metafunc.parametrize("store_backend", backends)


@pytest.fixture(autouse=True)
def _phones_put_away(request):
    """After a test that used the shared browser (tests/test_browser.py's ``browser``), its
    phones' pages are closed: left open, every earlier test's pages went on running in that
    browser until its file ended — reconnecting their live streams to a server that had
    stopped, polling it, retrying — beside every later test."""
    yield
    if "browser" in request.fixturenames:
        for context in request.getfixturevalue("browser").contexts:
            context.close()


@pytest.fixture(scope="session")
def pg_cluster():
    """A PostgreSQL server for the session (tests/pg.py); skipped without PostgreSQL, except in CI."""
    from pg import Cluster

    try:
        cluster = Cluster()
    except FileNotFoundError as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(str(exc))
    yield cluster
    cluster.stop()


@pytest.fixture
def store_backend():
    return "sqlite"


@pytest.fixture
def database_url(request, store_backend):
    """A fresh PostgreSQL database's URL when the test runs on PostgreSQL, else ``None``."""
    if store_backend != "postgres":
        return None
    return request.getfixturevalue("pg_cluster").new_database()


@pytest.fixture
def app(tmp_path, database_url):
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "LIVE_POLL_INTERVAL": 0.01,
                      "DATABASE_URL": database_url})
    yield app
    app.extensions["companion.live"].stop()
    if database_url:
        app.extensions["companion.pg_pool"].close()


@pytest.fixture
def client(app):
    return app.test_client()


class Phone:
    """One phone's browser: its own cookie jar, and the CSRF token its last page carried."""

    def __init__(self, app):
        self.client = app.test_client()
        self.csrf = None
        self.table_id = None

    def get(self, url, **kw):
        response = self.client.get(url, **kw)
        match = CSRF.search(response.get_data(as_text=True))
        if match:
            self.csrf = match.group(1)
        return response

    def post(self, url, data=None, htmx=False, **kw):
        if self.csrf is None:
            self.get("/")
        headers = {"HX-Request": "true"} if htmx else {}
        return self.client.post(url, data={"csrf_token": self.csrf, **(data or {})}, headers=headers, **kw)

    def create(self, name="Alice", table="Friday", sex="female"):
        response = self.post("/tables", {"name": table, "player_name": name, "sex": sex, "profile": "munchkin-1.6"})
        assert response.status_code == 303, response.get_data(as_text=True)
        self.table_id = response.headers["Location"].rsplit("/", 1)[-1]
        return self.table_id

    def join_url(self):
        page = self.get(f"/t/{self.table_id}").get_data(as_text=True)
        return re.search(r'id="join-url"[^>]*>([^<]+)<', page).group(1).replace("http://localhost", "")

    def join(self, join_path, name, sex="male"):
        self.get(join_path)
        response = self.post(join_path, {"name": name, "sex": sex})
        assert response.status_code == 303, response.get_data(as_text=True)
        self.table_id = response.headers["Location"].rsplit("/", 1)[-1]
        return response

    def act(self, action, htmx=True, **params):
        return self.post(f"/t/{self.table_id}/act/{action}", {k: str(v) for k, v in params.items()}, htmx=htmx)

    def pass_turn(self):
        """A quiet turn (1.6, Turn Phases): a door with no monster, loot the room, end the turn."""
        for action, params in (("turn.door", {"found": "other"}), ("turn.loot", {}), ("turn.end", {})):
            response = self.act(action, **params)
            assert response.status_code == 200, response.get_data(as_text=True)[:500]
        return response


@pytest.fixture
def phones(app):
    """A table with host Alice and players Bob and Cleo, each on their own phone."""
    alice, bob, cleo = Phone(app), Phone(app), Phone(app)
    alice.create()
    path = alice.join_url()
    bob.join(path, "Bob")
    cleo.join(path, "Cleo", "female")
    return alice, bob, cleo


def become_operator(browser, app):
    """Open the server's admin link (as printed by `companion serve`) in ``browser``: a test
    client or a :class:`Phone`. That browser may then import cards and teach the scanner."""
    response = browser.get(admin_url(app, ""))
    assert response.status_code == 303, response.status_code
    return browser


@pytest.fixture
def operator(app):
    """A browser of the server's operator (who opened the admin link): a test client."""
    return become_operator(app.test_client(), app)


@pytest.fixture
def api(client):
    """Create a table over the API; returns (client, table_id, {name: token})."""
    response = client.post("/api/v1/tables", json={"name": "API table", "host": {"name": "Hana", "sex": "female"}})
    assert response.status_code == 201, response.json
    body = response.json
    tokens = {"Hana": body["token"]}
    join_token = body["join_url"].rsplit("/", 1)[-1]
    for name in ("Ivo", "Jana"):
        joined = client.post(f"/api/v1/join/{join_token}", json={"name": name, "sex": "male"})
        assert joined.status_code == 201, joined.json
        tokens[name] = joined.json["token"]
    return client, body["table"]["id"], tokens, join_token


@pytest.fixture
def ocr():
    """The title reader of the [ocr] extra: CI installs it (scripts/test), so there it must be present."""
    from vision import title

    if title.reader() is None:
        if os.environ.get("CI"):
            pytest.fail("the [ocr] extra (rapidocr, onnxruntime) is missing: scripts/test must install it")
        pytest.skip("the [ocr] extra is not installed")
    return title.reader()
