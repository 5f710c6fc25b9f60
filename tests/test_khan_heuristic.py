"""The Khan of Khans rule-based agent counts cards as its seat can: the Sable Nation's
face-down cards are Raid! cards, so they are counted out of the decks they came from."""
import random

from engine.registry import new_game
from search.heuristics import khan as heuristic

RAIDS = ("raid20", "raid50", "raid100")


def test_a_deck_whose_raid_cards_sable_drew_face_down_holds_none():
    """Seed 0, turn 54 (found by the rules audit of 2026-12-04): earthshaker has one card left,
    its unseen cards are a 20, a 50 and a blessing, and the Sable Nation drew two face-down
    Raid! cards from it. So the last card is the blessing; the agent gave a Raid! card 2/3."""
    g, rng = new_game("khan", players=2, seed=0, khans=["impala", "sable"]), random.Random(0)
    while g.turn < 54:
        g.apply(rng.choice(g.legal_moves()))
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
