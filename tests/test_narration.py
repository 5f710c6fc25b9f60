"""What `narrate(before, player, move, viewer=seat)` tells a seat: never a fact its view hides.

`caravan play` tells each human the other seats' moves through `narrate(..., viewer=seat)`;
the view `to_json(view=seat)` is the ground truth of what a seat knows. Three kinds of checks,
over seeded random games of Khan of Khans, Kilim and Taschkent at several player counts:

- **Indistinguishable histories** (generic): if a seat cannot tell two moves apart (the same
  position, the same view and information set after either), or two positions apart (the
  same view, a hidden part swapped: Sable's face-down values, scraps held or on the board,
  face-down choices, action cards in hands and the pile) and the move leaves it the same
  view in both, then its narration must be the same in both. Anything the narration told
  beyond the view would show up as a difference.
- **Hidden facts** (per game): the facts of the full state that the viewer's view lacks (the
  values of Sable's face-down cards, the letters of the scraps it cannot see, another seat's
  face-down card, the 3/5 cards in other hands before the open final count) appear nowhere
  in its narration, and where the narration sums something up (Sable's herd and score,
  Taschkent's final count) it says what the view says.
- **Each leak fixed**, spectator against viewer, and the spectator's narration (viewer None)
  unchanged: digests of whole seeded games, recorded before the viewer form existed.
"""
from __future__ import annotations

import hashlib
import random
import re
from typing import Callable, Dict, Iterator, List, Optional

import pytest

from cext import khan as khan_core
from cext import kilim as kilim_core
from cext import taschkent as tk_core
from cext.core import move_arg, move_kind
from engine.games.khan import PY_RAID_VALUE, KhanOfKhans
from engine.games.kilim import SCRAP_LETTERS, Kilim, card_text
from engine.games.taschkent import Taschkent
from engine.registry import new_game
from khan_support import position

# ================================================================ the spectator's narration
# sha256 of the whole narration (viewer None) of a seeded random game, one line after another,
# recorded from the code before `viewer` was added: the spectator's text must not change.
# Kilim's were recorded again when its narration became sentences (issue 18: no notation in
# it, the first domino told with the first move).
# Taschkent's were recorded again when its final count became open to every seat (the
# game-over line tells every total, who is out and who wins), and its 3p and 4p games again when
# an end triggered in action round 1 was told as coming after it, not after round 2 (each
# game's one such line changed, nothing else).
SPECTATOR_DIGESTS = [
    ("khan", 2, 1, {"khans": "sable,bison"},
     "3a3958a15742515a5c3689bcbb6a2a3e2f101d9d96b543ea2e44c81626fff6cc"),
    ("khan", 3, 2, {"khans": "impala,sable,llama"},
     "c2d35eb2f5a34a078c3f264497a98fa12305d78d8e49b991c0600ca65cc4308a"),
    ("khan", 5, 3, {}, "d7f28210ebaf2c1fc2a60ca3812a5ac4fbdf2aed1beb040c537c9fac4aad7ead"),
    ("kilim", 2, 1, {}, "18ea2956dc51aeaabf9da3d60f80d660530f833035e0756846ba1a610f7bfb0a"),
    ("kilim", 3, 2, {}, "58d863981d1ba70b5d9b970696b3e75fd14c5a4743f3a949448bb0c5884519a2"),
    ("kilim", 5, 3, {}, "3468089f7d49a4906f818a762037d78ba62da7b1567e6b349ce4e350c79f5379"),
    ("taschkent", 2, 1, {}, "9bf93e107e4e48eb538b0f62a02ede7f3906da5c2be84087b01ab811b4adb59d"),
    ("taschkent", 3, 2, {}, "804c5da06f2019b823b1179f9119affb79beace31aacc306fad6008b09b7b969"),
    ("taschkent", 4, 3, {}, "f3bcc1a7339dd6b2875423fc10152a9841a1b0daca3ff33fcb04995999e1ddf4"),
]


@pytest.mark.parametrize("game,n,seed,options,digest", SPECTATOR_DIGESTS)
def test_the_spectators_narration_is_unchanged(game, n, seed, options, digest):
    g = new_game(game, n, seed, **options)
    rng = random.Random(seed)
    lines = []
    while not g.is_terminal():
        before, p, m = g.clone(), g.to_move, rng.choice(g.legal_moves())
        g.apply(m)
        told = g.narrate(before, p, m)
        assert g.narrate(before, p, m, viewer=None) == told
        lines += told
    assert hashlib.sha256("\n".join(lines).encode()).hexdigest() == digest


# ================================================================ hidden twins
# A twin of a position: the same for seat v (the same view), a hidden part swapped. Built on a
# clone through the C fields, so the chance generator and everything else stay as they are;
# a twin the rules could not reach is dropped (check_invariants).
def _twin(g, v: int, fields: Dict) -> object:
    t = g.clone()
    t._set_fields(fields)
    try:
        t.check_invariants()
    except ValueError:
        return None
    assert t.to_json(view=v) == g.to_json(view=v), "a twin must look the same to its seat"
    return t


def twins_by(edit: Callable, tries: int) -> Callable[..., Iterator]:
    """Twins of g for seat v: `edit(f, v, rng)` changes the fields f of g in a way v cannot
    see and says whether it did (None: no twin can be made here); up to `tries` x `want`
    attempts give up to `want` twins."""
    def twins(g, v: int, rng: random.Random, want: int) -> Iterator:
        made = 0
        for _ in range(tries * want):
            if made == want:
                return
            f = g._fields()
            edited = edit(f, v, rng)
            if edited is None:
                return
            t = _twin(g, v, f) if edited else None
            if t is not None:
                made += 1
                yield t
    return twins


def swap_khan_cards(f: dict, v: int, rng: random.Random) -> Optional[bool]:
    """Two hidden cards of one deck swapped (deck cards under the known top, the Sable
    Nation's face-down cards of that deck, each within its bound), for a seat other than
    Sable's before the end."""
    sable = f["sable"]
    if sable < 0 or v == sable or f["phase"] == khan_core.PH_OVER:
        return None
    d = rng.randrange(khan_core.N_DECKS)
    slots = f["slot"][:f["n_slots"]]
    items = [("deck", i) for i in range(f["ndeck"][d] - (f["top_known"] >> d & 1))]
    items += [("slot", j) for j, sl in enumerate(slots) if sl["deck"] == d]
    if len(items) < 2 or not any(k == "slot" for k, _ in items) and rng.random() < 0.5:
        return False                 # prefer swaps that touch a face-down card

    a, b = rng.sample(items, 2)
    ta, tb = (f["deck"][d][i] if k == "deck" else slots[i]["tier"] for k, i in (a, b))
    if ta == tb:
        return False
    for (k, i), new in ((a, tb), (b, ta)):
        if k == "slot":
            sl = f["slot"][i]
            if new > sl["cap"]:
                return False
            old, loc = sl["tier"], sl["loc"]
            key = {khan_core.LOC_HERD: "herd", khan_core.LOC_CORRAL: "corral"}.get(loc)
            if key is None:
                f["box"][old] -= 1
                f["box"][new] += 1
            else:
                f[key][sable][old] -= 1
                f[key][sable][new] += 1
                f[key + "_val"][sable] += PY_RAID_VALUE[new] - PY_RAID_VALUE[old]
            sl["tier"] = new
        else:
            f["deck"][d][i] = new
    return True


def change_kilim_hidden(f: dict, v: int, rng: random.Random) -> bool:
    """Two scraps v cannot see swapped between their hidden places (each where v allows the
    other; every other seat's beliefs relabelled with them), or another seat's face-down card
    or Gold card changed for another one of its hand."""
    n = f["n"]
    if rng.random() < 0.6:
        unseen = [t for t, loc in enumerate(f["scrap_loc"])
                  if loc == kilim_core.LOC_BOARD
                  or (kilim_core.LOC_HELD <= loc < kilim_core.LOC_HELD + n
                      and loc - kilim_core.LOC_HELD != v)]
        if len(unseen) < 2:
            return False
        x, y = rng.sample(unseen, 2)
        lx, ly = f["scrap_loc"][x], f["scrap_loc"][y]
        if lx == ly:
            return False

        def place(loc):
            return kilim_core.WHERE_BOARD if loc == kilim_core.LOC_BOARD else loc

        wx, wy = f["where"][v][x], f["where"][v][y]
        if not (wx >> place(ly) & 1 and wy >> place(lx) & 1):
            return False
        f["scrap_loc"][x], f["scrap_loc"][y] = ly, lx
        for o in range(n):
            if o != v:
                f["where"][o][x], f["where"][o][y] = f["where"][o][y], f["where"][o][x]
    else:
        phase, actor = f["phase"], f["actor"]
        if phase == kilim_core.PH_CARD:
            key = "choice"
            chosen = [q for q in range(actor) if q != v]
        elif phase in (kilim_core.PH_SPY, kilim_core.PH_SCRAPBID, kilim_core.PH_ARTBID):
            key, card = {kilim_core.PH_SPY: ("spy_bid", kilim_core.C_SPY),
                         kilim_core.PH_SCRAPBID: ("scrap_bid", kilim_core.C_SCRAP),
                         kilim_core.PH_ARTBID: ("art_bid", kilim_core.C_ART)}[phase]
            chosen = [q for q in range(f["seat_iter"]) if q != v and f["choice"][q] == card]
        else:
            return False
        if not chosen:
            return False
        q = rng.choice(chosen)
        cards = [c for c in range(1, kilim_core.C_ART + 1) if f["hand"][q] >> c & 1
                 and c != f[key][q] and (key == "choice" or c < kilim_core.C_SPY)]
        if not cards:
            return False
        f[key][q] = rng.choice(cards)
    return True


def swap_taschkent_cards(f: dict, v: int, rng: random.Random) -> Optional[bool]:
    """Two action cards of different types swapped between places v cannot see into: the
    other hands, the face-down pile (any position) and the cards removed face down."""
    n = f["n"]
    places = [("hand", q) for q in range(n) if q != v and sum(f["hand"][q])]
    places += [("pile", i) for i in range(f["n_pile"])]
    places += [("unseen", i) for i in range(f["n_unseen"])]
    if len(places) < 2:
        return None
    a, b = rng.sample(places, 2)

    ta, tb = (rng.choice([t for t in range(tk_core.N_ACTION_TYPES) if f["hand"][i][t]])
              if k == "hand" else f[k][i] for k, i in (a, b))
    if ta == tb:
        return False
    for (k, i), old, new in ((a, ta, tb), (b, tb, ta)):
        if k == "hand":
            f["hand"][i][old] -= 1
            f["hand"][i][new] += 1
        else:
            f[k][i] = new
    return True


# ================================================================ hidden facts, per game
def khan_hidden_facts(before, after, p: int, m: int, v: int, lines: List[str]) -> None:
    """Before the end, a seat other than the Sable Nation learns no face-down value: no draw
    says what the card is, no count of cows includes a face-down card, and Sable's herd and
    score are told as its view gives them (the face-up part, the number face down)."""
    f = after._fields()
    sable = f["sable"]
    if sable < 0 or v == sable or f["phase"] == khan_core.PH_OVER:
        return
    text = "\n".join(lines)
    assert not re.search(r"face down \(Sable Nation; it is", text), text
    b = before._fields()
    herd_down = [sl for sl in b["slot"][:b["n_slots"]] if sl["loc"] == khan_core.LOC_HERD]
    if p == sable and herd_down:
        # the herd it corrals or loses holds face-down cards: no total of its cows is told
        assert not re.search(r"\d+ cows\)", lines[0]), text
    view = after.to_json(view=v)
    ps = view["player_state"][sable]
    herd = sum(int(k) * c for k, c in ps["herd"].items())
    corral = sum(int(k) * c for k, c in ps["corral"].items())
    score = herd + corral + 20 * (ps["kept_blessings"] + ps["received_blessings"])
    herd_part, score_part = lines[-1].split("herds: ")[1].split("   scores: ")
    down_h, down_all = ps["herd_face_down"], ps["herd_face_down"] + ps["corral_face_down"]
    want_herd = (f"P{sable} {herd}" + ("+C" if ps["champion"] else "")
                 + (f" +{down_h} face down" if down_h else ""))
    want_score = f"P{sable} {score}" + (f" +{down_all} face down" if down_all else "")
    assert want_herd in herd_part.split("  "), (want_herd, lines[-1])
    assert want_score in score_part.split("  "), (want_score, lines[-1])


def kilim_hidden_facts(before, after, p: int, m: int, v: int, lines: List[str]) -> None:
    """No scrap the viewer cannot see is named; no face-down card or Gold card of another seat
    is told before its reveal."""
    view = after.to_json(view=v)
    text = "\n".join(lines)
    for letter in view["scrap_whereabouts"]:
        assert not re.search(rf"scrap[ -]{letter}\b", text), (letter, text)
    full = after.to_json()
    for q, (ps, seen) in enumerate(zip(full["player_state"], view["player_state"])):
        if q == v or not ps["has_chosen"]:
            continue
        if ps["choice"] is not None and seen["choice"] is None:
            assert f"P{q} shows" not in text, text
        for key in ("spy_bid", "scrap_bid", "artisan_bid"):
            if ps[key] and not seen[key]:
                assert not re.search(rf"P{q} \([a-z ]+\) (adds|offers|cannot pay)", text), text


def taschkent_hidden_facts(before, after, p: int, m: int, v: int, lines: List[str]) -> None:
    """No action card in a hand is named (a draw is a draw); the end tells every seat's Tugrik
    as counted openly (3/5 cards at 5), exactly as the viewer's view of the finished game
    shows them (final_tugrik), and nothing else of the hands."""
    text = "\n".join(lines)
    names = ("Activity", "Removal", "Cameleer", "Caravan moves on", "Shortage", "3/5")
    assert not re.search(r"draws (an? )?(" + "|".join(map(re.escape, names)) + ")", text), text
    over = [line for line in lines if "game over: Tugrik counted" in line]
    if not over:
        return
    shown = [ps["final_tugrik"] for ps in after.to_json(view=v)["player_state"]]
    told = re.search(r"Tugrik counted \(an unplayed 3/5 card is 5\) ([^;]*);", over[0]).group(1)
    assert told == " ".join(f"P{q}={t}" for q, t in enumerate(shown)), (over[0], shown)


# ================================================================ the games checked
GAMES = {
    "khan": (lambda n, s: KhanOfKhans(n, s, khans=KHANS_WITH_SABLE[n]),
             twins_by(swap_khan_cards, 20), khan_hidden_facts),
    "kilim": (lambda n, s: Kilim(n, s), twins_by(change_kilim_hidden, 10), kilim_hidden_facts),
    "taschkent": (lambda n, s: Taschkent(n, s), twins_by(swap_taschkent_cards, 10),
                  taschkent_hidden_facts),
}
KHANS_WITH_SABLE = {2: "sable,bison", 3: "impala,sable,llama", 4: "bison,sable,morokanth,impala",
                    5: "impala,bison,morokanth,sable,llama"}
CASES = ([("khan", n, s) for n in (2, 3, 4, 5) for s in (1, 2)]
         + [("kilim", n, s) for n in (2, 3, 5) for s in (1, 2)]
         + [("taschkent", n, s) for n in (2, 3, 4) for s in (1, 2, 3)])
ALTERNATIVES = 8          # other legal moves tried per move
TWINS = 2                 # hidden twins per move and seat


def _after(state, move):
    t = state.clone()
    t.apply(move)
    return t


@pytest.mark.parametrize("game,n,seed", CASES)
def test_a_viewer_is_told_nothing_its_view_hides(game, n, seed):
    """For every move of a seeded random game and every seat: the hidden facts are absent
    from its narration, and histories it cannot tell apart are told to it alike."""
    deal, twins_of, hidden_facts = GAMES[game]
    g = deal(n, seed)
    rng, side = random.Random(seed), random.Random(1000 + seed)
    compared = 0
    while not g.is_terminal():
        p, legal = g.to_move, g.legal_moves()
        m = rng.choice(legal)
        after = _after(g, m)
        told = {v: after.narrate(g, p, m, viewer=v) for v in range(n)}
        seen = {v: after.to_json(view=v) for v in range(n)}
        for v in range(n):
            hidden_facts(g, after, p, m, v, told[v])
        # other moves of the same seat that leave a seat the same view and the same
        # information set (a move made in the open is seen, even where two moves end alike)
        others = [x for x in legal if x != m]
        for m2 in side.sample(others, min(ALTERNATIVES, len(others))):
            after2 = _after(g, m2)
            for v in range(n):
                if v != p and after2.to_json(view=v) == seen[v] \
                        and after2.info_key(v, v) == after.info_key(v, v):
                    compared += 1
                    assert after2.narrate(g, p, m2, viewer=v) == told[v], (
                        f"P{v} cannot tell {g.move_to_text(m)} from {g.move_to_text(m2)}")
        # positions the seat cannot tell from this one, the same move played
        for v in range(n):
            for twin in twins_of(g, v, side, TWINS):
                if m not in twin.legal_moves():
                    continue
                after2 = _after(twin, m)
                if after2.to_json(view=v) == seen[v]:
                    compared += 1
                    assert after2.narrate(twin, p, m, viewer=v) == told[v], (
                        f"P{v} is told a hidden difference after {g.move_to_text(m)}")
        g = after
    assert compared > 0


# ================================================================ each leak, spectator vs viewer
def test_khan_sables_face_down_draw_shows_its_value_only_to_sable():
    g = position(["sable", "bison"], tops={"sundome": ["raid100"]}, herds={0: [50]},
                 corrals={0: [20]}, corrals_used={0: 1})
    b, raid = g.clone(), g.parse_move("raid-sundome")
    g.apply(raid)
    spectator = g.narrate(b, 0, raid)
    assert "it is a 100" in spectator[0]
    assert spectator[1] == "    herds: P0 150  P1 0   scores: P0 170  P1 0"
    assert g.narrate(b, 0, raid, viewer=0) == spectator       # Sable sees its own cards
    other = g.narrate(b, 0, raid, viewer=1)
    assert other[0] == "P0 (Sable Nation) raids Sun Dome: a Raid! card, face down (Sable Nation)"
    assert other[1] == "    herds: P0 0 +2 face down  P1 0   scores: P0 0 +3 face down  P1 0"


def _told(g, text: str, viewer=None) -> tuple:
    """Play `text` on g for P0; the spectator's lines and `viewer`'s."""
    b, move = g.clone(), g.parse_move(text)
    g.apply(move)
    return g.narrate(b, 0, move), g.narrate(b, 0, move, viewer=viewer)


def test_khan_sables_corral_and_loss_count_only_face_up_cows():
    # a herd of two face-down cards (100 and 20) and one face-up 50, taken from P1: corral it
    g = position(["sable", "bison"], herds={0: [100, 20], 1: [50, 20]}, kept={0: 1})
    g.apply("bless-P1-50")
    g.apply("corral")                           # P1
    spectator, other = _told(g, "corral", viewer=1)
    assert "3 Raid! cards (170 cows) safe" in spectator[0]
    assert "3 Raid! cards (2 face down, 50 cows face up) safe" in other[0]
    assert "170" not in "\n".join(other)
    # Enemy Magic on a herd of face-down cards only
    g = position(["sable", "bison"], tops={"boldhome": ["magic"]}, herds={0: [100, 50]})
    spectator, other = _told(g, "raid-boldhome", viewer=1)
    assert "loses the whole herd (2 Raid! cards, 150 cows)" in spectator[0]
    assert "loses the whole herd (2 Raid! cards, all face down)" in other[0]
    assert "150" not in "\n".join(other)


def test_khan_at_the_end_every_seat_is_told_everything():
    """The view of a finished game shows Sable's face-down cards, so the last narration does."""
    g = KhanOfKhans(2, 1, khans="sable,bison")
    rng = random.Random(1)
    while True:
        b, p, m = g.clone(), g.to_move, rng.choice(g.legal_moves())
        g.apply(m)
        if g.is_terminal():
            break
    assert g.narrate(b, p, m, viewer=1) == g.narrate(b, p, m)


def _kilim_scrap_pick() -> tuple:
    """A Kilim game played at random up to a Scrap Bag winner's pick: (before, seat, move)."""
    for seed in range(20):
        g, rng = Kilim(3, seed), random.Random(seed)
        while not g.is_terminal():
            legal = g.legal_moves()
            picks = [x for x in legal if move_kind(x) == kilim_core.MV_SCRAPPICK]
            if picks:
                return g, g.to_move, picks[0]
            g.apply(rng.choice(legal))
    raise AssertionError("no scrap pick in 20 games")


def test_kilim_the_kept_scrap_is_told_only_to_its_keeper():
    b, p, m = _kilim_scrap_pick()
    g = _after(b, m)
    letter = SCRAP_LETTERS[move_arg(m)]
    kept = f"  (P{p} keeps scrap {letter})"
    assert kept in g.narrate(b, p, m)
    assert kept in g.narrate(b, p, m, viewer=p)
    for v in range(3):
        if v != p:
            told = g.narrate(b, p, m, viewer=v)
            assert told[0] == f"P{p} searches the bag and keeps a scrap face down"
            assert f"scrap {letter}" not in "\n".join(told)


def test_kilim_a_card_chosen_face_down_is_told_as_a_choice():
    g = Kilim(3, 4)
    for p in range(2):
        b, m = g.clone(), g.legal_moves()[-1]
        g.apply(m)
        for v in (None, 0, 1, 2):
            told = g.narrate(b, p, m, viewer=v)
            if p == 0:                 # the game's first move also tells the first domino
                assert told.pop(0).startswith("day 1 begins: the first domino")
            assert told == [f"P{p} chooses a card face down"]
            card = card_text(move_arg(m))
            assert card not in " ".join(g.narrate(b, p, m, viewer=v))


def test_taschkent_the_final_count_is_open_to_every_seat():
    """At the end the players count their Tugrik openly (3/5 cards at 5): every seat's view of
    the finished game shows every total, so every seat is told the same end as a spectator."""
    for seed in range(1, 40):
        g, rng = Taschkent(3, seed), random.Random(seed)
        while not g.is_terminal():
            b, p, m = g.clone(), g.to_move, rng.choice(g.legal_moves())
            g.apply(m)
        f = g._fields()
        holder = next((q for q in range(3) if f["hand"][q][tk_core.AC_35]), None)
        if holder is None:
            continue
        total = f["tugrik"][holder] + 5 * f["hand"][holder][tk_core.AC_35]
        spectator = g.narrate(b, p, m)
        assert any(f"P{holder}={total}" in line for line in spectator if "game over" in line)
        for v in range(3):
            assert g.narrate(b, p, m, viewer=v) == spectator
            assert g.to_json(view=v)["player_state"][holder]["final_tugrik"] == total
        return
    raise AssertionError("no game ended with a 3/5 card in hand")


def test_taschkent_the_final_blind_draw_is_told_to_both_seats():
    """2 players: the richer draws from the poorer; who is richer follows from the open final
    count, so the draw (even of nothing) is told to both seats alike."""
    for seed in range(1, 200):
        g, rng = Taschkent(2, seed), random.Random(seed)
        while not g.is_terminal():
            b, p, m = g.clone(), g.to_move, rng.choice(g.legal_moves())
            g.apply(m)
        steals = [e for e in g.last_events() if e[0] == tk_core.LOG_STEAL]
        if not steals:
            continue
        rich, poor, k = steals[0][1], steals[0][2], steals[0][3]
        line = f"  P{rich} (richer) draws {k} card{'s' if k != 1 else ''} blindly from P{poor}"
        for v in (None, 0, 1):
            assert line in g.narrate(b, p, m, viewer=v)
        return
    pytest.skip("no 2-player game ended in a blind draw")


@pytest.mark.parametrize("game", ["khan", "khiva", "kilim", "taschkent"])
def test_narrate_refuses_arguments_that_are_not_a_move_of_this_game(game):
    """Before, a wrong `before` failed inside the game's code (AttributeError on None) and a
    viewer or player like True or 9 was read as a seat or indexed out of range."""
    g = new_game(game, 3, 1)
    before = g.clone()
    move = g.legal_moves()[0]
    g.apply(move)
    other = new_game("khiva" if game != "khiva" else "kilim", 3, 1)
    assert isinstance(g.narrate(before, 0, move), list)
    for args, message in [((None, 0, move), "narrate needs `before`"),
                          ((other, 0, move), "narrate needs `before`"),
                          ((new_game(game, 4, 1), 0, move), "narrate needs `before`"),
                          ((before, True, move), "is an integer"),
                          ((before, 9, move), "out of range"),
                          ((before, 0, None), "a move is an integer"),
                          ((before, 0, move, 7), "out of range")]:
        with pytest.raises(ValueError, match=message):
            g.narrate(*args)
