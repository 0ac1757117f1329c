"""The character sheet in the referee: table-driven cases from the rulebooks, and invariants."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.referee import table as t
from companion.referee.history import describe
from companion.referee.rules import Refused
from sheet_cases import BOOTS, CASES, CHAINSAW, HELM, HORNY, MACE, ROCK, resolve

SWORD = {"name": "Sneaky Bastard Sword", "bonus": 2, "slot": "one_hand", "gold": 400}
BUCKLER = {"name": "Buckler of Swashing", "bonus": 2, "slot": "one_hand", "gold": 400}
LADDER = {"name": "Stepladder", "bonus": 3, "slot": "none", "big": True, "gold": 400, "usable_by": [{"race": "halfling"}]}


class Game:
    """A table with Ann (host) and Ben, driven through decide/apply like the store does."""

    def __init__(self, profile="munchkin-1.6", options=None):
        self.events = [t.create("tid", "T", profile, options)]
        self.state = t.apply(None, self.events[0])
        for seat, name in (("a", "Ann"), ("b", "Ben")):
            self._record(t.join(self.state, seat, name, "female" if seat == "a" else "male"))

    def _record(self, event):
        self.events.append(event)
        self.state = t.apply(self.state, event)
        return event

    def do(self, action, actor="a", **params):
        return self._record(t.decide(self.state, actor, action, params))

    def undo(self, event):
        return self._record(t.inverse(self.state, event))

    def refused(self, action, actor="a", **params):
        with pytest.raises(Refused) as exc:
            t.decide(self.state, actor, action, params)
        return exc.value

    def said(self, event) -> str:
        """The event's line of history, in English."""
        return describe(event, {seat: player.name for seat, player in self.state.players.items()})

    def p(self, seat="a"):
        return self.state.players[seat].as_dict()

    def pass_turn(self, actor="a", ender=None):
        """A quiet turn (1.6, Turn Phases): a door with no monster, loot the room, end the turn."""
        self.do("turn.door", actor=actor, found="other")
        self.do("turn.loot", actor=actor)
        return self.do("turn.end", actor=ender or actor)

    def item(self, name, seat="a"):
        return next(i for i in self.state.players[seat].items if i["name"] == name)

    def level(self, n, seat="a"):
        while self.state.players[seat].level < n:
            self.do("level.up", actor=seat)


@pytest.fixture
def g():
    return Game()


def test_nobody_starts_with_a_race_or_class_and_is_human(g):
    assert g.p()["races"] == [] and g.p()["classes"] == []
    assert g.p()["strength"] == 1  # 1.6 Character Creation: a Level 1 human with no class


@pytest.mark.parametrize("first, second, rule, source", [
    ("elf", "dwarf", "race.one", "1.6 Character Stats: one race unless Half-Breed"),
    ("elf", "elf", "race.one", "1.6 Character Stats: never two copies of the same race"),
])
def test_races(g, first, second, rule, source):
    g.do("race.add", race=first)
    assert g.refused("race.add", race=second).rule.id == rule, source


def test_half_breed_needs_a_race_allows_two_and_goes_with_the_last(g):
    assert g.refused("half_breed.add").rule.id == "half-breed.needs-race"  # 1.6 Classes and Races
    g.do("race.add", race="elf")
    g.do("half_breed.add")
    g.do("race.add", race="dwarf")
    assert g.p()["races"] == ["elf", "dwarf"]
    g.do("race.remove", race="elf")
    assert g.p()["half_breed"] is True  # one race left: Half-Breed stays
    g.do("race.remove", race="dwarf")
    assert g.p()["half_breed"] is False and g.p()["races"] == []  # it goes with the last race


def test_super_munchkin_for_classes(g):
    g.do("class.add", **{"class": "warrior"})
    assert g.refused("class.add", **{"class": "wizard"}).rule.id == "class.one"
    g.do("super_munchkin.add")
    g.do("class.add", **{"class": "wizard"})
    assert g.refused("class.add", **{"class": "wizard"}).rule.id == "class.one"
    g.do("class.remove", **{"class": "warrior"})  # losing either class takes Super Munchkin (German 2003, Dutch 2001)
    assert g.p()["super_munchkin"] is False and g.p()["classes"] == ["wizard"]


def test_second_headgear_is_carried_and_does_not_count(g):
    g.do("item.add", item=HELM)
    g.do("item.add", item=HORNY)
    assert g.item("Horny Helmet")["in_use"] is False
    p = g.p()
    assert p["strength"] == 2
    reasons = {line["source"]: line for line in p["not_counting"]}
    assert reasons["Horny Helmet"]["reason"] == "carried, not in use"
    assert reasons["Horny Helmet"]["citation"].startswith("Munchkin 1.6 (2011), Items")


def test_using_an_item_displaces_the_one_in_its_slot(g):
    g.do("item.add", item=HELM)
    g.do("item.add", item=HORNY)
    g.do("race.add", race="elf")
    g.do("item.use", uid=g.item("Horny Helmet")["uid"])
    assert g.item("Helm of Courage")["in_use"] is False
    assert g.p()["strength"] == 1 + 3  # Horny Helmet gives an Elf +3


def test_hands(g):
    g.do("item.add", item=SWORD)
    g.do("item.add", item=BUCKLER)
    assert g.p()["strength"] == 1 + 2 + 2
    g.do("item.add", item=ROCK)
    assert g.item("Huge Rock")["in_use"] is False  # both hands are busy
    g.do("item.use", uid=g.item("Huge Rock")["uid"])
    assert not g.item("Sneaky Bastard Sword")["in_use"] and not g.item("Buckler of Swashing")["in_use"]
    assert g.p()["strength"] == 1 + 3


def test_one_big_item_unless_dwarf(g):
    g.do("item.add", item=CHAINSAW)
    refusal = g.refused("item.add", item=ROCK)
    assert refusal.rule.id == "items.big"  # 1.6 Items: only one Big item
    g.do("race.add", race="dwarf")
    g.do("item.add", item=ROCK)
    g.do("race.remove", race="dwarf")  # allowed at any time...
    problems = g.p()["problems"]
    assert problems and problems[0]["rule"] == "items.big"  # ...but the sheet says what must go
    assert g.refused("item.add", item=LADDER).rule.id == "items.big"  # and nothing may make it worse
    g.do("item.remove", uid=g.item("Huge Rock")["uid"])
    assert g.p()["problems"] == []


def test_restricted_item_counts_only_while_qualifying(g):
    g.do("item.add", item=MACE)
    assert g.item("Mace of Sharpness")["in_use"] is False  # a non-Cleric can only carry it
    assert g.refused("item.use", uid=g.item("Mace of Sharpness")["uid"]).rule.id == "items.restricted"
    g.do("class.add", **{"class": "cleric"})
    g.do("item.use", uid=g.item("Mace of Sharpness")["uid"])
    assert g.p()["strength"] == 1 + 4
    g.do("class.remove", **{"class": "cleric"})  # discarding a class is always allowed
    p = g.p()
    assert p["strength"] == 1
    assert [line["reason"] for line in p["not_counting"]] == ["only for Clerics"]


def test_selling(g):
    g.do("item.add", item=CHAINSAW)
    g.do("item.add", item=BOOTS)
    assert g.refused("item.sell", uids=[g.item("Chainsaw of Bloody Dismemberment")["uid"]]).rule.id == "items.sell"
    g.do("item.sell", uids=[g.item("Chainsaw of Bloody Dismemberment")["uid"], g.item("Boots of Butt-Kicking")["uid"]])
    assert g.p()["level"] == 2 and g.p()["items"] == []  # 1,000 gold: one level, no change


def test_no_selling_to_the_winning_level(g):
    g.level(9)
    g.do("item.add", item={**HELM, "gold": 1000})
    assert g.refused("item.sell", uids=[g.item("Helm of Courage")["uid"]]).rule.id == "items.sell-not-to-win"


def test_halfling_sells_one_item_at_double_price(g):
    g.do("item.add", item=BOOTS)
    g.do("item.add", item=HELM)
    uids = [g.item("Boots of Butt-Kicking")["uid"], g.item("Helm of Courage")["uid"]]
    assert g.refused("item.sell", uids=uids, double=uids[0]).message.startswith("Only a Halfling")
    g.do("race.add", race="halfling")
    g.do("item.sell", uids=uids, double=uids[0])  # 800 + 200 = 1,000
    assert g.p()["level"] == 2


def test_giving_an_item_goes_into_the_receivers_play(g):
    g.do("item.add", item=BOOTS)
    g.do("item.give", uid=g.item("Boots of Butt-Kicking")["uid"], to="b")
    assert g.p("a")["items"] == [] and g.item("Boots of Butt-Kicking", "b")["in_use"] is True
    assert g.p("b")["strength"] == 3


def test_a_thief_steals_a_small_item_on_four_or_more_and_is_caught_below(g):
    """The Thief card: a card discarded, a die; 4 or more takes a small item (carried), less
    costs the Thief a level, none below the lowest (thief.theft)."""
    g.do("item.add", actor="b", item=BOOTS)
    g.do("item.add", actor="b", item=HELM)
    boots = g.item("Boots of Butt-Kicking", "b")["uid"]
    assert g.refused("item.steal", target="b", uid=boots, die=6).rule.id == "thief.theft"  # Ann is no Thief yet
    g.do("class.add", **{"class": "thief"})
    stolen = g.do("item.steal", target="b", uid=boots, die=4)
    assert [i["name"] for i in g.p("b")["items"]] == ["Helm of Courage"]
    assert g.item("Boots of Butt-Kicking")["in_use"] is True  # into Ann's play, in use where it fits
    assert g.said(stolen) == "Ann steals Boots of Butt-Kicking from Ben (die: 4)"
    g.undo(stolen)
    assert [i["name"] for i in g.p("b")["items"]] == ["Boots of Butt-Kicking", "Helm of Courage"] and g.p()["items"] == []
    helm = g.item("Helm of Courage", "b")["uid"]
    caught = g.do("item.steal", target="b", uid=helm, die=3)  # at Level 1: nothing to lose
    assert g.p()["level"] == 1 and len(g.p("b")["items"]) == 2
    assert g.said(caught) == "Ann is caught stealing from Ben (die: 3); no level to lose"
    g.level(3)
    caught = g.do("item.steal", target="b", uid=helm, die=1)
    assert g.p()["level"] == 2 and g.said(caught) == "Ann is caught stealing from Ben (die: 1) and loses a level"
    g.undo(caught)
    assert g.p()["level"] == 3
    rolled = g.do("item.steal", target="b", uid=helm)  # no die given: the app rolls one
    assert (g.p()["level"], len(g.p()["items"])) in ((2, 0), (3, 1))


def test_a_thief_steals_no_big_item_nothing_of_their_own_and_never_in_a_fight(g):
    g.do("class.add", **{"class": "thief"})
    g.do("item.add", actor="b", item=CHAINSAW)
    g.do("item.add", actor="b", item=HELM)
    g.do("item.add", item=BOOTS)
    saw, helm = g.item("Chainsaw of Bloody Dismemberment", "b")["uid"], g.item("Helm of Courage", "b")["uid"]
    assert g.refused("item.steal", target="b", uid=saw, die=6).rule.id == "thief.theft"  # Big
    assert g.refused("item.steal", target="a", uid=g.item("Boots of Butt-Kicking")["uid"], die=6).status == 400
    assert g.refused("item.steal", target="b", uid="u999", die=6).status == 404
    assert g.refused("item.steal", actor="b", target="a", uid=g.item("Boots of Butt-Kicking")["uid"],
                     die=6).rule.id == "thief.theft"  # Ben is no Thief
    g.do("class.add", actor="b", **{"class": "thief"})
    boots = g.item("Boots of Butt-Kicking")["uid"]
    g.do("combat.start")  # the fight is on as soon as the monster is shown (1.6, Character Stats)
    assert g.refused("item.steal", target="b", uid=helm, die=6).rule.id == "thief.theft"  # the Thief fights
    assert g.refused("item.steal", actor="b", target="a", uid=boots, die=6).rule.id == "thief.theft"  # the victim fights
    g.do("combat.end")
    g.do("item.steal", actor="b", target="a", uid=boots, die=5)
    assert g.item("Boots of Butt-Kicking", "b")["in_use"] is True and g.p()["items"] == []


def test_lasting_curse_changes_strength_until_removed(g):
    g.do("curse.add", curse={"name": "Chicken on Your Head", "effects": [{"type": "combat_bonus", "value": -1, "until": "removed"}]})
    assert g.p()["strength"] == 0
    g.do("curse.add", curse={"name": "Change Sex", "effects": [{"type": "combat_bonus", "value": -5, "until": "next_combat"}]})
    assert g.p()["strength"] == 0 and g.p()["pending"][0]["value"] == -5
    g.do("curse.remove", uid=g.state.players["a"].curses[0]["uid"])
    assert g.p()["strength"] == 1


def test_death_keeps_level_race_class_and_curses(g):
    g.level(5)
    g.do("race.add", race="elf")
    g.do("item.add", item=BOOTS)
    g.do("curse.add", curse={"name": "Chicken on Your Head"})
    g.do("character.die")
    p = g.p()
    assert (p["level"], p["races"], p["items"], len(p["curses"])) == (5, ["elf"], [], 1)  # 1.6 Death


def test_undo_of_sheet_changes_and_its_checks(g):
    added = g.do("item.add", item=CHAINSAW)
    g.undo(added)
    assert g.p()["items"] == []
    sold_items = [g.do("item.add", item=BOOTS), g.do("item.add", item=HELM)]
    assert sold_items
    g.do("item.add", item={**SWORD, "gold": 400})
    sale = g.do("item.sell", uids=[i["uid"] for i in g.state.players["a"].items])
    g.undo(sale)  # items back, level back
    assert g.p()["level"] == 1 and len(g.p()["items"]) == 3
    dwarf = g.do("race.add", race="dwarf")
    g.do("item.add", item=CHAINSAW)
    g.do("item.add", item=ROCK)
    with pytest.raises(Refused) as exc:
        t.inverse(g.state, dwarf)  # undoing the Dwarf would leave two Big items
    assert exc.value.rule.id == "items.big"


def test_only_host_edits_another_sheet(g):
    assert g.refused("item.add", actor="b", seat="a", item=BOOTS).rule.id == "table.host"
    g.do("item.add", actor="a", seat="b", item=BOOTS)
    assert g.item("Boots of Butt-Kicking", "b")


@pytest.mark.parametrize("item, message", [
    ({"bonus": 1}, "needs a name"),
    ({"name": "X", "slot": "pocket"}, "slot must be"),
    ({"name": "X", "bonus": 99}, "bonus must be"),
    ({"name": "X", "gold": -1}, "gold must be"),
])
def test_hand_typed_items_are_checked(g, item, message):
    assert message in g.refused("item.add", item=item).message


ITEMS = [CHAINSAW, MACE, HELM, HORNY, SWORD, BUCKLER, ROCK, LADDER, BOOTS]
STEPS = st.one_of(
    st.tuples(st.just("item.add"), st.sampled_from(ITEMS)),
    st.tuples(st.sampled_from(["item.use", "item.carry", "item.remove"]), st.integers(0, 8)),
    st.tuples(st.sampled_from(["race.add", "race.remove"]), st.sampled_from(["elf", "dwarf", "halfling"])),
    st.tuples(st.sampled_from(["class.add", "class.remove"]), st.sampled_from(["cleric", "warrior"])),
    st.tuples(st.sampled_from(["half_breed.add", "half_breed.remove", "level.down", "character.die"]), st.none()),
)


@settings(max_examples=80, deadline=None)
@given(st.lists(STEPS, max_size=40))
def test_sheet_invariants(steps):
    g = Game()
    for action, arg in steps:
        before = g.p()
        params = {}
        if action == "item.add":
            params = {"item": arg}
        elif action in ("item.use", "item.carry", "item.remove"):
            items = g.state.players["a"].items
            if not items:
                continue
            params = {"uid": items[arg % len(items)]["uid"]}
        elif action.startswith("race."):
            params = {"race": arg}
        elif action.startswith("class."):
            params = {"class": arg}
        try:
            g.do(action, **params)
        except Refused:
            assert g.p() == before
            continue
        after = g.p()
        assert after["level"] >= 1
        if action == "item.add":  # adding never lowers strength (nothing is displaced)
            assert after["strength"] >= before["strength"]
        counted = {line.get("uid") for line in after["strength_breakdown"]}
        for item in g.state.players["a"].items:
            if not item["in_use"]:
                assert item["uid"] not in counted  # carried items never count
        assert not [v for v in after["problems"] if v["rule"] in ("items.slots", "race.one", "class.one")]
        for item in g.state.players["a"].items:  # in use means usable: restricted items are turned sideways
            if item["in_use"] and item.get("usable_by"):
                assert item["uid"] in counted or item.get("bonus", 0) == 0
    assert t.replay(g.events).to_json() == g.state.to_json()


def test_looting_order_highest_level_first_ties_roll(g):
    g._record(t.join(g.state, "c", "Cid", "male"))
    g.level(4, "b")
    g.level(4, "c")
    g.do("item.add", item=BOOTS)
    death = g.do("character.die")
    assert "looting order: Ben = Cid (🎲);" in g.said(death)  # 1.6 Death, Looting the Body


@pytest.mark.parametrize("levels, races, hand, expected, source", [
    ({"a": 3, "b": 1}, [], 5, {"excess": 0}, "1.6 Charity: five cards may stay"),
    ({"a": 3, "b": 1}, [], 7, {"excess": 2, "shares": [{"seat": "b", "cards": 2}]}, "1.6 Charity: excess to the lowest"),
    ({"a": 1, "b": 1}, [], 7, {"excess": 2, "discard": True}, "1.6 Charity: lowest yourself, discard"),
    ({"a": 3, "b": 1}, ["dwarf"], 7, {"excess": 1, "limit": 6}, "Dwarf card: six cards"),
])
def test_charity(levels, races, hand, expected, source):
    from companion.referee import sheet
    from companion.referee.profiles import get_profile
    players = {seat: {"level": level, "races": races if seat == "a" else []} for seat, level in levels.items()}
    result = sheet.charity(players, "a", hand, get_profile("munchkin-1.6"))
    assert {k: result[k] for k in expected} == expected, source


def test_charity_splits_ties_evenly():
    from companion.referee import sheet
    from companion.referee.profiles import get_profile
    players = {"a": {"level": 5}, "b": {"level": 2}, "c": {"level": 2}}
    result = sheet.charity(players, "a", 8, get_profile("munchkin-1.6"))
    assert [s["cards"] for s in result["shares"]] == [2, 1] and result["giver_chooses_bigger"]


def test_no_item_changes_in_a_fight_but_races_may_go(g):
    g.do("item.add", item=BOOTS)
    g.do("item.add", item=HELM)
    g.do("combat.start")
    assert g.state.combat["fighter"] == "a"
    for action, params in [("item.add", {"item": SWORD}), ("item.carry", {"uid": g.item("Helm of Courage")["uid"]}),
                           ("item.give", {"uid": g.item("Boots of Butt-Kicking")["uid"], "to": "b"}),
                           ("item.sell", {"uids": [g.item("Boots of Butt-Kicking")["uid"]]})]:
        assert g.refused(action, **params).rule.id == "items.not-in-combat", action  # 1.6 Items
    g.do("item.add", actor="b", item=SWORD)  # Ben is not in the fight
    assert g.refused("item.give", actor="b", uid=g.item("Sneaky Bastard Sword", "b")["uid"], to="a").rule.id == "items.not-in-combat"
    g.do("race.add", race="elf")
    g.do("race.remove", race="elf")  # a race may be discarded even in combat
    assert g.refused("combat.start", actor="b").rule.id == "turn.own"  # not Ben's turn
    assert g.refused("combat.start").rule.id == "combat.one"
    assert g.refused("turn.end").rule.id == "turn.own"  # not in the middle of a fight
    assert g.refused("combat.end", actor="b").rule.id == "table.host"
    ended = g.do("combat.end")
    g.undo(ended)
    assert g.state.combat["fighter"] == "a"
    g.do("combat.end")
    g.do("item.carry", uid=g.item("Helm of Courage")["uid"])


def test_turns_pass_in_order_and_gate_the_door_and_selling(g):
    g._record(t.join(g.state, "c", "Cid", "male"))
    assert g.state.turn == {"seat": "a", "number": 1, "phase": "start"}  # the host starts
    g.do("item.add", actor="b", item={**HELM, "gold": 1000})
    refusal = g.refused("item.sell", actor="b", uids=[g.item("Helm of Courage", "b")["uid"]])
    assert refusal.rule.id == "turn.own"  # 1.6 Selling Items for Levels: during your turn
    assert g.refused("combat.start", actor="b").rule.id == "turn.own"
    assert g.refused("turn.end", actor="b").rule.id == "turn.own"
    assert g.refused("turn.end").rule.id == "turn.door"  # 1.6 Turn Phases: the door comes first
    passed = g.pass_turn()
    assert g.state.turn == {"seat": "b", "number": 2, "phase": "start"}
    g.do("item.sell", actor="b", uids=[g.item("Helm of Courage", "b")["uid"]])
    g.pass_turn("b")
    g.pass_turn("c", ender="a")  # the host may end anyone's turn
    assert g.state.turn == {"seat": "a", "number": 4, "phase": "start"}  # Cid's turn passed back to Ann
    with pytest.raises(Refused):
        t.inverse(g.state, passed)  # the turn has moved on since
    g.undo(g.events[-1])
    assert g.state.turn == {"seat": "c", "number": 3, "phase": "charity"}


def test_halfling_double_price_once_a_turn(g):
    g.do("race.add", race="halfling")
    for _ in range(2):
        g.do("item.add", item=BOOTS)
        g.do("item.add", item=HELM)
    boots = [i["uid"] for i in g.state.players["a"].items if i["name"] == "Boots of Butt-Kicking"]
    helms = [i["uid"] for i in g.state.players["a"].items if i["name"] == "Helm of Courage"]
    g.do("item.sell", uids=[boots[0], helms[0]], double=boots[0])
    assert g.refused("item.sell", uids=[boots[1], helms[1]], double=boots[1]).rule.id == "halfling.double"
    g._record(t.join(g.state, "c", "Cid", "male"))
    for actor in ("a", "b", "c"):
        g.pass_turn(actor)
    g.do("item.sell", uids=[boots[1], helms[1]], double=boots[1])  # a new turn
    assert g.p()["level"] == 3


@pytest.mark.parametrize("steps, expected", CASES.values(), ids=list(CASES))
def test_rulebook_cases_in_the_referee(steps, expected):
    g = Game()
    seats = {"Ann": "a", "Ben": "b"}
    *setup, (actor, action, params) = steps
    for who, act, prm in setup:
        g.do(act, actor=seats[who], **resolve(prm, g.state.players["a"].items))
    params = resolve(params, g.state.players["a"].items)
    if expected[0] == "refused":
        assert g.refused(action, actor=seats[actor], **params).rule.id == expected[1]
    else:
        g.do(action, actor=seats[actor], **params)
        sheet = g.p("a")
        assert {k: sheet[k] for k in expected[1]} == expected[1]


# --- Selling near the top, Charity and the dead, Half-Breed (sheet functions) -------------------------

def _for_sale(level, golds):
    return {"level": level, "races": [], "items": [{"uid": f"i{n}", "name": f"Item {n}", "gold": gold}
                                                   for n, gold in enumerate(golds)]}


@pytest.mark.parametrize("profile, options, level, golds, gained, source", [
    ("munchkin-1.6", None, 8, [2000], 1, "1.6 Selling Items for Levels: only Level 10 is out of reach; 8 -> 9, no change"),
    ("munchkin-1.6", None, 8, [1500, 1500], 1, "1.6 Selling Items for Levels: 3,000 gold at Level 8 still gives one level"),
    ("munchkin-1.6", None, 7, [3000], 2, "1.6 Selling Items for Levels: two levels to Level 9"),
    ("munchkin-1.6", None, 6, [5000], 3, "1.6 Selling Items for Levels: up to Level 9, the rest is lost"),
    ("munchkin-1.71", None, 8, [2500], 1, "1.71 Vendere Oggetti per ottenere Livelli: not to Level 10, up to 9"),
    ("munchkin-classic", None, 8, [2000], 1, "German rules 2003, Stufe 10: whatever else would reach 10 stops at 9"),
    ("munchkin-1.6", {"epic": True}, 18, [3000], 1, "Epic: the same one below Level 20"),
    ("munchkin-1.6", {"epic": True}, 9, [2000], 2, "Epic: Level 10 is an ordinary level"),
    ("munchkin-1.6", {"top_level": 5}, 3, [2000], 1, "custom top level 5: selling stops at 4"),
])
def test_selling_stops_one_below_the_top(profile, options, level, golds, gained, source):
    from companion.referee import sheet
    from companion.referee.profiles import get_profile
    p = _for_sale(level, golds)
    ops, gold, levels = sheet.sell_ops(p, "a", [i["uid"] for i in p["items"]], get_profile(profile, options))
    assert (gold, levels) == (sum(golds), gained), source
    assert ops[-1] == {"op": "level", "seat": "a", "delta": gained, "cause": "up"}
    assert [op["value"]["uid"] for op in ops[:-1]] == [i["uid"] for i in p["items"]]  # every item sold goes


@pytest.mark.parametrize("profile, options, level, source", [
    ("munchkin-1.6", None, 9, "1.6 Selling Items for Levels: you may not sell items to go to Level 10"),
    ("munchkin-1.71", None, 9, "1.71 Vendere Oggetti per ottenere Livelli"),
    ("munchkin-classic", None, 9, "German rules 2003, Stufe 10"),
    ("munchkin-1.6", {"epic": True}, 19, "Epic: no buying Level 20"),
    ("munchkin-1.6", {"top_level": 5}, 4, "custom top level 5"),
])
def test_no_sale_gives_a_level_one_below_the_top(profile, options, level, source):
    from companion.referee import sheet
    from companion.referee.profiles import get_profile
    from companion.referee.rules import waiving
    p = _for_sale(level, [1000, 2000])
    with pytest.raises(Refused) as exc:
        sheet.sell_ops(p, "a", ["i0", "i1"], get_profile(profile, options))
    assert exc.value.rule.id == "items.sell-not-to-win", source
    with waiving(["items.sell-not-to-win"]) as used:  # a house ruling: refused with rules.refuse
        _, _, levels = sheet.sell_ops(p, "a", ["i0", "i1"], get_profile(profile, options))
    assert used == ["items.sell-not-to-win"] and levels == 1  # never past the top


def test_selling_at_level_8_through_the_table(g):
    """1.6 Selling Items for Levels: at Level 8, 2,000 gold gives Level 9; the rest is lost (no change)."""
    g.level(8)
    g.do("item.add", item={**HELM, "gold": 1200})
    g.do("item.add", item={**BOOTS, "gold": 1000})
    sale = g.do("item.sell", uids=[g.item("Helm of Courage")["uid"], g.item("Boots of Butt-Kicking")["uid"]])
    assert g.p()["level"] == 9 and g.p()["items"] == [] and not g.state.winners
    g.undo(sale)
    assert g.p()["level"] == 8 and len(g.p()["items"]) == 2


@pytest.mark.parametrize("levels, dead, hand, expected, source", [
    ({"a": 5, "b": 1, "c": 3}, {"b"}, 7, {"discard": False, "shares": [{"seat": "c", "cards": 2}], "skipped_dead": ["b"]},
     "1.6 Death: the dead receive no cards, not even Charity; the lowest living player gets them"),
    ({"a": 3, "b": 1, "c": 2}, {"b", "c"}, 7, {"discard": True, "shares": [], "skipped_dead": ["b", "c"]},
     "1.6 Turn Phases, Charity: every lower player dead, the giver is the lowest living: discard"),
    ({"a": 2, "b": 1, "c": 2}, {"b"}, 6, {"discard": True, "shares": []},
     "1.6 Charity: tied for the lowest living, discard"),
    ({"a": 5, "b": 2, "c": 2, "d": 2}, {"b"}, 8, {"shares": [{"seat": "c", "cards": 2}, {"seat": "d", "cards": 1}],
                                                 "giver_chooses_bigger": True},
     "1.6 Charity: living players tied for lowest split the cards; the dead one gets none"),
    ({"a": 5, "b": 4, "c": 1}, {"b"}, 7, {"shares": [{"seat": "c", "cards": 2}], "skipped_dead": []},
     "1.6 Charity: a dead player above the lowest changes nothing"),
])
def test_charity_skips_the_dead(levels, dead, hand, expected, source):
    from companion.referee import sheet
    from companion.referee.profiles import get_profile
    players = {seat: {"level": level, **({"dead": True} if seat in dead else {})} for seat, level in levels.items()}
    result = sheet.charity(players, "a", hand, get_profile("munchkin-1.6"))
    assert {k: result[k] for k in expected} == expected, source


def test_classic_charity_goes_to_the_lowest_living_player():
    """German rules 2003, Phasen einer Runde, Milde Gabe; Dutch rules 2001, Liefdadigheid: the living player
    with the lowest level (a Dwarf keeps 6)."""
    from companion.referee import sheet
    from companion.referee.profiles import get_profile
    players = {"a": {"level": 6, "races": ["dwarf"]}, "b": {"level": 1, "dead": True}, "c": {"level": 4, "dead": False},
               "d": {"level": 4}}
    result = sheet.charity(players, "a", 9, get_profile("munchkin-classic"))
    assert (result["limit"], result["excess"]) == (6, 3)
    assert result["shares"] == [{"seat": "c", "cards": 2}, {"seat": "d", "cards": 1}] and result["rule"] == "charity"


@pytest.mark.parametrize("p, who, expected, source", [
    ({"races": ["elf"], "half_breed": True}, {"race": "human"}, True,
     "German rules 2003, Halb-Blut: with one race, half that race and half human"),
    ({"races": ["elf"], "half_breed": True}, {"race": "elf"}, True, "Dutch rules 2001, Halfbloed: and still that race"),
    ({"races": ["elf", "dwarf"], "half_breed": True}, {"race": "human"}, False,
     "Dutch rules 2001, Halfbloed: with two races, half Elf and half Dwarf, not human"),
    ({"races": ["elf", "dwarf"], "half_breed": True}, {"race": "dwarf"}, True, "German rules 2003, Halb-Blut"),
    ({"races": ["elf"]}, {"race": "human"}, False, "1.6 Character Stats, Race: a race card, not human"),
    ({"races": []}, {"race": "human"}, True, "1.6 Character Stats, Race: no race card, human"),
])
def test_half_breed_with_one_race_is_half_human(p, who, expected, source):
    from companion.referee import sheet
    assert sheet.is_(p, who) is expected, source


def test_half_breed_races_for_display_and_items_for_humans():
    from companion.referee import sheet
    p = {"level": 2, "races": ["halfling"], "half_breed": True, "classes": [],
         "items": [{"uid": "x", "name": "Human Shield", "slot": "none", "bonus": 2, "in_use": True,
                    "usable_by": [{"race": "human"}]}]}
    assert sheet.races_of(p) == ["halfling", "human"]
    assert sheet.races_of({**p, "races": ["halfling", "elf"]}) == ["halfling", "elf"]
    assert sheet.races_of({**p, "races": []}) == ["human"]
    assert sheet.strength(p)["total"] == 4  # the item for Humans counts (German rules 2003, Halb-Blut)
    assert sheet.strength({**p, "half_breed": False})["total"] == 2
