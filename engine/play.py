"""`caravan play`: people at a terminal play a game against AI seats.

Each human turn shows the board as that seat sees it (never another seat's hidden cards), its
hand, and the legal moves numbered; the human answers with a number or the move's notation,
or one of the commands in HELP. The other seats' moves are told as each human may see them:
with one human at once, with several (one keyboard passed around) when that human next sits
down, behind a "pass the keyboard" prompt.
"""
from __future__ import annotations

import argparse
import json
import secrets
from dataclasses import dataclass, field
from typing import Dict, List, Optional, TextIO, Tuple

from cext.core import GameCore
from engine.arguments import int_in, number_in, parse_seats, positive_int, seed_number
from engine.outputs import OutputFile
from engine.registry import GameInfo, game_info, new_game
from engine.validation import read_line, whole_number
from search.agents import Agent, parse_agent_list
from search.config import DEFAULT_SECONDS, MAX_ITERATIONS, MAX_SECONDS, Budget
from search.match import GameRecord, agent_seed

# The longest input line read as a move or a command (a move is a few dozen characters).
MAX_LINE = 10_000

HELP = """commands:
  <number>      play the move with that number
  <move>        play a move written in notation, e.g. {example}
  hint [k]      the k best moves by the engine's search, with their win chances (default 3)
  undo          take back your last decision, unless something hidden was shown since
  moves         list the legal moves again
  board         show the board again
  help          this text
  quit          leave the game"""



# The commands that take no argument (hint takes one, k).
PLAIN_COMMANDS = ("quit", "help", "moves", "board", "undo")


class Quit(Exception):
    """The player left (quit, or the end of input)."""


class UndoRefused(ValueError):
    """An undo that would let a person decide again knowing what was hidden from them."""


# Worlds replayed to see whether an undo would take back a reveal (Table.first_to_learn).
UNDO_WORLDS = 8


@dataclass
class Table:
    """A game at the terminal: the position, how it was reached, and who sits where."""

    info: GameInfo
    players: int
    seed: int
    humans: List[int]
    agents: Dict[int, Agent]
    options: dict
    secret_seed: bool = False     # drawn at random: shown only once the game is over or left
    state: GameCore = field(init=False)
    history: List[Tuple[int, int]] = field(default_factory=list)   # (seat, move) since the deal
    news: Dict[int, List[str]] = field(default_factory=dict)       # told to each human, not yet read

    def __post_init__(self) -> None:
        self.state = self.deal()
        self.news = {h: [] for h in self.humans}

    def deal(self) -> GameCore:
        return new_game(self.info.name, self.players, self.seed, **self.options)

    def play(self, seat: int, move: int) -> None:
        """Apply `move` for `seat` and tell every human what it may see of it."""
        before = self.state.clone()
        self.state.apply(move)
        self.history.append((seat, move))
        for h in self.humans:
            self.news[h] += _narration(self.state, before, seat, move, h)

    def record(self) -> GameRecord:
        """The game so far as a record (search.match.GameRecord): `caravan review` reads it."""
        names = [f"human P{s}" if s in self.humans else self.agents[s].describe()
                 for s in range(self.players)]
        record = GameRecord(self.info.name, self.players, self.seed, names,
                            options=dict(self.options))
        state = self.deal()
        for _, move in self.history:
            record.moves.append(state.move_to_text(move))
            state.apply(move)
        record.settle(state)
        return record

    def undo(self, seat: int) -> bool:
        """Back to just before `seat`'s last decision, replaying the game from the seed; False
        when it has made none. UndoRefused, changing nothing, when what would be taken back
        showed a person at the table something hidden from them before it: the replay deals
        the same cards, so they could decide again knowing them (as on most online tables,
        an undo stops at a reveal)."""
        last = max((i for i, (s, _) in enumerate(self.history) if s == seat), default=None)
        if last is None:
            return False
        kept = self.history[:last]
        before = self.deal()
        for _, m in kept:
            before.apply(m)
        who = self.first_to_learn(before, [m for _, m in self.history[last:]])
        if who is not None:
            you = "you have" if who == seat else f"P{who} has"
            raise UndoRefused(f"That cannot be taken back: since then {you} seen what was "
                              "hidden before it, and the game would deal it the same way.")
        self.state, self.history = before, list(kept)
        self.news = {h: [] for h in self.humans}
        return True

    def first_to_learn(self, before: GameCore, moves: List[int]) -> Optional[int]:
        """The first person at the table whom `moves`, played from `before` to now, showed
        something hidden from them at `before`; None if they showed nobody anything. Each
        person's view now must come out of UNDO_WORLDS worlds that agree with what they knew
        at `before` (every hidden card and every future draw dealt afresh), replayed through
        the same moves: a move that revealed a card shows another card in some world."""
        for h in self.humans:
            seen = self.state.to_json(view=h)
            for k in range(UNDO_WORLDS):
                world = before.determinized(h, k)
                try:
                    for m in moves:
                        world.apply(m)
                except ValueError:          # a move that world's cards do not allow
                    return h
                if world.to_json(view=h) != seen:
                    return h
        return None


def _narration(after: GameCore, before: GameCore, seat: int, move: int, viewer: int) -> List[str]:
    """What `viewer` may be told of `seat`'s move (every game's narrate takes a viewer)."""
    return list(after.narrate(before, seat, move, viewer=viewer))


# argparse types of a search's budget, shared with the caravan command line (engine.cli)
search_seconds = number_in(0, MAX_SECONDS, "seconds", above_low=True)
search_iterations = int_in(1, MAX_ITERATIONS)


def add_arguments(p: argparse.ArgumentParser, games: str) -> None:
    """The options of `caravan play`."""
    p.add_argument("game", help=f"one of: {games}")
    p.add_argument("--players", type=positive_int, default=None, help="number of players")
    p.add_argument("--seat", type=int_in(0), default=None, help="your seat (default 0)")
    p.add_argument("--seats", default=None,
                   help="several people at one keyboard: their seats, e.g. 0,2")
    p.add_argument("--agents", default=None,
                   help="agent specs of the other seats in seat order; one spec serves them "
                        "all (default: ismcts)")
    p.add_argument("--seed", type=seed_number, default=None,
                   help="deal and agent seed (default: a random one, kept secret until the "
                        "game ends, since the seed gives away every hidden card)")
    p.add_argument("--hint-iterations", type=search_iterations, default=None,
                   help="search iterations of `hint` (reproducible; default: a time budget, "
                        "--hint-seconds)")
    p.add_argument("--hint-seconds", type=search_seconds, default=None,
                   help=f"search seconds of `hint` (default {DEFAULT_SECONDS:g} when "
                        "--hint-iterations is not given either; with it, whichever ends first)")
    p.add_argument("--coach", action="store_true",
                   help="after each of your decisions, say what the search makes of it (the "
                        "hint's budget: a search, two where it prefers another move)")
    p.add_argument("--record", default=None,
                   help="write the game's record (JSON) to this file when the game ends or "
                        "you leave it, for `caravan review`")


def table_from_args(args: argparse.Namespace, options: dict) -> Table:
    """Check the command line and seat everyone; ValueError for a mistake."""
    info = game_info(args.game)
    players = info.default_players if args.players is None else args.players
    info.check_players(players)
    secret = args.seed is None
    seed = secrets.randbits(63) if secret else args.seed
    if seed < 0:
        raise ValueError(f"--seed must be non-negative, not {seed}")
    # checked now, not at the first hint; a caller's Namespace may predate --hint-seconds
    hint_budget(args.hint_iterations, getattr(args, "hint_seconds", None))
    if args.seat is not None and args.seats is not None:
        raise ValueError("give --seat or --seats, not both")
    humans = parse_seats(args.seats) if args.seats is not None else [0 if args.seat is None else args.seat]
    for h in humans:
        if not 0 <= h < players:
            raise ValueError(f"seat {h} is not a seat of a {players}-player game (0-{players - 1})")
    if len(set(humans)) != len(humans):
        raise ValueError("a seat is listed twice in --seats")
    ai_seats = [s for s in range(players) if s not in humans]
    if not ai_seats and args.agents is not None:
        raise ValueError("every seat is a person's (--seats): --agents has no seat to play")
    specs = parse_agent_list("ismcts" if args.agents is None else args.agents) if ai_seats else []
    if ai_seats and len(specs) not in (1, len(ai_seats)):
        raise ValueError(f"{len(ai_seats)} AI seats but {len(specs)} agents in --agents "
                         "(give one spec for all, or one per AI seat)")
    agents = {s: (specs[i] if len(specs) > 1 else specs[0]).build(agent_seed(seed, s))
              for i, s in enumerate(ai_seats)}
    return Table(info, players, seed, sorted(humans), agents, options, secret_seed=secret)


def hint_budget(iterations: Optional[int], seconds: Optional[float] = None) -> Budget:
    """The budget of the `hint` command: `iterations` (reproducible) and `seconds`,
    whichever ends first when both are given; DEFAULT_SECONDS when neither is. ValueError
    for a limit that is not positive."""
    if iterations is not None and (not isinstance(iterations, int)
                                   or not 1 <= iterations <= MAX_ITERATIONS):
        raise ValueError(f"--hint-iterations must be from 1 to {MAX_ITERATIONS:,}, "
                         f"not {iterations}")
    if seconds is not None and not 0 < seconds <= MAX_SECONDS:
        raise ValueError(f"--hint-seconds must be above 0 (and at most a day), not {seconds}")
    if iterations is None and seconds is None:
        seconds = DEFAULT_SECONDS
    return Budget(iterations=iterations or 0, seconds=seconds or 0.0)


def run(table: Table, inp: TextIO, out: TextIO, hint_iterations: Optional[int] = None,
        hint_seconds: Optional[float] = None, record_to: Optional[OutputFile] = None,
        coach: bool = False) -> int:
    """Play the game to its end (or until a player quits); returns the exit code. The game's
    record goes to `record_to` (one line of JSON) at the end, or when a player leaves. With
    `coach`, each human decision is judged by the search as soon as it is made (the hint's
    budget; search.review.review_decision)."""
    try:
        return _play_out(table, inp, out, hint_iterations, hint_seconds, coach)
    finally:
        if record_to is not None:
            record_to.write(json.dumps(table.record().to_json()) + "\n")


def _play_out(table: Table, inp: TextIO, out: TextIO, hint_iterations: Optional[int],
              hint_seconds: Optional[float], coach: bool) -> int:
    names = {s: ("you" if len(table.humans) == 1 else f"human {s}") if s in table.humans
             else table.agents[s].describe() for s in range(table.players)}
    seed = "a secret seed (shown when the game ends)" if table.secret_seed else f"seed {table.seed}"
    print(f"{table.info.title}, {table.players} players, {seed}", file=out)
    for s in range(table.players):
        print(f"  P{s}: {names[s]}", file=out)
    print("Type help for the commands.", file=out)
    at_keyboard: Optional[int] = table.humans[0] if len(table.humans) == 1 else None
    try:
        while not table.state.is_terminal():
            seat = table.state.to_move
            if seat in table.agents:
                table.play(seat, table.agents[seat].choose(table.state))
                if at_keyboard is not None:
                    _tell(table, at_keyboard, out)
                continue
            if at_keyboard != seat:
                _pass_keyboard(seat, inp, out)
                at_keyboard = seat
            _tell(table, seat, out)
            _human_turn(table, seat, inp, out, hint_budget(hint_iterations, hint_seconds),
                        coach)
            if len(table.humans) == 1:
                _tell(table, seat, out)
    except Quit as q:
        print(str(q), file=out)
        tell_seed(table, out)
        return 0
    for h in table.humans:
        table.news[h].clear()
    print("", file=out)
    print(table.state.render(), file=out)      # the game is over: everything may be shown
    print_score_table(out, table.state.ranking(), table.state.scores(),
                      [names[s] for s in range(table.players)])
    tell_seed(table, out)
    return 0


def tell_seed(table: Table, out: TextIO) -> None:
    """Once the game is over or left, the secret seed it was dealt from (to play it again)."""
    if table.secret_seed:
        print(f"The game was dealt from seed {table.seed}.", file=out)


def _tell(table: Table, seat: int, out: TextIO) -> None:
    for line in table.news[seat]:
        print(line, file=out)
    table.news[seat].clear()


def _pass_keyboard(seat: int, inp: TextIO, out: TextIO) -> None:
    """Hide the last player's hand before the next one sits down."""
    print("\n" * 40 + f"=== Pass the keyboard to P{seat}, then press Enter. ===", file=out,
          flush=True)
    if read_line(inp, MAX_LINE) is None:
        raise Quit("end of input: the game is left unfinished")
    print("\n" * 40, file=out)


def _human_turn(table: Table, seat: int, inp: TextIO, out: TextIO, hint: Budget,
                coach: bool = False) -> None:
    """Show the position to `seat` and read its decision (or a command) until it plays; with
    `coach`, then say what the search makes of the decision."""
    _show(table.state, seat, out)
    while True:
        moves = table.state.legal_moves()
        print(f"P{seat}> ", end="", file=out, flush=True)
        line = read_line(inp, MAX_LINE)
        if line is None:
            raise Quit("end of input: the game is left unfinished")
        if len(line) > MAX_LINE:
            print(f"a line of more than {MAX_LINE:,} characters is no move or command; "
                  "type help", file=out)
            continue
        if not _interactive(inp):
            print(line, file=out)                   # a transcript reads like a session
        words = line.split()
        if not words:
            continue
        cmd = words[0].lower()
        if cmd in PLAIN_COMMANDS and len(words) > 1:
            print(f"{cmd} takes nothing after it; type help", file=out)
            continue
        if cmd == "quit":
            raise Quit("you left the game")
        if cmd == "help":
            print(HELP.format(example=table.state.move_to_text(moves[0])), file=out)
        elif cmd == "moves":
            _list_moves(table.state, out)
        elif cmd == "board":
            _show(table.state, seat, out)
        elif cmd == "hint":
            _hint(table.state, words[1:], out, hint)
        elif cmd == "undo":
            try:
                undone = table.undo(seat)
            except UndoRefused as e:
                print(e, file=out)
                continue
            if undone:
                print("Taken back to your previous decision.", file=out)
                if table.state.to_move != seat or table.state.is_terminal():
                    return                     # the replayed game continues from there
                _show(table.state, seat, out)
            else:
                print("Nothing to undo: you have not decided anything yet.", file=out)
        else:
            move = _read_move(table.state, line.strip(), moves, out)
            if move is not None:
                before = table.state.clone()
                table.play(seat, move)
                if coach:
                    _coach(before, move, len(table.history), out, hint)
                return


def _interactive(inp: TextIO) -> bool:
    try:
        return inp.isatty()
    except (AttributeError, ValueError):
        return False


def _read_move(state: GameCore, text: str, moves: List[int], out: TextIO) -> Optional[int]:
    if text.isascii() and text.isdigit():
        k = int(text) if len(text) <= 9 else 0     # longer is no move number, and int()
        if 1 <= k <= len(moves):                   # of thousands of digits refuses
            return moves[k - 1]
        shown = text if len(text) <= 20 else text[:20] + "..."
        print(f"There is no move {shown}: choose 1 to {len(moves)}.", file=out)
        return None
    try:
        return state.parse_move(text)
    except ValueError:
        print(f"{text[:40]!r} is not a legal move or a command (type help).", file=out)
        return None


def _show(state: GameCore, seat: int, out: TextIO) -> None:
    print("", file=out)
    print(state.render(seat), file=out)
    print(f"You are P{seat}. Your moves:", file=out)
    _list_moves(state, out)


def _list_moves(state: GameCore, out: TextIO) -> None:
    texts = [state.move_to_text(m) for m in state.legal_moves()]
    width = max(len(t) for t in texts) + len(str(len(texts))) + 4
    per_line = max(1, 96 // width)
    for i in range(0, len(texts), per_line):
        print("".join(f"{k + 1:>{len(str(len(texts)))}}. {texts[k]:<{width - len(str(len(texts))) - 2}}"
                      for k in range(i, min(i + per_line, len(texts)))).rstrip(), file=out)


def _hint(state: GameCore, args: List[str], out: TextIO, budget: Budget) -> None:
    from search.suggest import line_text, suggest

    try:
        if len(args) > 1:
            raise ValueError
        k = whole_number(args[0], "k") if args else 3
        if k < 1:
            raise ValueError
    except ValueError:
        print("usage: hint [k], k a positive number", file=out)
        return
    sug = suggest(state, budget, k, seed=len(state.legal_moves()))
    for m in sug.moves:
        print(f"  {m.rank}. {m.text:<24} {m.win_probability:6.1%} win  score {m.expected_score:5.1f}"
              f"  ({m.visits} of {sug.iterations} iterations)", file=out)
        if m.line:
            print(f"     then {line_text(m.line)}", file=out)


def _coach(before: GameCore, move: int, ply: int, out: TextIO, budget: Budget) -> None:
    """One line on the decision just made at `before`: the search's chance of winning after
    it, and the search's own choice where it prefers another (judged from the seat's
    information only, as every search is)."""
    from search.config import game_config
    from search.review import decision_seed, review_decision

    if len(before.legal_moves()) < 2:
        return
    # the seed of `caravan review`'s search of this decision (search seed 0): a review of
    # the game's record at the same budget gives the same verdicts
    d = review_decision(before, ply, move, budget, game_config(before.game, before.n_players),
                        seed=decision_seed(0, ply))
    if d.agreed:
        print(f"coach: {d.played} is the search's choice too ({d.played_win:.1%} win)", file=out)
        return
    verdict = f"{100 * d.loss:.1f} points of winning chance lost" if d.loss else "as good"
    print(f"coach: {d.played} {d.played_win:.1%} win; the search prefers {d.best} "
          f"{d.best_win:.1%} ({verdict}{', ' + d.label if d.label else ''})", file=out)


def print_score_table(out: TextIO, ranking: List[int], scores: List[float],
                      names: List[str]) -> None:
    """Final places, best first, with each seat's score and who played it."""
    print("", file=out)
    print("final scores", file=out)
    print(f"{'rank':>4}  {'seat':<4}  {'player':<36} {'score':>5}", file=out)
    for p in sorted(range(len(ranking)), key=lambda p: (ranking[p], p)):
        print(f"{ranking[p]:>4}  P{p:<3}  {names[p]:<36} {scores[p]:>5}", file=out)
    winners = [p for p in range(len(ranking)) if ranking[p] == 1]
    if len(winners) == 1:
        print(f"winner: P{winners[0]} ({names[winners[0]]})", file=out)
    else:
        print("shared win: " + ", ".join(f"P{p}" for p in winners), file=out)
