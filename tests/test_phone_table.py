"""The table as the phones see it, in Debian's Chromium at 390 × 844 (#17): the host's
invitation up front while seats are empty, the objection window the host set counted down on
every phone and kept by the server, the table feed telling every phone what just happened,
a removed player's own page, and a tap made offline refused, never lost or applied twice.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from test_browser import browser, open_table, phone, ready, server  # noqa: F401 (fixtures)
from test_phone_feedback import HEIGHT, api, join_by_api, table_id
from test_quest_browser import open_quest_table

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def box(locator) -> dict:
    return locator.evaluate("(el) => { const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; }")


def join_in_browser(browser, errors, host, name: str):
    """A second phone that joins by the invitation's link (its QR code is read in test_browser)."""
    page = phone(browser, errors)
    page.goto(host.locator("#join-url").get_attribute("href"))
    page.fill("input[name=name]", name)
    page.check("input[name=sex][value=male]")
    page.click("button.primary")
    ready(page)
    return page


def test_the_host_sees_the_invitation_first_while_seats_are_empty(browser, server):
    errors: list[str] = []
    host = open_table(browser, errors, server, "Alice", "female")
    host.evaluate("window.scrollTo(0, 0)")
    qr = box(host.locator("#join-qr"))
    assert 0 < qr["top"] < qr["bottom"] <= HEIGHT, qr  # the whole QR code above the fold
    assert box(host.locator("#join-url"))["bottom"] <= HEIGHT
    assert qr["bottom"] < box(host.locator("#board"))["top"]  # before the board

    join_by_api(server, host, "Bob")
    host.locator('.player[data-name="Bob"]').wait_for()
    assert box(host.locator("#join-qr"))["bottom"] < box(host.locator("#board"))["top"]  # 2 of at least 3
    join_by_api(server, host, "Cleo")
    host.locator('.player[data-name="Cleo"]').wait_for()
    # enough players: the invitation moves below the board and what goes on at the table (live, no reload)
    expect(host.locator(".tablepage > .invite")).to_have_css("order", "0")
    assert box(host.locator(".invite"))["top"] > box(host.locator("#board"))["bottom"]
    assert errors == []


def test_a_players_phone_has_the_invitation_at_the_end(browser, server):
    errors: list[str] = []
    host = open_table(browser, errors, server, "Alice", "female")
    bob = join_in_browser(browser, errors, host, "Bob")
    assert box(bob.locator(".invite"))["top"] > box(bob.locator("#board"))["bottom"]  # the host's tool, not Bob's
    assert errors == []


def test_the_hosts_objection_window_is_counted_down_on_every_phone_and_kept(browser, server):
    errors: list[str] = []
    host = open_table(browser, errors, server, "Alice", "female")
    bob = join_in_browser(browser, errors, host, "Bob")
    expect(bob.locator("#objection-window")).to_contain_text("after 2.6 seconds")  # the book's

    host.goto(host.url)
    host.click("details.card summary >> text=Table settings (host)")
    host.fill("input[name=seconds]", "8")
    host.click("button[data-action='settings.objection']")
    expect(host.locator("#objection-window")).to_contain_text("after 8 seconds without objection. (the host's setting)")
    expect(bob.locator("#objection-window")).to_contain_text("after 8 seconds")  # every phone, live
    assert host.locator("input[name=seconds]").input_value() == "8.0"

    host.locator("#turn button[data-action='turn.door']").first.click()  # the door: a monster
    host.fill("#add-to-sheet input[name=q]", "maul rat")
    host.locator("#pick-results li[data-card=maul-rat] button[data-action='card.play']").click()
    expect(host.locator("#fight li[data-monster='Maul Rat']")).to_be_visible()  # each tap answered before the next,
    before = host.locator("#players-total").inner_text()                        # as a player sees it
    host.click("#fight button[aria-label='+10 for the players']")
    expect(host.locator("#players-total")).not_to_have_text(before)
    host.click("#fight button[data-action='combat.claim']")
    countdown = {}
    for who, page in (("host", host), ("bob", bob)):
        page.locator("#fight .countdown").wait_for()
        countdown[who] = float(page.locator("#fight .countdown").get_attribute("data-remaining"))
        assert 4 < countdown[who] <= 8.0, countdown  # the host's 8 s, not the book's 2.6
    # The phone wakes up mid-countdown: its board is fetched again with a smaller figure; the
    # count goes on from that one (counting from the first would end 2.5 s before the server's window).
    first = host.locator("#fight .countdown").get_attribute("data-remaining")
    host.wait_for_function("() => parseFloat(document.querySelector('#fight .countdown').textContent) < 5.5")
    host.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    host.wait_for_function(f"() => document.querySelector('#fight .countdown').dataset.remaining !== '{first}'")
    expect(host.locator("#fight .claim.ready")).to_be_visible(timeout=12_000)
    assert host.locator("#fight .countdown").inner_text() == "0.0"
    host.click("#fight button[data-action='combat.resolve']")  # at once: no "Wait … more seconds"
    expect(host.locator("#my-level")).to_have_text("2")
    expect(host.locator("#board .notice.refused")).to_have_count(0)
    expect(bob.locator('.player[data-name="Alice"] .level-value')).to_have_text("2")
    assert errors == []  # never refused for waiting (a 409 would be logged)


def test_the_table_feed_tells_every_phone_what_just_happened(browser, server):
    errors: list[str] = []
    host = open_table(browser, errors, server, "Alice", "female")
    bob = join_by_api(server, host, "Bob")
    tid = table_id(host)
    feed = host.locator("#board #feed[role=status]")
    expect(feed).to_contain_text("Bob")  # Bob sat down

    api(server, "POST", f"/api/v1/tables/{tid}/actions", {"action": "level.up"}, bob)
    expect(feed).to_contain_text("Bob level 1 → 2")
    assert re.fullmatch(r"\d\d:\d\d(:\d\d)?", feed.locator("time").inner_text().strip())  # the phone's time

    seat = host.locator('.player[data-name="Bob"]').get_attribute("data-seat")
    cursed = api(server, "POST", f"/api/v1/tables/{tid}/actions", {"action": "card.play", "card": "lose-a-level", "seat": seat}, bob)
    expect(feed).to_contain_text("Lose a Level")  # a curse, and what it did
    expect(host.locator('.player[data-name="Bob"] .level-value')).to_have_text("1")
    api(server, "POST", f"/api/v1/tables/{tid}/history/{cursed['event']['seq']}/undo", {}, bob)
    expect(feed).to_contain_text("undo")  # an undo is news for every phone too
    expect(host.locator('.player[data-name="Bob"] .level-value')).to_have_text("2")
    host.click("#me button[data-action='level.up']")  # this phone's own change is in its feed too
    expect(feed).to_contain_text("Alice level 1 → 2")
    assert errors == []


def test_a_removed_player_is_shown_a_page_of_its_own(browser, server):
    errors: list[str] = []
    host = open_table(browser, errors, server, "Alice", "female")
    bob = join_in_browser(browser, errors, host, "Bob")
    table = bob.url

    seat = host.locator('.player[data-name="Bob"]').get_attribute("data-seat")
    host.click(f"#host-tools-{seat} summary")
    host.click(f"#host-tools-{seat} button[data-action='player.remove']")
    # Bob's phone is told by the live stream and goes to its own page, not an error in the board
    expect(bob.locator("#removed h1")).to_have_text("You were removed from this table")
    assert bob.url == table
    expect(bob.locator("#board")).to_have_count(0)
    bob.click("#removed a[href='/']")
    expect(bob.locator("input[name=player_name]")).to_be_visible()  # home: start a table of his own
    # the live stream that ended (htmx logs it) and the page's own status, 410 Gone
    assert [e for e in errors if e != "[object Event]" and "status of 410" not in e] == []


def test_a_tap_made_offline_is_refused_and_the_next_one_applies_once(browser, server):
    errors: list[str] = []
    host = open_table(browser, errors, server, "Alice", "female")
    host.context.set_offline(True)  # the Wi-Fi drops
    banner = host.locator("#connection[role=status]")
    host.click("#me button[data-action='level.up']")
    refused = host.locator("#feedback .toast[role=alert]")
    expect(refused).to_contain_text("Not sent")
    expect(banner).to_contain_text("No connection to the server")
    expect(host.locator("#my-level")).to_have_text("1")

    host.context.set_offline(False)  # back
    expect(banner).to_be_hidden(timeout=15_000)
    expect(refused).to_have_count(0)  # "Not sent" is past once the server answers: it stayed on screen
    host.click("#me button[data-action='level.up']")
    expect(host.locator("#my-level")).to_have_text("2")
    host.reload()
    expect(host.locator("#my-level")).to_have_text("2")  # the refused tap never arrived later
    host.goto(host.url + "/history")
    expect(host.locator("ol.history li", has_text="Alice level")).to_have_count(1)  # one change, applied once
    expected = ("Failed to load resource: net::ERR_", "[object Event]", "htmx:sendError", "htmx:afterRequest")
    assert [e for e in errors if not any(words in e for words in expected)] == []


def test_what_a_player_is_typing_survives_another_players_change(browser, server):
    """Alice fills in a room to explore (five fields, the focus in the last one) and ticks
    nothing else; Bob's die roll reaches her phone meanwhile: every entry stays, and sending
    the form then explores the room she typed. The board's morph used to keep the focused
    field only."""
    errors: list[str] = []
    alice = phone(browser, errors)
    open_quest_table(alice, server.url)
    bob = join_in_browser(browser, errors, alice, "Bob")
    alice.locator('.player[data-name="Bob"]').wait_for()
    alice.locator("#turn button[data-action='quest.draw']").click()
    expect(alice.locator("#board .notice.done")).to_be_visible()
    form = alice.locator("#menu-explore form")
    entries = {"name": "Crypt", "monster_name": "Orc", "monster_level": "3", "monster_bonus": "1"}
    for field, value in entries.items():
        form.locator(f"input[name={field}]").fill(value)
    version = int(alice.locator("#board .board").get_attribute("data-version"))
    bob.locator("button[data-action='dice.roll']").first.click()  # another player's change
    expect(alice.locator("#board .board")).to_have_attribute("data-version", str(version + 1), timeout=10_000)
    for field, value in entries.items():
        expect(form.locator(f"input[name={field}]")).to_have_value(value)
    form.locator("button[data-action='quest.explore']").click()
    expect(alice.locator("#fight")).to_be_visible()
    expect(alice.locator('#fight [data-monster="Orc"]')).to_be_visible()
    expect(alice.locator("#my-room")).to_have_text("Crypt")
    assert errors == []



def test_an_entry_sent_is_emptied_by_its_answer_and_kept_until_then(browser, server):
    """Alice types an amount of gold and sends it with her keyboard's Go (the field keeps the
    focus): done, the field is empty for the next amount — it used to keep the amount just
    sent, inviting a second tap. Sent again while Bob's die roll reaches her phone before her
    answer does: the amount stays until the answer, which empties it. A refused amount stays
    as typed, to be corrected."""
    errors: list[str] = []
    alice = phone(browser, errors, service_workers="block")  # (a route sees no worker's requests)
    open_quest_table(alice, server.url)
    bob = join_in_browser(browser, errors, alice, "Bob")
    alice.locator('.player[data-name="Bob"]').wait_for()
    field = alice.locator("form:has(button[data-action='quest.gold']) input[name=change]")
    gold = int(alice.locator("#my-gold").text_content())
    field.fill("3")
    field.press("Enter")
    expect(alice.locator("#my-gold")).to_have_text(str(gold + 3))
    expect(field).to_have_value("")

    held = []  # Alice's next tap is held on its way until Bob's change has reached her phone
    alice.route(re.compile(r".*/act/quest\.gold$"), lambda route: held.append(route))
    field.fill("4")
    field.press("Enter")
    for _ in range(100):
        if held:
            break
        alice.wait_for_timeout(50)  # the route's handler runs while Playwright waits
    assert len(held) == 1
    version = int(alice.locator("#board .board").get_attribute("data-version"))
    bob.locator("button[data-action='dice.roll']").first.click()
    expect(alice.locator("#board .board")).to_have_attribute("data-version", str(version + 1), timeout=10_000)
    expect(field).to_have_value("4")  # still on its way: what she typed stays
    held[0].continue_()
    alice.unroute(re.compile(r".*/act/quest\.gold$"))
    expect(alice.locator("#my-gold")).to_have_text(str(gold + 7))
    expect(field).to_have_value("")

    field.fill(f"-{gold + 100}")  # more than she has: refused
    field.press("Enter")
    expect(alice.locator("#board .notice.refused")).to_be_visible()
    expect(alice.locator("#my-gold")).to_have_text(str(gold + 7))
    expect(field).to_have_value(f"-{gold + 100}")
    assert [e for e in errors if "409" not in e] == []
