"""Munchkin Quest's board and turn played as an outside acceptance tester would (#15).

The second pass over the summary (Munchkin Quest, French summary): setting up, the DxM card,
the moves and actions and what they cost, the free actions, Charity, the monsters' move,
when a fight starts, levels and gold, death and the restart, the backpack and Big items.
Each test names the section whose rule it checks; the dice are always given. The whole games
at the end go through the JSON API (Flask test client) with an undo after every step.
"""
import re

import pytest

from companion.referee import history
from companion.referee import table as t
from test_game_flow import act, at_level, refused
from test_quest import explored, new_table, q


# --- Big items (Gestion des cartes: one Big item free, each further one a token) -----------------

def test_two_big_items_in_play_before_the_first_turn_cost_a_token_on_it():
    """The starting Treasure cards may be put into play before the first turn: a second Big item
    costs a move/action token from that very turn, as on every later one (the tokens were counted
    only when a turn passed, so the first player kept all 3)."""
    state = new_table("Ann", "Bob")
    state = act(state, "s0", "quest.item.add", seat="s0", name="Ladder", slot="other", big=True)
    state = act(state, "s0", "quest.item.add", seat="s0", name="Pole", slot="other", big=True, place="backpack")
    state = act(state, "s0", "quest.draw")
    assert q(state, "s0")["tokens"] == 2


def test_a_big_item_received_before_the_draw_counts_on_that_turn():
    """Bob is given a second Big item after his turn came round but before he drew: his turn's tokens
    are counted as it begins with the DxM card."""
    state = act(new_table("Ann", "Bob"), "s1", "quest.item.add", seat="s1", name="Ladder", slot="other", big=True)
    state = act(state, "s0", "quest.item.add", seat="s0", name="Pole", slot="other", big=True)
    state = act(act(act(state, "s0", "quest.draw"), "s0", "quest.monsters"), "s0", "turn.end")
    assert q(state, "s1")["tokens"] == 3
    state = act(state, "s0", "quest.item.give", seat="s0", uid=q(state, "s0")["gear"][0]["uid"], to="s1")
    event = t.decide(state, "s1", "quest.draw", {})
    drawn = t.apply(state, event)
    assert q(drawn, "s1")["tokens"] == 2
    assert t.apply(drawn, t.inverse(drawn, event)).players == state.players


# --- the search (Tour de jeu, Fouille: 1 token and 1d6 on the search table) ----------------------

def test_a_search_die_the_app_rolled_is_taken_back_by_the_host_alone():
    """A search the app rolled the d6 for could be undone by the player and searched again: a second
    roll for the same token. Like a fight's die the app rolled, only the host takes it back; a die the
    player typed in (the real die) may still be undone, a slip of the finger."""
    state = act(new_table("Ann", "Bob"), "s1", "level.up")  # (Ann is the host)
    state = act(act(act(state, "s0", "quest.draw"), "s0", "quest.monsters"), "s0", "turn.end")
    state = act(state, "s1", "quest.draw")
    event = t.decide(state, "s1", "quest.search", {})
    searched = t.apply(state, event)
    with pytest.raises(t.Refused) as refusal:
        t.inverse(searched, event, actor="s1")
    assert refusal.value.rule.id == "quest.search" and refusal.value.status == 403
    assert t.dice_kept(searched, "s1", event) and not t.dice_kept(searched, "s0", event)
    assert t.apply(searched, t.inverse(searched, event, actor="s0")).players == state.players  # the host
    typed = t.decide(state, "s1", "quest.search", {"die": 2})
    assert t.apply(t.apply(state, typed), t.inverse(t.apply(state, typed), typed, actor="s1")).players == state.players


def test_a_search_that_turns_up_a_monster_picks_nothing_up():
    """Dropped things are picked up on top of a search, but not when the search turns up a monster:
    then it is a fight at once (Fouille). The search picked them up, and the monster put in the room
    right after it left them on the sheet; now they go back to the room's pile."""
    state = act(new_table("Ann", "Bob"), "s1", "quest.item.add", seat="s1", name="Club", slot="one_hand", bonus=2)
    state = act(state, "s1", "quest.die", seat="s1")  # Bob's Club and 300 gold lie in the Entrance
    pile = state.board["dropped"]["entrance"]
    state = act(state, "s0", "quest.draw")
    state = act(state, "s0", "quest.search", die=6, pick=[thing["uid"] for thing in pile])
    assert q(state, "s0")["gold"] == 600 and q(state, "s0")["gear"][0]["name"] == "Club"
    event = t.decide(state, "s0", "quest.monster.place", {"room": "entrance", "monster": {"name": "Orc", "level": 3}})
    found = t.apply(state, event)
    assert found.combat and q(found, "s0")["gold"] == 300 and q(found, "s0")["gear"] == []
    assert found.board["dropped"]["entrance"] == pile
    assert "Club, 300 gold stay" in history.render(event.payload["summary"], who="Ann")
    assert t.apply(found, t.inverse(found, event)).players == state.players


def test_a_monster_put_in_the_room_later_leaves_what_was_picked_up():
    """Only the monster the search turned up, put in the room right after it, takes the pick-up back:
    one a card brings later in the turn does not."""
    state = act(new_table("Ann", "Bob"), "s1", "quest.die", seat="s1")
    pile = state.board["dropped"]["entrance"]
    state = act(state, "s0", "quest.draw")
    state = act(state, "s0", "quest.search", die=6, pick=[pile[0]["uid"]])
    state = act(state, "s0", "quest.gold", seat="s0", change=50)  # what the search table gave
    state = act(state, "s0", "quest.monster.place", room="entrance", monster={"name": "Orc", "level": 3})
    assert q(state, "s0")["gold"] == 650 and "entrance" not in state.board["dropped"]


# --- when there is a fight (Combat: every monster in the room fights together) ----------------------

def test_a_monster_put_in_the_room_of_a_fight_going_on_joins_it():
    """A monster put on the map in the very room where a fight is going on (a card, a search result
    typed by another phone) joins that fight: monsters in a room always fight together. It stood
    beside the fight, out of it, and was still there after the fight was won."""
    state = explored(new_table("Ann", "Bob"), monster={"name": "Rat", "level": 1})
    crypt = q(state, "s0")["room"]
    state = act(state, "s1", "quest.monster.place", room=crypt, monster={"name": "Orc", "level": 3})
    assert [m["name"] for m in state.combat["monsters"]] == ["Rat", "Orc"]
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=[1, 1])
    state = act(state, "s0", "quest.fight.resolve")
    assert state.players["s0"].level == 3 and state.board["monsters"] == {}

# --- the monsters' move (Tour de jeu, 4: the colour die, once a turn) -----------------------------

def test_a_death_during_the_monsters_move_does_not_roll_the_colour_die_again():
    """Ann ends her moves and the colour die shows Bob, who draws a DxM card; a card then kills Ann
    during the monsters' move. The colour die of that move is already rolled: it was offered again
    (as after a death that jumps to the monsters' move) and Cid drew a second DxM card for the turn."""
    state = act(new_table("Ann", "Bob", "Cid"), "s0", "quest.draw")
    state = act(state, "s0", "quest.monsters", colour="s1")
    assert q(state, "s1")["dxm"] == 4
    state = act(state, "s0", "quest.health", seat="s0", change=-4)
    assert state.players["s0"].dead and state.turn["phase"] == "monsters"
    assert refused(state, "s0", "quest.monsters", colour="s2").rule.id == "quest.turn"
    assert q(state, "s2")["dxm"] == 3
    assert act(state, "s0", "turn.end").turn["seat"] == "s1"

# --- the Entrance (Règles inamovibles: no monster stops there) -------------------------------------

def test_a_monster_that_ignored_the_fighter_in_the_entrance_does_not_stay_there_after_the_fight():
    """A search in the Entrance turns up an Orc, a Wandering Rat joins, the Orc's card says it ignores
    Ann: she fights the Rat alone. When that fight ends the Orc must not stay in the Entrance, like the
    monsters of the fight itself; it stayed, and the next player to come by had to fight it there."""
    state = act(new_table("Ann", "Bob"), "s0", "quest.draw")
    state = act(state, "s0", "quest.search", die=1)
    state = act(state, "s0", "quest.monster.place", room="entrance", monster={"name": "Orc", "level": 3})
    state = act(state, "s1", "quest.fight.monster", monster={"name": "Rat", "level": 1})
    orc = next(m["uid"] for m in state.combat["monsters"] if m["name"] == "Orc")
    state = act(state, "s0", "quest.fight.ignore", monster=orc)
    state = act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=[1])
    event = t.decide(state, "s0", "quest.fight.resolve", {})
    won = t.apply(state, event)
    assert won.combat is None and won.board["monsters"] == {}
    assert "Orc leaves the map" in history.render(event.payload["summary"], who="Ann")
    assert t.apply(won, t.inverse(won, event)).board == state.board

# --- whole games over the JSON API, an undo after every step ---------------------------------------

class Game:
    """A Quest table over /api/v1 with the Flask test client: every change is checked, undone by the
    phone that made it (the table must be exactly as before), then made again."""

    def __init__(self, client, *names):
        self.client = client
        created = client.post("/api/v1/tables", json={"name": "Dungeon", "profile": "munchkin-quest",
                                                      "host": {"name": names[0], "sex": "female"}}).get_json()
        self.tokens, self.seats = {names[0]: created["token"]}, {names[0]: created["seat"]}
        code = created["join_url"].rsplit("/", 1)[-1]
        for name in names[1:]:
            joined = client.post(f"/api/v1/join/{code}", json={"name": name, "sex": "male"}).get_json()
            self.tokens[name], self.seats[name] = joined["token"], joined["seat"]
        self.id = created["table"]["id"]

    def post(self, who, path, body):
        response = self.client.post(f"/api/v1/tables/{self.id}{path}", json=body,
                                    headers={"Authorization": f"Bearer {self.tokens[who]}"})
        return response.status_code, response.get_json()

    def table(self):
        first = next(iter(self.tokens))
        return self.client.get(f"/api/v1/tables/{self.id}",
                               headers={"Authorization": f"Bearer {self.tokens[first]}"}).get_json()["table"]

    def __call__(self, who, action, expect=200, undo=True, **params):
        before = self.table()
        status, answer = self.post(who, "/actions", {"action": action, **params})
        assert status == expect, (action, answer)
        if status != 200:
            assert self.table() == before, action  # a refusal changes nothing
            return answer
        if undo:
            status, undone = self.post(who, f"/history/{answer['event']['seq']}/undo", {})
            assert status == 200, (action, undone)
            after = self.table()
            assert {**after, "version": 0} == {**before, "version": 0}, action
            status, answer = self.post(who, "/actions", {"action": action, **params})
            assert status == 200, (action, answer)
        return answer

    def me(self, name):
        return next(p for p in self.table()["players"] if p["name"] == name)

    def q(self, name):
        return self.me(name)["quest"]


def test_a_two_player_game_of_moves_actions_and_their_costs(client):
    """Début de partie; Tour de jeu (the DxM card, exploring, searching, the market, fighting, the free
    actions, Charity, the monsters' move); Combat (a fight when entering a room with a monster, or
    starting one's turn there)."""
    game = Game(client, "Ann", "Bob")
    ann, bob = game.seats["Ann"], game.seats["Bob"]
    for name in ("Ann", "Bob"):  # what each player starts with
        me = game.me(name)
        assert me["level"] == 1 and me["races"] == [] and me["classes"] == []
        assert {k: me["quest"][k] for k in ("health", "tokens", "gold", "dxm", "treasure", "room")} == \
            {"health": 4, "tokens": 3, "gold": 300, "dxm": 3, "treasure": 3, "room": "entrance"}
    assert game("Ann", "quest.move", expect=422, room="entrance")["rule"] == "quest.turn"  # the DxM card first
    assert game("Bob", "quest.draw", expect=422)["rule"] == "turn.own"
    game("Ann", "quest.item.add", seat=ann, name="Club", slot="two_hands", bonus=2, big=True, gold=300)
    game("Ann", "quest.draw")
    assert game.q("Ann")["dxm"] == 4
    assert game("Ann", "quest.draw", expect=422)["rule"] == "quest.turn"  # one a turn
    game("Ann", "quest.explore", name="Crypt", monster={"name": "Orc", "level": 2, "owner": bob})
    crypt = game.q("Ann")["room"]
    assert game.q("Ann")["dxm"] == 5 and game.q("Bob")["dxm"] == 4  # the explorer's card, the colour's card
    assert game.table()["combat"]["came_from"] == "entrance"
    assert game("Bob", "quest.fight.dice", expect=403, fighter_die=6)["error"]  # Ann rolls her own die
    game("Bob", "quest.fight.dice", monster_dice=[1])
    game("Ann", "quest.fight.dice", fighter_die=4)
    game("Ann", "quest.fight.resolve")
    assert game.me("Ann")["level"] == 2 and game.q("Ann")["treasure"] == 4 and game.q("Bob")["dxm"] == 4
    assert game("Ann", "quest.market", expect=409)["rule"] == "quest.market"  # no market in the Crypt
    game("Ann", "quest.search", die=3, found="nothing")
    assert game("Ann", "quest.search", expect=409, die=3)["rule"] == "quest.search"  # once a room a turn
    game("Ann", "quest.explore", name="Bazaar", market=True, monster={"name": "Rat", "level": 1})
    bazaar = game.q("Ann")["room"]
    assert game.q("Ann")["tokens"] == 0
    game("Ann", "quest.fight.dice", fighter_die=1, monster_dice=[6])
    game("Ann", "quest.fight.resolve")  # lost: 1 health, then flee (no token)
    assert game.q("Ann")["health"] == 3 and game.table()["combat"]["stage"] == "flee"
    game("Ann", "quest.fight.flee", fighter_rolls=[5], room=crypt)
    assert game.q("Ann")["room"] == crypt
    assert game("Ann", "quest.move", expect=409, room=bazaar)["rule"] == "quest.turn"  # no token left
    game("Ann", "quest.heal", seat=ann)  # a free action: a level for 3 health (up to 4)
    assert game.me("Ann")["level"] == 1 and game.q("Ann")["health"] == 4
    assert game("Ann", "turn.end", expect=422)["rule"] == "quest.turn"  # Charity and the monsters first
    game("Ann", "quest.monsters", colour=bob)
    assert game("Ann", "quest.explore", expect=422, name="X", monster={"name": "Y", "level": 1})["rule"] == "quest.turn"
    rat = next(uid for uid, m in game.table()["board"]["monsters"].items() if m["name"] == "Rat")
    game("Bob", "quest.monster.move", monster=rat, room=crypt)
    assert game("Bob", "quest.monster.move", expect=409, monster=rat, room=bazaar)["rule"] == "quest.map"  # no U-turn
    game("Ann", "turn.end")
    game("Bob", "quest.draw")
    assert game.table()["combat"] is None  # Bob starts in the Entrance, no monster there
    game("Bob", "quest.move", room=crypt)  # the Rat is there now: a fight at once
    assert game.table()["combat"]["monsters"][0]["name"] == "Rat" and game.q("Bob")["tokens"] == 2
    game("Bob", "quest.fight.ignore", monster=rat)  # its card says it ignores Bob
    assert game("Bob", "quest.search", expect=409, die=2)["rule"] == "quest.search"  # not with a monster there
    game("Bob", "quest.monsters")
    game("Bob", "turn.end")
    game("Ann", "quest.draw")  # Ann starts her turn in a room with the Rat: a fight at once
    assert game.table()["turn"]["phase"] == "fight" and game.table()["combat"]["fighter"] == ann


def test_a_three_player_game_of_trades_charity_levels_and_a_death(client):
    """Tour de jeu (trading with the same or an adjacent room, Charity to the lowest levels); Comment
    gagner des niveaux ? (1,000 gold once a turn, never Level 10); Mort (and the restart)."""
    game = Game(client, "Ann", "Bob", "Cid")
    ann, bob, cid = (game.seats[n] for n in ("Ann", "Bob", "Cid"))
    game("Ann", "quest.draw")
    game("Ann", "quest.explore", name="Crypt", monster={"name": "Orc", "level": 1})
    crypt = game.q("Ann")["room"]
    game("Ann", "quest.fight.dice", fighter_die=6, monster_dice=[1])
    game("Ann", "quest.fight.resolve")
    game("Ann", "quest.explore", name="Vault", monster={"name": "Bat", "level": 1})
    game("Ann", "quest.fight.dice", fighter_die=6, monster_dice=[1])
    game("Ann", "quest.fight.resolve")
    game("Ann", "quest.item.add", seat=ann, name="Crown", slot="headgear", gold=700)
    crown = game.q("Ann")["gear"][0]["uid"]
    assert game("Ann", "quest.item.give", expect=409, seat=ann, uid=crown, to=bob)["rule"] == "quest.trade"  # two rooms away
    assert game("Bob", "quest.item.give", expect=403, seat=ann, uid=crown, to=bob)  # not Bob's to give
    game("Ann", "quest.level.buy", seat=ann, uids=[crown])  # the Crown's 700 and 300 in coins
    assert game.me("Ann")["level"] == 4 and game.q("Ann")["gold"] == 0
    assert game("Ann", "quest.level.buy", expect=409, seat=ann)["rule"] == "quest.level.buy"
    game("Ann", "quest.monsters", hand=8)  # 3 cards over: to Bob and Cid, the lowest
    assert (game.q("Ann")["dxm"], game.q("Bob")["dxm"] + game.q("Bob")["treasure"],
            game.q("Cid")["dxm"] + game.q("Cid")["treasure"]) == (3, 8, 7)
    game("Ann", "turn.end")
    game("Bob", "quest.draw")
    game("Bob", "quest.move", room=crypt)
    game("Bob", "quest.item.add", seat=bob, name="Boots", slot="footgear", bonus=1)
    boots = game.q("Bob")["gear"][0]["uid"]
    game("Bob", "quest.item.give", seat=bob, uid=boots, to=ann)  # Ann is in the Vault, next to the Crypt
    assert game.q("Ann")["gear"][0]["name"] == "Boots"
    game("Bob", "quest.health", seat=bob, change=-4)  # a card takes his last health: death
    bob_now = game.me("Bob")
    assert bob_now["dead"] and bob_now["quest"]["gold"] == 0 and game.table()["turn"]["phase"] == "monsters"
    assert [x["name"] for x in game.table()["board"]["dropped"][crypt]] == ["300 gold"]
    assert game("Bob", "quest.move", expect=422, room="entrance")["rule"] == "quest.turn"  # straight to the monsters
    game("Bob", "quest.monsters", colour=cid)
    game("Bob", "turn.end")
    game("Cid", "quest.draw")
    game("Cid", "quest.monsters")
    game("Cid", "turn.end")
    game("Ann", "quest.draw")
    game("Ann", "quest.monsters")
    game("Ann", "turn.end")  # Bob's turn: he starts again at the Entrance
    bob_now = game.me("Bob")
    assert not bob_now["dead"] and {k: bob_now["quest"][k] for k in ("health", "tokens", "gold", "dxm", "treasure", "room")} \
        == {"health": 4, "tokens": 3, "gold": 300, "dxm": 2, "treasure": 2, "room": "entrance"}


def test_a_four_player_game_to_the_boss_with_two_phones_at_once(client):
    """Règles inamovibles (no monster stops in the Entrance; Level 10 by a kill only; the Boss);
    But du jeu; Propriétaires des monstres (a monster stops on meeting its owner); two phones
    sending on the same version, and wrong players."""
    game = Game(client, "Ann", "Bob", "Cid", "Dee")
    ann, bob, cid, dee = (game.seats[n] for n in ("Ann", "Bob", "Cid", "Dee"))
    for _ in range(8):
        game("Bob", "level.up", undo=False, seat=ann)  # Go Up a Level cards, anyone on anyone
    assert game.me("Ann")["level"] == 9
    assert game("Bob", "level.up", expect=422, seat=ann)["rule"] == "level.win-by-kill"
    game("Ann", "quest.gold", seat=ann, change=700)
    assert game("Ann", "quest.level.buy", expect=422, seat=ann)["rule"] == "level.win-by-kill"
    game("Ann", "quest.draw")
    game("Ann", "quest.explore", name="Hall", monster={"name": "Slime", "level": 1, "owner": dee})
    hall = game.q("Ann")["room"]
    game("Dee", "quest.fight.dice", monster_dice=[1])
    game("Ann", "quest.fight.dice", fighter_die=6)
    game("Ann", "quest.fight.resolve")  # a kill: Level 10
    assert game.me("Ann")["level"] == 10 and game.table()["winners"] == []
    game("Ann", "quest.move", room="entrance")
    version = game.table()["version"]
    status, first = game.post("Ann", "/actions", {"action": "quest.explore", "name": "Pit", "expected_version": version,
                                                  "monster": {"name": "Ghost", "level": 15, "owner": cid}})
    status2, second = game.post("Bob", "/actions", {"action": "quest.room.join", "room": hall, "to": "entrance",
                                                    "expected_version": version})
    assert status == 200 and status2 == 409 and "version" in second["error"]  # the second phone is told it changed
    pit = game.q("Ann")["room"]
    game("Cid", "quest.fight.dice", monster_dice=[1])
    game("Ann", "quest.fight.dice", fighter_die=1)
    game("Ann", "quest.fight.resolve")
    game("Ann", "quest.fight.flee", fighter_rolls=[6], room="entrance")
    game("Ann", "quest.monsters")
    ghost = next(uid for uid, m in game.table()["board"]["monsters"].items() if m["name"] == "Ghost")
    assert game("Cid", "quest.monster.move", expect=409, monster=ghost, room="entrance")["rule"] == "quest.map"
    game("Cid", "quest.monster.move", monster=ghost, room=hall, through="entrance")  # through, out to the Hall
    assert game.table()["board"]["monsters"][ghost]["room"] == hall
    game("Ann", "turn.end")
    for name in ("Bob", "Cid", "Dee"):
        game(name, "quest.draw")
        game(name, "quest.monsters")
        game(name, "turn.end")
    game("Ann", "quest.draw")
    assert game("Bob", "quest.boss", expect=422, monster={"name": "Boss", "level": 6})["rule"] == "turn.own"
    game("Ann", "quest.boss", monster={"name": "Boss", "level": 6})
    assert game("Ann", "combat.end", expect=409)["rule"] == "quest.win"  # nothing stops the Boss fight
    game("Ann", "quest.fight.dice", fighter_die=6, monster_dice=[1])
    answer = game("Ann", "quest.fight.resolve")
    assert answer["table"]["winners"] == [ann] and answer["table"]["board"]["boss"]["beaten"]
    assert game("Bob", "quest.draw", expect=409)["rule"] == "game.won"


# --- moves (Tour de jeu, 2: moves and actions; Exploration: a cost that varies) ---------------------

def test_a_move_through_a_door_that_costs_more_takes_what_the_board_says():
    """What crossing a junction costs depends on the door, as the summary says for exploring through
    one (Exploration: a variable cost); moving back through the same door later costs the same, so
    the board keeps the price paid to explore it. The move took 1 token whatever the board said (the
    phone's move buttons could say nothing else), and a dearer door was crossed for 1."""
    state = act(new_table("Ann", "Bob"), "s0", "quest.draw")
    state = act(state, "s0", "quest.explore", name="Crypt", monster={"name": "Rat", "level": 1}, cost=2)
    state = act(act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=[1]), "s0", "quest.fight.resolve")
    crypt = q(state, "s0")["room"]
    assert q(state, "s0")["tokens"] == 1 and t.quest.passage_cost(state.board, crypt, "entrance") == 2
    error = refused(state, "s0", "quest.move", room="entrance")  # the way back costs what the way in did
    assert error.rule.id == "quest.turn" and "costs 2" in error.message
    state = act(state, "s0", "quest.move", room="entrance", cost=0)  # a card that makes this move free
    assert q(state, "s0")["tokens"] == 1 and q(state, "s0")["room"] == "entrance"
    state = act(state, "s0", "quest.explore", name="Hall", monster={"name": "Rat", "level": 1}, cost=0)
    state = act(act(state, "s0", "quest.fight.dice", fighter_die=6, monster_dice=[1]), "s0", "quest.fight.resolve")
    hall = q(state, "s0")["room"]
    state = act(state, "s0", "quest.move", room="entrance")  # through a free junction, back for nothing
    assert q(state, "s0")["tokens"] == 1
    state = act(state, "s0", "quest.room.join", room=crypt, to=hall)  # the tiles changed: a plain passage
    assert t.quest.passage_cost(state.board, crypt, hall) == 1
    state = act(state, "s0", "quest.move", room=hall)  # free again
    state = act(state, "s0", "quest.move", room=crypt)
    assert q(state, "s0")["tokens"] == 0 and q(state, "s0")["room"] == crypt
    old = t.quest.new_board() | {"joins": {t.quest.join_key("entrance", crypt): True}}  # kept before the price was
    assert t.quest.passage_cost(old, "entrance", crypt) == 1


def test_the_phones_explore_form_says_what_exploring_costs(app):
    """Exploration costs a number of tokens that varies (Tour de jeu, 2a): the phone's form asks for
    it (1 unless changed) and the tokens follow; it had no such field and always paid 1."""
    from test_quest_pages import quest_table, text

    alice, _ = quest_table(app)
    page = text(alice.act("quest.draw"))
    form = re.search(r'<form[^>]*>(?:(?!</form>).)*data-action="quest.explore".*?</form>', page, re.S).group(0)
    field = re.search(r'<input name="cost"[^>]*>', form)
    assert field and 'value="1"' in field.group(0) and 'min="0"' in field.group(0) and 'max="3"' in field.group(0)
    page = text(alice.act("quest.explore", name="Crypt", monster_name="Rat", monster_level=1, cost="2"))
    assert 'id="my-tokens">1<' in page


def test_the_phone_says_what_each_passage_costs_to_cross(app):
    """The move buttons and the map say a passage's price when it is not 1 (the price paid to
    explore it): the buttons paid 1 whatever the door, and nothing on the phone said otherwise."""
    from test_quest_pages import quest_table, text

    alice, bob = quest_table(app)
    alice.act("quest.draw")
    alice.act("quest.explore", name="Crypt", monster_name="Rat", monster_level=1, cost="2")
    alice.act("quest.fight.dice", fighter_die=6, monster_dice=1)
    page = text(alice.act("quest.fight.resolve"))
    moves = re.search(r'<div class="row" id="moves">(.*?)</div>', page, re.S).group(1)
    assert "Entrance · 2 tokens" in moves and "Move to Entrance for 2 move/action tokens" in moves
    assert re.search(r"next to: Entrance \(2 tokens\)", text(bob.get(f"/t/{bob.table_id}")))
    page = text(alice.act("quest.move", room="entrance"))
    assert "2 move/action token(s); 1 left" in page and 'id="my-tokens">1<' in page


@pytest.mark.parametrize("body", [
    {"action": "quest.move", "room": ["entrance"]}, {"action": "quest.move", "room": "entrance", "cost": 4},
    {"action": "quest.move", "room": "entrance", "cost": "two"}, {"action": "quest.explore", "name": "Crypt", "cost": -1,
                                                                  "monster": {"name": "Rat", "level": 1}},
    {"action": "quest.explore", "name": "Crypt", "monster": {"name": "Rat", "level": 0}},
    {"action": "quest.search", "die": 7}, {"action": "quest.search", "pick": [{"uid": "x"}]},
    {"action": "quest.market", "gold": "lots"}, {"action": "quest.monsters", "hand": -1},
    {"action": "quest.monsters", "colour": {"seat": "x"}}, {"action": "quest.level.buy", "uids": "u1"},
    {"action": "quest.item.add", "item": {"name": "Hat", "slot": "hat"}}, {"action": ["quest.draw"]}])
def test_wrong_json_for_the_board_and_the_turn_is_refused_and_changes_nothing(client, body):
    game = Game(client, "Ann", "Bob")
    game("Ann", "quest.draw", undo=False)
    before = game.table()
    status, answer = game.post("Ann", "/actions", body)
    assert status == 400 and answer["error"], answer
    assert game.table() == before


def test_the_same_tap_sent_twice_by_one_phone_counts_once(client):
    """A phone that sends its move again (a retry on a bad connection) with the same Idempotency-Key
    moves once and pays one token."""
    game = Game(client, "Ann", "Bob")
    game("Ann", "quest.draw", undo=False)
    headers = {"Authorization": f"Bearer {game.tokens['Ann']}", "Idempotency-Key": "tap-1"}
    for _ in range(2):
        response = client.post(f"/api/v1/tables/{game.id}/actions", headers=headers,
                               json={"action": "quest.search", "die": 4})
        assert response.status_code == 200
    assert game.q("Ann")["tokens"] == 2 and len(game.q("Ann")["searched"]) == 1


def test_only_the_author_or_the_host_undoes_a_step_of_the_turn(client):
    game = Game(client, "Ann", "Bob", "Cid")
    game("Ann", "quest.draw", undo=False)
    seq = game("Ann", "quest.search", undo=False, die=3)["event"]["seq"]
    status, answer = game.post("Bob", f"/history/{seq}/undo", {})
    assert status == 403 and game.q("Ann")["tokens"] == 2
    game("Ann", "quest.monsters", undo=False)
    game("Ann", "turn.end", undo=False)
    game("Bob", "quest.draw", undo=False)
    seq = game("Bob", "quest.search", undo=False, die=5)["event"]["seq"]
    assert game.post("Cid", f"/history/{seq}/undo", {})[0] == 403
    assert game.post("Ann", f"/history/{seq}/undo", {})[0] == 200  # the host
    assert game.q("Bob")["tokens"] == 3 and game.q("Bob")["searched"] == []
