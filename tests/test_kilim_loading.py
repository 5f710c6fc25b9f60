"""Kilim states and views enter through one checked path (docs/views/README.md, kilim.md): the
schema, the invariants, a legal move, the round trip; a view must be the seat to move's; the
move generator never writes past its buffer; a state no game reaches cannot hang a search.
What every game's loaders do (round trips at every count, a view only of the seat to move or
of a finished game, non-objects, unknown keys, deep and huge input, the most moves of random
games, per phase) is the conformance suite's (tests/test_conformance.py)."""
import copy
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from cext import kilim as core
from engine.games.kilim import Kilim
from engine.registry import from_json
from engine.validation import IllegalPositionError
from game_support import REGRESSIONS, edit, first_position, refused
from kilim_support import (deal, play, reveal, start_of_day, texts, third_day, window,
                           without_derived)



def played(players, seed, moves, rng_seed=0):
    g = Kilim(players, seed)
    rng = random.Random(rng_seed)
    for _ in range(moves):
        g.apply(rng.choice(g.legal_moves()))
    return g


# ================================================================ the inputs that broke Caravan
@pytest.mark.parametrize("name,message", [
    ("kilim-state-hand-short.json",
     "player_state[2].hand: 14 auctions so far today leave this hand 1 Gold card, not 0"),
    ("kilim-state-step-changed.json",
     "step: phase token-pick comes at step 4 (weaving the won dominoes), not 1"),
    ("kilim-state-two-scrap-bags.json",
     "player_state[1].hand: 8 auctions so far today leave this hand 7 Gold cards, not 6"),
])
def test_each_regression_file_is_refused_naming_the_field(name, message):
    case = json.loads((REGRESSIONS / name).read_text())
    assert case["game"] == "kilim" and case["kind"] == "json"
    error = refused(Kilim.from_json, case["data"], message, error=IllegalPositionError)
    assert str(error) == message
    refused(from_json, case["data"], message)                  # the registry's door too


def test_a_state_with_a_seat_out_of_gold_cannot_hang_a_search():
    """kilim-state-two-scrap-bags.json forced past the checks: seat 1 runs out of Gold cards
    before the day ends, so a playout reaches a position with no legal move. The core ends
    such a game instead of playing nothing forever while holding the GIL (the search once
    never returned). Run in a child process, so a hang fails the test instead of the run."""
    code = (
        "import json, sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from kilim_support import forced\n"
        "from search import search\n"
        "st = forced(json.load(open(sys.argv[2]))['data'])\n"
        "print('returned', search(st, iterations=2000, seed=1).iterations)\n")
    r = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent),
                        str(REGRESSIONS / "kilim-state-two-scrap-bags.json")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["returned", "2000"]


# ================================================================ one path in
def test_derived_fields_may_be_left_out_but_must_agree_when_given():
    g = played(3, 4, 60)
    d = g.to_json()
    assert Kilim.from_json(without_derived(d)).to_json() == d
    v = g.to_json(view=g.to_move)
    thin = without_derived(v)
    for p, ps in enumerate(thin["player_state"]):
        if p != g.to_move:                 # the only count of another seat's scraps a view has
            ps["scraps_held_count"] = v["player_state"][p]["scraps_held_count"]
    assert Kilim.from_view(thin).to_json(view=g.to_move) == v
    for change, field in [(lambda x: x["player_state"][1].update(score=x["player_state"][1]["score"] + 1),
                           "player_state[1].score"),
                          (lambda x: x.update(pile_counts=[x["pile_counts"][0] + 1] + x["pile_counts"][1:]),
                           "pile_counts[0]"),
                          (lambda x: x.update(turn=x["turn"] + 1), "turn"),
                          (lambda x: x.update(perfect_supply=2), "perfect_supply"),
                          (lambda x: x.update(torn_in=[2, 2, 2]), "torn_in[0]"),
                          (lambda x: x["player_state"][0].update(has_chosen=True),
                           "player_state[0].has_chosen")]:
        stale = copy.deepcopy(d)
        change(stale)
        refused(Kilim.from_json, stale, field, error=IllegalPositionError)


def test_a_missing_required_field_is_named():
    d = Kilim(3, 1).to_json()
    del d["torn_seen"]
    refused(Kilim.from_json, d, "(root): missing key 'torn_seen'")
    d = Kilim(3, 1).to_json()
    del d["player_state"][1]["hand"]
    refused(Kilim.from_json, d, "player_state[1]: missing key 'hand'")


def test_sets_may_come_in_any_order_piles_may_not_be_reordered_silently():
    g = played(3, 5, 70)
    d = g.to_json()
    shuffled = copy.deepcopy(d)
    shuffled["revealed"].reverse()
    for ps in shuffled["player_state"]:
        ps["hand"].reverse()
        ps["kilim"]["dominoes"].reverse()
    assert Kilim.from_json(shuffled).to_json() == d
    reordered = copy.deepcopy(d)
    reordered["piles"][2].reverse()           # another pile order is another position
    assert Kilim.from_json(reordered).to_json()["piles"] == reordered["piles"]


@pytest.mark.parametrize("where", [(), ("player_state", 0), ("player_state", 2, "kilim"),
                                   ("tokens", 1)])
def test_unknown_keys_are_refused_at_every_level(where):
    d = Kilim(3, 6).to_json()
    target = d
    for step in where:
        target = target[step]
    target["colour_of_the_sky"] = "blue"
    path = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in where).lstrip(".")
    refused(Kilim.from_json, d, f"{path or '(root)'}: unknown key 'colour_of_the_sky'")


def test_unknown_keys_in_a_view_and_in_placing_are_refused():
    g = Kilim(3, 1)
    play(g, "gold-5", "gold-3", "gold-1")     # seat 0 won: it weaves
    assert g.phase == "place"
    v = g.to_json(view=g.to_move)
    v["placing"]["speed"] = 3
    refused(Kilim.from_view, v, "placing: unknown key 'speed'")
    v = g.to_json(view=g.to_move)
    v["player_state"][1]["scraps_held"] = []
    refused(Kilim.from_view, v, f"player_state[1].scraps_held: seat {g.to_move}'s view cannot hold")


MESSAGES = [
    (edit(["player_state", 2, "hand", 3], "gold-99"), "player_state[2].hand[3]: must be one of"),
    (lambda d: d.update(tokens=d["tokens"][:3]), "tokens: expected 4 items, got 3"),
    (edit(["player_state", 1, "perfect_held"], True),
     "player_state[1].perfect_held: expected an integer, got boolean"),
    (edit(["player_state", 0, "kilim", "dominoes"], [[0, 0, "h", "AB"], [0, 1, "v", "CC"]]),
     "player_state[0].kilim.dominoes[1]: overlaps another domino"),
]


@pytest.mark.parametrize("change,message", MESSAGES, ids=[m.split(":")[0] for _, m in MESSAGES])
def test_messages_name_the_field_path(change, message):
    d = Kilim(3, 1).to_json()
    change(d)
    refused(Kilim.from_json, d, message)


def test_a_view_holds_no_other_seats_face_down_parts():
    g = played(3, 2, 1)                       # seat 0 chose its card face down
    v = g.to_json(view=1)
    v["player_state"][0]["choice"] = g.to_json()["player_state"][0]["choice"]
    refused(Kilim.from_view, v, "player_state[0].choice: seat 0's card is face down")


def test_whereabouts_must_fit_what_the_seat_sees():
    g = Kilim(3, 2)
    play(g, "scrap-bag", "gold-3", "gold-2", "gold-4", "scrap-D")      # seat 0 keeps D
    while g.phase != "card":
        g.apply(g.legal_moves()[0])
    v = g.to_json(view=0)
    bad = copy.deepcopy(v)
    bad["scrap_whereabouts"]["D"] = [1]
    refused(Kilim.from_view, bad, "scrap_whereabouts.D: seat 0 sees scrap D")
    bad = copy.deepcopy(v)
    del bad["scrap_whereabouts"]["A"]
    refused(Kilim.from_view, bad, "scrap_whereabouts: missing scrap A")
    bad = copy.deepcopy(v)
    bad["scrap_whereabouts"] = {x: [1] for x in bad["scrap_whereabouts"]}   # seat 1 holds none
    refused(Kilim.from_view, bad, "no placement")


# ================================================================ reachability
def test_a_woven_domino_must_have_been_revealed():
    g = third_day(3, kilims={0: {"dominoes": [[0, 0, "h", "AB"]]}})
    d = g.to_json()
    d["player_state"][1]["kilim"]["dominoes"] = [[0, 0, "h", "AB"]] * 1
    d["player_state"][2]["kilim"]["dominoes"] = [[0, 0, "h", "AB"]]
    d["lost"] -= 2
    refused(Kilim.from_json, without_derived(d), "revealed: 3 AB dominoes woven, 2 revealed")


def test_a_kilim_cannot_spread_further_than_its_dominoes_reach():
    """Two dominoes far apart: no sequence of placements (each touching the Kilim) made it."""
    def edit(d):
        d["player_state"][0]["kilim"]["dominoes"] = [[0, 0, "h", "AB"], [20, 20, "h", "CD"]]
    with pytest.raises(IllegalPositionError, match=r"player_state\[0\].kilim: a Kilim of 21 rows"):
        third_day(3, kilims={0: {"dominoes": [[0, 0, "h", "AB"], [1, 0, "h", "CD"]]}}, edit=edit)


def test_a_token_in_hand_was_taken_by_an_artisan_call():
    g = window(kilims={0: {"dominoes": [[0, 0, "h", "AA"]]}}, tokens={"rotate": 0})
    d = g.to_json()
    d["tokens"][2]["holder"] = 0                 # a second token, with one Artisan call today
    refused(Kilim.from_json, without_derived(d), "tokens: seat 0 holds 2 tokens, but one Artisan "
            "card a day calls the Artisan once")


def test_a_token_holder_has_played_its_artisan_card_today():
    """An audit's position: day 0, turn 1, both Artisan cards still in hand, yet seat 0 holds
    the Move token. Only the Artisan's caller takes a token (interpretation 4)."""
    g = played(2, 11, 3, rng_seed=11)
    d = g.to_json()
    assert all("artisan" in ps["hand"] for ps in d["player_state"])
    for seat, used in ((0, False), (1, True)):
        mutated = json.loads(json.dumps(d))
        mutated["tokens"][3]["holder"], mutated["tokens"][3]["used"] = seat, used
        refused(Kilim.from_json, without_derived(mutated), f"tokens[3]: seat {seat} holds a "
                "token but has not played its Artisan card today")


def second_auction_showing(card):
    """Kilim(3), day 0, the second auction: seat 0 shows `card` (Scrap Bag or Artisan), seats
    1 and 2 Gold cards, and the offers of the special cards are being made."""
    g = Kilim(3, 12)
    play(g, "gold-5", "gold-6", "gold-7")
    while g.phase != "card":
        g.apply(g.legal_moves()[0])
    play(g, card, "gold-3", "gold-4")
    return g.to_json()


def test_a_seat_showing_its_scrap_bag_this_turn_has_not_searched_yet():
    """An audit's position: seat 0 shows its one Scrap Bag of the day now, before the offers,
    yet holds a scrap. The loader took its card for one played earlier; one more search then
    left the seat with two scraps on the first day, which the invariants refuse."""
    d = second_auction_showing("scrap-bag")
    assert d["phase"] == "scrap-bid" and not d["player_state"][0]["scraps_held"]
    Kilim.from_json(d)
    del d["whereabouts_by_seat"], d["scrap_groups_by_seat"]   # nothing learned (docs/views/kilim.md)
    d["scraps_on_board"].remove("C")
    d["player_state"][0]["scraps_held"].append("C")
    refused(Kilim.from_json, without_derived(d), "player_state[0].scraps_held: seat 0 has 1 "
            "scrap, but it searched the bag at most 0 times")


def test_a_seat_showing_its_artisan_this_turn_holds_no_token_before_its_call():
    """An audit's position: seat 0 shows its one Artisan card of the day now, before the
    offers, yet holds a token (the loader took the card for one played earlier; its call then
    gave it a second token)."""
    d = second_auction_showing("artisan")
    assert d["phase"] == "artisan-bid"
    Kilim.from_json(d)
    d["tokens"][3]["holder"] = 0
    refused(Kilim.from_json, without_derived(d), "tokens[3]: seat 0 holds a token but shows its "
            "Artisan card only this turn, and has not called the Artisan with it yet")


@pytest.mark.parametrize("token,message", [
    (0, "tokens[0]: the perfect-carpet token is used, but no perfect carpet has left the supply"),
    (2, "tokens[2]: the Remove token is used, but nothing was removed")])
def test_a_used_token_did_its_work(token, message):
    """Taking a perfect carpet and removing something are what mark those tokens used (an
    audit's finding, 2026-12-07)."""
    d = first_position(Kilim, 3, lambda d: d["phase"] == "card" and d["day"] == 0 and
                       d["tokens"][token]["holder"] >= 0 and not d["tokens"][token]["used"] and
                       d["perfect_supply"] == 3 and not d["scraps_out"])
    Kilim.from_json(d)
    d["tokens"][token]["used"] = True
    refused(Kilim.from_json, without_derived(d), message)


def test_a_seat_that_never_searched_cannot_rule_out_the_board():
    """On the first day a seat with its Scrap Bag card in hand has never looked at the board:
    it cannot know that a scrap another seat holds is off it (an audit's finding, 2026-12-07:
    determinizations then knew where the scrap was)."""
    def blind_while_another_holds(d):
        seat = d["player_state"][0]
        return d["day"] == 0 and "scrap-bag" in seat["hand"] and any(
            ps["scraps_held"] for ps in d["player_state"][1:])
    d = first_position(Kilim, 3, blind_while_another_holds)
    Kilim.from_json(d)
    holder = next(p for p in (1, 2) if d["player_state"][p]["scraps_held"])
    scrap = d["player_state"][holder]["scraps_held"][0]
    assert "board" in d["whereabouts_by_seat"][0][scrap]
    d["whereabouts_by_seat"][0][scrap] = [holder]
    refused(Kilim.from_json, without_derived(d), "scrap_whereabouts: seat 0 has not searched the "
            f"bag, so it cannot know that scrap {scrap} is off the board")


def test_the_artisans_winner_holds_a_token_once_it_has_picked():
    """The Artisan's winner takes a token when one is left (rulebook, 4. Artisan: "They then
    take one of the 4 Artisan tokens and keep it")."""
    g = Kilim(2, 15)
    play(g, "gold-5", "artisan", "gold-1", "token-move")
    d = g.to_json()
    assert d["phase"] == "place" and d["tokens"][3]["holder"] == 1
    d["tokens"][3]["holder"] = -1
    refused(Kilim.from_json, without_derived(d), "tokens: seat 1 won the Artisan this turn and "
            "holds no token, but one was left to take")


def test_nothing_is_lost_before_the_first_days_last_auction():
    """A domino nobody won is carried to the next auction; only the day's last auction loses
    dominoes (interpretation 2). A carried one counted lost early on the first day is refused
    (an audit's finding, 2026-12-07)."""
    d = first_position(Kilim, 2, lambda d: d["day"] == 0 and d["phase"] == "card" and
                       d["pending"])
    Kilim.from_json(d)
    d["lost"], d["pending"] = len(d["pending"]), []
    refused(Kilim.from_json, without_derived(d), f"lost: {d['lost']}, but dominoes are lost "
            "only at a day's last auction, and the first day's is still to come")


def test_seats_choose_in_order():
    g = played(3, 2, 1)                       # seat 0 has chosen
    d = g.to_json()
    d["to_move"] = 2                          # seat 1 skipped
    refused(Kilim.from_json, without_derived(d), "player_state[1].choice: seats choose in order")


def test_the_auction_outcome_is_what_the_offers_shown_give():
    g = Kilim(4, 1)
    play(g, "scrap-bag", "gold-5", "gold-3", "gold-1")
    d = g.to_json()
    assert d["phase"] == "scrap-bid" and d["winner"] == 1
    d["winner"] = 2
    refused(Kilim.from_json, d, "winner: the offers shown give winner 1 with 5, not 2 with 5")


def test_knowledge_that_excludes_where_a_scrap_is_is_refused():
    """Seat 1 believing that seat 0's face-down scrap D is on the board: a determinization for
    seat 1 could not put D back where it is."""
    g = Kilim(3, 2)
    play(g, "scrap-bag", "gold-3", "gold-2", "gold-4", "scrap-D")
    g.check_invariants()
    f = g._fields()
    f["where"][1][3] = 1 << core.WHERE_BOARD
    g._set_fields(f)
    with pytest.raises(IllegalPositionError, match="scrap_whereabouts: seat 1 believes scrap D"):
        g.check_invariants()


# ================================================================ the move bound
def every_domino_in_one_kilim():
    """The last window of a 3-player game: seat 0 won every auction and wove all 45 dominoes
    as a staircase, each one row down and one column right of the last (45 rows, 46 columns:
    the widest a Kilim gets), and holds scrap B from its search of the day."""
    fresh = Kilim(3, 1).to_json()
    dominoes = [fresh["on_table"]] + [t for pile in fresh["piles"] for t in pile]
    d = copy.deepcopy(fresh)
    d.update(day=2, phase="window", to_move=0, on_table=None, revealed=dominoes,
             torn_seen=[1, 1, 1], piles=[[], [], []])
    d["player_state"][0]["kilim"]["dominoes"] = [
        [i, i, "h", t[1:] if len(t) == 3 else t] for i, t in enumerate(dominoes)]
    # the last auction: seat 0 offered its last Gold card, seats 1 and 2 theirs, which cancel
    for p, ps in enumerate(d["player_state"]):
        ps["choice"] = "gold-1" if p == 0 else "gold-7"
        ps["hand"] = ["spy", "artisan"] if p == 0 else ["spy", "scrap-bag", "artisan"]
    d["scraps_on_board"].remove("B")
    d["player_state"][0]["scraps_held"] = ["B"]
    del d["whereabouts_by_seat"], d["scrap_groups_by_seat"]   # built: nobody has learned anything
    return Kilim.from_json(without_derived(d))


def test_the_most_moves_a_position_has_is_a_scrap_for_the_widest_kilim():
    """The bound is reached: a scrap may go on every cell of a 45 x 46 bounding box."""
    g = every_domino_in_one_kilim()
    assert g.kilim_size(0) == 90 and len(g.kilim_rows(0)) == 45
    play(g, "weave-scrap-B")
    assert g.phase == "scrap-at"
    assert len(g.legal_moves()) == 45 * 46 == core.MOST_MOVES
    rows = core.MOST_SPAN // 2
    assert rows * (core.MOST_SPAN - rows) == core.MOST_MOVES <= 4096    # MAX_MOVES, cext/core.pxd


def unchecked_grid(g, p, cells):
    """g with seat p's grid overwritten by `cells` pattern-A cells and no dominoes, past every
    check: a state no game reaches."""
    f = g._fields()
    m = [0] * core.N_MASKS
    for r, c in cells:
        m[0] |= 1 << (128 * (r + core.ORG) + c + core.ORG)
    f["k"][p].update(m=m, rmax=max(r for r, _ in cells) + core.ORG,
                     cmax=max(c for _, c in cells) + core.ORG, n_cells=len(cells), n_dom=0)
    g._set_fields(f)
    return g


def test_the_move_generator_refuses_a_kilim_no_game_reaches_instead_of_overrunning():
    """A 100 x 100 grid in the core (past the loader) would give 10,000 cells for a scrap and
    thousands of placements: the generator returns no move rather than write past the buffer."""
    g = window(kilims={0: {"dominoes": [[0, 0, "h", "AA"]]}}, scraps_held={0: ["B"]})
    play(g, "weave-scrap-B")
    full = [(r, c) for r in range(100) for c in range(100)]
    assert unchecked_grid(g.clone(), 0, full).legal_moves() == []
    g = Kilim(3, 1)
    play(g, "gold-5", "gold-3", "gold-1")
    assert g.phase == "place"
    dots = [(r, c) for r in range(0, 100, 2) for c in range(0, 100, 2)]     # 2,500 single cells
    assert unchecked_grid(g, 0, dots).legal_moves() == []
    with pytest.raises(IllegalPositionError):
        g.check_invariants()


def test_a_full_state_keeps_what_every_seat_learned_of_the_scraps():
    g = played(3, 4, 60)
    views = [g.to_json(view=o) for o in range(3)]
    again = Kilim.from_json(g.to_json())
    assert [again.to_json(view=o) for o in range(3)] == views
    d = g.to_json()
    woven = d["player_state"][1]["kilim"]["scraps"][0][0]       # scrap D, woven: seen by all
    d["whereabouts_by_seat"][2][woven] = ["board"]
    refused(Kilim.from_json, d, "whereabouts_by_seat[2]", f"sees scrap {woven}")


def test_a_scrap_held_today_needs_the_scrap_bag_card_shown_today():
    """One Scrap Bag a day, searched only once the card is shown: a seat holding a scrap on
    the first day with its Scrap Bag card still in hand is refused (the loader fuzzer's seed
    8443 found such a view accepted; one more search then broke the invariants)."""
    from engine.registry import new_game

    g, rng = new_game("kilim", 3, 4), random.Random(4)
    while not any(ps["scraps_held"] for ps in g.to_json()["player_state"]):
        g.apply(rng.choice(g.legal_moves()))
    while g.phase != "card":                   # the next auction: the search was a turn ago
        g.apply(rng.choice(g.legal_moves()))
    d = g.to_json()
    assert d["day"] == 0
    seat = next(p for p, ps in enumerate(d["player_state"]) if ps["scraps_held"])
    assert "scrap-bag" not in d["player_state"][seat]["hand"]
    Kilim.from_json(d)                                   # as played: accepted
    d["player_state"][seat]["hand"].append("scrap-bag")
    with pytest.raises(IllegalPositionError,
                       match=rf"^player_state\[{seat}\]\.scraps_held: seat {seat} has 1 scrap, "
                             r"but it searched the bag at most 0 times"):
        Kilim.from_json(d)


# ================================================================ found by a mutation audit
# (2026-12-07): a weakened check let these through with every test passing
def test_an_artisan_discard_equal_to_the_winning_offer_needs_no_lower_card():
    # docs/rules/kilim.md, Positions the rules reach: "an Artisan offer that is not below the
    # winning offer is a discard, which a seat makes only when it has no Gold card that would
    # be". Both Artisan seats tied at 3 (nobody called); rewritten as both offering 5 = the
    # winning offer while holding gold-1..4.
    g = Kilim(4, 1)
    play(g, "artisan", "artisan", "gold-5", "gold-1", "gold-3", "gold-3")
    assert g.phase == "place" and g.to_move == 2
    d = g.to_json()
    Kilim.from_json(without_derived(d))
    for p in (0, 1):
        ps = d["player_state"][p]
        ps["artisan_bid"] = 5
        ps["hand"] = sorted(set(ps["hand"]) - {"gold-5"} | {"gold-3"})
    refused(Kilim.from_json, without_derived(d), "artisan_bid", "is no offer below 5",
            error=IllegalPositionError)


def test_more_tokens_than_artisan_calls_today_are_refused():
    # Rulebook, 4. Artisan: the caller "take[s] one of the 4 Artisan tokens"; one call per
    # auction, so after one auction one token at most is off the board.
    g = Kilim(4, 1)
    play(g, "artisan", "artisan", "gold-5", "gold-4", "gold-1", "gold-2", "token-rotate")
    while g.phase != "card":
        play(g, texts(g)[0])
    d = g.to_json()
    assert [t["holder"] for t in d["tokens"]] == [-1, 0, -1, -1]
    Kilim.from_json(without_derived(d))
    d["tokens"][2]["holder"] = 1
    refused(Kilim.from_json, without_derived(d), "tokens: 2 tokens taken today, but the Artisan "
            "was called at most 1 times", error=IllegalPositionError)


def test_a_domino_of_a_later_day_cannot_be_revealed():
    # Rulebook, Setup 3: "Set aside piles 2 and 3 for the following days": on day 2 nothing of
    # pile 3 is revealed.
    d = deal(3, 0, {}, groups=2)
    start_of_day(d, 1, 0)
    Kilim.from_json(without_derived(d))
    reveal(d, 2, 1)
    d["lost"] += 1
    refused(Kilim.from_json, without_derived(d), "revealed: a domino of day 3 revealed on day 2",
            error=IllegalPositionError)


def test_three_perfect_carpets_cannot_be_taken_in_two_days():
    # Rulebook, 4. Artisan: the tokens are used "until the end of the current day" and go back
    # "at the start of a new day": the perfect-carpet token takes one carpet a day at most, so
    # on the morning of day 3 at most two have left the supply.
    two = {"dominoes": [[0, 0, "h", "PP"], [1, 0, "h", "PP"]]}
    third_day(3, kilims={0: two})
    three = {"dominoes": [[0, 0, "h", "PP"], [1, 0, "h", "PP"], [2, 0, "h", "PP"]]}
    with pytest.raises(IllegalPositionError, match="3 perfect carpets taken, but the token was "
                       "used at most 2 times"):
        third_day(3, kilims={0: three})
