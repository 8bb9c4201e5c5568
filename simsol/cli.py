"""The ``simsol`` command line: run, games, show (and the study commands added beside them)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings

from simsol.rules import SimsolError, parse_rule_args

DESCRIPTION = """\
simsol plays seeded deals of patience games with a chosen player policy and reports how often
they come out, with 95% confidence intervals.  Deal i of seed s is the same everywhere, so runs
that differ only in rules or policy are played on the same deals.

examples:
  simsol games                                   every game, preset, option and policy
  simsol run klondike --deals 1000000            book Klondike, greedy player
  simsol run klondike --preset standard --rule draw=1 --policy random
  simsol show klondike --deal 17                 one deal played move by move
  simsol tune klondike --trials 50 --deals 2000  tune the heuristic's weights (Optuna)
  simsol solve klondike --deals 1000             how many deals can come out (exact solver)
  simsol experiment experiments/all_games.toml   a grid of games x presets x policies
  simsol report results/all_games                tables (CSV, Markdown) and plots
"""


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error (and exit code 2) instead of the usage dump."""

    def error(self, message):
        raise SimsolError(f"{message} (see '{self.prog} --help')")


def count(text: str) -> int:
    """A whole number, allowing 1_000_000, 1,000,000 and 1e6."""
    cleaned = text.replace("_", "").replace(",", "")
    try:
        value = float(cleaned) if "e" in cleaned.lower() else int(cleaned)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if isinstance(value, float):
        if not value.is_integer():
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
        value = int(value)
    return value


def add_game_arguments(parser, deal_options: bool = True, policy: str = "greedy",
                       policy_help: str | None = None, seed_help: str | None = None) -> None:
    parser.add_argument("game", help="a game name (see 'simsol games')")
    parser.add_argument("--preset", default="book", help="a named rule set (default: book)")
    parser.add_argument("--rule", action="append", metavar="NAME=VALUE",
                        help="override one rule option, e.g. --rule draw=1 (repeatable)")
    parser.add_argument("--policy", default=policy,
                        help=policy_help or "the player: random, greedy, heuristic, lookahead, "
                             "peeking (the look-ahead on the real cards: it sees hidden cards), "
                             "hop (the solver's judgement in sampled worlds of the unseen "
                             "cards: honest, slow), solver (the exact solver: sees every card), "
                             "tuned (the weights 'simsol tune' shipped for the game, where it "
                             "has them) or "
                             f"one from --policy-file (default: {policy}; see 'simsol policies')")
    parser.add_argument("--policy-opt", action="append", metavar="KEY=VALUE",
                        help="change a policy setting, e.g. --policy-opt weight.reveal=3, "
                             "samples=16, depth=60, ties=first (repeatable)")
    parser.add_argument("--policy-file", metavar="FILE",
                        help="a TOML file of your own policies ([policies.NAME] tables)")
    parser.add_argument("--seed", type=count, default=0,
                        help=seed_help or "master seed (default: 0)")
    parser.add_argument("--max-moves", type=count, default=5000,
                        help="moves after which a game is cut off and counted as capped "
                             "(default: 5000)")


def add_backend_arguments(parser) -> None:
    """Where and how chunks run: shared by run and experiment."""
    parser.add_argument("--workers", type=count, default=None,
                        help="processes to use: 0 or left out for every core; more than the "
                             "cores only share them (a warning); not with --scheduler")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the chunks on a Dask cluster, e.g. tcp://host:8786")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (nor the note before a game's first compile); "
                             "when stderr is not a terminal, progress is a line per tenth")


def build_parser() -> Parser:
    parser = Parser(prog="simsol", description=DESCRIPTION,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    from simsol import __version__
    parser.add_argument("--version", action="version", version=f"simsol {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    run = commands.add_parser("run", help="play many seeded deals and report the win rate",
                              description="Play deals first..first+deals-1 of a seed and print the "
                                          "win rate with its Wilson 95% interval.")
    add_game_arguments(run)
    run.add_argument("--deals", type=count, default=100_000,
                     help="how many deals (default 100,000)")
    run.add_argument("--first", type=count, default=0, help="index of the first deal (default 0)")
    run.add_argument("--chunk-size", type=count, default=None,
                     help="deals per task (default: 10,000, fewer for a short run or a "
                          "searching player so the progress shows; records do not depend on it)")
    run.add_argument("--records", metavar="FILE",
                     help="also write one row per deal to FILE (.parquet or .csv), streamed "
                          "as chunks finish; the path is checked before any deal is played")
    run.add_argument("--json", action="store_true",
                     help="print the summary as JSON (with first and max_moves)")
    add_backend_arguments(run)

    games = commands.add_parser("games", help="list games, presets, rule options and policies")
    games.add_argument("game", nargs="?", help="show one game in full")

    policies = commands.add_parser("policies", help="list the policies and their settings")
    policies.add_argument("game", nargs="?", default="klondike",
                          help="show the settings as they apply to this game (default klondike)")
    policies.add_argument("--policy-file", metavar="FILE", help="also list the policies in FILE")

    show = commands.add_parser("show", help="play one deal and print it move by move")
    add_game_arguments(show)
    show.add_argument("--deal", type=count, default=0, help="which deal (default 0)")
    show.add_argument("--json", action="store_true",
                      help="a machine-readable trace: every move's source, destination and cards")
    show.add_argument("--ascii", action="store_true", help="write 10H KS instead of 10♥ K♠")
    show.add_argument("--every", type=count, default=0, metavar="K",
                      help="also print the whole position every K moves")
    experiment = commands.add_parser(
        "experiment", help="run an experiment spec into a results folder (resumable)",
        description="Play every cell of an experiment spec (TOML) into a results folder. "
                    "Finished chunks are kept: a re-run resumes, a larger --deals extends.")
    experiment.add_argument("spec", help="an experiment spec, e.g. experiments/all_games.toml")
    experiment.add_argument("--out", help="results folder (default: results/<spec name>)")
    experiment.add_argument("--quick", action="store_true",
                            help="play the spec's quick_deals per cell instead of deals")
    experiment.add_argument("--deals", type=count, help="deals per cell, overriding the spec")
    experiment.add_argument("--game", action="append", metavar="GAME",
                            help="play only this game's cells (repeatable); the same deals as "
                                 "in a whole run, so its figures pair with a whole run's")
    add_backend_arguments(experiment)
    experiment.add_argument("--report", action="store_true",
                            help="write the report when the run is done")

    add_tune_parser(commands)
    add_solve_parser(commands)

    report = commands.add_parser("report", help="tables and plots from a results folder",
                                 description="Write summary and paired-comparison tables (CSV "
                                             "and Markdown) and plots (PNG and SVG).")
    report.add_argument("results", help="a results folder, e.g. results/all_games")
    report.add_argument("--out", help="where to write (default: RESULTS/report)")
    return parser


TUNE_DESCRIPTION = """\
Search a weighted policy's weights with Optuna: every feature weight (weight.FEATURE, searched
in {weights}) and the weight of every move kind in the policy's order (kind.KIND, in {kinds}:
kinds are {gap} apart in the order, so a kind can move up to {places} places).  A trial plays the
training deals (0..DEALS-1 of --seed, the same deals for every trial) and scores the games won;
trial 0 is the starting policy itself, so the best is never worse than the start on them.

The study is kept in OUT/study.db: the same command run again continues it, playing only the
trials still missing to reach --trials (a larger --trials extends it).  Then the best weights and
the starting policy play --holdout-deals deals of --holdout-seed, the same deals for both, and
the summary gives both win rates with their 95% intervals and the paired difference with its
interval (the training figure is the best of many, so it flatters; the held-out one does not).

It writes OUT/tuned.toml, a policy file holding [policies.tuned-GAME]:
  simsol run GAME --policy-file OUT/tuned.toml --policy tuned-GAME
and with --ship also the game's table in the package's simsol/tuned.toml, which the built-in
'tuned' policy reads (run it again with --ship to ship a finished study without new trials).

examples:
  simsol tune klondike --trials 50 --deals 2000
  simsol tune klondike --policy lookahead --policy-opt samples=4 --trials 20 --deals 200
  simsol tune canfield --sampler cmaes --trials 200 --deals 5000 --ship
"""


def add_tune_parser(commands) -> None:
    from simsol.policies import KIND_GAP
    from simsol.tune import (
        DEFAULT_DEALS,
        DEFAULT_HOLDOUT_DEALS,
        DEFAULT_TRIALS,
        KIND_RANGE,
        SAMPLERS,
        WEIGHT_RANGE,
    )
    description = TUNE_DESCRIPTION.format(
        weights="{:g}..{:g}".format(*WEIGHT_RANGE), kinds="{:g}..{:g}".format(*KIND_RANGE),
        gap=f"{KIND_GAP:g}", places=f"{KIND_RANGE[1] / KIND_GAP:g}")
    tune = commands.add_parser("tune", help="tune a weighted policy's weights with Optuna "
                                            "(resumable), checked on held-out deals",
                               description=description,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    add_game_arguments(
        tune, policy="heuristic",
        policy_help="the starting policy, a weighted one: heuristic, lookahead, peeking, "
                    "tuned, or one from --policy-file on those bases (default: heuristic); "
                    "its settings are kept, its weights are the start of the search",
        seed_help="seed of the training deals (default: 0)")
    tune.add_argument("--trials", type=count, default=DEFAULT_TRIALS,
                      help="finished trials the study should hold; a study that has them "
                           f"plays none (default: {DEFAULT_TRIALS})")
    tune.add_argument("--deals", type=count, default=DEFAULT_DEALS,
                      help=f"training deals played by every trial (default: {DEFAULT_DEALS:,})")
    tune.add_argument("--holdout-deals", type=count, default=DEFAULT_HOLDOUT_DEALS,
                      help="held-out deals the best weights and the start are compared on "
                           f"(default: {DEFAULT_HOLDOUT_DEALS:,})")
    tune.add_argument("--holdout-seed", type=count, default=None,
                      help="seed of the held-out deals, not the training seed (default: "
                           "--seed plus 1)")
    tune.add_argument("--sampler", choices=SAMPLERS, default="tpe",
                      help="Optuna's sampler: tpe (tree-structured Parzen estimator) or cmaes "
                           "(CMA-ES, started at the policy's weights); seeded from --seed, so a "
                           "run is reproducible (default: tpe)")
    tune.add_argument("--out", metavar="DIR",
                      help="the study's folder, holding study.db and tuned.toml; one tuner at a "
                           "time (default: results/tune/GAME-PRESET-POLICY)")
    tune.add_argument("--ship", action="store_true",
                      help="also write the weights as GAME's table in the package's "
                           "simsol/tuned.toml, read by the built-in 'tuned' policy (its version "
                           "is raised)")
    add_backend_arguments(tune)


SOLVE_DESCRIPTION = """\
Ask the exact solver whether each deal can come out with perfect play.  The solver SEES EVERY
CARD (the face-down cards, the stock's order, the game's own future reshuffles): it is the top of
the skill ladder, an upper bound no honest player can reach.  A depth-first search over the
game's own moves, with a transposition table of a fixed size; each deal ends solvable (its
winning line is then played through the ordinary game loop), unsolvable (every reachable
position searched) or unknown (the budget of positions spent, or a line longer than --depth).

The solvable share is given with its bracket: the Wilson 95% interval's lower end with the
unknown deals counted unsolvable and its upper end with them counted solvable.  The budget
counts positions, not seconds, so a verdict is the same on every machine.  In experiment specs
and simulate() the same player is policy "solver" (its settings: nodes, table_mb, depth).

examples:
  simsol solve klondike --preset standard --deals 1000
  simsol solve canfield --deals 10000 --nodes 5e6 --table-mb 256
  simsol show klondike --deal 3 --policy solver     one winning line, move by move
"""


def add_solve_parser(commands) -> None:
    from simsol.engine.solver import SOLVER_SETTINGS
    defaults = {setting.name: setting.default for setting in SOLVER_SETTINGS}
    solve = commands.add_parser("solve", help="how many deals can come out with perfect play "
                                              "(an exact solver that sees every card)",
                                description=SOLVE_DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    solve.add_argument("game", help="a game name (see 'simsol games')")
    solve.add_argument("--preset", default="book", help="a named rule set (default: book)")
    solve.add_argument("--rule", action="append", metavar="NAME=VALUE",
                       help="override one rule option, e.g. --rule draw=1 (repeatable)")
    solve.add_argument("--deals", type=count, default=1000, help="how many deals (default 1,000)")
    solve.add_argument("--first", type=count, default=0,
                       help="index of the first deal (default 0)")
    solve.add_argument("--seed", type=count, default=0, help="master seed (default: 0)")
    solve.add_argument("--nodes", type=count, default=defaults["nodes"],
                       help="positions the search may visit per deal before the deal is "
                            f"unknown (default {defaults['nodes']:,})")
    solve.add_argument("--table-mb", type=count, default=defaults["table_mb"],
                       help="megabytes of the transposition table per worker (default "
                            f"{defaults['table_mb']})")
    solve.add_argument("--depth", type=count, default=defaults["depth"],
                       help=f"the longest line searched (default {defaults['depth']:,})")
    solve.add_argument("--max-moves", type=count, default=5000,
                       help="moves after which a replayed line is cut off (default: 5000)")
    solve.add_argument("--records", metavar="FILE",
                       help="also write one row per deal to FILE (.parquet or .csv); its end "
                            "column holds the verdict (won = solvable)")
    solve.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_backend_arguments(solve)


def command_solve(args) -> None:
    import simsol
    from simsol.stats import solvable_bracket
    options = {"nodes": args.nodes, "table_mb": args.table_mb, "depth": args.depth}
    result = simsol.simulate(args.game, preset=args.preset, rules=parse_rule_args(args.rule),
                             policy="solver", policy_options=options, deals=args.deals,
                             seed=args.seed, first=args.first, workers=args.workers,
                             max_moves=args.max_moves, progress=not args.no_progress,
                             scheduler=args.scheduler, keep_records=False,
                             records_to=args.records)
    row = result.table().iloc[0].to_dict()
    n, solvable = row["deals"], row["wins"]
    unsolvable, unknown = row["unsolvable"], row["unknown"]
    other = n - solvable - unsolvable - unknown  # a line the loop did not play out: never expected
    low, high = solvable_bracket(solvable, unknown + other, n)
    summary = {"rules": row["rules"], "policy": row["policy"], "seed": row["seed"],
               "first": args.first, "deals": n, "solvable": solvable, "unsolvable": unsolvable,
               "unknown": unknown, "not_replayed": other, "solvable_share": solvable / n,
               "bracket_low": low, "bracket_high": high, "deals_per_s": row["deals_per_s"]}
    if args.json:
        print(json.dumps({k: (v.item() if hasattr(v, "item") else v) for k, v in summary.items()}))
        return
    print(f"{row['rules']}  {row['policy']}  seed {row['seed']}  "
          f"deals {args.first:,}..{args.first + n - 1:,}")
    print(f"  solvable     {solvable:>10,}  = {100 * solvable / n:.3f}%  (bracket {100 * low:.3f}% "
          f"to {100 * high:.3f}%: Wilson 95%, unknowns as unsolvable / as solvable)")
    print(f"  unsolvable   {unsolvable:>10,}  = {100 * unsolvable / n:.3f}%")
    print(f"  unknown      {unknown:>10,}  = {100 * unknown / n:.3f}%  (budget {args.nodes:,} "
          "positions a deal)")
    if other:
        print(f"  not replayed {other:>10,}  (a winning line the game loop cut short: a bug; "
              "counted as unknown)")
    print(f"  speed        {row['deals_per_s']:,.2f} deals/s")
    if args.records:
        print(f"  records      {args.records}")


def command_tune(args) -> None:
    from simsol.tune import ship, tune
    options = policy_arguments(args)
    result = tune(args.game, preset=args.preset, rules=parse_rule_args(args.rule),
                  policy=args.policy, trials=args.trials, deals=args.deals, seed=args.seed,
                  holdout_seed=args.holdout_seed, holdout_deals=args.holdout_deals,
                  sampler=args.sampler, out=args.out, workers=args.workers,
                  progress=not args.no_progress, max_moves=args.max_moves,
                  scheduler=args.scheduler, policy_options=options["policy_options"],
                  policies=args.policy_file)
    print(result.summary())
    if args.ship:
        path, version = ship(result)
        what = "the starting weights (the best lost on held-out deals)" if (
            result.lost_held_out) else "the best weights"
        from simsol.policies import tuned_key
        key = tuned_key(result.game, result.rules.preset)
        stamp = key.partition(":")[1] + key.partition(":")[2]
        print(f"  shipped       {what} to {path} [{key}], the built-in policy "
              f"tuned{stamp}@v{version}")


def command_experiment(args) -> None:
    from simsol.experiments import load_spec, run_experiment
    for line in load_spec(args.spec).skipped:
        print(f"not playable, left out: {line}", file=sys.stderr)
    store = run_experiment(args.spec, out=args.out, quick=args.quick, deals=args.deals,
                           workers=args.workers, scheduler=args.scheduler,
                           progress=not args.no_progress, games=args.game)
    print(f"results in {store.path}")
    if args.report:
        from simsol.report import write_report
        print(f"report in {write_report(store.path)}")


def command_report(args) -> None:
    from simsol.report import write_report
    out = write_report(args.results, args.out)
    print((out / "summary.md").read_text(), end="")
    print(f"tables and plots in {out}")


def policy_arguments(args) -> dict:
    """simulate()/trace() keywords for --policy-opt and --policy-file."""
    from simsol.policies import load_policy_file, parse_value
    options = {}
    for item in args.policy_opt or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise SimsolError(f"bad --policy-opt {item!r}; write it as KEY=VALUE, "
                              "e.g. --policy-opt weight.reveal=3")
        options[key.strip()] = parse_value(value)
    extra = load_policy_file(args.policy_file) if args.policy_file else None
    return {"policy_options": options or None, "policies": extra}


def command_policies(args) -> None:
    from simsol.games import get_game
    from simsol.policies import (
        TUNED,
        game_policies,
        load_policy_file,
        policy_summary,
        tuned_presets,
    )
    game = get_game(args.game)
    extra = load_policy_file(args.policy_file) if args.policy_file else {}
    print(f"policies, with their settings for {game.name} (move kinds: "
          f"{', '.join(game.move_kinds)}):")
    for name in list(game_policies(game)) + [name for name in extra
                                              if name not in game_policies(game)]:
        print(f"  {policy_summary(game, name, extra)}")
        if name == TUNED and name not in extra:  # the presets tuned on their own
            for preset in tuned_presets(game):
                if preset != "book":
                    print(f"  under --preset {preset}: {policy_summary(game, name, None, preset)}")
    from simsol.players import FEATURE_NAMES
    print("heuristic features (--policy-opt weight.NAME=W): " + ", ".join(FEATURE_NAMES))
    for name, doc in game.features:
        print(f"  {game.name}'s own: {name} - {doc}")


def command_run(args) -> None:
    """The summary is tallied as chunks finish and the records only streamed to --records, so
    memory stays flat for any --deals."""
    import simsol
    from simsol.runner import END_REASONS, end_column
    result = simsol.simulate(args.game, preset=args.preset, rules=parse_rule_args(args.rule),
                             policy=args.policy, deals=args.deals, seed=args.seed,
                             first=args.first, workers=args.workers, chunk_size=args.chunk_size,
                             max_moves=args.max_moves, progress=not args.no_progress,
                             scheduler=args.scheduler, keep_records=False,
                             records_to=args.records, **policy_arguments(args))
    row = result.table().iloc[0].to_dict()
    if args.json:
        print(json.dumps({k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}))
        return
    low, high = result.ci
    print(f"{row['rules']}  policy {row['policy']}  seed {row['seed']}  "
          f"deals {args.first:,}..{args.first + row['deals'] - 1:,}")
    print(f"  won          {row['wins']:>12,}  = {100 * row['win_rate']:.3f}%  "
          f"(95% CI {100 * low:.3f}% to {100 * high:.3f}%)")
    print(f"  foundations  mean {row['mean_foundation']:.2f} cards at the end; lost games "
          f"mean {row['lost_mean_foundation']:.2f}, median {row['lost_foundation_median']:.0f}, "
          f"quartiles {row['lost_foundation_q1']:.0f}-{row['lost_foundation_q3']:.0f}")
    ended = [f"{ENDED_AS.get(reason, reason)} {row[end_column(reason)]:,}"
             for reason in END_REASONS[1:]
             if reason not in SOLVER_ENDS or row[end_column(reason)]]  # the solver's verdicts
    print("  ended        " + " · ".join(ended))
    print(f"  speed        {row['deals_per_s']:,.0f} deals/s")
    if args.records:
        print(f"  records      {args.records}")


SOLVER_ENDS = ("unsolvable", "unknown")  # shown only where a player gave such verdicts
# how an end reason reads in the summary
ENDED_AS = {"move cap": "cut by the move cap", "idle cap": "cut by the idle cap"}


def book_of(source: str) -> str:
    """``Leeming (seed 000; rules rebuilt)`` -> ``Leeming's book, rules rebuilt``: the number
    names the project's copy of the book, not a random seed, so it is left out."""
    author, _, notes = source.partition(" (")
    kept = [note.strip() for note in notes.rstrip(")").split(";")
            if note.strip() and not re.fullmatch(r"seed \d+", note.strip())]
    return ", ".join([f"{author}'s book"] + kept)


def command_games(args) -> None:
    from simsol.games import game_names, get_game
    from simsol.policies import POLICY_DOCS, game_policies
    names = [args.game] if args.game else game_names()
    for name in names:
        game = get_game(name)
        print(f"{game.name} — {game.title}, {book_of(game.source)}; {game.deck.size} cards")
        if not args.game:
            print("  presets: " + ", ".join(game.presets))
            continue
        print("  presets:")
        for preset, doc in game.preset_docs.items():
            overrides = ", ".join(f"{k}={game.option(k).text(v)}"
                                  for k, v in game.presets[preset].items())
            print(f"    {preset:<22} {doc}" + (f"  [{overrides}]" if overrides else ""))
        print("  rule options (--rule NAME=VALUE):")
        for option in game.options:
            print(f"    {option.name:<16} default {option.text(option.default):<16} "
                  f"allowed: {option.allowed()}")
            print(f"    {'':<16} {option.doc}")
        print(f"  policies ('simsol policies {game.name}' lists their settings):")
        for policy, config in game_policies(game).items():
            print(f"    {policy}: {config.doc}")
        print(f"    greedy's order here: {' > '.join(game.greedy_order)}")
    if not args.game:
        print("policies: " + ", ".join(f"{p} ({d})" for p, d in POLICY_DOCS.items())
              + ", tuned (the weights 'simsol tune' shipped for a game, where it has them)")
        print("'simsol games GAME' lists a game's presets, rule options and policies in full.")


def command_show(args) -> None:
    from simsol.show import trace_text
    from simsol.trace import trace
    t = trace(args.game, preset=args.preset, rules=parse_rule_args(args.rule),
              policy=args.policy, seed=args.seed, deal=args.deal, max_moves=args.max_moves,
              **policy_arguments(args))
    if args.json:
        print(json.dumps(t.as_dict(), ensure_ascii=args.ascii))
    else:
        sys.stdout.write(trace_text(t, ascii=args.ascii, every=args.every))


COMMANDS = {"run": command_run, "games": command_games, "show": command_show,
            "experiment": command_experiment, "report": command_report,
            "policies": command_policies, "tune": command_tune, "solve": command_solve}


def one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"simsol: warning: {message}", file=sys.stderr)


def main(argv=None) -> int:
    """Run a command; a user error is one line on stderr and exit code 2 (with what was kept,
    where something was), an interrupt exit code 130."""
    parser = build_parser()
    try:
        with warnings.catch_warnings():
            warnings.showwarning = one_line_warning
            args = parser.parse_args(argv)
            if not args.command:
                parser.print_help()
                return 0
            COMMANDS[args.command](args)
    except SimsolError as error:
        print("; ".join([f"simsol: error: {error}", *getattr(error, "__notes__", [])]),
              file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:
        for note in getattr(interrupt, "__notes__", []):
            print(f"simsol: {note}", file=sys.stderr)
        print("simsol: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
