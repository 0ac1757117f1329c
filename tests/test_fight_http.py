"""The table's fight through the pages and the JSON API."""
import re


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def act(client, table_id, token, **body):
    return client.post(f"/api/v1/tables/{table_id}/actions", json=body, headers=auth(token))


def state(client, table_id, token):
    return client.get(f"/api/v1/tables/{table_id}", headers=auth(token)).json["table"]


def test_fight_through_the_api_with_cards_and_the_real_die(api):
    client, table_id, tokens, _ = api
    hana, ivo, jana = tokens["Hana"], tokens["Ivo"], tokens["Jana"]
    assert act(client, table_id, hana, action="combat.start").status_code == 200
    assert act(client, table_id, hana, action="combat.monster.add", card="bigfoot").status_code == 200
    fight = state(client, table_id, hana)["combat"]
    bigfoot = fight["monsters"][0]
    assert (bigfoot["name"], bigfoot["level"], bigfoot["treasures"]) == ("Bigfoot", 12, 3)
    wrong = act(client, table_id, jana, action="combat.enhancer.add", monster=bigfoot["uid"], card="net-troll")
    assert wrong.status_code == 400 and wrong.json["error"].endswith("not Monster enhancer.")
    assert act(client, table_id, jana, action="combat.enhancer.add", monster=bigfoot["uid"], card="baby").status_code == 200
    assert act(client, table_id, ivo, action="combat.oneshot.add", side="players", card="magic-missile").status_code == 200
    early = act(client, table_id, hana, action="combat.resolve")
    assert early.status_code == 409 and early.json["rule"] == "combat.objection"
    bad_die = act(client, table_id, hana, action="combat.flee", fighter_rolls=["7"])
    assert bad_die.status_code == 400 and "1 to 6" in bad_die.json["error"] and "fighter" not in bad_die.json["error"]
    assert act(client, table_id, hana, action="combat.flee", fighter_rolls=["5x"]).status_code == 400
    fled = act(client, table_id, hana, action="combat.flee", fighter_rolls=["4"])
    assert fled.status_code == 200
    assert "caught by Bigfoot (4): Bad Stuff — He steps on your head" in fled.json["event"]["text"]
    assert state(client, table_id, hana)["combat"] is None
    undone = client.post(f"/api/v1/tables/{table_id}/history/{fled.json['event']['seq']}/undo", headers=auth(hana))
    assert undone.status_code == 200 and state(client, table_id, hana)["combat"]["monsters"]


def test_only_one_helper_and_the_promise(api):
    client, table_id, tokens, _ = api
    act(client, table_id, tokens["Hana"], action="combat.start")
    seats = {p["name"]: p["seat"] for p in state(client, table_id, tokens["Hana"])["players"]}
    asked = act(client, table_id, tokens["Hana"], action="combat.help.ask", seat=seats["Ivo"], promise="2 treasures")
    assert "asks Ivo for help for 2 treasures" in asked.json["event"]["text"]
    assert act(client, table_id, tokens["Jana"], action="combat.help.accept").status_code == 403
    assert act(client, table_id, tokens["Ivo"], action="combat.help.accept").status_code == 200
    again = act(client, table_id, tokens["Hana"], action="combat.help.ask", seat=seats["Jana"])
    assert again.status_code == 409 and again.json["rule"] == "combat.one-helper"


def test_fight_on_the_pages(phones):
    alice, bob, cleo = phones
    alice.act("combat.start")
    html = alice.act("combat.monster.add", name="Jelly", level=3, treasures=2, against="sex:female",
                     against_bonus=2).get_data(as_text=True)
    assert re.search(r'id="monsters-total">5<', html) and re.search(r'id="players-total">1<', html)
    assert "losing by 4" in html and "Munchkin 1.6 (2011), Combat" in html
    watcher = cleo.get(f"/t/{cleo.table_id}").get_data(as_text=True)
    assert "Alice is fighting" in watcher and 'data-action="combat.claim"' not in watcher
    pick = cleo.get(f"/t/{cleo.table_id}/pick?q=wutend", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'aria-label="Play Enraged on Jelly"' in pick
    settings = alice.post(f"/t/{alice.table_id}/act/settings.objection", {"seconds": "5"})
    assert settings.status_code == 303
    assert bob.post(f"/t/{bob.table_id}/act/settings.objection", {"seconds": "5"}, htmx=True).status_code == 403


def test_card_page_one_tap_into_the_fight(phones):
    alice, bob, _ = phones
    assert "data-use" not in bob.get("/cards/net-troll").get_data(as_text=True)  # no fight on
    alice.act("combat.start")
    html = bob.get("/cards/net-troll").get_data(as_text=True)
    assert "Into the fight" in html
    assert bob.post(f"/t/{bob.table_id}/act/combat.monster.add", {"card": "net-troll"}).status_code == 303
    html = bob.get("/cards/enraged").get_data(as_text=True)
    assert "On Net Troll" in html
    monster = re.search(r'name="monster" value="([^"]+)"', html).group(1)
    assert bob.post(f"/t/{bob.table_id}/act/combat.enhancer.add", {"card": "enraged", "monster": monster}).status_code == 303
    assert re.search(r'id="monsters-total">15<', alice.get(f"/t/{alice.table_id}").get_data(as_text=True))
    assert "For the players" in bob.get("/cards/magic-missile").get_data(as_text=True)


def test_the_hosts_objection_window_is_the_one_every_phone_counts_down(phones):
    """One value everywhere: a host's 10 s window is counted down from 10 on the phones, not 2.6."""
    alice, bob, _ = phones
    german = bob.get(f"/t/{bob.table_id}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "nach 2,6 Sekunden ohne Einspruch" in german  # the book's window, shown on every phone
    alice.post(f"/t/{alice.table_id}/act/settings.objection", {"seconds": "10"})
    shown = bob.get(f"/t/{bob.table_id}").get_data(as_text=True)
    assert "taken after 10 seconds without objection. (the host's setting)" in shown
    alice.act("combat.start", name="Slug", level=0)
    assert alice.act("combat.claim").status_code == 200
    remaining = float(re.search(r'data-remaining="([0-9.]+)"', bob.get(f"/t/{bob.table_id}").get_data(as_text=True)).group(1))
    assert 5 < remaining <= 10


def test_quick_one_shot_bonuses_are_one_tap_for_either_side(phones):
    """+1, +2, +3, +5, +10 for the players or the monsters: one tap posts a one-shot named by its bonus (#17)."""
    alice, bob, _ = phones
    html = alice.act("combat.start", name="Slug", level=4).get_data(as_text=True)
    quick = html.split('id="quick-bonus"')[1].split("</div>\n  </div>")[0]
    assert re.findall(r'aria-label="(\+\d+ for the \w+)"', quick) == [
        f"+{n} for the {side}" for side in ("players", "monsters") for n in (1, 2, 3, 5, 10)]
    html = bob.act("combat.oneshot.add", side="monsters", name="+5", bonus="5").get_data(as_text=True)
    assert re.search(r'id="monsters-total">9<', html) and "+5 (monsters)" in html
    html = alice.act("combat.oneshot.add", side="players", name="+10", bonus="10").get_data(as_text=True)
    assert re.search(r'id="players-total">11<', html)


def seats_of(client, table_id, token):
    return {p["name"]: p["seat"] for p in state(client, table_id, token)["players"]}


def test_cards_that_change_a_fight_through_the_api(api):
    """Crabs (no escape roll), Gazebo (no help), Yuppie Water (only for an Elf), Mr. Bones (a level even on
    an escape): refused with 409 and nothing recorded, or refereed from the card data."""
    client, table_id, tokens, _ = api
    hana, ivo = tokens["Hana"], tokens["Ivo"]
    seats = seats_of(client, table_id, hana)
    assert act(client, table_id, hana, action="combat.start", card="gazebo").status_code == 200
    version = state(client, table_id, hana)["version"]
    asked = act(client, table_id, hana, action="combat.help.ask", seat=seats["Ivo"])
    assert asked.status_code == 409 and asked.json["rule"] == "cards.override" and "Gazebo" in asked.json["error"]
    water = act(client, table_id, ivo, action="card.play", card="yuppie-water", side="players")
    assert water.status_code == 409 and water.json["rule"] == "items.restricted"
    assert state(client, table_id, hana)["version"] == version  # nothing recorded
    assert act(client, table_id, hana, action="combat.monster.add", card="crabs").status_code == 200
    fled = act(client, table_id, hana, action="combat.flee", fighter_rolls=["6"])  # the one die is Gazebo's
    assert fled.status_code == 200
    assert "escapes Gazebo (6)" in fled.json["event"]["text"] and "cannot run away from Crabs" in fled.json["event"]["text"]
    act(client, table_id, hana, action="turn.end")
    act(client, table_id, ivo, action="combat.start", card="mr-bones")
    act(client, table_id, hana, action="combat.oneshot.add", side="monsters", one_shot={"name": "Potion", "bonus": 9})
    for _ in range(2):
        act(client, table_id, hana, action="card.play", card="boil-an-anthill", seat=seats["Ivo"])
    fled = act(client, table_id, ivo, action="combat.flee", fighter_rolls=["5"])
    assert "escapes Mr. Bones (5) but loses a level" in fled.json["event"]["text"]
    assert next(p for p in fled.json["table"]["players"] if p["name"] == "Ivo")["level"] == 2


def test_one_shots_out_of_a_fight_through_the_api(api):
    """Wishing Ring (a chosen curse), Steal a Level, Whine at the GM, Hoard!: in or out of a fight, refused
    clearly with nothing recorded, undone whole."""
    client, table_id, tokens, _ = api
    hana, ivo, jana = tokens["Hana"], tokens["Ivo"], tokens["Jana"]
    seats = seats_of(client, table_id, hana)
    act(client, table_id, ivo, action="card.play", card="chicken-on-your-head", seat=seats["Jana"])
    curse = next(p for p in state(client, table_id, hana)["players"] if p["name"] == "Jana")["curses"][0]
    version = state(client, table_id, hana)["version"]
    for body, status in (({"seat": seats["Jana"], "uid": "nope"}, 404), ({"seat": seats["Ivo"]}, 409),
                         ({"seat": seats["Jana"], "uid": 7}, 400)):
        assert act(client, table_id, hana, action="card.play", card="wishing-ring", **body).status_code == status
    assert act(client, table_id, hana, action="card.play", card="steal-a-level", seat=seats["Ivo"]).json["rule"] == "level.floor"
    whine = act(client, table_id, hana, action="card.play", card="whine-at-the-gm", seat=seats["Ivo"])
    assert whine.status_code == 409 and whine.json["rule"] == "cards.override"
    assert state(client, table_id, hana)["version"] == version  # every refusal left the table as it was
    ring = act(client, table_id, hana, action="card.play", card="wishing-ring", seat=seats["Jana"], uid=curse["uid"])
    assert ring.status_code == 200 and "Chicken on Your Head on Jana is cancelled" in ring.json["event"]["text"]
    undone = client.post(f"/api/v1/tables/{table_id}/history/{ring.json['event']['seq']}/undo", headers=auth(hana))
    assert undone.status_code == 200
    assert next(p for p in undone.json["table"]["players"] if p["name"] == "Jana")["curses"] == [curse]
    act(client, table_id, jana, action="card.play", card="boil-an-anthill", seat=seats["Ivo"])
    stolen = act(client, table_id, jana, action="card.play", card="steal-a-level", seat=seats["Ivo"])
    levels = {p["name"]: p["level"] for p in stolen.json["table"]["players"]}
    assert (levels["Jana"], levels["Ivo"]) == (2, 1)
    hoard = act(client, table_id, ivo, action="card.play", card="hoard")
    assert hoard.status_code == 200 and "draw 3 Treasures at the table" in hoard.json["event"]["text"]


def test_the_wishing_ring_card_page_lists_every_curse_to_cancel(phones):
    """The card page offers the Wishing Ring on each curse of each player, out of a fight; the table's
    card search offers Steal a Level from each other player."""
    alice, bob, cleo = phones
    assert "data-use" not in bob.get("/cards/wishing-ring").get_data(as_text=True)  # nobody is cursed
    cleo.act("curse.add", card="chicken-on-your-head")
    html = bob.get("/cards/wishing-ring").get_data(as_text=True)
    assert "Chicken on Your Head on Cleo" in html
    uid = re.search(r'name="uid" value="([^"]+)"', html).group(1)
    seat = re.search(r'name="seat" value="([^"]+)"', html).group(1)
    assert bob.post(f"/t/{bob.table_id}/act/card.play", {"card": "wishing-ring", "seat": seat, "uid": uid}).status_code == 303
    assert "data-use" not in bob.get("/cards/wishing-ring").get_data(as_text=True)  # the curse is gone
    assert "is cancelled" in alice.get(f"/t/{alice.table_id}").get_data(as_text=True)
    pick = bob.get(f"/t/{bob.table_id}/pick?q=steal", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'aria-label="Play Steal a Level: take a level from Alice"' in pick


def test_the_fight_page_says_which_monster_takes_no_die_and_allows_no_help(phones):
    alice, _, _ = phones
    html = alice.act("combat.start", card="crabs").get_data(as_text=True)
    assert "No die for Crabs: it cannot be run away from" in html and "Ask for help" in html
    assert "Run away (roll the app" in html and 'id="menu-flee"' not in html  # no die to type in for Crabs alone
    html = alice.act("combat.monster.add", card="gazebo").get_data(as_text=True)
    assert "Nobody can help against Gazebo." in html and "Ask for help" not in html


def test_card_limits_hold_through_every_action_that_names_the_card(api):
    """A Go Up a Level card named in level.up keeps its card's limits (Whine at the GM: not for
    the tied), an unknown one is a 404; a curse played by its card shows its words; a one-shot for
    its players' side only is refused for the monsters — each refusal records nothing."""
    client, table_id, tokens, _ = api
    hana, ivo = tokens["Hana"], tokens["Ivo"]
    seats = seats_of(client, table_id, hana)
    version = state(client, table_id, hana)["version"]
    whine = act(client, table_id, ivo, action="level.up", seat=seats["Hana"], card="whine-at-the-gm")
    assert whine.status_code == 409 and whine.json["rule"] == "cards.override"
    unknown = act(client, table_id, ivo, action="level.up", seat=seats["Hana"], card="no-such-card")
    assert unknown.status_code == 404 and "no-such-card" in unknown.json["error"]
    assert state(client, table_id, hana)["version"] == version
    cursed = act(client, table_id, ivo, action="card.play", card="income-tax", seat=seats["Hana"])
    assert cursed.status_code == 200 and "Discard an item of your choice" in cursed.json["event"]["text"]
    assert act(client, table_id, hana, action="combat.start", card="potted-plant").status_code == 200
    balloons = act(client, table_id, ivo, action="combat.oneshot.add", side="monsters", card="pretty-balloons")
    assert balloons.status_code == 409 and balloons.json["rule"] == "combat.one-shots"


def test_why_these_numbers_names_the_cards_and_words_in_the_phones_language(phones):
    """The breakdown was English on every phone ("Alice: Level", "Gelatinous Octahedron: Enraged",
    "Played: Magic Missile") while the monster's line above it was in the phone's words (2026-11-30)."""
    alice, _, _ = phones
    html = alice.act("combat.start", card="gelatinous-octahedron").get_data(as_text=True)
    monster = re.search(r'data-monster-uid="([^"]+)"', html) or re.search(r'name="monster" value="([^"]+)"', html)
    alice.act("combat.enhancer.add", card="enraged", monster=monster.group(1))
    alice.act("combat.oneshot.add", card="magic-missile", side="players")
    page = alice.get(f"/t/{alice.table_id}", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    breakdown = page[page.index('id="menu-breakdown"'):page.index("</details>", page.index('id="menu-breakdown"'))]
    assert "Alice: Уровень" in breakdown and ": Псих" in breakdown and "Ракета Магического Назначения" in breakdown
    assert "Enraged" not in breakdown and "Magic Missile" not in breakdown


def test_a_monster_gone_without_a_kill_is_told_in_the_phones_language(phones):
    """"eliminated (no level, treasure kept)" stood in English in every phone's breakdown."""
    alice, _, _ = phones
    html = alice.act("combat.start", card="gelatinous-octahedron").get_data(as_text=True)
    monster = re.search(r'name="monster" value="([^"]+)"', html).group(1)
    assert alice.act("combat.eliminate", monster=monster).status_code == 200
    page = alice.get(f"/t/{alice.table_id}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    breakdown = page[page.index('id="menu-breakdown"'):page.index("</details>", page.index('id="menu-breakdown"'))]
    assert ": beseitigt (keine Stufe, der Schatz bleibt)" in breakdown and "eliminated (" not in breakdown


def test_a_monsters_bonus_and_the_class_powers_are_told_in_the_phones_language(phones):
    """"Drooling Slime: against Elves" and "Alice: Berserking (2 cards)" stood in English in a
    German phone's breakdown: only card names and single game words were translated (2026-12-01)."""
    alice, _, _ = phones
    alice.act("race.add", race="elf")
    alice.act("class.add", **{"class": "warrior"})
    assert alice.act("combat.start", card="drooling-slime").status_code == 200
    assert alice.act("combat.power", power="berserk", cards=2).status_code == 200
    page = alice.get(f"/t/{alice.table_id}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    breakdown = page[page.index('id="menu-breakdown"'):page.index("</details>", page.index('id="menu-breakdown"'))]
    said = re.sub(r'<a class="cite".*?</a>', "", breakdown)  # (a citation names the book's section as it is)
    assert "against" not in said and "Berserking" not in said and "cards" not in said, said
    assert "Sabbernder Schleim: gegen Elfen" in said and "Alice: Berserker (abgelegte Karten: 2)" in said, said
    english = alice.get(f"/t/{alice.table_id}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Drooling Slime: against Elves" in english and "Alice: Berserking (cards discarded: 2)" in english


def test_the_objection_countdown_is_written_the_phones_way(phones):
    """"2.3 s" on an Italian phone: the countdown is in the phone's decimal form (the script that
    counts it down writes it the same way, Intl.NumberFormat); the figure it reads stays 2.3."""
    alice, _, _ = phones
    assert alice.act("combat.start", card="potted-plant").status_code == 200
    assert alice.act("combat.oneshot.add", side="players", name="Potion", bonus=5).status_code == 200
    assert alice.act("combat.claim").status_code == 200
    page = alice.get(f"/t/{alice.table_id}", headers={"Accept-Language": "it"}).get_data(as_text=True)
    shown = re.search(r'class="countdown" data-remaining="(\d+\.\d)">([^<]+)</b>', page)
    assert shown and shown.group(2) == shown.group(1).replace(".", ",")


def test_a_cleric_fighter_sees_the_wannabe_vampires_treasure_instead_and_takes_it(phones):
    """Wannabe Vampire card (treasure_instead, optional): the menu offers it to a Cleric only."""
    alice, _, _ = phones
    html = alice.act("combat.start", card="wannabe-vampire").get_data(as_text=True)
    assert "Send it off as its card allows" not in html
    alice.act("class.add", **{"class": "cleric"})
    html = alice.get(f"/t/{alice.table_id}").get_data(as_text=True)
    assert "Send it off as its card allows" in html
    monster = re.search(r'name="monster" value="([^"]+)"', html).group(1)
    html = alice.act("combat.eliminate", monster=monster, instead="true").get_data(as_text=True)
    assert "gone without a kill" in html


def test_a_pole_given_to_the_pit_bull_through_the_api(api):
    """combat.flee with fighter_gives (escape_with_item): the pole goes, no die for the Pit Bull."""
    client, table_id, tokens, _ = api
    hana = tokens["Hana"]
    assert act(client, table_id, hana, action="item.add", card="eleven-foot-pole").status_code == 200
    me = next(p for p in state(client, table_id, hana)["players"] if p["name"] == "Hana")
    pole = me["items"][0]["uid"]
    act(client, table_id, hana, action="combat.start", card="pit-bull")
    act(client, table_id, hana, action="combat.oneshot.add", side="monsters", one_shot={"name": "Potion", "bonus": 9})
    dog = state(client, table_id, hana)["combat"]["monsters"][0]["uid"]
    fled = act(client, table_id, hana, action="combat.flee", fighter_rolls=["1"], fighter_gives=[f"{dog}:{pole}"])
    assert fled.status_code == 200, fled.json
    assert "gives up Eleven-Foot Pole" in fled.json["event"]["text"]
    assert next(p for p in fled.json["table"]["players"] if p["name"] == "Hana")["items"] == []


def test_the_fight_page_offers_the_pit_bull_a_pole_and_not_a_helmet(phones):
    """escape_with_item on the phone: a button per fitting item of the fighter, posting fighter_gives."""
    alice, bob, _ = phones
    alice.act("item.add", card="eleven-foot-pole")
    alice.act("item.add", card="helm-of-courage")
    alice.act("combat.start", card="pit-bull")
    html = bob.act("combat.oneshot.add", side="monsters", name="Potion", bonus=5).get_data(as_text=True)
    assert "Give up" not in html  # only the fighter's phone offers it
    html = alice.get(f"/t/{alice.table_id}").get_data(as_text=True)
    assert "Give up Eleven-Foot Pole to Pit Bull" in html and "Give up Helm of Courage" not in html
    gives = re.search(r'name="fighter_gives" value="([^"]+)"', html).group(1)
    alice.act("combat.flee", fighter_gives=gives)
    html = alice.get(f"/t/{alice.table_id}").get_data(as_text=True)
    assert "gives up Eleven-Foot Pole as the card of Pit Bull allows and escapes Pit Bull" in html


# --- running away and who fights: cards that act there (#13, 2026-12-01) -----------------------------

def test_a_second_flight_spell_adds_up_through_the_api(api):
    """The Wizard card: up to 3 cards in all for Flight; a second spell replaced the first."""
    client, table_id, tokens, _ = api
    hana = tokens["Hana"]
    assert act(client, table_id, hana, action="card.play", card="wizard").status_code == 200
    act(client, table_id, hana, action="combat.start", card="net-troll")
    act(client, table_id, hana, action="combat.power", power="flight", cards=2)
    again = act(client, table_id, hana, action="combat.power", power="flight", cards=1)
    assert again.status_code == 200 and "Flight again (1 more card, 3 in all)" in again.json["event"]["text"]
    assert again.json["table"]["combat"]["powers"]["fighter"]["flight"] == 3
    past = act(client, table_id, hana, action="combat.power", power="flight", cards=1)
    assert past.status_code == 409 and past.json["rule"] == "combat.powers"
    fled = act(client, table_id, hana, action="combat.flee", fighter_rolls=["2"])  # 2 + 3 = 5
    assert "escapes Net Troll (2)" in fled.json["event"]["text"]


def test_an_instant_wall_through_the_api_and_on_the_phone(api, phones):
    client, table_id, tokens, _ = api
    hana, ivo = tokens["Hana"], tokens["Ivo"]
    seats = seats_of(client, table_id, hana)
    act(client, table_id, hana, action="combat.start", card="net-troll")
    act(client, table_id, hana, action="combat.help.ask", seat=seats["Ivo"])
    act(client, table_id, ivo, action="combat.help.accept")
    bad = act(client, table_id, ivo, action="card.play", card="instant-wall", role="nobody")
    assert bad.status_code == 400
    wall = act(client, table_id, ivo, action="card.play", card="instant-wall", role="helper")
    assert wall.status_code == 200 and "Ivo escapes with no die when running away" in wall.json["event"]["text"]
    assert [r["escaped"] for r in wall.json["table"]["verdict"]["run_away"] if r["role"] == "helper"] == [True]
    fled = act(client, table_id, hana, action="combat.flee", fighter_rolls=["1"])  # the helper needs no die
    assert fled.status_code == 200 and "Ivo escapes Net Troll with no die (Instant Wall)" in fled.json["event"]["text"]
    alice, bob, _ = phones
    alice.act("combat.start", name="Troll", level=10, treasures=1)
    for html in (bob.get("/cards/instant-wall").get_data(as_text=True),
                 bob.get(f"/t/{bob.table_id}/pick?q=instant", headers={"HX-Request": "true"}).get_data(as_text=True)):
        assert "Play it" in html and "For the monsters" not in html and "For monsters" not in html


def test_a_transferral_potion_through_the_api_and_on_the_phone(api, phones):
    client, table_id, tokens, _ = api
    hana, ivo, jana = tokens["Hana"], tokens["Ivo"], tokens["Jana"]
    seats = seats_of(client, table_id, hana)
    act(client, table_id, hana, action="combat.start", card="net-troll")
    version = state(client, table_id, hana)["version"]
    wrong = act(client, table_id, ivo, action="card.play", card="transferral-potion", seat=seats["Jana"])
    assert wrong.status_code == 409 and wrong.json["rule"] == "cards.override"
    assert act(client, table_id, hana, action="card.play", card="transferral-potion").status_code == 400
    assert state(client, table_id, hana)["version"] == version
    moved = act(client, table_id, hana, action="card.play", card="transferral-potion", seat=seats["Jana"])
    assert moved.status_code == 200 and "Jana must fight in Hana's place" in moved.json["event"]["text"]
    table = moved.json["table"]
    assert table["combat"]["fighter"] == seats["Jana"] and table["turn"]["seat"] == seats["Hana"]
    fled = act(client, table_id, jana, action="combat.flee", fighter_rolls=["6"])
    assert "Jana escapes Net Troll (6)" in fled.json["event"]["text"]
    alice, bob, _ = phones
    alice.act("combat.start", name="Troll", level=10, treasures=1)
    assert "data-use" not in bob.get("/cards/transferral-potion").get_data(as_text=True)  # not Bob's fight
    for html in (alice.get("/cards/transferral-potion").get_data(as_text=True),
                 alice.get(f"/t/{alice.table_id}/pick?q=transferral", headers={"HX-Request": "true"}).get_data(as_text=True)):
        assert "Bob" in html and "For the monsters" not in html and "For monsters" not in html


def test_an_invisibility_potion_through_the_api_and_on_the_phone(api, phones):
    client, table_id, tokens, _ = api
    hana, ivo = tokens["Hana"], tokens["Ivo"]
    act(client, table_id, hana, action="combat.start", card="bigfoot")
    early = act(client, table_id, hana, action="card.play", card="invisibility-potion")
    assert early.status_code == 409 and early.json["rule"] == "combat.run-away"  # nothing rolled yet
    fled = act(client, table_id, hana, action="combat.flee", fighter_rolls=["1"])
    assert "caught by Bigfoot (1)" in fled.json["event"]["text"]
    other = act(client, table_id, ivo, action="card.play", card="invisibility-potion", role="fighter")
    assert other.status_code == 409 and other.json["rule"] == "combat.run-away"
    potion = act(client, table_id, hana, action="card.play", card="invisibility-potion")
    assert potion.status_code == 200
    assert "Invisibility Potion on the escape roll: Hana escapes Bigfoot anyway (1" in potion.json["event"]["text"]
    again = act(client, table_id, hana, action="card.play", card="invisibility-potion")
    assert again.status_code == 409 and again.json["rule"] == "combat.run-away"
    undo = client.post(f"/api/v1/tables/{table_id}/history/{fled.json['event']['seq']}/undo", headers=auth(hana))
    assert undo.status_code == 409  # the potion changed that escape: it is undone first
    alice, bob, _ = phones
    alice.act("combat.start", name="Troll", level=10, treasures=1)
    alice.act("combat.flee", fighter_rolls="2")
    pick = f"/t/{alice.table_id}/pick?q=invisibility"
    assert "Alice: Troll" in alice.get(pick, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "Alice: Troll" in alice.get("/cards/invisibility-potion").get_data(as_text=True)
    assert "Invisibility" not in bob.get(f"/t/{bob.table_id}/pick?q=invisibility", headers={"HX-Request": "true"}).get_data(as_text=True)


def test_a_loaded_die_on_a_die_the_app_rolled_through_the_api(api, phones):
    client, table_id, tokens, _ = api
    hana, ivo = tokens["Hana"], tokens["Ivo"]
    act(client, table_id, hana, action="combat.start", card="net-troll")
    fled = act(client, table_id, hana, action="combat.flee")  # the app's die
    assert fled.status_code == 200
    other = act(client, table_id, ivo, action="card.play", card="loaded-die", role="fighter", die=1)
    assert other.status_code == 409 and other.json["rule"] == "combat.run-away"  # Hana's die, not Ivo's
    assert act(client, table_id, hana, action="card.play", card="loaded-die", die=9).status_code == 400
    loaded = act(client, table_id, hana, action="card.play", card="loaded-die", die=6)
    assert loaded.status_code == 200
    assert re.search(r"Hana escapes Net Troll \(\d→6\)", loaded.json["event"]["text"])
    alice, bob, _ = phones
    alice.act("combat.start", name="Troll", level=10, treasures=1)
    alice.act("combat.flee", fighter_rolls="2")
    html = alice.get(f"/t/{alice.table_id}/pick?q=loaded", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "Troll: make it a 6" in html
    assert "Troll: make it a 6" not in bob.get("/cards/loaded-die").get_data(as_text=True)


def test_a_flask_of_glue_through_the_api_and_on_the_phone(api, phones):
    client, table_id, tokens, _ = api
    hana, ivo = tokens["Hana"], tokens["Ivo"]
    act(client, table_id, hana, action="combat.start", card="net-troll")
    early = act(client, table_id, ivo, action="card.play", card="flask-of-glue")
    assert early.status_code == 409 and early.json["rule"] == "combat.run-away"  # nobody escaped
    act(client, table_id, hana, action="combat.flee", fighter_rolls=["5"])
    glue = act(client, table_id, ivo, action="card.play", card="flask-of-glue")  # the app rolls again
    assert glue.status_code == 200
    assert re.search(r"Ivo plays Flask of Glue on the escape roll: Hana (escapes|is caught by) Net Troll \(5→\d\)",
                     glue.json["event"]["text"])
    undo = client.post(f"/api/v1/tables/{table_id}/history/{glue.json['event']['seq']}/undo", headers=auth(ivo))
    assert undo.status_code == 403  # the app's die: the host's to take back
    undo = client.post(f"/api/v1/tables/{table_id}/history/{glue.json['event']['seq']}/undo", headers=auth(hana))
    assert undo.status_code == 200
    alice, bob, _ = phones
    alice.act("combat.start", name="Troll", level=10, treasures=1)
    alice.act("combat.flee", fighter_rolls="6")
    html = bob.get(f"/t/{bob.table_id}/pick?q=glue", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "Alice: Troll" in html


def test_the_pick_list_offers_one_shots_that_act_on_a_fight_as_the_card_page_does(phones):
    """Polymorph Potion, Magic Lamp, Friendship Potion and Doppleganger act through card.play (#13), but the
    pick list offered them 'For players' and 'For monsters' like a plain bonus (refused for the monsters)."""
    alice, _, _ = phones
    alice.act("combat.start", name="Troll", level=10, treasures=1)
    for query, button in (("polymorph", "On Troll"), ("friendship", "Play it"), ("doppleganger", "Play it")):
        html = alice.get(f"/t/{alice.table_id}/pick?q={query}", headers={"HX-Request": "true"}).get_data(as_text=True)
        assert button in html and "For monsters" not in html, query
