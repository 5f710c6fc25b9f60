"""Khan of Khans: a rule-based baseline.

It reads only what its seat knows: the decks' unseen contents and known tops come from
`world.to_json(view=player)` (card counting: the Sable Nation's face-down cards, Raid! cards
within their bounds, are counted out of the decks they came from), the herds from the same
view (each of Sable's face-down cards is valued at the expected worth of a Raid! card of its
deck within its bound). Then:

- a Waha's Blessing just drawn: steal at once when an opponent's herd offers 50 cows or more
  (the best target, the leader on ties), else keep it (20 cows, safe);
- a kept blessing is used on a 100 (or, with two players, on a 50);
- corral when the best raid's expected value, counting what the herd may lose to Stampede!,
  Enemy Magic and infighting, is not positive, when the herd reaches its share of the cows
  still to come per corral left, or near the end;
- the High Llama Tribe sneaks a 100 (or anything valuable once its corrals are used);
- the Impala People use their ability when it is ready, reveal the most promising decks and
  take the best card they saw;
- otherwise raid the deck with the best expected value.
"""
from __future__ import annotations

RAID = {"raid20": 20, "raid50": 50, "raid100": 100}


def _face_down_worth(slot: dict, decks: dict) -> float:
    """The expected value of one of Sable's face-down cards to a seat that cannot see it: a
    Raid! card of its deck no higher than its bound (`max`, lowered by a Stampede!), weighted
    as the deck's unseen Raid! cards are (they include this card)."""
    unseen = decks[slot["deck"]]["unseen"]
    may_be = [(RAID[k], unseen.get(k, 0)) for k in RAID if RAID[k] <= slot["max"]]
    total = sum(n for _, n in may_be)
    if total == 0:      # no unseen Raid! card within the bound: only a loaded view could say so
        return float(max(v for v, _ in may_be))
    return sum(v * n for v, n in may_be) / total


def _herd(ps: dict, view: dict) -> tuple:
    """(value, number of cards) of a herd as the viewer sees it: the Sable Nation's face-down
    cards in its herd (when the viewer cannot see them) at their expected worth."""
    value = sum(int(k) * v for k, v in ps["herd"].items())
    n = sum(ps["herd"].values())
    if ps.get("herd_face_down", 0):
        decks = {d["name"]: d for d in view["decks"]}
        hidden = [sl for sl in view["sable_face_down"] if sl["at"] == "herd"]
        value += sum(sl["value"] if "value" in sl else _face_down_worth(sl, decks)
                     for sl in hidden)
        n += len(hidden)
    return value, n


def _own_herd(world, player: int) -> tuple:
    """My herd exactly (the Sable Nation knows its face-down values)."""
    d = world.to_json()
    ps = d["player_state"][player]
    cards = []
    for k, v in ps["herd"].items():
        cards += [int(k)] * v
    for sl in d["sable_face_down"]:
        if ps["khan"] == "sable" and sl["at"] == "herd":
            cards.append(sl["value"])
    return sum(cards), (max(cards) if cards else 0), len(cards)


def _card_value(card: str, herd: float, top: float, champion: bool, bison: bool,
                best_steal: float) -> float:
    if card in RAID:
        return RAID[card]
    if card == "stampede":
        return -top
    if card == "magic":
        return -(0.15 * herd + 5) if champion else -herd
    if card == "champion":
        if champion:
            return -top if bison else -herd
        return 0.15 * herd + 5
    if card == "blessing":
        return max(20.0, best_steal)
    return 0.0


def _in_deck(deck: dict, face_down: list) -> dict:
    """The deck's expected cards below a known top, by type. Its `unseen` cards include the
    Sable Nation's face-down cards drawn from it (when the viewer is not Sable), which are
    Raid! cards within their bound: each is taken out of the unseen Raid! cards it may be, in
    proportion, the tightest bound first."""
    counts = {k: float(v) for k, v in deck["unseen"].items()}
    bounds = sorted(sl["max"] for sl in face_down
                    if sl["deck"] == deck["name"] and "value" not in sl)
    for bound in bounds:
        may_be = [k for k in counts if k in RAID and RAID[k] <= bound]
        total = sum(counts[k] for k in may_be)
        for k in may_be:
            counts[k] -= counts[k] / total if total else 0.0
    return counts


def _distribution(deck: dict, face_down: list) -> dict:
    if deck["top"] is not None:
        return {deck["top"]: 1.0}
    counts = _in_deck(deck, face_down)
    total = sum(counts.values())
    return {k: v / total for k, v in counts.items() if v > 0} if total > 0 else {}


def _steal_targets(view: dict, player: int) -> list:
    """(value, opponent score, victim, tier text) of every steal, best first."""
    out = []
    for q, ps in enumerate(view["player_state"]):
        if q == player:
            continue
        if ps["khan"] == "sable":
            value, n = _herd(ps, view)
            if n:
                out.append((value / n, ps.get("score", 0) or 0, q, "random"))
        else:
            for k, v in ps["herd"].items():
                if v:
                    out.append((int(k), ps.get("score", 0), q, k))
    out.sort(reverse=True)
    return out


def choose(world, player: int, rng) -> int:
    legal = world.legal_moves()
    if len(legal) == 1:
        return legal[0]
    text = {world.move_to_text(m): m for m in legal}
    view = world.to_json(view=player)
    me = view["player_state"][player]
    herd, top, n_cards = _own_herd(world, player)
    champion = me["champion"]
    bison = me["khan"] == "bison"
    targets = _steal_targets(view, player)
    best_steal = targets[0][0] if targets else 0.0
    phase = view["phase"]
    decks = view["decks"]

    def ev(deck: dict) -> float:
        return sum(p * _card_value(c, herd, top, champion, bison, best_steal)
                   for c, p in _distribution(deck, view["sable_face_down"]).items())

    if phase == "blessing":
        if targets and best_steal >= 50:
            v, _, q, tier = targets[0]
            return text[f"steal-P{q}-{tier}"]
        return text["keep"]
    if phase == "reveal":
        seen = [RAID.get(d["top"], -1) for d in decks if d["name"] in view["revealed"]]
        if seen and max(seen) >= 100 or len(seen) >= 2 and max(seen) >= 50:
            if "stop" in text:
                return text["stop"]
        options = [(ev(d), rng.random(), d["name"]) for d in decks
                   if f"reveal-{d['name']}" in text]
        options.sort(reverse=True)
        return text[f"reveal-{options[0][2]}"]
    if phase == "pick":
        options = [(_card_value(d["top"], herd, top, champion, bison, best_steal), rng.random(),
                    d["name"]) for d in decks if f"take-{d['name']}" in text]
        options.sort(reverse=True)
        return text[f"take-{options[0][2]}"]

    # main phase
    if me["kept_blessings"] and targets:
        v, _, q, tier = targets[0]
        if v >= 100 or (v >= 50 and view["players"] == 2):
            move = f"bless-P{q}-{tier}"
            if move in text:
                return text[move]
    raids = [(ev(d), rng.random(), d["name"]) for d in decks if f"raid-{d['name']}" in text]
    raids.sort(reverse=True)
    best_ev = raids[0][0]
    if "sneak-100" in text:
        return text["sneak-100"]
    if me["corrals_open"] == 0 and herd >= 50 and best_ev < 25:
        for v in ("100", "50", "20"):
            if f"sneak-{v}" in text:
                return text[f"sneak-{v}"]
    if "corral" in text:
        cards_left = sum(d["count"] for d in decks)
        cows_left = sum(RAID.get(d["top"], 0) + sum(RAID.get(c, 0) * k for c, k in
                                                    _in_deck(d, view["sable_face_down"]).items())
                        for d in decks)
        share = cows_left / view["players"] / me["corrals_open"]
        if best_ev <= 0 or herd >= max(0.8 * share, 90) or cards_left <= 2 * view["players"]:
            return text["corral"]
    if "observant" in text and best_ev < 40:
        return text["observant"]
    return text[f"raid-{raids[0][2]}"]
