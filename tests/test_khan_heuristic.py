"""The Khan of Khans rule-based agent counts cards as its seat can: the Sable Nation's
face-down cards are Raid! cards, so they are counted out of the decks they came from."""
import random

from engine.games.khan import KhanOfKhans
from engine.registry import new_game
from search.heuristics import khan as heuristic

RAIDS = ("raid20", "raid50", "raid100")


def random_duel(seed: int, khans: list, until) -> KhanOfKhans:
    """A duel of these Khans played by uniformly random moves (from random.Random(seed)) up
    to the first position where `until(game)` holds."""
    g, rng = new_game("khan", players=2, seed=seed, khans=khans), random.Random(seed)
    while not until(g):
        g.apply(rng.choice(g.legal_moves()))
    return g


def test_a_deck_whose_raid_cards_sable_drew_face_down_holds_none():
    """Seed 0, turn 54 (found by the rules audit of 2026-12-04): earthshaker has one card left,
    its unseen cards are a 20, a 50 and a blessing, and the Sable Nation drew two face-down
    Raid! cards from it. So the last card is the blessing; the agent gave a Raid! card 2/3."""
    g = random_duel(0, ["impala", "sable"], lambda g: g.turn >= 54)
    view = g.to_json(view=0)
    deck = next(e for e in view["decks"] if e["name"] == "earthshaker")
    assert deck["count"] == 1 and deck["unseen"] == {"raid20": 1, "raid50": 1, "blessing": 1}
    assert sum(sl["deck"] == "earthshaker" for sl in view["sable_face_down"]) == 2
    assert heuristic._distribution(deck, view["sable_face_down"]) == {"blessing": 1.0}


def test_the_expected_deck_holds_what_the_deck_holds_in_number_and_kind():
    """In every seat's view of seeded games with the Sable Nation: the expected cards below a
    known top number the deck's cards below it, never go negative, and give no weight to a
    type other than Raid! cards that the deck lacks (a face-down card is a Raid! card)."""
    for seed in range(20):
        g = new_game("khan", players=3, seed=seed, khans=["impala", "sable", "bison"])
        rng = random.Random(seed)
        while not g.is_terminal():
            full = {d["name"]: d["cards"] for d in g.to_json()["decks"]}
            for seat in range(3):
                view = g.to_json(view=seat)
                for deck in view["decks"]:
                    counts = heuristic._in_deck(deck, view["sable_face_down"])
                    below = list(full[deck["name"]])
                    if deck["top"] is not None:
                        below.remove(deck["top"])
                    assert abs(sum(counts.values()) - len(below)) < 1e-9
                    assert min(counts.values(), default=0.0) > -1e-9
                    assert all(k in below for k, x in counts.items()
                               if x > 1e-9 and k not in RAIDS)
            g.apply(rng.choice(g.legal_moves()))


def test_a_face_down_card_in_sables_herd_is_worth_a_raid_card_within_its_bound():
    """Seed 0, turn 40, seen by the Bison: two face-down cards in the Sable Nation's herd, each
    bounded at 50 by a Stampede!. Their decks' unseen Raid! cards within 50 are a 20 and two
    50s each, so each is worth 40 and the herd 80 (the agent had taken 55 a card, 110)."""
    g = random_duel(0, ["bison", "sable"], lambda g: g.turn >= 40)
    view = g.to_json(view=0)
    in_herd = [sl for sl in view["sable_face_down"] if sl["at"] == "herd"]
    assert [(sl["deck"], sl["max"]) for sl in in_herd] == [("grazelands", 50), ("dwarfmine", 50)]
    decks = {d["name"]: d for d in view["decks"]}
    assert decks["grazelands"]["unseen"]["raid50"] == 2 and decks["dwarfmine"]["unseen"]["raid20"] == 1
    assert [heuristic._face_down_worth(sl, decks) for sl in in_herd] == [40.0, 40.0]
    assert heuristic._herd(view["player_state"][1], view) == (80.0, 2)


def test_sables_herd_is_valued_within_every_bound_and_exactly_by_sable():
    """Random 3-player games with the Sable Nation, every seat's view at every turn: each
    face-down card in the herd is worth 20 to its bound (exactly 20 when bounded at 20), and
    the herd counts every card; at the end, or in Sable's own view, the values are known."""
    seen_bounds = set()
    for seed in (*range(12), 25, 39, 55):       # 25, 39 and 55 bound a herd card at 20
        g = new_game("khan", players=3, seed=seed, khans=["llama", "sable", "impala"])
        rng = random.Random(seed)
        while True:
            truth = g.to_json()
            true_herd = (sum(int(k) * v for k, v in truth["player_state"][1]["herd"].items())
                         + sum(sl["value"] for sl in truth["sable_face_down"] if sl["at"] == "herd"))
            for seat in range(3):
                view = g.to_json(view=seat)
                decks = {d["name"]: d for d in view["decks"]}
                ps = view["player_state"][1]
                value, n = heuristic._herd(ps, view)
                assert n == sum(ps["herd"].values()) + ps.get("herd_face_down", 0)
                hidden = [sl for sl in view["sable_face_down"] if sl["at"] == "herd"]
                if seat == 1 or g.is_terminal():
                    assert value == true_herd
                    continue
                for sl in hidden:
                    seen_bounds.add(sl["max"])
                    worth = heuristic._face_down_worth(sl, decks)
                    assert 20 <= worth <= sl["max"]
                    assert sl["max"] != 20 or worth == 20
            if g.is_terminal():
                break
            g.apply(rng.choice(g.legal_moves()))
    assert {20, 50, 100} <= seen_bounds


def test_a_blessing_is_kept_when_sables_bounded_herd_offers_less_than_50():
    """Seed 1, turn 36: the Bison draws a Waha's Blessing, and the Sable Nation's herd is three
    face-down cards, each bounded at 50 by a Stampede!, from decks whose unseen Raid! cards
    within 50 are a 20 and a 50: a random steal is worth 35, so the agent keeps the blessing
    (it stole when it took 55 a card)."""
    g = random_duel(1, ["bison", "sable"],
                    lambda g: g.turn >= 36 and g.to_json()["phase"] == "blessing")
    view = g.to_json(view=0)
    assert (g.turn, view["to_move"]) == (36, 0)
    assert [sl["max"] for sl in view["sable_face_down"] if sl["at"] == "herd"] == [50, 50, 50]
    assert heuristic._steal_targets(view, 0) == [(35.0, 0, 1, "random")]
    assert g.move_to_text(heuristic.choose(g, 0, random.Random(0))) == "keep"
