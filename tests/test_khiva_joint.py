"""Khiva at 3-5 players: a seat's joint knowledge of the cards it gave (docs/rules/khiva.md, 15).

Each hidden gift moves exactly one card, a seat gives from what it holds, and a deal ends with
one card in every hand. So a seat knows more of the cards it gave than where each may be on its
own: it knows which placements of them, together, fit what it saw. An independent tracker
below follows every seat's belief as plain sets of placements, from the rules alone, and the
engine must keep exactly those; its worlds must place the cards as one of them, uniformly over
the deals they allow."""
import itertools
import math
import random
from collections import Counter

import pytest

from engine.games.khiva import Khiva, choice_of
import engine.games.khiva as khiva


def _cards(mask: int):
    return [c for c in range(25) if mask >> c & 1]


class Belief:
    """Seat o's placements of the cards it gave and has not seen since: `cards`, and the set
    of tuples of seats (one per card) that fit every reveal it saw."""

    def __init__(self, n: int, o: int):
        self.n, self.o = n, o
        self.cards = []
        self.sets = {()}

    def reveal(self, plays, gives, holds):
        """plays[q], gives[q]: the card each seat played and gave; holds[q]: the cards each
        held before the reveal."""
        n, o = self.n, self.o
        at = {c: i for i, c in enumerate(self.cards)}
        after = set()
        for a in self.sets:
            for b in self._through(a, at, plays, gives, holds):
                after.add(b)
        seen = set(plays) | {gives[(o - 1) % n]}
        kept = [i for i, c in enumerate(self.cards) if c not in seen]
        self.cards = [self.cards[i] for i in kept] + [gives[o]]
        hand_after = [h - 1 for h in holds]             # each: -play -gift +gift
        self.sets = {b for b in (tuple(a[i] for i in kept) + ((o + 1) % n,) for a in after)
                     if all(b.count(q) <= hand_after[q] for q in range(n))}

    def _through(self, a, at, plays, gives, holds):
        """Every placement a can become at this reveal."""
        n, o = self.n, self.o
        options = []
        for q in range(n):
            if q == o:
                options.append([None])
                continue
            played_here = plays[q] in at and a[at[plays[q]]] == q
            if plays[q] in at and not played_here:
                return []                                # q played a card a puts elsewhere
            if a.count(q) + (0 if played_here else 1) > holds[q]:
                return []                                # more cards than q held
            others = holds[q] - a.count(q) - (0 if played_here else 1)
            if (q + 1) % n == o:                         # the gift o got: seen
                g = gives[q]
                if (g in at and a[at[g]] != q) or (g not in at and others < 1):
                    return []
                options.append([None])
                continue
            mine = [i for i, s in enumerate(a) if s == q and self.cards[i] != plays[q]]
            options.append(mine + ([None] if others >= 1 else []))
        out = []
        for moved in itertools.product(*options):
            b = list(a)
            for q, i in enumerate(moved):
                if i is not None:
                    b[i] = (q + 1) % n
            out.append(tuple(b))
        return out


def engine_placements(g, o):
    """Seat o's joint knowledge as the engine keeps it: a set of sorted (card, seat) tuples,
    or None if it gave it up."""
    f = g._fields()
    if f["jlost"][o]:
        return None
    n, k = f["n"], f["jn"][o]
    cards = f["jcard"][o][:k]
    return {tuple(sorted((cards[i], (o + 1 + (a >> 2 * i & 3)) % n) for i in range(k)))
            for a in f["jset"][o][:f["jm"][o]]}


def tracked_game(n, seed, on_position):
    """A seeded random game of n players; every seat's Belief follows it, and
    on_position(g, beliefs) sees each position."""
    g, rng = Khiva(n, seed), random.Random(seed)
    beliefs = [Belief(n, o) for o in range(n)]
    while not g.is_terminal():
        f = g._fields()
        move = rng.choice(g.legal_moves())
        if f["phase"] == khiva.core.PH_CHOOSE and f["actor"] == n - 1:
            plays, gives, holds = [], [], []
            for q in range(n):
                p, gv = (choice_of(move) if q == n - 1
                         else (_cards(f["sel_play"][q]), _cards(f["sel_give"][q])))
                plays.append(p[0])
                gives.append(gv[0])
                holds.append(bin(f["hand"][q] | f["sel_play"][q] | f["sel_give"][q]).count("1"))
            for b in beliefs:
                b.reveal(plays, gives, holds)
        g.apply(move)
        on_position(g, beliefs)


def holder(f, c):
    return next(q for q in range(f["n"])
                if (f["hand"][q] | f["sel_play"][q] | f["sel_give"][q]) >> c & 1)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_engine_keeps_exactly_the_placements_the_rules_allow(players):
    """After every move of 12 random games, each seat's joint knowledge is the tracker's set
    of placements, the true one among them, and each card's mask the seats they give it."""
    counts = Counter()

    def check(g, beliefs):
        f = g._fields()
        for b in beliefs:
            want = {tuple(sorted(zip(b.cards, a))) for a in b.sets}
            truth = tuple(sorted((c, holder(f, c)) for c in b.cards))
            assert truth in want
            got = engine_placements(g, b.o)
            if got is None:                              # given up: the masks still hold
                counts["given up"] += 1
                assert all(f["where"][b.o][c] >> q & 1 for c, q in truth)
                continue
            assert got == want
            for i, c in enumerate(b.cards):
                assert f["where"][b.o][c] & 0x1F == sum(1 << s for s in {a[i] for a in b.sets})
            counts["checked"] += 1
            counts["binding"] += len(b.sets) < math.prod(len({a[i] for a in b.sets})
                                                          for i in range(len(b.cards)))

    for seed in range(12):
        tracked_game(players, 7000 + seed, check)
    assert counts["checked"] > 1500 and counts["binding"] > 50
    assert counts["given up"] < counts["checked"] / 100


def test_every_seat_kept_one_of_the_cards_it_was_given_at_a_redeal():
    """Khiva's round ends when every hand is down to one card: after the redeal a seat's
    followed cards lie one to a seat, though each card alone may be with two or three seats."""
    seen_binding = 0
    for seed in range(40):
        g, rng = Khiva(4, 500 + seed), random.Random(seed)
        deal = 1
        while not g.is_terminal():
            g.apply(rng.choice(g.legal_moves()))
            if g.is_terminal() or g._fields()["deal_round"] == deal:
                continue
            deal = g._fields()["deal_round"]
            for o in range(4):
                placements = engine_placements(g, o)
                for p in placements:
                    seats = [q for _, q in p]
                    assert len(seats) == len(set(seats))
                seen_binding += binds(placements)
    assert seen_binding >= 10


def binds(placements) -> bool:
    """Whether the placements rule out a combination of the seats each card may have."""
    if not placements:
        return False
    cards = [c for c, _ in next(iter(placements))]
    seats = {c: {dict(p)[c] for p in placements} for c in cards}
    return len(placements) < math.prod(len(s) for s in seats.values())


def binds_beyond_hands(g, o) -> bool:
    """Whether o's placements rule out one that its masks and the seats' hand sizes allow:
    only then does a world need them (else the masks deal the same worlds)."""
    placements = engine_placements(g, o)
    if not placements:
        return False
    f = g._fields()
    held = [bin(f["hand"][q] | f["sel_play"][q] | f["sel_give"][q]).count("1") for q in range(f["n"])]
    cards = [c for c, _ in next(iter(placements))]
    seats = [[q for q in range(f["n"]) if f["where"][o][c] >> q & 1] for c in cards]
    fit = [p for p in itertools.product(*seats) if all(p.count(q) <= held[q] for q in set(p))]
    return len(placements) < len(fit)


def _binding_positions(players, count):
    """Positions (game, seat to move) where that seat's placements bind beyond hand sizes."""
    found = []
    for seed in itertools.count():
        g, rng = Khiva(players, seed), random.Random(seed)
        while not g.is_terminal():
            if binds_beyond_hands(g, g.to_move):
                found.append((g.clone(), g.to_move))
                break
            g.apply(rng.choice(g.legal_moves()))
        if len(found) == count:
            return found


def _deal_weights(g, o):
    """The share of the deals consistent with o's knowledge that put its followed cards at
    each placement: the ways of those cards into their seats' holdings (the other cards o
    cannot place are free, and fill what is left in as many ways for each)."""
    f = g._fields()
    held = [bin(f["hand"][q] | f["sel_play"][q] | f["sel_give"][q]).count("1") for q in range(f["n"])]
    weights = {}
    for p in engine_placements(g, o):
        w = 1
        for q in range(f["n"]):
            t = sum(1 for _, s in p if s == q)
            w *= math.perm(held[q], t)
        weights[p] = w
    total = sum(weights.values())
    return {p: w / total for p, w in weights.items()}


@pytest.mark.parametrize("players", [4, 5])
def test_worlds_place_the_followed_cards_as_the_knowledge_allows_and_uniformly(players):
    """Where the placements rule out more than the masks and hand sizes (never at 3 players:
    see the next test), every world follows one of them, each as often as its deals."""
    for g, o in _binding_positions(players, 2):
        f = g._fields()
        anywhere = ((1 << players) - 1) & ~(1 << o) | 0x20
        followed = {c for c, _ in next(iter(engine_placements(g, o)))}
        seen = f["hand"][o] | f["sel_play"][o] | f["sel_give"][o] | f["discard"]
        assert all(f["where"][o][c] == anywhere for c in range(25)
                   if not seen >> c & 1 and c not in followed)
        share = _deal_weights(g, o)
        n = 4000
        counts = Counter()
        for seed in range(n):
            d = g.determinized(o, 1_000_003 * seed + 17)._fields()
            placed = tuple(sorted((c, holder(d, c)) for c, _ in next(iter(share))))
            assert placed in share
            counts[placed] += 1
        for p, s in share.items():
            sd = math.sqrt(s * (1 - s) / n)
            assert abs(counts[p] / n - s) < 4.5 * sd + 1e-9, (p, counts[p] / n, s)


def test_at_three_players_the_hand_sizes_already_tie_the_cards():
    """At 3 players the placements never rule out more than each card's seats and the hand
    sizes do, so worlds are dealt as before (the same random numbers)."""
    checked = 0

    def check(g, beliefs):
        nonlocal checked
        if not g.is_terminal() and g.phase == "choose":
            assert not binds_beyond_hands(g, g.to_move)
            checked += binds(engine_placements(g, g.to_move))

    for seed in range(15):
        tracked_game(3, 3000 + seed, check)
    assert checked > 20                                  # placements that bind the masks


def test_a_seat_that_gives_up_its_joint_knowledge_keeps_its_masks_and_starts_again():
    """Past 64 placements a seat keeps only each card's mask (still true), and follows the
    cards jointly again once their masks' combinations fit."""
    lost = restarted = 0
    for seed in range(200):                              # seed 63 gives it up, then restarts
        state = {"lost": set()}

        def check(g, beliefs):
            nonlocal lost, restarted
            f = g._fields()
            for o in range(5):
                if f["jlost"][o]:
                    lost += o not in state["lost"]
                    state["lost"].add(o)
                    for c in range(25):
                        if not f["where"][o][c] & 0x20 and not (f["hand"][o] | f["discard"]) >> c & 1:
                            assert f["where"][o][c] >> holder(f, c) & 1
                elif o in state["lost"]:
                    restarted += 1
                    state["lost"].discard(o)
                    assert f["jm"][o] >= 1

        tracked_game(5, seed, check)
        if lost and restarted:
            break
    assert lost and restarted


def test_a_duel_follows_no_card_jointly():
    g, rng = Khiva(2, 4), random.Random(4)
    while not g.is_terminal():
        g.apply(rng.choice(g.legal_moves()))
        f = g._fields()
        assert f["jn"] == [0] * 5 and not any(f["jlost"])
