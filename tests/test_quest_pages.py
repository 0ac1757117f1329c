"""Munchkin Quest on the phone pages (htmx partials and plain forms), through the Flask app.

The same actions as the API, posted as the Quest sheet's, turn's and fight's forms do:
the board shows health, tokens, gold, cards, the room, the gear and the map, and the
fight's totals with ties going to the monsters.
"""
import re

from tests.conftest import Phone


def quest_table(app):
    alice, bob = Phone(app), Phone(app)
    response = alice.post("/tables", {"name": "Dungeon", "player_name": "Alice", "sex": "female",
                                      "profile": "munchkin-quest"})
    assert response.status_code == 303, response.get_data(as_text=True)
    alice.table_id = response.headers["Location"].rsplit("/", 1)[-1]
    bob.table_id = alice.table_id
    bob.join(alice.join_url(), "Bob")
    return alice, bob


def text(response):
    return response.get_data(as_text=True)


def test_the_quest_sheet_and_map_on_the_phone(app):
    alice, bob = quest_table(app)
    page = text(alice.get(f"/t/{alice.table_id}"))
    assert 'id="my-health">4<' in page and 'id="my-tokens">3<' in page and 'id="my-gold">300<' in page
    assert 'id="my-room">Entrance<' in page and 'id="my-backpack"' in page and 'id="map"' in page
    assert 'data-action="quest.draw"' in page and 'data-action="turn.door"' not in page


def test_each_line_of_the_quest_sheet_leads_to_its_rule(app):
    """A player unsure what a number means (why the backpack holds two, what tokens pay for)
    taps its name: each line of the sheet links to the rule entry behind it, cited, in the
    phone's language; and the entry is there."""
    alice, _ = quest_table(app)
    page = text(alice.get(f"/t/{alice.table_id}", headers={"Accept-Language": "de"}))
    links = dict(re.findall(r'<a class="rule-link" href="/rules/([\w.-]+)\?profile=munchkin-quest" title="[^"]+">([^<]+)</a>', page))
    assert set(links) == {"quest.level-floor", "quest.death", "quest.turn", "quest.level.buy", "quest.charity", "quest.map",
                          "quest.gear.slots", "quest.gear", "quest.backpack"}, links
    assert links["quest.death"] == "Gesundheit" and links["quest.backpack"] == "Rucksack"
    for rule_id in links:
        assert alice.get(f"/rules/{rule_id}?profile=munchkin-quest").status_code == 200
    board = text(alice.act("quest.item.add", name="Ladder", slot="other", bonus=1, big="true", place="backpack"))
    assert re.search(r'<a class="rule-link" href="/rules/quest.big\?profile=munchkin-quest" title="[^"]+">Big</a>', board)
    assert alice.act("quest.draw").status_code == 200
    board = text(alice.act("quest.explore", name="Crypt", monster_name="Ghoul", monster_level=3, monster_dice=1,
                           monster_dreadful="true"))
    assert re.search(r'<a class="rule-link" href="/rules/quest.dreadful\?profile=munchkin-quest" title="[^"]+">dreadful</a>',
                     board)


def test_a_quest_fight_lost_on_a_tie_through_the_forms(app):
    alice, bob = quest_table(app)
    assert alice.act("quest.draw").status_code == 200
    board = text(alice.act("quest.explore", name="Crypt", monster_name="Orc", monster_level=3, monster_bonus=1,
                           monster_dice=1, monster_bad_health=1))
    assert 'id="fight"' in board and "Orc" in board and 'id="dice-needed"' in board
    board = text(alice.act("quest.fight.dice", fighter_die=4, monster_dice=1))
    assert re.search(r'id="players-total">5<', board) and re.search(r'id="monsters-total">5<', board)
    assert "a tie: the monsters win ties" in board
    board = text(alice.act("quest.fight.resolve"))
    assert 'id="my-health">3<' in board and 'id="flee"' in board
    board = text(alice.act("quest.fight.flee", fighter_rolls=2, room="entrance"))
    assert 'id="my-health">2<' in board and 'id="my-room">Entrance<' in board and 'id="fight"' not in board


def test_a_refused_quest_action_names_its_rule_on_the_phone(app):
    alice, bob = quest_table(app)
    response = alice.act("quest.heal")
    assert response.status_code == 409 and "Munchkin Quest (seed summary)" in text(response)


def test_the_entrance_is_named_in_the_phones_language(app):
    alice, bob = quest_table(app)
    page = text(alice.get(f"/t/{alice.table_id}", headers={"Accept-Language": "de"}))
    assert 'id="my-room">Eingang<' in page


def test_a_spectator_sees_the_quest_board(app):
    alice, bob = quest_table(app)
    alice.act("quest.draw")
    alice.act("quest.explore", name="Crypt", monster_name="Orc", monster_level=3, monster_dreadful="true")
    page = text(alice.get(f"/t/{alice.table_id}"))
    path = re.search(r'id="spectator-url"[^>]*>([^<]+)<', page).group(1).replace("http://localhost", "")
    watched = text(app.test_client().get(path))
    assert 'id="fight"' in watched and "Orc" in watched and 'id="map"' in watched and 'id="me"' not in watched
    assert 'href="/rules/quest.dreadful?profile=munchkin-quest"' in watched  # the monster's mark, linked there too


def test_the_map_records_a_passage_and_a_monster_from_the_phone(app):
    alice, bob = quest_table(app)
    alice.act("quest.draw")
    alice.act("quest.explore", name="Crypt", monster_name="Orc", monster_level=3, cost=0)
    alice.act("combat.end", override="quest.combat")
    alice.act("quest.move", room="entrance")
    board = text(alice.act("quest.explore", name="Hall", monster_name="Rat", monster_level=1, cost=0))
    rooms = re.findall(r'data-room="(r\d+)"', board)
    alice.act("combat.end", override="quest.combat")
    board = text(alice.act("quest.room.join", room=rooms[0], to=rooms[1]))
    assert "Alice records a passage between Crypt and Hall" in board
    board = text(bob.act("quest.monster.place", monster_name="Bat", monster_level=2, room=rooms[0]))
    assert "⚔ Bat (2)" in board


def test_the_monsters_move_offers_the_way_through_the_entrance_and_never_back(app):
    """The monsters' move on the phone: a monster next to the Entrance goes through it to the room beyond
    (never stopping there); a room it has been in this move is not offered again."""
    alice, bob = quest_table(app)
    alice.act("quest.draw")
    alice.act("quest.explore", name="Crypt", monster_name="Orc", monster_level=3, cost=0)
    alice.act("combat.end", override="quest.combat")
    alice.act("quest.move", room="entrance")
    alice.act("quest.explore", name="Hall", monster_name="Rat", monster_level=1, cost=0)
    alice.act("combat.end", override="quest.combat")
    board = text(alice.act("quest.monsters"))
    moves = board[board.index('id="monster-moves"'):]
    moves = moves[:moves.index("</ul>")]
    assert "through the Entrance to Hall" in moves and "through the Entrance to Crypt" in moves
    assert 'value="entrance"' in moves and "→ Entrance" not in moves
    orc = re.search(r'name="monster" value="(m\d+)"><input type="hidden" name="room" value="(r\d+)">'
                    r'<input type="hidden" name="through" value="entrance">', moves)
    board = text(bob.act("quest.monster.move", monster=orc.group(1), room=orc.group(2), through="entrance"))
    assert "Bob moves Orc through the Entrance to Hall" in board
    moves = board[board.index('id="monster-moves"'):]
    moves = moves[:moves.index("</ul>")]
    orc_line = next(line for line in moves.split("<li>") if line.startswith("Orc"))
    assert "through the Entrance" not in orc_line and "→ Crypt" not in orc_line


def test_each_phone_is_given_the_dice_it_rolls(app):
    """Combat, Propriétaires des monstres: the fighter types their own die, the monster's owner its
    dice; the host may enter any (quest_table.rolls_for decides, the form follows it)."""
    alice, bob = quest_table(app)
    page = text(alice.get(f"/t/{alice.table_id}"))
    bob_seat = re.search(r'data-seat="([^"]+)" data-name="Bob"', page).group(1)
    alice.act("quest.draw")
    alice.act("quest.explore", name="Crypt", monster_name="Orc", monster_level=3, monster_owner=bob_seat, cost=0)
    hosts = text(alice.get(f"/t/{alice.table_id}"))
    owners = text(bob.get(f"/t/{bob.table_id}"))
    assert 'name="fighter_die"' in hosts and 'name="monster_dice"' in hosts
    assert 'name="fighter_die"' not in owners and 'name="monster_dice"' in owners
