"""companion/web/render.py: a table's shared fragments are rendered once per version and
language, not once per phone, and never carry one phone's seat or token to another."""
from __future__ import annotations

from flask import template_rendered

from companion import store
from companion.db import get_store
from companion.web.render import board


def _table(app, players=6):
    with app.app_context():
        conn = get_store()
        state, host, _ = store.create_table(conn, "Friday", "munchkin-1.6", "Ann", "female")
        join = store.tokens(conn, state.id)["join"]
        for n in range(1, players):
            state, _, _ = store.join_table(conn, join, f"P{n}", "male")
        return state


def _count_renders(app):
    rendered: list[str] = []
    template_rendered.connect(lambda sender, template, context, **kw: rendered.append(template.name), app, weak=False)
    return rendered


def test_six_phones_share_one_rendering_of_the_players_and_the_rules_per_language(app):
    state = _table(app)
    rendered = _count_renders(app)
    seats = list(state.players)
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        english = {seat: board(state, seat) for seat in seats}
    with app.test_request_context("/", headers={"Accept-Language": "de"}):
        german = board(state, seats[0])
    assert rendered.count("_board.html") == 7
    assert rendered.count("_player_facts.html") == 2 * 6  # each player once per language, not once per phone
    assert rendered.count("_profile.html") == 2
    assert "Rules:" in english[seats[0]] and "Regeln:" in german
    # what differs per phone is still per phone: its own sheet and who it may play +1 on
    assert english[seats[0]] != english[seats[1]]
    assert english[seats[0]].count('class="player mine"') == 1


def test_a_new_version_is_rendered_anew(app):
    state = _table(app, players=3)
    seat = list(state.players)[1]
    with app.test_request_context("/"):
        before = board(state, seat)
    with app.app_context():
        state, _ = store.act(get_store(), state.id, seat, "level.up", {})
    with app.test_request_context("/"):
        after = board(state, seat)
    assert '<b class="level-value">1</b>' in before
    assert before.count('<b class="level-value">2</b>') == 0 and after.count('<b class="level-value">2</b>') == 1


def test_the_shared_fragments_carry_no_token(app):
    state = _table(app, players=3)
    rendered = _count_renders(app)
    captured: dict[str, str] = {}
    template_rendered.connect(
        lambda sender, template, context, **kw: captured.setdefault(template.name, str(context.get("me"))), app,
        weak=False)
    with app.test_request_context("/"):
        html = board(state, list(state.players)[0])
    assert "csrf_token" in html  # the phone's own buttons carry its token
    assert captured["_player_facts.html"] == "None" and captured["_profile.html"] == "None"
    assert "_player_facts.html" in rendered
