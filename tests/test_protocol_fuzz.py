"""`caravan uci` never crashes or hangs on fuzzed lines: 5,000 of them from a fixed seed (the
fuzzer, and what it sends and checks, is tests/protocol_fuzzer.py)."""
from protocol_fuzzer import fuzz


def test_fuzzed_lines_never_crash_or_hang_the_engine():
    rep = fuzz(n_lines=5000, seed=20261130)
    summary = (f"seed {rep.seed}: {rep.lines} lines, {rep.gos} go, {rep.bestmoves} bestmove, "
               f"{len(rep.internal)} internal errors, {rep.seconds:.0f} s")
    assert rep.gos > 200 and rep.views_printed > 0, summary
    assert not rep.failures, summary + "\n" + "\n".join(rep.failures[:10])
    assert not rep.loader_findings, (
        summary + "\nthe game loaders crashed or hung (not the protocol):\n"
        + "\n".join(rep.loader_findings[:10]))


def test_mutations_leave_the_table_of_special_values_as_written():
    """A mutation copies a special value into the document: editing it later (a list grown
    or cut) must not edit the table, or the lines of a seed would depend on what ran before."""
    import copy
    import json
    import random

    from engine.registry import new_game
    from protocol_fuzzer import SPECIAL, Corpus, mutate_json

    table = copy.deepcopy(SPECIAL)
    views = [json.dumps(new_game(game, 2, 1).to_json(view=0))
             for game in ("khiva", "khan", "kilim", "taschkent")]
    corpus = Corpus(jsons=views)
    r = random.Random(3)
    for _ in range(3000):
        mutate_json(json.loads(r.choice(views)), r, corpus)
    assert SPECIAL == table
