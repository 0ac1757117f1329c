"""The phone pages over HTTP: full pages and htmx partials, seats, CSRF, escaping, headers."""
import re

from conftest import Phone


def level_of(html: str, name: str) -> int:
    match = re.search(rf'data-name="{name}".*?class="level-value">(\d+)<', html, re.S)
    return int(match.group(1))


def test_home_page_and_security_headers(client):
    response = client.get("/")
    assert response.status_code == 200
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "<script>" not in response.get_data(as_text=True)  # no inline script anywhere
    assert " style=" not in response.get_data(as_text=True)


def test_static_vendor_files_are_served_by_the_app(client):
    assert client.get("/static/vendor/htmx-2.0.11.min.js").status_code == 200
    assert client.get("/static/vendor/htmx-ext-sse-2.2.4.min.js").status_code == 200


def test_three_phones_join_and_see_each_other(phones):
    alice, bob, cleo = phones
    html = cleo.get(f"/t/{cleo.table_id}").get_data(as_text=True)
    for name in ("Alice", "Bob", "Cleo"):
        assert f'data-name="{name}"' in html
    assert 'id="join-qr"' in html and "<svg" in html


def test_seat_cookie_is_signed_httponly_and_survives_reload(app, phones):
    alice, bob, _ = phones
    cookie = bob.client.get_cookie("companion_seat")
    assert cookie.http_only and cookie.same_site == "Lax"
    assert bob.get(f"/t/{bob.table_id}").status_code == 200
    # A forged cookie gives no seat.
    stranger = Phone(app)
    stranger.client.set_cookie("companion_seat", cookie.value[:-3] + "abc")
    assert stranger.get(f"/t/{bob.table_id}").status_code == 403


def test_rejoining_with_a_seat_goes_back_to_it(phones):
    alice, bob, _ = phones
    path = alice.join_url()
    response = bob.get(path)
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/t/{bob.table_id}")


def test_stranger_without_seat_gets_403_and_bad_join_token_404(app, phones):
    alice, _, _ = phones
    stranger = Phone(app)
    assert stranger.get(f"/t/{alice.table_id}").status_code == 403
    assert stranger.get("/t/doesnotexist").status_code == 404
    assert stranger.get("/j/not-a-real-token").status_code == 404


def test_full_page_and_partial_with_vary(phones):
    alice, _, _ = phones
    full = alice.get(f"/t/{alice.table_id}")
    partial = alice.get(f"/t/{alice.table_id}", headers={"HX-Request": "true"})
    assert "<html" in full.get_data(as_text=True)
    assert "<html" not in partial.get_data(as_text=True) and 'class="board"' in partial.get_data(as_text=True)
    for response in (full, partial):
        assert "HX-Request" in response.headers["Vary"]


def test_level_up_via_htmx_and_without_javascript(phones):
    alice, bob, _ = phones
    response = bob.act("level.up")
    assert response.status_code == 200 and "HX-Request" in response.headers["Vary"]
    assert level_of(response.get_data(as_text=True), "Bob") == 2
    response = bob.act("level.up", htmx=False)  # plain form post: redirect back to the table
    assert response.status_code == 303
    assert level_of(alice.get(f"/t/{alice.table_id}").get_data(as_text=True), "Bob") == 3


def test_refusal_names_and_cites_the_rule(phones):
    _, bob, _ = phones
    for _ in range(8):
        assert bob.act("level.up").status_code == 200
    response = bob.act("level.up")
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "can only be reached by killing a monster" in html
    assert "Munchkin 1.6 (2011), Contradictions Between Cards and Rules, rule 4" in html
    assert 'href="/rules/level.win-by-kill?profile=munchkin-1.6"' in html
    # without JavaScript the whole page answers with the refusal
    response = bob.act("level.up", htmx=False)
    assert response.status_code == 422 and "<html" in response.get_data(as_text=True)


def test_winning_kill_shows_on_every_phone(phones):
    """The top level comes only from a fight won (1.6, Contradictions Between Cards and Rules, rule 4)."""
    alice, bob, cleo = phones
    for _ in range(8):
        alice.act("level.up")
    assert alice.act("level.kill", levels=1).status_code == 422  # no kill without a fight
    alice.post(f"/t/{alice.table_id}/act/settings.objection", {"seconds": "0"})
    alice.act("combat.start", name="Slug", level=1)
    alice.act("combat.claim")
    assert alice.act("combat.resolve").status_code == 200
    for phone in phones:
        assert "Alice wins the game!" in phone.get(f"/t/{phone.table_id}").get_data(as_text=True)


def test_csrf_is_required_for_form_posts(phones):
    _, bob, _ = phones
    response = bob.client.post(f"/t/{bob.table_id}/act/level.up", data={})
    assert response.status_code == 400 and "CSRF" in response.get_data(as_text=True)
    response = bob.client.post(f"/t/{bob.table_id}/act/level.up", data={"csrf_token": "forged"})
    assert response.status_code == 400


def test_names_are_escaped_everywhere(app, phones):
    alice, _, _ = phones
    evil = Phone(app)
    evil.join(alice.join_url(), "<img src=x onerror=1>")
    for url in (f"/t/{alice.table_id}", f"/t/{alice.table_id}/history"):
        html = alice.get(url).get_data(as_text=True)
        assert "<img src=x" not in html and "&lt;img src=x onerror=1&gt;" in html


def test_join_refusals_keep_the_form(app, phones):
    alice, _, _ = phones
    late = Phone(app)
    path = alice.join_url()
    late.get(path)
    response = late.post(path, {"name": "bob", "sex": "male"})
    assert response.status_code == 409 and "already called bob" in response.get_data(as_text=True)
    response = late.post(path, {"name": "Dan", "sex": "robot"})
    assert response.status_code == 400


def test_host_removes_a_player_and_hands_over(phones):
    alice, bob, cleo = phones
    cleo_seat = re.search(r'data-seat="([^"]+)" data-name="Cleo"', alice.get(f"/t/{alice.table_id}").get_data(as_text=True)).group(1)
    assert bob.act("player.remove", seat=cleo_seat).status_code == 403  # not the host
    assert alice.act("player.remove", seat=cleo_seat).status_code == 200
    page = cleo.get(f"/t/{cleo.table_id}")  # removed: a page of its own, not the board with an error
    assert page.status_code == 410
    html = page.get_data(as_text=True)
    assert "You were removed from this table" in html and 'id="board"' not in html and 'href="/"' in html
    tap = cleo.act("level.up")  # a tap from the board that was still open: the whole phone goes there
    assert tap.status_code == 200 and tap.headers["HX-Redirect"] == f"/t/{cleo.table_id}"
    assert cleo.act("level.up", htmx=False).status_code == 410
    assert cleo.get(f"/t/{cleo.table_id}/history").status_code == 410
    assert Phone(cleo.client.application).get(f"/t/{cleo.table_id}").status_code == 403  # never seated: the error page
    bob_seat = re.search(r'data-seat="([^"]+)" data-name="Bob"', alice.get(f"/t/{alice.table_id}").get_data(as_text=True)).group(1)
    assert alice.act("host.transfer", seat=bob_seat).status_code == 200
    assert "Host tools for Alice" in bob.get(f"/t/{bob.table_id}").get_data(as_text=True)


def test_history_lists_changes_and_undo_works(phones):
    alice, bob, _ = phones
    bob.act("level.up")
    bob.act("level.up")
    history = bob.get(f"/t/{bob.table_id}/history").get_data(as_text=True)
    assert "Bob level 2 → 3" in history and "Bob level 1 → 2" in history
    seq = max(int(s) for s in re.findall(r'data-undo="(\d+)"', history))
    response = bob.post(f"/t/{bob.table_id}/undo/{seq}", {"from": "history"})
    assert response.status_code == 303
    history = bob.get(f"/t/{bob.table_id}/history").get_data(as_text=True)
    assert f"undone by #{seq + 1}" in history and "undo: Bob level 3 → 2" in history
    # Cleo may not undo Bob's change; already-undone changes cannot be undone twice
    response = bob.post(f"/t/{bob.table_id}/undo/{seq}", htmx=True)
    assert response.status_code == 409 and "already undone" in response.get_data(as_text=True)


def test_only_author_or_host_may_undo(phones):
    alice, bob, cleo = phones
    response = bob.act("level.up")
    seq = int(re.search(r'data-undo="(\d+)"', response.get_data(as_text=True)).group(1))
    assert cleo.post(f"/t/{cleo.table_id}/undo/{seq}", htmx=True).status_code == 403
    assert alice.post(f"/t/{alice.table_id}/undo/{seq}", htmx=True).status_code == 200  # the host may


def test_spectator_link_is_read_only(app, phones):
    alice, _, _ = phones
    page = alice.get(f"/t/{alice.table_id}").get_data(as_text=True)
    path = re.search(r'id="spectator-url"[^>]*>([^<]+)<', page).group(1).replace("http://localhost", "")
    watcher = Phone(app)
    html = watcher.get(path).get_data(as_text=True)
    assert 'data-name="Bob"' in html and "data-action" not in html and "join-qr" not in html
    assert watcher.get(f"/t/{alice.table_id}").status_code == 403


def test_oversized_request_is_refused(phones):
    _, bob, _ = phones
    response = bob.post(f"/t/{bob.table_id}/act/level.up", {"reason": "x" * 200_000})
    assert response.status_code == 413


def test_rules_pages(client):
    assert "Level 1 is the floor" in client.get("/rules").get_data(as_text=True)
    assert client.get("/rules/level.floor").status_code == 200
    assert client.get("/rules/nope").status_code == 404


def test_host_can_adjust_a_player_whose_phone_died(phones):
    """Go Up a Level by anyone on anyone (1.6, Go Up a Level); a level lost is the host's
    correction, a recorded house ruling (level.causes)."""
    alice, bob, _ = phones
    html = alice.get(f"/t/{alice.table_id}").get_data(as_text=True)
    bob_seat = re.search(r'data-seat="([^"]+)" data-name="Bob"', html).group(1)
    assert 'aria-label="+1: Play Go Up a Level on Bob"' in html and 'aria-label="Level −: Level down for Bob"' in html
    response = alice.act("level.up", seat=bob_seat)
    assert response.status_code == 200 and level_of(response.get_data(as_text=True), "Bob") == 2
    bobs = bob.get(f"/t/{bob.table_id}").get_data(as_text=True)
    assert 'aria-label="+1: Play Go Up a Level on Alice"' in bobs and 'aria-label="Level −: Level down for Alice"' not in bobs
    refused = alice.act("level.down", seat=bob_seat)
    assert refused.status_code == 422 and "house ruling" in refused.get_data(as_text=True)
    corrected = alice.act("level.down", seat=bob_seat, override="level.causes")
    assert corrected.status_code == 200 and level_of(corrected.get_data(as_text=True), "Bob") == 1


def test_errors_to_htmx_come_as_a_toast_for_the_screen_not_as_a_page(app, phones):
    """An error answer to a tap is a toast aimed at #feedback (shown at the bottom of the screen
    by static/app.js), never a whole page inside the board (#17)."""
    alice, bob, _ = phones
    stranger = Phone(app)
    stranger.get("/")
    bad_csrf = bob.client.post(f"/t/{bob.table_id}/act/level.up", data={"csrf_token": "forged"}, headers={"HX-Request": "true"})
    too_large = bob.post(f"/t/{bob.table_id}/act/level.up", {"reason": "x" * 200_000}, htmx=True)
    no_seat = stranger.post(f"/t/{alice.table_id}/act/level.up", htmx=True)
    for response, status, words in ((bad_csrf, 400, "CSRF"), (too_large, 413, "too large"), (no_seat, 403, "no seat")):
        html = response.get_data(as_text=True)
        assert response.status_code == status and words in html, html[:300]
        assert "<html" not in html and 'class="notice refused toast" role="alert"' in html
        assert response.headers["HX-Retarget"] == "#feedback" and response.headers["HX-Reswap"] == "innerHTML"
    page = bob.client.post(f"/t/{bob.table_id}/act/level.up", data={"csrf_token": "forged"})  # no JavaScript
    assert page.status_code == 400 and "<html" in page.get_data(as_text=True) and "HX-Retarget" not in page.headers


def test_a_refusal_and_a_done_tap_answer_as_toasts_with_undo_and_allow_it(phones):
    alice, _, _ = phones
    done = alice.act("level.up").get_data(as_text=True)
    assert 'class="notice done toast" id="answer" role="status"' in done and "data-undo=" in done and 'class="x dismiss"' in done
    for _ in range(7):
        alice.act("level.up")
    refused = alice.act("level.up")  # the host may allow it as a house ruling, right there
    html = refused.get_data(as_text=True)
    assert refused.status_code == 422 and 'class="notice refused toast" id="answer" role="alert"' in html
    assert 'data-override="level.win-by-kill"' in html.split('id="answer"')[1]
    rolled = alice.act("dice.roll").get_data(as_text=True)  # a die rolled is not taken back: no Undo offered
    assert 'id="answer"' in rolled and "data-undo=" not in rolled.split('id="answer"')[1].split("</div>")[0]
    bad = alice.act("settings.objection")  # a 400 from the action's input check: the board with its refusal
    assert bad.status_code == 400 and 'class="board"' in bad.get_data(as_text=True)
    assert "seconds must be a number" in bad.get_data(as_text=True) and "HX-Retarget" not in bad.headers


def test_each_line_of_the_card_game_sheet_leads_to_its_rule(phones):
    """As on the Quest sheet: a player unsure what a line means (why the second helmet does not
    count, what changes a level) taps its name and reads the rule entry behind it, cited for the
    table's edition, in the phone's language."""
    alice, _, _ = phones
    assert alice.act("item.add", card="chainsaw-of-bloody-dismemberment").status_code == 200  # a Big item
    assert alice.act("curse.add", card="chicken-on-your-head").status_code == 200
    page = alice.get(f"/t/{alice.table_id}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    links = dict(re.findall(r'<a class="rule-link" href="/rules/([\w.-]+)\?profile=munchkin-1.6" title="[^"]+">([^<]+)</a>',
                            page))
    assert set(links) == {"level.causes", "combat.compare", "race.one", "items.slots", "items.big", "curses.lasting"}, links
    assert links["level.causes"] == "Stufe" and links["items.slots"] == "Gegenstände"
    for rule_id in links:
        assert alice.get(f"/rules/{rule_id}?profile=munchkin-1.6").status_code == 200


def test_the_editions_are_named_in_the_phones_language(client):
    """The host's first choice, the rules, was English in every language (2026-11-30)."""
    home = client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Munchkin, klassische Regeln (deutsch 2003 / niederländisch 2001)" in home
    assert "Munchkin, classic rules" not in home
