"""The `caravan` command line."""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import List, Optional, Sequence

from engine.arguments import int_in, number_in, parse_seats, positive_int, seed_number
from engine.outputs import OutputError, OutputFile
from engine.registry import GAMES, all_options, game_info, new_game
from engine.validation import printable
from engine import play
from search.agents import AgentFailure, AgentSpec, close_agents, parse_agent, parse_agent_list
from search.config import (DEFAULT_BUDGET, DEFAULT_SECONDS, MAX_WORKERS, Budget, check_workers,
                           game_config)
from search.extras import MissingExtra
from search.match import agent_seed, play_game

EXIT_USAGE = 2           # a mistake in the command line
EXIT_ENGINE_FAILED = 3   # an external (cmd:) engine crashed, hung or played an illegal move


COMMANDS = ("match", "play", "hint", "review", "replay", "arena", "uci", "games")


class UsageError(Exception):
    """A mistake in the command line: reported in one line, exit code 2."""


MAX_ERROR_CHARS = 500      # an error is one readable line, however long what it quotes


def one_line(error: BaseException) -> str:
    """The error's message on one line of at most MAX_ERROR_CHARS characters (argparse
    quotes a whole unrecognized argument, however long)."""
    text = " ".join(str(error).split())
    return text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS - 3] + "..."


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one readable line, exit code 2
        raise UsageError(message)


seconds, iterations = play.search_seconds, play.search_iterations
workers = int_in(1, MAX_WORKERS)
weight = number_in(0, 1)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="caravan", description="Game AI for Khiva, Khan of Khans, Taschkent "
                     "and Kilim.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    m = sub.add_parser("match", help="play one whole game between agents and print it")
    m.add_argument("game", nargs="?", default="khiva", help=f"one of: {', '.join(GAMES)}")
    m.add_argument("--players", type=positive_int, default=None, help="number of players")
    m.add_argument("--agents", default=None,
                   help="comma-separated agent specs, one per seat, e.g. "
                        "ismcts:iterations=2000,c=0.7,random,random (default: ismcts, then random)")
    m.add_argument("--seed", type=seed_number, default=0, help="deal and agent seed (default 0)")
    m.add_argument("--quiet", action="store_true", help="print only the final score table")
    m.add_argument("--workers", type=workers, default=1,
                   help="search workers for ismcts agents (more than 1 runs on Ray)")
    m.add_argument("--address", default=None, help="Ray cluster address (or RAY_ADDRESS)")
    m.add_argument("--record", default=None,
                   help="also write the game's record (JSON) to this file, for `caravan review`")
    add_game_option_arguments(m)
    sub.add_parser("games", help="list the games and their player counts")
    sub.add_parser("uci", help="speak the UCI-style protocol on stdin/stdout (docs/protocol.md)")
    a = sub.add_parser("arena", help="play many games between agents and measure their strength")
    a.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    a.add_argument("--players", type=positive_int, default=None, help="number of players")
    a.add_argument("--agents", default=None,
                   help="comma-separated agent specs, 2 up to one per seat (give one twice to "
                        "play it against itself; default: ismcts,random); with --ladder, the "
                        "opponents (default: heuristic). An external engine: "
                        "cmd:<program>[,timeout=SECONDS] (default 60 s per answer; an engine "
                        "that crashes, hangs, plays an illegal move or writes invalid UTF-8 "
                        "loses that game), also iterations=N, seconds=S (docs/arena.md)")
    a.add_argument("--games", type=positive_int, default=100, help="games to play (rounded up to whole "
                   "duplicate deals; default 100)")
    a.add_argument("--seed", type=seed_number, default=0, help="seed of the deals and agents")
    a.add_argument("--workers", type=workers, default=1, help="parallel workers (default 1: in process)")
    a.add_argument("--address", default=None, help="Ray cluster address (or RAY_ADDRESS)")
    a.add_argument("--out", default=None, help="directory for game records, summary and plots "
                   "(created; checked before the first game)")
    a.add_argument("--sprt", default=None, help="elo0,elo1: stop when the SPRT decides (two agents)")
    a.add_argument("--ladder", default=None,
                   help="budget ladder, e.g. ismcts:iterations=250,1000,4000")
    a.add_argument("--no-duplicate", action="store_true",
                   help="a fresh deal for every game instead of duplicate deals")
    add_game_option_arguments(a)
    p = sub.add_parser("play", help="play a game at the terminal against AI seats")
    play.add_arguments(p, ", ".join(GAMES))
    add_game_option_arguments(p)
    h = sub.add_parser("hint", help="rank the moves of the seat to move, with win-probability bars")
    h.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    h.add_argument("--players", type=positive_int, default=None, help="number of players (seed form)")
    h.add_argument("--seed", type=seed_number, default=None, help="deal seed (seed form)")
    h.add_argument("--moves", default="", help="moves played since the deal, space-separated")
    h.add_argument("--view", default=None,
                   help="the position as one seat knows it, or a full state: a JSON file, or "
                        "JSON text")
    h.add_argument("--top", type=positive_int, default=5, help="how many moves to show (default 5)")
    h.add_argument("--json", action="store_true",
                   help="print the answer as one JSON object (docs/views/hint.schema.json) "
                        "instead of the board and the table")
    h.add_argument("--searchmoves", default=None,
                   help="search only these moves of the seat to move, space-separated (what "
                        "does the search make of the moves you are weighing?)")
    add_game_option_arguments(h, " (seed form)")
    add_search_arguments(h, "the search")
    rp = sub.add_parser("replay", help="print a game record as the game went, for everyone or "
                        "as one seat saw it")
    add_record_arguments(rp)
    rp.add_argument("--seat", default=None,
                    help="tell the game as this seat saw it (e.g. 1 or P1): only what it was "
                         "shown, until the end (default: everything, as a spectator)")
    r = sub.add_parser("review", help="replay a game record and show where each seat's moves "
                       "lost winning chances")
    add_record_arguments(r)
    r.add_argument("--seats", default=None, help="the seats to review, e.g. 0,2 (default: all)")
    r.add_argument("--all", action="store_true",
                   help="review every record of a JSON-lines file (an arena's games.jsonl) and "
                        "rank the agents by the winning chance their decisions lose")
    r.add_argument("--json", action="store_true",
                   help="print the review as one JSON object (docs/views/review.schema.json; "
                        "with --all, reviews.schema.json)")
    add_search_arguments(r, "each search")
    return parser


def option_flag(key: str) -> str:
    """The command-line flag of a game option: `neutral_region` is `--neutral-region`."""
    return "--" + key.replace("_", "-")


def add_game_option_arguments(p: argparse.ArgumentParser, note: str = "") -> None:
    """Every game's set-up options (`--khans`, `--goods`, `--neutral-region`); each applies to
    its own game only (game_options refuses the others). The underscore spelling of a
    two-word option, as the protocol and the Python API write it, is accepted too."""
    for key, help_text in all_options().items():
        flags = [option_flag(key)] + ([f"--{key}"] if "_" in key else [])
        p.add_argument(*flags, dest=key, default=None, help=help_text + note)


def add_search_arguments(p: argparse.ArgumentParser, which: str) -> None:
    """The budget and settings of `caravan hint`'s search, or of each of a review's."""
    p.add_argument("--iterations", type=iterations, default=None,
                   help=f"iterations of {which} (a reproducible budget; with --seconds, "
                        "whichever ends first)")
    p.add_argument("--seconds", "--time", dest="seconds", type=seconds, default=None,
                   help=f"seconds of {which} (default {DEFAULT_SECONDS:g} when --iterations "
                        "is not given either)")
    p.add_argument("--search-seed", type=seed_number, default=0, help=f"seed of {which}")
    p.add_argument("--mode", choices=("so", "mo"), default=None,
                   help="node keying (default: the game's, see `caravan games`)")
    p.add_argument("--score-weight", type=weight, default=None,
                   help="share of the search reward that is the score margin, 0-1 "
                        "(default: the game's, see `caravan games`)")
    p.add_argument("--workers", type=workers, default=1, help="search workers (more than 1: Ray)")
    p.add_argument("--address", default=None, help="Ray cluster address (or RAY_ADDRESS)")


def search_settings(args: argparse.Namespace, game: str, players: int):
    """(Budget, SearchConfig) from add_search_arguments' options: a second and the game's
    defaults where they are not given. Sets RAY_ADDRESS from --address."""
    budget = Budget(args.iterations or 0, args.seconds or 0.0)
    given = {"mode": args.mode, "score_weight": args.score_weight}
    config = game_config(game, players, **{k: v for k, v in given.items() if v is not None})
    if args.address:
        os.environ["RAY_ADDRESS"] = args.address
    return (DEFAULT_BUDGET if budget.unlimited else budget), config


def add_record_arguments(p: argparse.ArgumentParser) -> None:
    """Where `caravan replay` and `caravan review` read a game record."""
    p.add_argument("record", help="the game record: a JSON file (from caravan match or play "
                   "--record), an arena's games.jsonl with --line, JSON text, or - for stdin")
    p.add_argument("--line", type=positive_int, default=None,
                   help="which record of a JSON-lines file (1 first)")


def resolve_seats(game: str, players: Optional[int], agents_text: Optional[str]) -> List[AgentSpec]:
    """The agent spec of every seat, checking the player count against the game."""
    info = game_info(game)
    if agents_text is None:
        n = info.default_players if players is None else players
        info.check_players(n)
        return [parse_agent("ismcts")] + [parse_agent("random")] * (n - 1)
    specs = parse_agent_list(agents_text)
    named = f"{len(specs)} agent{'' if len(specs) == 1 else 's'}"
    if players is None and not info.min_players <= len(specs) <= info.max_players:
        raise ValueError(f"--agents names {named}, one a seat, and {info.title} is played by "
                         f"{info.min_players} to {info.max_players} players")
    n = len(specs) if players is None else players
    info.check_players(n)
    if len(specs) != n:
        raise ValueError(f"{n} players but {named} in --agents")
    return specs


def game_options(info, args: argparse.Namespace) -> dict:
    """The game options given on the command line, as text (each game parses its own)."""
    options = {}
    for key in all_options():
        raw = getattr(args, key, None)
        if raw is None:
            continue
        if key not in info.options:
            raise ValueError(f"{option_flag(key)} does not apply to {info.title}")
        options[key] = raw
    return options


def cmd_match(args: argparse.Namespace, out) -> int:
    info = game_info(args.game)
    specs = resolve_seats(args.game, args.players, args.agents)
    options = game_options(info, args)
    new_game(info.name, len(specs), args.seed, **options)   # bad options: refused before any output
    check_workers(args.workers)
    if args.address is not None and args.workers == 1:
        raise ValueError("--address says where the search workers run: give --workers above "
                         "1 too (a match's searches run in this process otherwise)")
    if args.address:
        os.environ["RAY_ADDRESS"] = args.address
    if args.workers > 1:
        for spec in specs:
            if spec.kind == "ismcts" and "workers" not in spec.options:
                spec.options["workers"] = max(args.workers, 1)
    record_file = OutputFile(args.record, "record") if args.record is not None else None
    try:
        agents = [spec.build(agent_seed(args.seed, seat)) for seat, spec in enumerate(specs)]
        n = len(agents)
        print(f"{info.title}, {n} players, seed {args.seed}", file=out)
        for seat, agent in enumerate(agents):
            print(f"  P{seat}: {agent.describe()}", file=out)
        printer = _GamePrinter(out) if not args.quiet else None
        try:
            record = play_game(info.name, agents, args.seed, n, options=options,
                               before_move=printer.before_move if printer else None,
                               on_move=printer.on_move if printer else None)
        finally:
            close_agents(agents)
        if record_file is not None:
            record_file.write(json.dumps(record.to_json()) + "\n")
    finally:
        if record_file is not None:
            record_file.close()
    play.print_score_table(out, record.ranking, record.scores, [a.describe() for a in agents])
    return 0


class _GamePrinter:
    """Prints a game as a spectator sees it (or as seat `viewer` does), from each core's
    `narrate`; once the game is over, the board as the spectator (or the viewer) sees it:
    everything, or what the rules show that seat at the end."""

    def __init__(self, out, viewer: Optional[int] = None) -> None:
        self.out = out
        self.viewer = viewer
        self.before = None

    def before_move(self, state) -> None:
        self.before = state.clone()

    def on_move(self, state, player: int, move: int) -> None:
        for line in state.narrate(self.before, player, move, viewer=self.viewer):
            print(line, file=self.out)
        if state.is_terminal():
            print("", file=self.out)
            print(state.render(self.viewer), file=self.out)


def cmd_replay(args: argparse.Namespace, out) -> int:
    """Tell a recorded game move by move, as `caravan match` told it (or as one seat saw it)."""
    from search.match import record_from_json

    viewer = None if args.seat is None else parse_seats(args.seat, "--seat")[0]
    record = shown_record(record_from_json(read_record(args.record, args.line)))
    if viewer is not None and not 0 <= viewer < record.players:
        raise ValueError(f"--seat: no seat {viewer} at {record.players} players")
    print_record_header(out, record, show_seed=viewer is None)
    printer = _GamePrinter(out, viewer)
    state = record.deal()
    for text in record.moves:
        player, move = state.to_move, state.parse_move(text)
        printer.before_move(state)
        state.apply(move)
        printer.on_move(state, player, move)
    if record.forfeit is not None:
        f = record.forfeit
        print(f"P{f['seat']} forfeits ({f['reason']}): {f.get('message', '')}".rstrip(": "),
              file=out)
    if record.ranking:
        play.print_score_table(out, record.ranking, record.scores,
                               record.seats or [f"P{s}" for s in range(record.players)])
    else:
        print(f"(the record stops after move {len(record.moves)}: the game is not over)",
              file=out)
    return 0


def print_record_header(out, record, show_seed: bool = True) -> None:
    """A recorded game's first lines, as `caravan match` begins: the deal, who sat where. A
    seat's replay leaves out the seed, which would deal every hidden card again."""
    options = printable("".join(f", {k} {v}" for k, v in record.options.items()))
    seed = f", seed {record.seed}" if show_seed else ""
    print(f"{game_info(record.game).title}, {record.players} players{seed}{options}", file=out)
    for seat, name in enumerate(record.seats):
        print(f"  P{seat}: {name}", file=out)


def start_search_workers(args: argparse.Namespace) -> None:
    """Start the search workers that --workers and --address ask for, before anything is
    printed, so that Ray missing or a silent cluster is one error line, not a broken table."""
    if args.workers > 1 or args.address:
        from search.parallel import shared_search
        shared_search(args.workers, args.address)


def cmd_hint(args: argparse.Namespace, out) -> int:
    """Rank the moves of the seat to move, after showing the position as that seat sees it."""
    from search.ismcts import root_moves_of
    from search.suggest import line_text, suggest

    info = game_info(args.game)
    state = _hint_position(info, args)
    if state.is_terminal():
        raise ValueError("the game is over: there is nothing to hint")
    budget, config = search_settings(args, state.game, state.n_players)
    searchmoves = None if args.searchmoves is None else args.searchmoves.split()
    root_moves_of(state, searchmoves)           # a bad move is refused before anything is shown
    start_search_workers(args)
    seat = state.to_move
    if not args.json:
        print(f"{info.title}: the position as P{seat}, the seat to move, sees it", file=out)
        print(state.render(seat), file=out)
        print("", file=out)
    sug = suggest(state, budget, args.top, config, seed=args.search_seed, workers=args.workers,
                  address=args.address, searchmoves=searchmoves)
    if args.json:
        print(json.dumps(sug.to_json()), file=out)
        return 0
    print(f"hints for P{sug.player} ({sug.iterations:,} iterations in {sug.seconds:.2f} s), "
          "ranked by visits: the moves the search chose most often first; win = its estimated "
          f"chance of winning after the move (an even chance at {state.n_players} players is "
          f"{1 / state.n_players:.0%}), score = its expected final score, then = the "
          "replies it expects, as far as it looked", file=out)
    width = max(len(m.text) for m in sug.moves)
    for m in sug.moves:
        bar = "#" * round(m.win_probability * 20)
        print(f"{m.rank:>2}. {m.text:<{width}}  {bar:<20} {m.win_probability:6.1%} win  "
              f"score {m.expected_score:6.1f}  visits {m.visits:,}", file=out)
        if m.line:
            print(f"    {' ' * width} then {line_text(m.line)}", file=out)
    return 0


def _hint_position(info, args: argparse.Namespace):
    """The position `caravan hint` is asked about: a seat's view, or a deal and its moves."""
    from engine.registry import from_json, from_view
    from engine.validation import MAX_TEXT, parse_json

    options = game_options(info, args)
    if args.view is not None:
        if args.players is not None or args.seed is not None or args.moves or options:
            raise ValueError("give either --view or the seed form (--players, --seed, --moves "
                             "and the game's options), not both")
        text = args.view
        if not text.lstrip().startswith("{"):
            try:
                with open(text, encoding="utf-8") as f:
                    text = f.read(MAX_TEXT + 1)      # enough to refuse a longer one
            except OSError as e:
                raise ValueError(f"cannot read the view file {args.view}: {e.strerror}") from None
            except UnicodeDecodeError:
                raise ValueError(f"the view file {args.view} is not UTF-8 text") from None
        view = parse_json(text, "view")
        if view.get("game") != info.name:
            raise ValueError(f"the view is not a {info.title} view")
        # a seat's view, or a full state (as the protocol's `position ... view` takes): the
        # search sees only the seat to move's information either way
        return from_view(view) if "view" in view else from_json(view)
    state = new_game(info.name, args.players, args.seed or 0, **options)
    for n, text in enumerate(args.moves.split(), 1):
        try:
            state.apply(text)
        except ValueError as e:
            raise ValueError(f"--moves: move {n} ({text[:40]}): {e}") from None
    return state


def cmd_play(args: argparse.Namespace) -> int:
    table = play.table_from_args(args, game_options(game_info(args.game), args))
    record_file = OutputFile(args.record, "record") if args.record is not None else None
    try:
        code = play.run(table, sys.stdin, sys.stdout, args.hint_iterations, args.hint_seconds,
                        record_to=record_file, coach=args.coach)
    finally:
        if record_file is not None:
            record_file.close()
    if record_file is not None:
        print(f"The game's record is in {args.record}; to see where moves lost winning "
              f"chances: caravan review {args.record}", file=sys.stdout)
    return code


MAX_RECORDS_TEXT = 64_000_000     # characters of a review's input: an arena's games.jsonl


def shown_record(record):
    """A record read from a file, its free text (seat names, a forfeit's message) made safe
    to print: a control character in it shows as its escape sequence rather than acting on
    the terminal."""
    from dataclasses import replace

    forfeit = (None if record.forfeit is None
               else {k: printable(v) if isinstance(v, str) else v
                     for k, v in record.forfeit.items()})
    return replace(record, seats=[printable(name) for name in record.seats], forfeit=forfeit)


def read_record_text(source: str) -> str:
    """The text of `caravan review`'s or `replay`'s record argument: JSON text itself, a file,
    or standard input for `-`; bounded, so too long an input is refused, not read whole."""
    if source.lstrip().startswith("{"):
        return source
    try:
        if source == "-":
            text = sys.stdin.read(MAX_RECORDS_TEXT + 1)
        else:
            with open(source, encoding="utf-8") as f:
                text = f.read(MAX_RECORDS_TEXT + 1)
        text.encode("utf-8")            # standard input may hold undecodable bytes as surrogates
    except OSError as e:
        raise ValueError(f"cannot read the record file {source}: {e.strerror}") from None
    except UnicodeError:
        where = "standard input" if source == "-" else f"the record file {source}"
        raise ValueError(f"{where} is not UTF-8 text") from None
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write first
    if len(text) > MAX_RECORDS_TEXT:
        raise ValueError(f"the record file {source} is longer than "
                         f"{MAX_RECORDS_TEXT:,} characters")
    if not text.strip():
        where = "standard input" if source == "-" else f"the record file {source}"
        raise ValueError(f"{where} holds no game record (it is empty)")
    return text


def json_lines(text: str) -> Optional[List[str]]:
    """The records of a JSON-lines text (at least two lines, the first a whole JSON document
    on its own), else None: one record, perhaps written over several lines. A later line
    that is not JSON stays a line, so its error names it."""
    lines = [x for x in text.splitlines() if x.strip()]
    if len(lines) < 2 or not lines[0].lstrip().startswith("{"):
        return None
    try:
        json.loads(lines[0])
    except (ValueError, RecursionError):
        return None
    return lines


def read_record(source: str, line: Optional[int]) -> dict:
    """The game record asked about, as JSON: a text holding one record (on one line or
    several), or JSON lines (one record a line: `line` picks one, 1 first)."""
    text = read_record_text(source)
    lines = json_lines(text)
    if line is None:
        if lines:
            raise ValueError(f"{len(lines)} records, one a line: choose one with --line "
                             f"(1 to {len(lines)}), or review them all with caravan review "
                             "--all")
        return parse_record(text)
    lines = lines or [text]
    if line > len(lines):
        raise ValueError(f"--line {line}: there {'is 1 record' if len(lines) == 1 else f'are {len(lines)} records'}")
    return parse_record(lines[line - 1], line)


def read_all_records(source: str) -> List[dict]:
    """Every record of a JSON-lines text (or the one record of a text that holds one)."""
    text = read_record_text(source)
    lines = json_lines(text)
    return [parse_record(x, n) for n, x in enumerate(lines, 1)] if lines else [parse_record(text)]


def parse_record(text: str, line: Optional[int] = None) -> dict:
    from engine.validation import parse_json

    what = "game record" if line is None else f"game record on line {line}"
    return parse_json(text, what, whole_numbers=False)


def cmd_review(args: argparse.Namespace, out) -> int:
    """Replay a record and show, decision by decision, what the search makes of each move."""
    from search.arena import is_terminal
    from search.match import record_from_json
    from search.review import check_seats, decisions_to_review, review_game

    seats = None if args.seats is None else parse_seats(args.seats)   # before reading a file
    if args.all:
        if args.line is not None:
            raise ValueError("--all reviews every record: it takes no --line")
        return review_all(args, out)
    record = shown_record(record_from_json(read_record(args.record, args.line)))
    budget, config = search_settings(args, record.game, record.players)
    chosen = check_seats(seats, record.players)
    start_search_workers(args)
    if not args.json:
        printer = ReviewPrinter(out, record)
        printer.header(chosen, budget)
        printer.summary(review_game(record, budget, config, seats=chosen, seed=args.search_seed,
                                    workers=args.workers, address=args.address,
                                    on_decision=printer.decision))
        return 0
    bar = None
    if is_terminal(sys.stderr):       # the JSON comes at the end: show the way there
        from tqdm import tqdm

        bar = tqdm(total=decisions_to_review(record, chosen), unit="decision",
                   desc="review", file=sys.stderr)
    try:
        review = review_game(record, budget, config, seats=chosen, seed=args.search_seed,
                             workers=args.workers, address=args.address,
                             on_decision=None if bar is None else lambda d: bar.update())
    finally:
        if bar is not None:
            bar.close()
    print(json.dumps(review.to_json()), file=out)
    return 0


def review_all(args: argparse.Namespace, out) -> int:
    """`caravan review --all`: every record of a file (an arena's games.jsonl), then each
    agent's accuracy over them (search.review.accuracy_by_agent)."""
    from search.arena import is_terminal
    from search.match import record_from_json
    from search.review import accuracy_by_agent, check_seats, decisions_to_review, review_game

    records = []
    for n, data in enumerate(read_all_records(args.record), 1):
        try:
            records.append(shown_record(record_from_json(data)))
        except ValueError as e:
            raise ValueError(f"record {n}: {e}") from None
    if len({r.game for r in records}) > 1:
        raise ValueError("the records are of several games: review one game at a time")
    seats = None if args.seats is None else parse_seats(args.seats)
    plans = []
    for n, record in enumerate(records, 1):
        try:
            chosen = check_seats(seats, record.players)
        except ValueError as e:
            raise ValueError(f"record {n}: {e}") from None
        plans.append((record, chosen) + search_settings(args, record.game, record.players))
    start_search_workers(args)
    bar = None
    if args.json and is_terminal(sys.stderr):
        from tqdm import tqdm

        bar = tqdm(total=sum(decisions_to_review(r, c) for r, c, _, _ in plans),
                   unit="decision", desc="review", file=sys.stderr)
    reviewed = []
    try:
        for n, (record, chosen, budget, config) in enumerate(plans, 1):
            review = review_game(record, budget, config, seats=chosen, seed=args.search_seed,
                                 workers=args.workers, address=args.address,
                                 on_decision=None if bar is None else lambda d: bar.update())
            reviewed.append((record, review))
            if not args.json:
                print_game_accuracy(out, n, record, review)
    finally:
        if bar is not None:
            bar.close()
    agents = accuracy_by_agent(reviewed)
    if args.json:
        print(json.dumps({"game": records[0].game,
                          "reviews": [review.to_json() for _, review in reviewed],
                          "agents": [a.to_json() for a in agents]}), file=out)
    else:
        print_agent_accuracy(out, agents, plans[0][2])
    return 0


def print_game_accuracy(out, n: int, record, review) -> None:
    """One line per game of `caravan review --all`: each seat's mean loss a decision."""
    parts = [f"P{s.seat} {record.seats[s.seat] if record.seats else ''} "
             f"{100 * s.mean_loss:.1f}".replace("  ", " ")
             for s in review.summary() if s.decisions]
    print(f"game {n} (seed {record.seed}): " + ", ".join(parts), file=out, flush=True)


def print_agent_accuracy(out, agents, budget: Budget) -> None:
    """The table that ends `caravan review --all`: the agents, the most accurate first."""
    from search.review import PLURALS

    print("", file=out)
    print(f"Each agent's decisions against the search's ({budget_text(budget)} a search): "
          "points of winning chance lost a decision, with a 95% interval over games",
          file=out)
    width = max([len(a.agent) for a in agents] + [5])
    print(f"{'agent':<{width}}  games  decisions  agreed  mean loss  95% interval   "
          + "  ".join(PLURALS[label] for label in agents[0].labels) if agents else "", file=out)
    for a in agents:
        low, high = a.interval()
        print(f"{a.agent:<{width}}  {a.games:>5}  {a.decisions:>9}  {a.agreed:>6}  "
              f"{100 * a.mean_loss:9.2f}  [{100 * low:5.2f}, {100 * high:5.2f}]  "
              + "  ".join(f"{n:>{len(PLURALS[label])}}" for label, n in a.labels.items()),
              file=out)


def budget_text(b: Budget) -> str:
    """`20,000 iterations`, `1 s`, or both joined by `or`."""
    return " or ".join(x for x in (f"{b.iterations:,} iterations" if b.iterations else "",
                                   f"{b.seconds:g} s" if b.seconds else "") if x)


WORST_SHOWN = 3        # the costliest labelled decisions named under each seat's summary


class ReviewPrinter:
    """`caravan review`'s table: one line per decision as it is reviewed, then the summary."""

    def __init__(self, out, record) -> None:
        self.out = out
        self.record = record
        self.width = max((len(m) for m in record.moves), default=4) + 2

    def header(self, seats: List[int], b: Budget) -> None:
        print_record_header(self.out, self.record)
        print(f"Review of {', '.join(f'P{s}' for s in seats)}, {budget_text(b)} a search. win = "
              "the search's chance of winning for the seat after the move, as the seat knew "
              "the game; lost = points of that chance below the search's choice "
              "(inaccuracy 5+, mistake 10+, blunder 20+); score = the final score the search "
              "expects after the move played, less that after its choice.", file=self.out)
        w = self.width
        print(f"{'ply':>4}  {'seat':<4}  {'played':<{w}} {'win':>6}   {'search':<{w}} {'win':>6}"
              f"  {'lost':>5}  {'score':>6}", file=self.out)

    def decision(self, d) -> None:
        w = self.width
        if d.agreed:
            choice, lost, score = f"{'=':<{w}} {'':>6}", "", ""
        else:
            choice = f"{d.best:<{w}} {d.best_win:6.1%}"
            lost, score = f"{100 * d.loss:5.1f}", f"{d.played_score - d.best_score:+6.1f}"
        print(f"{d.ply:>4}  P{d.seat:<3}  {d.played:<{w}} {d.played_win:6.1%}   {choice}  "
              f"{lost:>5}  {score:>6}  {d.label}".rstrip(), file=self.out, flush=True)

    def summary(self, review) -> None:
        from search.review import PLURALS

        print("", file=self.out)
        for s in review.summary():
            name = self.record.seats[s.seat] if self.record.seats else ""
            counts = ", ".join(f"{n} {label if n == 1 else PLURALS[label]}"
                               for label, n in s.labels.items())
            print(f"P{s.seat} {name}: {s.decisions} decisions reviewed, {s.agreed} as the search "
                  f"would, {100 * s.mean_loss:.1f} points lost a decision on average; {counts}",
                  file=self.out)
            worst = sorted((d for d in review.decisions if d.seat == s.seat and d.label),
                           key=lambda d: (-d.loss, d.ply))[:WORST_SHOWN]
            if worst:
                print("    costliest: " + "; ".join(
                    f"ply {d.ply} {d.played} ({100 * d.loss:.1f}, the search: {d.best})"
                    for d in worst), file=self.out)


def cmd_arena(args: argparse.Namespace, out) -> int:
    from search.arena import (ArenaProgress, check_specs, format_ladder, format_summary,
                              prepare_out_dir, run_arena, run_ladder)
    from search.stats import Sprt

    info = game_info(args.game)
    players = args.players or info.default_players
    info.check_players(players)
    options = game_options(info, args)
    sprt = None
    if args.sprt is not None:
        try:
            elo0, elo1 = (float(x) for x in args.sprt.split(","))
        except ValueError:
            raise ValueError("--sprt takes elo0,elo1, e.g. --sprt 0,50") from None
        sprt = Sprt(elo0, elo1)
    if args.ladder is not None and sprt is not None:
        raise ValueError("--sprt and --ladder do not go together")
    runner_for = _arena_runner(args, info.name, players, options)
    if args.out is not None:
        prepare_out_dir(args.out)             # before any game: one line and exit 2 if not
    if args.ladder is not None:
        opponents = [str(s) for s in parse_agent_list(given_or(args.agents, "heuristic"))]
        ladder = run_ladder(info.name, players, args.ladder, opponents, args.games, args.seed,
                            duplicate=not args.no_duplicate, options=options, out_dir=args.out,
                            progress_for=ArenaProgress, runner_for=runner_for,
                            on_rung=lambda result: print(format_summary(result), file=out))
        print(format_ladder(ladder), file=out)
        return 130 if ladder.interrupted else 0
    specs = check_specs([str(s) for s in parse_agent_list(given_or(args.agents, "ismcts,random"))])
    with ArenaProgress(info.name) as progress:
        result = run_arena(info.name, players, specs, args.games, args.seed,
                           duplicate=not args.no_duplicate, sprt=sprt, options=options,
                           out_dir=args.out, progress=progress, runner=runner_for(specs))
    print(format_summary(result), file=out)
    return 130 if result.interrupted else 0


def given_or(text: Optional[str], default: str) -> str:
    """An option's text when given (an empty one is an error where it is parsed, never the
    default), else the default."""
    return default if text is None else text


def _arena_runner(args, game: str, players: int, options: dict):
    """How the arena's games are played: in process, or as parallel tasks (--workers/--address)."""
    address = args.address or os.environ.get("RAY_ADDRESS")
    check_workers(args.workers)
    if args.workers == 1 and not address:
        return lambda specs: None
    from search.arena_ray import RayArenaRunner

    return lambda specs: RayArenaRunner(game, players, specs, args.seed, options,
                                        workers=args.workers, address=address)


def cmd_games(out) -> int:
    """Each game: its name, title, player counts (default), the options it takes and the
    search's defaults for it at each player count (engine.registry.SEARCH_DEFAULTS)."""
    for info in GAMES.values():
        print(f"{info.name:<10} {info.title:<14} {info.min_players}-{info.max_players} players "
              f"(default {info.default_players})", file=out)
        for key, help_text in info.options.items():
            print(f"    {option_flag(key)}: {help_text}", file=out)
        for n in range(info.min_players, info.max_players + 1):
            print(f"    search, {n} players: {info.search.as_text(n)}", file=out)
    print(f"A search lasts {DEFAULT_SECONDS:g} s unless told otherwise (caravan hint and play, "
          "the protocol, suggest()); `iterations` is the reproducible equivalent that "
          "`caravan match`, the arena and the agent spec `ismcts` use.", file=out)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    if sys.stdin is None:                  # started with stdin closed: read as empty input
        sys.stdin = open(os.devnull, encoding="utf-8")
    if sys.stdout is None:                 # started with stdout closed: nowhere to answer
        if sys.stderr is not None:
            print("caravan: error: standard output is closed", file=sys.stderr)
        return EXIT_USAGE
    try:
        code = run_command(parser, argv)
        sys.stdout.flush()                 # a full disk shows here, not at the exit
        return code
    except (UsageError, ValueError, MissingExtra) as e:   # MissingExtra: pip install it
        print(f"caravan: error: {one_line(e)}", file=sys.stderr)
        return EXIT_USAGE
    except AgentFailure as e:      # an external engine failed: not a mistake of the caller
        print(f"caravan: engine failed: {one_line(e)}", file=sys.stderr)
        return EXIT_ENGINE_FAILED
    except RuntimeError as e:      # e.g. every search worker failed, a full disk (OutputError)
        print(f"caravan: error: {one_line(e)}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        silence_stdout()
        return 0
    except OSError as e:           # writing the answer failed (stdout on a full disk)
        silence_stdout()
        print(f"caravan: error: cannot write the output: {e.strerror or e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("caravan: interrupted", file=sys.stderr)
        return 130


def silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's flush at exit, into the same
    broken pipe or full disk, adds no second message."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def run_command(parser: argparse.ArgumentParser, argv: Optional[Sequence[str]]) -> int:
    """Parse the command line and run its command; errors propagate to main."""
    args = parser.parse_args(argv)
    if args.command == "match":
        return cmd_match(args, sys.stdout)
    if args.command == "games":
        return cmd_games(sys.stdout)
    if args.command == "uci":
        from engine.protocol import main as uci_main

        return uci_main()
    if args.command == "hint":
        return cmd_hint(args, sys.stdout)
    if args.command == "arena":
        return cmd_arena(args, sys.stdout)
    if args.command == "review":
        return cmd_review(args, sys.stdout)
    if args.command == "replay":
        return cmd_replay(args, sys.stdout)
    if args.command == "play":
        return cmd_play(args)
    raise UsageError(f"a command is needed: one of {', '.join(COMMANDS)} "
                     "(caravan --help says what each does)")


if __name__ == "__main__":
    sys.exit(main())
