"""Munchkin Quest through the documented JSON API of a real server and through the CLI.

A Quest table is created under the munchkin-quest profile and played over HTTP: the turn's
DxM card, exploring into a fight lost on a tie with given dice, fleeing a die per monster,
death and the restart, healing, buying a level; refusals carry the Quest rule and its
citation. The stateless fight (``POST /api/v1/combat/evaluate``, ``companion referee combat``)
answers totals, the outcome with ties to the monsters, and the flee results.
"""
import json
import subprocess
import sys

import pytest

from liveserver import LiveServer, api_table, call

TIE = {"profile": "munchkin-quest",
       "fighter": {"name": "Ann", "level": 3, "items": [{"name": "Sword", "bonus": 2}], "die": 2, "health": 4},
       "monsters": [{"name": "Orc", "level": 5, "bonus": 1, "dice": [1], "bad_stuff": {"health": 1}},
                    {"name": "Rat", "level": 1, "dice": [1], "bad_stuff": {"lose": "headgear"}}],
       "flee": {"fighter": [3, 5]}}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(tmp_path_factory.mktemp("quest") / "data").start()
    yield live
    live.kill()


@pytest.fixture
def quest(server):
    table_id, tokens, _, act = api_table(server, "munchkin-quest", "Dungeon")

    def player(table, name):
        return next(p for p in table["players"] if p["name"] == name)

    def get(path, method="GET", body=None):
        return call(server, method, f"/api/v1/tables/{table_id}{path}", body, tokens["Ann"])[1]

    def undo(who, seq, expect=200):
        status, answer = call(server, "POST", f"/api/v1/tables/{table_id}/history/{seq}/undo", {}, tokens[who])
        assert status == expect, answer
        return answer

    act.player, act.get, act.undo = player, get, undo
    return act


def test_the_profiles_list_munchkin_quest_with_its_numbers(server):
    status, body = call(server, "GET", "/api/v1/profiles")
    quest = next(p for p in body["profiles"] if p["id"] == "munchkin-quest")
    assert status == 200 and quest["game"] == "munchkin-quest" and quest["books"] == ["Munchkin Quest (seed summary)"]
    assert quest["quest"]["health"] == 4 and quest["quest"]["tokens"] == 3 and quest["quest"]["gold"] == 300
    assert quest["quest"]["backpack"] == 2 and quest["quest"]["level_price"] == 1000
    assert quest["monster_min_level"] == 1 and quest["wins_at_top_level"] is False
    status, refused = call(server, "POST", "/api/v1/tables", {"name": "X", "profile": "munchkin-quest",
                                                               "options": {"epic": True}, "host": {"name": "A", "sex": "male"}})
    assert status == 400 and "takes no options" in refused["error"]


def test_a_quest_turn_over_the_api(quest):
    answer = quest("Ann", "quest.draw")
    ann = quest.player(answer["table"], "Ann")
    assert ann["quest"]["health"] == 4 and ann["quest"]["dxm"] == 4 and answer["table"]["turn"]["phase"] == "actions"
    refused = quest("Bob", "quest.draw", expect=422)
    assert refused["rule"] == "turn.own"
    answer = quest("Ann", "quest.explore", name="Crypt", monster={"name": "Orc", "level": 3, "bonus": 1,
                                                                  "bad_stuff": {"health": 1}})
    table = answer["table"]
    assert table["combat"]["monsters"][0]["name"] == "Orc" and table["turn"]["phase"] == "fight"
    crypt = quest.player(table, "Ann")["quest"]["room"]
    assert table["board"]["rooms"][crypt]["name"] == "Crypt"
    # a tie with the dice given: Ann 1 + 4, the Orc 3 + 1 + 1
    table = quest("Ann", "quest.fight.dice", fighter_die=4, monster_dice=["1"])["table"]
    answer = quest("Ann", "quest.fight.resolve")
    assert "ties go to the monsters" in answer["event"]["text"]
    assert quest.player(answer["table"], "Ann")["quest"]["health"] == 3 and answer["table"]["combat"]["stage"] == "flee"
    answer = quest("Ann", "quest.fight.flee", fighter_rolls=["2"], room="entrance")
    ann = quest.player(answer["table"], "Ann")
    assert ann["quest"]["health"] == 2 and ann["quest"]["room"] == "entrance" and answer["table"]["combat"] is None
    assert "caught by Orc (2)" in answer["event"]["text"]
    # die by choice, come back next turn
    answer = quest("Ann", "quest.die")
    assert quest.player(answer["table"], "Ann")["dead"] and answer["table"]["turn"]["phase"] == "monsters"
    quest("Ann", "turn.end")
    for name in ("Bob", "Cid"):
        quest(name, "quest.draw")
        quest(name, "quest.monsters")
        quest(name, "turn.end")
    ann = quest.player(quest.get("")["table"], "Ann")
    assert not ann["dead"] and ann["quest"]["health"] == 4 and ann["quest"]["tokens"] == 3 and ann["quest"]["gold"] == 300


def test_charity_over_the_api_moves_the_counts_and_refuses_bad_input_keeping_them(quest):
    """Quest Charity (quest.charity): two cards over the limit, every player at Level 1: discarded, the
    giver saying which; a wrong number or type is refused and nothing changes."""
    quest("Ann", "quest.draw")  # 4 DxM, 3 Treasure
    for params, status in (({"dxm_given": 3}, 400), ({"dxm_given": "two"}, 400), ({"hand": -1}, 400)):
        refused = quest("Ann", "quest.monsters", expect=status, **params)
        assert refused["error"]
    assert quest("Ann", "quest.monsters", expect=400, dxm_given=3)["rule"] == "quest.charity"
    table = quest.get("")["table"]
    ann = quest.player(table, "Ann")["quest"]
    assert (ann["dxm"], ann["treasure"]) == (4, 3) and table["turn"]["phase"] == "actions"
    answer = quest("Ann", "quest.monsters", dxm_given=1)
    ann = quest.player(answer["table"], "Ann")["quest"]
    assert (ann["dxm"], ann["treasure"]) == (3, 2) and "go to the discards (1 DxM, 1 Treasure)" in answer["event"]["text"]


def test_heal_and_buy_a_level_over_the_api_with_their_citations(quest):
    refused = quest("Ann", "quest.heal", expect=409)
    assert refused["rule"] == "quest.heal" and refused["citation"].startswith("Munchkin Quest (seed summary)")
    refused = quest("Ann", "quest.level.buy", expect=409)
    assert refused["rule"] == "quest.level.buy" and "1,000" in refused["error"]
    quest("Ann", "quest.gold", change=700)
    table = quest("Ann", "quest.level.buy")["table"]
    assert quest.player(table, "Ann")["level"] == 2 and quest.player(table, "Ann")["quest"]["gold"] == 0
    quest("Ann", "quest.health", change=-2)
    table = quest("Ann", "quest.heal")["table"]
    assert quest.player(table, "Ann")["level"] == 1 and quest.player(table, "Ann")["quest"]["health"] == 4
    # undo the heal through the history
    seq = quest.get("/history")["events"][0]["seq"]
    undone = quest.get(f"/history/{seq}/undo", "POST", {})
    assert quest.player(undone["table"], "Ann")["level"] == 2 and quest.player(undone["table"], "Ann")["quest"]["health"] == 2


def test_a_monster_goes_through_the_entrance_and_never_turns_back_over_the_api(quest):
    """Règles inamovibles (no monster stops in the Entrance: it comes out by the opposite door) and
    Déplacement des monstres (no U-turn); bad input is refused and nothing moves."""
    quest("Ann", "quest.draw")
    crypt = quest.player(quest("Ann", "quest.explore", name="Crypt", monster={"name": "Orc", "level": 3})["table"],
                         "Ann")["quest"]["room"]
    quest("Ann", "combat.end", override="quest.combat")
    quest("Ann", "quest.move", room="entrance")
    table = quest("Ann", "quest.explore", name="Hall", cost=0, monster={"name": "Rat", "level": 1})["table"]
    hall = quest.player(table, "Ann")["quest"]["room"]
    quest("Ann", "combat.end", override="quest.combat")
    table = quest("Ann", "quest.monsters")["table"]
    orc = next(m["uid"] for m in table["board"]["monsters"].values() if m["name"] == "Orc")
    refused = quest("Bob", "quest.monster.move", expect=409, monster=orc, room="entrance")
    assert refused["rule"] == "quest.map" and refused["citation"].startswith("Munchkin Quest (seed summary)")
    assert quest("Bob", "quest.monster.move", expect=400, monster=orc, room=hall, through="door")["error"]
    refused = quest("Bob", "quest.monster.move", expect=409, monster=orc, room=crypt, through="entrance")
    assert refused["rule"] == "quest.map"  # out by the door it came in by: that is not going through
    assert quest.get("")["table"]["board"]["monsters"][orc]["room"] == crypt
    answer = quest("Bob", "quest.monster.move", monster=orc, room=hall, through="entrance")
    assert answer["table"]["board"]["monsters"][orc]["room"] == hall
    assert answer["event"]["text"] == "Bob moves Orc through the Entrance to Hall"
    refused = quest("Bob", "quest.monster.move", expect=409, monster=orc, room=crypt, through="entrance")
    assert refused["rule"] == "quest.map" and "turns back" in refused["error"]
    assert quest.get("")["table"]["board"]["monsters"][orc]["room"] == hall


def test_no_level_is_bought_in_a_fight_over_the_api(quest):
    quest("Ann", "quest.gold", change=700)
    quest("Ann", "quest.draw")
    quest("Ann", "quest.explore", name="Crypt", monster={"name": "Orc", "level": 3})
    refused = quest("Ann", "quest.level.buy", expect=409)
    assert refused["rule"] == "quest.level.buy" and "outside a fight" in refused["error"]
    assert refused["citation"] == "Munchkin Quest (seed summary), Comment gagner des niveaux ?"
    ann = quest.player(quest.get("")["table"], "Ann")
    assert ann["level"] == 1 and ann["quest"]["gold"] == 1000
    quest("Ann", "combat.end", override="quest.combat")
    assert quest.player(quest("Ann", "quest.level.buy")["table"], "Ann")["level"] == 2


def test_a_helper_cannot_undo_the_accept_once_the_fight_has_moved_on_over_the_api(quest):
    """Combat (Demander de l'aide): the helper moves in and cannot back out — not even by undoing their own
    roll and then the accept."""
    quest("Ann", "quest.draw")
    quest("Ann", "quest.explore", name="Crypt", monster={"name": "Orc", "level": 3})
    quest("Ann", "combat.help.ask", seat=quest.player(quest.get("")["table"], "Bob")["seat"])
    accept = quest("Bob", "combat.help.accept")["event"]["seq"]
    roll = quest("Bob", "quest.fight.dice", helper_die=1)["event"]["seq"]
    refused = quest.undo("Bob", accept, expect=409)
    assert refused["rule"] == "quest.help" and "cannot back out" in refused["error"]
    assert refused["citation"] == "Munchkin Quest (seed summary), Combat, Demander de l'aide"
    quest.undo("Bob", roll)
    assert quest.undo("Bob", accept, expect=409)["rule"] == "quest.help"
    table = quest.get("")["table"]
    assert table["combat"]["helper"] == quest.player(table, "Bob")["seat"]
    assert quest.player(table, "Bob")["quest"]["room"] == table["combat"]["room"]


def test_card_game_actions_are_refused_at_a_quest_table(quest):
    answer = quest("Ann", "turn.door", expect=409, found="other")
    assert "not part of Munchkin Quest" in answer["error"]


def test_the_stateless_quest_fight_answers_totals_ties_and_flee(server):
    status, verdict = call(server, "POST", "/api/v1/combat/evaluate", TIE)
    assert status == 200, verdict
    assert verdict["players"]["total"] == 7 and verdict["monsters"]["total"] == 9
    status, verdict = call(server, "POST", "/api/v1/combat/evaluate", {**TIE, "monsters": TIE["monsters"][:1]})
    assert verdict["players"]["total"] == verdict["monsters"]["total"] == 7
    assert verdict["outcome"] == "lose" and verdict["tie"] and verdict["ties_to"] == "monsters"
    assert verdict["citation"] == "Munchkin Quest (seed summary), Combat, Principe"
    assert verdict["flee"][0]["caught"] and verdict["health_lost"] == {"fighter": 2}
    assert verdict["health_after"] == {"fighter": 2} and verdict["rolled_by_app"] == []
    status, verdict = call(server, "POST", "/api/v1/combat/evaluate", TIE)
    orc, rat = verdict["flee"]
    assert orc["roll"] == 3 and orc["caught"] and not rat["caught"]
    status, won = call(server, "POST", "/api/v1/combat/evaluate",
                       {"profile": "munchkin-quest", "fighter": {"level": 9, "die": 6},
                        "helper": {"level": 2, "die": 1, "room": "adjacent"},
                        "monsters": [{"name": "Dragon", "level": 8, "dice": [2], "dreadful": True, "treasures": 3}]})
    assert won["outcome"] == "win" and won["levels"] == {"fighter": 1, "helper": 1} and won["treasures_face_up"]
    assert won["level_after"] == {"fighter": 10, "helper": 3}
    assert won["rules"] == ["quest.combat", "quest.help", "quest.dreadful"]


def test_the_stateless_quest_fight_rolls_missing_dice_and_refuses_bad_input(server):
    status, verdict = call(server, "POST", "/api/v1/combat/evaluate",
                           {"profile": "munchkin-quest", "fighter": {"level": 1}, "monsters": [{"level": 1, "dice": 2}]})
    assert status == 200 and set(verdict["rolled_by_app"]) >= {"fighter die", "monsters.0 die 1", "monsters.0 die 2"}
    for bad, rule in [({"monsters": [{"level": 0}]}, "quest.level-floor"),
                      ({"helper": {"level": 1, "die": 1, "room": "other"}}, "quest.help"),
                      ({"fighter": {"level": 1, "die": 7}}, None),
                      ({"roll": False, "fighter": {"level": 1}}, "quest.combat")]:
        status, error = call(server, "POST", "/api/v1/combat/evaluate",
                             {"profile": "munchkin-quest", "fighter": {"level": 1, "die": 3},
                              "monsters": [{"level": 1, "dice": [2]}], **bad})
        assert 400 <= status < 500 and error["rule"] == rule, (bad, error)


def test_the_cli_judges_a_quest_fight(tmp_path):
    run = subprocess.run([sys.executable, "-m", "companion", "referee", "combat", "-", "--data-dir", str(tmp_path)],
                         input=json.dumps({**TIE, "monsters": TIE["monsters"][:1]}), capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    verdict = json.loads(run.stdout)
    assert verdict["outcome"] == "lose" and verdict["tie"] and verdict["flee"][0]["roll"] == 3
    bad = subprocess.run([sys.executable, "-m", "companion", "referee", "combat", "-", "--data-dir", str(tmp_path)],
                         input=json.dumps({"profile": "munchkin-quest", "fighter": {"level": 1, "die": 2},
                                           "monsters": [{"level": 0}]}), capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and json.loads(bad.stdout)["rule"] == "quest.level-floor"


def test_quest_rule_questions_are_answered_from_the_quest_profile(server):
    status, found = call(server, "GET", "/api/v1/rules/search?q=does+the+monster+win+a+tie%3F&profile=munchkin-quest")
    assert found["results"][0]["id"] == "quest.combat"
    assert found["results"][0]["citation"] == "Munchkin Quest (seed summary), Combat, Principe"
    status, found = call(server, "GET", "/api/v1/rules/search?q=does+the+monster+win+a+tie+in+Quest%3F")
    assert found["results"][0]["id"] == "quest.combat"
    status, found = call(server, "GET", "/api/v1/rules/search?q=does+the+monster+win+a+tie%3F&profile=munchkin-1.6")
    assert found["results"][0]["id"] == "combat.compare"
