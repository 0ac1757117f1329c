"""axe-core (vendored in tests/vendor, run offline) on every page a phone can reach, in English
and in German (the longest words), in Debian's Chromium at 390 × 844: no serious or critical
finding (#17); none of impact moderate either.

The pages are reached as a player would reach them: a host opens a table (its invitation up
front), a second phone joins by the invitation's link, the host kicks open the door and fights,
the operator opens the admin link; every <details> menu is opened before the check, so what a
menu hides is checked too. Each page is checked in light and in dark colours in English; in
German in light colours only (what differs is the words and their length; the colours are the
same, and checking them twice took a fifth of the test's time).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from test_browser import PHONE, browser, ready, server  # noqa: F401 (fixtures)
from test_quest_browser import open_quest_table

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AXE = Path(__file__).resolve().parent / "vendor" / "axe-4.11.0.min.js"
OPEN_EVERY_MENU = "() => document.querySelectorAll('details').forEach((d) => { d.open = true; })"
#: axe's findings of impact moderate, serious or critical (stricter than the issue asks: only "minor" may pass),
#: each as "rule (impact): the elements' selectors — the summary".
RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"],
    rules: {"label-content-name-mismatch": {enabled: true}}});  // experimental in axe: the visible words must be in the name
  return result.violations.filter((v) => v.impact !== "minor").map((v) =>
    `${v.id} (${v.impact}): ` + v.nodes.slice(0, 4).map((n) => n.target.join(" ") + " — " + n.failureSummary.replace(/\\s+/g, " ")).join(" | "));
}"""

LOCALES = {"en": "en-GB", "de": "de-DE"}
SCHEMES = {"en": ("light", "dark"), "de": ("light",)}


class Audit:
    """Runs axe on pages and collects what it finds, by page, language and colours."""

    def __init__(self, lang: str):
        self.lang = lang
        self.found: dict[str, list[str]] = {}
        self.pages: list[str] = []

    def check(self, page, name: str, menus: bool = True) -> None:
        page.wait_for_load_state()
        assert page.evaluate("document.documentElement.lang") == self.lang, (name, page.url)
        if menus:
            page.evaluate(OPEN_EVERY_MENU)
        for scheme in SCHEMES[self.lang]:
            page.emulate_media(color_scheme=scheme)
            if not page.evaluate("typeof axe !== 'undefined'"):
                page.add_script_tag(path=str(AXE))
            found = page.evaluate(RUN_AXE)
            if found:
                self.found[f"{name} ({self.lang}, {scheme})"] = found
        page.emulate_media(color_scheme="light")
        self.pages.append(name)


def phone(browser, lang: str, errors: list[str]):
    # bypass_csp: axe is added as a script the app's Content-Security-Policy would refuse
    page = browser.new_context(**PHONE, locale=LOCALES[lang], bypass_csp=True).new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page


@pytest.mark.parametrize("lang", ["en", "de"])
def test_axe_finds_nothing_serious_on_any_page(browser, server, lang):
    errors: list[str] = []
    audit = Audit(lang)
    url = server.url

    host = phone(browser, lang, errors)
    host.goto(url + "/")
    audit.check(host, "home")
    host.fill("input[name=player_name]", "Alice")
    host.check("input[name=sex][value=female]")
    host.click("button.primary")
    ready(host)
    table = host.url
    table_id = table.rstrip("/").rsplit("/", 1)[-1]
    audit.check(host, "table page, host, seats empty")
    join = host.locator("#join-url").get_attribute("href")
    spectator = host.locator("#spectator-url").get_attribute("href")

    bob = phone(browser, lang, errors)
    bob.goto(join)
    audit.check(bob, "join page")
    bob.fill("input[name=name]", "Bob")
    bob.check("input[name=sex][value=male]")
    bob.click("button.primary")
    ready(bob)
    audit.check(bob, "table page, player")
    bob.goto(url + "/")
    audit.check(bob, "home with the phone's tables")

    host.goto(table)
    host.locator('.player[data-name="Bob"]').wait_for()
    host.click("#me button[data-action='level.down']")  # a refusal: Level 1 is the lowest
    host.locator("#board .notice.refused").wait_for()
    audit.check(host, "table page, host, a refusal with Allow it")
    host.click("#me button[data-action='level.up']")
    host.locator("#board .notice.done").wait_for()
    audit.check(host, "table page, host, a change with Undo")

    host.locator("#turn button[data-action='turn.door']").first.click()  # the door: a monster
    host.fill("#add-to-sheet input[name=q]", "maul rat")
    host.locator("#pick-results li[data-card=maul-rat] button[data-action='card.play']").click()
    host.locator("#monsters-total").wait_for()
    host.click("#fight button[data-action='combat.oneshot.add']")  # +1 for the players
    expect(host.locator("#fight")).to_contain_text("+1")
    audit.check(host, "fight screen, fighter")
    bob.goto(table)
    bob.locator("#monsters-total").wait_for()
    audit.check(bob, "fight screen, player")
    host.fill("#add-to-sheet input[name=q]", "boots")
    host.locator("#pick-results li").first.wait_for()
    audit.check(host, "card results while typing")

    for path, name in ((f"/t/{table_id}/pick?q=boots", "card to play, without JavaScript"),
                       (f"/t/{table_id}/history", "history"),
                       (f"/t/{table_id}/scan", "scan page"),
                       ("/rules", "rules"), ("/rules?q=sell+items+level", "rules search"),
                       ("/rules/level.win-by-kill", "a rule"),
                       ("/cards", "cards"), ("/cards?q=boots+butt", "card search"),
                       ("/cards/boots-of-butt-kicking", "a card"), ("/cards/enraged", "an enhancer card"),
                       ("/admin", "admin, not the operator"), ("/cards/import", "card import, not the operator"),
                       ("/offline", "offline page"),
                       ("/t/no-such-table", "404 page"), ("/rules/no-such-rule", "404 page of the rules")):
        if name:
            host.goto(url + path)
            audit.check(host, name)

    host.goto(url + "/admin/" + (server.data_dir / "admin_secret").read_text().strip())
    expect(host).to_have_url(url + "/admin")
    audit.check(host, "admin")
    host.goto(url + "/cards/import")
    audit.check(host, "card import")
    host.goto(url + "/cards/boots-of-butt-kicking")
    audit.check(host, "a card, the operator (teach the scanner)")

    watcher = phone(browser, lang, errors)
    watcher.goto(spectator)
    watcher.locator("#monsters-total").wait_for()
    audit.check(watcher, "spectator")
    watcher.goto(table)
    audit.check(watcher, "403 page (no seat)")

    host.goto(table)
    host.locator('.player[data-name="Bob"]').wait_for()
    host.evaluate(OPEN_EVERY_MENU)
    host.click('#host-tools-' + host.locator('.player[data-name="Bob"]').get_attribute("data-seat")
               + " button[data-action='player.remove']")
    expect(host.locator('.player[data-name="Bob"]')).to_have_count(0)
    bob.locator("#removed").wait_for()  # Bob's phone goes there by itself (the live stream told it)
    audit.check(bob, "removed from the table")

    # Munchkin Quest: its sheet, map and turn, then its fight (#15)
    open_quest_table(host, url)
    audit.check(host, "Munchkin Quest table page")
    host.locator("#turn button[data-action='quest.draw']").click()
    # the answer to the draw is in (its toast) before the form is filled: it would morph the form anew
    expect(host.locator("#board .notice.done")).to_be_visible()
    expect(host.locator("#my-dxm")).to_have_text("4")
    explore = host.locator("#menu-explore form")
    explore.locator("input[name=name]").fill("Crypt")
    explore.locator("input[name=monster_name]").fill("Orc")
    explore.locator("input[name=monster_level]").fill("3")
    explore.locator("button[data-action='quest.explore']").click()
    host.locator("#fight-dice").wait_for()
    audit.check(host, "Munchkin Quest fight")

    assert audit.found == {}, json.dumps(audit.found, indent=1, ensure_ascii=False)
    assert len(audit.pages) >= 27
    assert errors == []
