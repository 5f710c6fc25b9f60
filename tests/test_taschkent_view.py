"""Taschkent from a seat's view: what a view holds, from_view, and the protocol's view form.

A view (to_json(view=seat)) holds everything the seat knows and nothing else; from_view builds
a full state from it that searches exactly like the true position (docs/views/taschkent.md).
What every game's views do (the seat to move's view round-trips, another seat's is refused,
what is no view is refused, and so is damage to the fields every game shares: game, players,
view, phase, to_move, player_state) is the conformance suite's (tests/test_conformance.py);
mutated views, tests/test_loader_fuzz.py's."""
import copy
import json
import random
import re

import pytest

from engine.games.taschkent import Taschkent, _view_hashes
from engine.registry import from_view, new_game
from protocol_client import (check_view_and_seed_forms_search_alike,
                             play_from_the_seed_form, play_from_views)
from search.suggest import suggest
from game_support import (DELETE, check_a_view_rebuilds_each_seats_world, check_damage_refused,
                          edit, json_keys, rebuild_any_seat, spread_over_phases)

HIDDEN_KEYS = {"seed", "action_pile", "removed_unseen", "trading_pile"}
PHASES = {"action", "move2", "end", "sell"}


def positions_of_game(n, seed, every=1):
    """Every `every`-th position of a random game (not the final one), by phase."""
    g = Taschkent(n, seed)
    rng = random.Random(seed)
    out = []
    k = 0
    while not g.is_terminal():
        if k % every == 0:
            out.append(g.clone())
        g.apply(rng.choice(g.legal_moves()))
        k += 1
    return out, g


def hidden_cards(g):
    d = g.to_json()
    return d["removed_unseen_count"] + sum(ps["action_card_count"] for ps in d["player_state"])


def sample_positions():
    """Positions of every phase at every player count: early, middle and late in the game,
    with action cards in several hands (2 players: also cards removed face down)."""
    picked = []
    for n, seeds in ((2, (705, 717)), (3, (731, 732)), (4, (741, 742))):
        for seed in seeds:
            pos, _ = positions_of_game(n, seed)
            picked.append(max(pos, key=hidden_cards))
            picked += spread_over_phases(pos)
    return picked


POSITIONS = sample_positions()


def pid(g):
    return f"{g.n_players}p-c{g.trading_rounds}-r{g.round}-{g.phase}-t{g.turns}"


def test_the_sample_covers_every_phase_and_hidden_cards():
    for n in (2, 3, 4):
        mine = [g for g in POSITIONS if g.n_players == n]
        assert {g.phase for g in mine} == PHASES
        assert any(sum(ps["action_card_count"] for ps in g.to_json()["player_state"]) >= 2
                   for g in mine)
    assert any(g.to_json()["removed_unseen_count"] > 0 for g in POSITIONS if g.n_players == 2)


@pytest.mark.parametrize("g", POSITIONS, ids=pid)
def test_a_state_from_a_view_is_seen_alike_and_searches_alike(g):
    """Every seat's view rebuilds its world (the seat to move's through from_view; the others'
    are refused there, and checked through the same path without that rule), and a search from
    the rebuilt view of the seat to move goes exactly like a search from the true position."""
    check_a_view_rebuilds_each_seats_world(g, rebuild_any_seat(Taschkent))


def test_view_hashes_public_shared_by_every_seat_private_per_seat():
    g = POSITIONS[len(POSITIONS) // 2]
    hashes = [_view_hashes(g.to_json(view=s), s) for s in range(g.n_players)]
    assert len({pub for pub, _ in hashes}) == 1
    assert len({priv for _, priv in hashes}) == g.n_players
    # a view built twice gives the same keys: stable across processes, no history needed (the
    # seat to move; every seat once the game is over)
    _, over = positions_of_game(3, 732)
    for h, seats in ((g, [g.to_move]), (over, range(over.n_players))):
        for s in seats:
            a = Taschkent.from_view(h.to_json(view=s))
            b = Taschkent.from_view(json.loads(json.dumps(h.to_json(view=s))))
            for p in range(h.n_players):
                for mode in ("so", "mo"):
                    assert a.info_key(p, s, mode) == b.info_key(p, s, mode)


def test_the_state_from_a_view_carries_the_view_hashes():
    _, g = positions_of_game(3, 732)             # finished: every seat's view loads
    n = g.n_players
    states = [Taschkent.from_view(g.to_json(view=s)) for s in range(n)]
    # public hash and shared entries: the same whichever seat's view built the state
    for a in range(n):
        for b in range(n):
            if a != b:
                assert states[a].info_key(b, a, "so") == states[b].info_key(b, a, "so")
    # the seat's own information set follows its private cards
    v = base_view()
    other = copy.deepcopy(v)
    other["player_state"][0]["action_cards"] = {"removal": 1, "shortage": 1}
    other["unknown_action_cards"]["35"] += 1
    other["unknown_action_cards"]["shortage"] -= 1
    a, b = Taschkent.from_view(v), Taschkent.from_view(other)
    assert a.info_key(0, 0, "so") != b.info_key(0, 0, "so")
    assert a.info_key(1, 0, "so") == b.info_key(1, 0, "so")


@pytest.mark.parametrize("g", POSITIONS[::3], ids=pid)
def test_a_view_never_holds_what_its_seat_cannot_see(g):
    full = g.to_json()
    for seat in range(g.n_players):
        view = g.to_json(view=seat)
        keys = {k for _, k in json_keys(view)}
        assert not keys & HIDDEN_KEYS
        holders = [path for path, k in json_keys(view) if k == "action_cards"]
        assert holders == [f"/player_state/{seat}"]
        assert view["player_state"][seat]["action_cards"] == \
            full["player_state"][seat]["action_cards"]
        # the view is the same whatever the hidden cards are (and whatever the seed was)
        changed = 0
        for s in range(8):
            d = g.determinized(seat, 50 + s)
            assert d.to_json(view=seat) == view
            changed += d.to_json()["action_pile"] != full["action_pile"] or \
                d.to_json()["trading_pile"] != full["trading_pile"]
        assert changed > 0
        # public by counting: the unknown action cards are the other hands, pile and removed
        unknown = {t: 0 for t in view["unknown_action_cards"]}
        for p, ps in enumerate(full["player_state"]):
            if p != seat:
                for t, k in ps["action_cards"].items():
                    unknown[t] += k
        for t in full["action_pile"] + full["removed_unseen"]:
            unknown[t] += 1
        assert unknown == view["unknown_action_cards"]
        pile = {t: full["trading_pile"].count(t) for t in ("silk", "china", "spices")}
        assert view["trading_pile_contents"] == pile


def test_derived_fields_may_be_left_out():
    g = POSITIONS[5]
    view = g.to_json(view=g.to_move)
    lean = {k: v for k, v in view.items() if k not in ("trading_pile_contents",
                                                       "unknown_action_cards")}
    assert Taschkent.from_view(lean).to_json(view=g.to_move) == view
    zeros = copy.deepcopy(view)
    zeros["player_state"][g.to_move]["action_cards"].setdefault("removal", 0)
    zeros["played_cards"].setdefault("cameleer", 0)
    assert Taschkent.from_view(zeros).to_json(view=g.to_move) == view


def with_hand(g, seat, cards):
    """A position in which `seat` holds `cards` (moved from the action pile: drawn on field 2,
    where its cameleer went if it was still outside)."""
    d = g.to_json()
    for c in cards:
        d["action_pile"].remove(c)
        d["action_pile_count"] -= 1
        ac = d["player_state"][seat]["action_cards"]
        ac[c] = ac.get(c, 0) + 1
        d["player_state"][seat]["action_card_count"] += 1
    if d["player_state"][seat]["cameleer"] == "outside":
        d["player_state"][seat]["cameleer"] = "cards"
    return Taschkent.from_json(d)


def base_view():
    g = with_hand(Taschkent(3, 5), 0, ["removal", "35"])
    g = with_hand(g, 1, ["removal"])
    return g.to_json(view=0)


BAD_VIEWS = {
    "tugrik as text": edit(["player_state", 1, "tugrik"], "three"),
    "negative tugrik": edit(["player_state", 1, "tugrik"], -1),
    "huge tugrik": edit(["player_state", 1, "tugrik"], 2 ** 70),
    "posts lost": edit(["player_state", 2, "supply"], 1),
    "hut nowhere": edit(["huts", 20, "at"], "moon"),
    "hut list short": lambda v: v["huts"].pop(),
    "ten connections": lambda v: v["connections"].extend([v["connections"][0]] * 7),
    "action card count off": edit(["player_state", 0, "action_card_count"], 5),
    "unknown action card": edit(["player_state", 0, "action_cards", "joker"], 1),
    "three removal cards": lambda v: (edit(["player_state", 0, "action_cards", "removal"], 3)(v),
                                      edit(["player_state", 0, "action_card_count"], 4)(v)),
    "another seat's cards": edit(["player_state", 1, "action_cards"], {"removal": 1}),
    "more hidden cards than exist": edit(["action_pile_count"], 11),
    "negative hand size": edit(["player_state", 1, "action_card_count"], -1),
    "too many played": edit(["played_cards", "removal"], 2),
    "trading pile count off": edit(["trading_pile_count"], 3),
    "unknown trading card": lambda v: v["trading_display"].append("gold"),
    "too many silk cards": edit(["player_state", 1, "trading_cards", "silk"], 11),
    "display overfull": lambda v: (v["trading_display"].extend(["silk"] * 3),
                                   v.update(trading_pile_count=v["trading_pile_count"] - 3),
                                   v["trading_pile_contents"].update(
                                       silk=v["trading_pile_contents"]["silk"] - 3)),
    "pile contents wrong": edit(["trading_pile_contents", "silk"], 0),
    "unknown cards wrong": edit(["unknown_action_cards", "removal"], 2),
    "removed cards with 3 players": edit(["removed_unseen_count"], 1),
    "camel count off": edit(["camels", "iron"], 9),
    "round 7": edit(["round"], 7),
    "turns as float": edit(["turns"], 0.5),
    "no turns": edit(["turns"], DELETE),
    "virtual player with 3": edit(["virtual_player"], True),
    "marker out of range": edit(["marker"], 9),
    "bad border": edit(["connections", 0, "border"], "1-8"),
}


@pytest.mark.parametrize("name", sorted(BAD_VIEWS))
def test_malformed_or_impossible_views_are_refused(name):
    check_damage_refused(Taschkent, base_view(), BAD_VIEWS[name])


def test_a_sell_view_whose_seller_cannot_sell_is_refused():
    g = next(g for g in POSITIONS if g.phase == "sell")
    v = g.to_json(view=g.to_move)
    v["trade"]["passed"] = list(range(g.n_players))
    with pytest.raises(ValueError):
        Taschkent.from_view(v)
    v = g.to_json(view=g.to_move)
    v["trade"]["region"] = 99
    with pytest.raises(ValueError):
        Taschkent.from_view(v)


def test_suggest_and_the_registry_take_a_view():
    g = POSITIONS[7]
    view = g.to_json(view=g.to_move)
    assert from_view(view).to_json(view=g.to_move) == view
    a = suggest(g, 400, 4, seed=2)
    b = suggest(json.dumps(view), 400, 4, seed=2)
    assert [(m.text, m.visits) for m in a.moves] == [(m.text, m.visits) for m in b.moves]


def test_a_finished_game_has_a_view():
    _, g = positions_of_game(2, 31)
    for seat in range(2):
        v = g.to_json(view=seat)
        st = Taschkent.from_view(v)
        assert st.is_terminal() and st.to_json(view=seat) == v
        assert st.scores() == g.scores() and st.ranking() == g.ranking()
    check_a_view_rebuilds_each_seats_world(g, Taschkent.from_view)   # every seat, once over


def finished_with_a_35_in_hand():
    """A finished 3-player game in which the 3/5 card in P1's hand decides who is out: P1 has
    2 Tugrik and a 3/5 card (7 counted), P0 has 4 and is out (the poorest), P2 has 5 and holds
    an Activity. P0 holds the most card points but is out."""
    from taschkent_support import finished, fresh, give_action, give_trading, ps
    d = fresh(3, 0)
    give_action(d, 1, "35")
    give_action(d, 1, "removal")
    give_action(d, 2, "activity")
    for p, tugrik in ((0, 4), (1, 2), (2, 5)):
        ps(d, p)["tugrik"] = tugrik
    give_trading(d, 0, ["silk", "china", "spices"])
    give_trading(d, 1, ["silk"])
    for p in range(3):           # fresh() deals the cameleers outside: the marker's holder moved
        if ps(d, p)["cameleer"] == "outside":
            ps(d, p)["cameleer"] = "iron"
    return finished(d)


def test_every_view_of_a_finished_game_shows_the_open_final_count_and_ranks_alike():
    """At the end the players count their Tugrik openly, each unplayed 3/5 card as 5: every
    seat's view of a finished game shows every final_tugrik, and the state from_view builds
    from any seat's view ranks exactly as the true one (the 3/5 card stays in P1's hand)."""
    g = finished_with_a_35_in_hand()
    assert g.tugrik_totals() == [4, 7, 5] and g.eliminated_players() == [0]
    for seat in range(3):
        v = g.to_json(view=seat)
        assert [ps["final_tugrik"] for ps in v["player_state"]] == [4, 7, 5]
        assert "action_cards" not in v["player_state"][(seat + 1) % 3]   # the rest stays hidden
        assert v["unknown_action_cards"]["35"] == 0     # the other one was played
        st = Taschkent.from_view(json.loads(json.dumps(v)))
        assert st.to_json(view=seat) == v
        assert (st.rank_keys(), st.ranking(), st.rewards(), st.scores()) == \
            (g.rank_keys(), g.ranking(), g.rewards(), g.scores())
        assert st.to_json()["player_state"][1]["action_cards"].get("35") == 1
    before = Taschkent(3, 0).to_json(view=0)                # not over: no final count
    assert all("final_tugrik" not in ps for ps in before["player_state"])


def test_the_final_count_is_checked_in_a_view_of_a_finished_game():
    g = finished_with_a_35_in_hand()
    v = g.to_json(view=0)
    own = copy.deepcopy(v)
    del own["player_state"][0]["final_tugrik"]              # derived for the viewer's own seat
    assert Taschkent.from_view(own).to_json(view=0) == v
    for p, value, why in ((1, DELETE, "missing key 'final_tugrik'"), (1, 9, "impossible"),
                          (1, 12, "impossible"), (2, 0, "impossible"), (2, 10, "impossible"),
                          (1, 2, "no placement")):   # the 3/5 card must be somewhere
        bad = copy.deepcopy(v)
        edit(["player_state", p, "final_tugrik"], value)(bad)
        with pytest.raises(ValueError, match=why):
            Taschkent.from_view(bad)
    early = Taschkent(3, 0).to_json(view=0)                 # no final count before the end
    early["player_state"][1]["final_tugrik"] = 4
    with pytest.raises(ValueError, match="final_tugrik"):
        Taschkent.from_view(early)
    state = g.to_json()
    state["player_state"][1]["final_tugrik"] = 2            # derived in a full state: checked
    with pytest.raises(ValueError, match="final_tugrik"):
        Taschkent.from_json(state)


# ---------------------------------------------------------------- through the protocol
@pytest.mark.parametrize("players", [2, 4])
def test_full_game_from_views(engine, players):
    """The client keeps its own table and tells the engine only what the seat to move knows."""
    play_from_views(engine, new_game("taschkent", players, 41), max_moves=2000)


def test_full_game_from_the_seed_form(engine):
    play_from_the_seed_form(engine, "taschkent", 3, 13, max_moves=2000)


def test_seed_and_view_forms_search_alike_through_the_protocol(engine):
    check_view_and_seed_forms_search_alike(engine, "taschkent", 3, 8, random_moves=23,
                                           rng_seed=8)


def test_an_impossible_view_is_an_error_line(engine):
    v = base_view()
    v["action_pile_count"] += 2
    engine.send("position taschkent view " + json.dumps(v))
    line = engine.read()
    assert line.startswith("info string error") and "impossible" in line
    engine.send("position taschkent view " + json.dumps(base_view()))
    assert engine.ask("isready", "readyok") == ["readyok"]
    assert engine.ask("legal", "legal")[-1].startswith("legal tugrik")


# ---------------------------------------------------------------- the set-up options at the doors
OPTIONS = ["goods", "iron:R2a,jade:R5b,indigo:N3", "neutral_region", "5"]
ASKED = {"goods": {"iron": "R2a", "jade": "R5b", "indigo": "N3"}, "neutral_region": 5}


def test_the_protocol_sets_up_a_game_with_the_options(engine):
    engine.send("position taschkent players 4 seed 1 " + " ".join(OPTIONS))
    full = json.loads(engine.ask("view", "{")[-1])
    assert full["setup"] == ASKED and full["seed"] == 1
    huts = {h["id"]: h for h in full["huts"]}
    assert huts["N3"]["at"] == "R5" and huts["N3"]["goods"] == ["indigo"]
    assert huts["R2a"]["goods"] == ["iron"] and huts["R5b"]["goods"] == ["jade"]
    assert full == Taschkent(4, 1, goods=OPTIONS[1], neutral_region=5).to_json()
    seat = json.loads(engine.ask("view 0", "{")[-1])
    assert seat["setup"] == ASKED
    engine.send("position taschkent players 4 seed 1 neutral_region 2 moves tugrik")
    assert json.loads(engine.ask("view", "{")[-1])["setup"]["neutral_region"] == 2
    engine.send("position taschkent view " + json.dumps(seat))   # a view carries them back
    assert json.loads(engine.ask("view", "{")[-1])["setup"] == ASKED


@pytest.mark.parametrize("options,message", [
    ("players 4 seed 1 neutral_region 9", "info string error neutral_region: a region 1-8, not 9"),
    ("players 3 seed 1 neutral_region 2", "info string error neutral_region: only a 4-player game"),
    ("players 4 seed 1 goods iron:R9z", "info string error goods: 'R9z' is no hut on the board"),
    ("players 4 seed 1 goods", "info string error unexpected 'goods': position <game> players <n> "
                                "seed <s> [goods <value>] [neutral_region <value>] [moves ...]"),
])
def test_bad_option_values_are_one_error_line_in_the_protocol(engine, options, message):
    engine.send("position taschkent players 3 seed 2")
    line = engine.ask("position taschkent " + options, "info string error")[-1]
    assert line.startswith(message), line
    full = json.loads(engine.ask("view", "{")[-1])        # the position did not change
    assert full["players"] == 3 and full["seed"] == 2


def caravan(*args):
    """The command line as a user runs it."""
    import subprocess
    import sys
    import tempfile
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], capture_output=True,
                          text=True, timeout=300, cwd=tempfile.gettempdir())


def test_caravan_games_lists_the_options():
    r = caravan("games")
    assert r.returncode == 0
    line = next(x for x in r.stdout.splitlines() if x.startswith("taschkent"))
    assert "--goods:" in r.stdout and "--neutral-region:" in r.stdout, line   # flags as typed


def test_caravan_match_takes_the_options_and_refuses_bad_ones_with_one_line():
    help_text = caravan("match", "--help").stdout
    assert "--goods" in help_text and "--neutral_region" in help_text
    r = caravan("match", "taschkent", "--players", "4", "--agents", "random,random,random,random",
                "--seed", "3", "--goods", "iron:R2a,jade:R5b,indigo:N3", "--neutral_region", "5")
    assert r.returncode == 0, r.stderr
    assert "final scores" in r.stdout
    for args, message in ((["--players", "4", "--neutral_region", "9"], "neutral_region: a region 1-8"),
                          (["--players", "3", "--neutral_region", "2"], "neutral_region: only a 4-player"),
                          (["--players", "4", "--goods", "iron:R6a"], "goods: 'R6a' is no hut")):
        r = caravan("match", "taschkent", "--agents", ",".join(["random"] * int(args[1])), *args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert r.stderr.startswith("caravan: error: " + message), r.stderr
        assert r.stdout == "", "a refused option is refused before anything is printed"


def test_the_documented_example_is_a_valid_view():
    import pathlib
    doc = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "views"
           / "taschkent.md").read_text()
    example = re.search(r"```json\n(.*?)\n```", doc, re.S).group(1)
    assert "\n" not in example
    v = json.loads(example)
    st = Taschkent.from_view(v)
    assert st.to_json(view=v["view"]) == v
    legal = re.search(r"Legal moves: (.*?)\.\n", doc, re.S).group(1).replace("`", "").split()
    assert legal == [st.move_to_text(m) for m in st.legal_moves()]
