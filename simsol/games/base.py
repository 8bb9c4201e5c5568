"""What a game module declares, and the ``Game`` built from those declarations.

A game module states its rules as module-level names, and ends with ``GAME = declare(globals())``:

* ``NAME``, ``TITLE``, ``SOURCE`` (the book), ``DECK`` (a ``DeckSpec``);
* ``OPTIONS`` (``Option`` rows, defaults the book's reading), ``PRESETS`` (name -> overrides)
  and ``PRESET_DOCS`` (name -> one line);
* ``PILES`` (every pile's name in index order), ``FOUNDATIONS`` (the piles whose cards count as
  played out), optionally ``CAPACITY`` (cards a pile can hold; default the deck size),
  ``MOVE_KINDS`` (default the shared pile kinds), ``GREEDY_ORDER`` and ``COUNTERS`` (the game's
  own counters, from ``game_counters``), optionally ``INTERCHANGEABLE`` (groups of piles whose
  order does not matter, such as a tableau where a pile moved into a space changes nothing: the
  position hash treats their orders as one position);
* the kernels ``setup``, ``generate`` and ``apply`` and, where a part of the move list stays
  valid while only the stock moves, ``generate_stable`` and ``keeps_moves`` (engine/loop.py says
  what each does); ``check_rules`` where some combinations of options are refused; and
  ``RULES_VERSION`` (default 1), raised whenever a change to the game's rules moves its results;
  optionally ``FEATURES`` (``(name, doc)`` rows: what a heuristic may weigh beyond the shared
  features) with the kernel ``feature_score(pos, rules, move, policy, slot)``, the weighted sum
  of those features for one move, their weights at ``policy[slot + k]``; and
  ``HEURISTIC_WEIGHTS`` and ``HEURISTIC_KINDS``, feature and kind weights of the built-in heuristic
  that differ for this game; ``GREEDY_TIES``, a feature greedy rates ties within its best kind by
  (default ``"listed"``: the first listed move); ``LOOKAHEAD_ORDER``, the order of kinds
  lookahead plays and rolls out by where the greedy order misleads its roll-outs (default:
  ``GREEDY_ORDER``); ``SOLVER_DEFAULTS``, the exact solver's settings that differ for this game
  (engine/solver.py: Klondike and Black Harp keep more of the budget for the last search, where
  their dead-end test proves deals lost); ``FEATURE_RANGES``, the weight range ``simsol
  tune`` searches for a feature meant to move a move past whole kinds (the default range only breaks
  ties within a kind); and, to make the loop guard cheap (engine/loop.py), ``PROGRESS_KINDS``, the
  kinds whose ``apply`` always reports progress (nothing is saved to take them back), and
  ``NARROW_KINDS``, the kinds whose ``apply`` changes no pile but the move's source and destination
  (only those two are saved and rehashed).  Neither is needed for correctness; the loop stops on a
  progress kind that made none, and tests/test_hashing.py proves every game's narrow kinds move by
  move.  Optionally ``safe_move(pos, rules, moves, n)``: the row of a
  listed move the exact solver may play without trying the others, because no line is lost by
  it (engine/solver.py), or -1; it may read every card, as the solver does.  Optionally
  ``solver_skips(pos, rules, move)``: True for a listed move the solver need not try at all,
  because whenever the position can be won, it can be won by a line that does not begin with
  such a move (a dominance rule, with its proof beside it; the solver's ``dominance`` setting
  turns it off).  Optionally ``solver_pile_hash(pos, rules, p, salt)``: pile ``p``'s share of the
  solver's key, where the game proves positions alike that the plain hash tells apart (two
  positions with one key must be won or lost together; Klondike's runs on twin cards).  It is
  read only with ``dominance`` on; the default is the plain ``pile_hash``.  Optionally
  ``solver_dead(pos, rules, move, fresh)``: True for a position that provably cannot be won
  whatever is played (a dead end, with its proof beside it), so the solver searches no further
  from it; ``fresh`` at the root of a search, else ``move`` is the move just played, so the
  game may look only at what that move can have changed (the solver's ``dead_ends`` setting
  turns it off).  Optionally ``solver_relax(pos, rules, relaxed)`` (an easier game in which
  every line of the real one can be played) and ``solver_reform(pos, rules, reformed)`` (the
  same game with fewer moves, searched in its place: True where the game has one), both with
  their proofs beside them (engine/solver.py).
  ``STOCK_TURNS_COMMUTE`` (default True; it matters only with ``keeps_moves``): the stable moves
  commute with a move ``keeps_moves`` keeps them through (a stock turn).  Where one is legal
  after a turn, it was legal before it, the turn is still legal after it (or once the moves it
  forces are played, as Canfield's filling of a space from the reserve), and either order ends
  in the same position.  The exact solver then tries no stable move right after a stock turn
  (engine/solver.py); a game whose stock is held back by its piles (Grandma's Patience's bank)
  sets it False.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from simsol.cards import DeckSpec
from simsol.engine.hashing import pile_hash
from simsol.engine.jit import kernel
from simsol.engine.piles import NO_RELAXATION
from simsol.rules import Option


def no_extra_checks(values: dict[str, Any]) -> None:
    """Default rule-combination check: every combination of valid values is allowed."""


@kernel
def no_stable_moves(pos, rules, moves):
    """For games that list every move afresh: nothing is kept between calls."""
    return 0


@kernel(inline="always")
def never_keeps(move):
    return False


@kernel(inline="always")
def no_safe_move(pos, rules, moves, n):
    """For games with no move the solver may play without trying the others."""
    return -1


@kernel(inline="always")
def never_skips(pos, rules, move):
    """For games with no dominance rule: the solver tries every listed move."""
    return False


@kernel(inline="always")
def never_dead(pos, rules, move, fresh):
    """For games with no dead-end test: the solver searches every position out."""
    return False


@kernel(inline="always")
def no_relaxation(pos, rules, relaxed):
    """For games without a relaxation: the solver searches none (see ``solver_relax``)."""
    return NO_RELAXATION


@kernel(inline="always")
def no_reform(pos, rules, reformed):
    """For games the solver searches as they are (see ``solver_reform``)."""
    return False


@kernel(inline="always")
def plain_pile_hash(pos, rules, p, salt):
    """For games whose solver keys a position by its plain hash (engine/hashing.py)."""
    return pile_hash(pos, p, salt)


@kernel(inline="always")
def no_game_features(pos, rules, move, policy, slot):
    """For games whose heuristic weighs only the shared features."""
    return 0.0


@dataclass(frozen=True)
class Game:
    """A game: rules as data plus the compiled functions the shared loop calls.

    ``piles`` names every pile of the state array in index order (the display groups them by the
    part before the first digit: ``tableau1``, ``tableau2`` ... form one row).
    ``foundation_piles`` are the indices whose cards count as played out; ``var_names`` names the
    game's own counters so hand-written positions can set them; ``state_vars`` are the counters
    the position hash reads (the shared redeal count and the game's non-scratch counters) and
    ``interchangeable`` the groups of piles whose order it ignores (engine/hashing.py).
    ``rules_version`` goes into every rules id (``@r2``): raise it when a change to the game's
    rules changes its results.
    """

    name: str
    title: str
    source: str
    deck: DeckSpec
    options: tuple[Option, ...]
    presets: dict[str, dict[str, Any]]
    preset_docs: dict[str, str]
    piles: tuple[str, ...]
    capacity: int
    move_kinds: tuple[str, ...]
    greedy_order: tuple[str, ...]
    setup: Callable
    generate: Callable
    apply: Callable
    generate_stable: Callable = no_stable_moves
    keeps_moves: Callable = never_keeps
    foundation_piles: tuple[int, ...] = ()
    var_names: dict[str, int] = field(default_factory=dict)
    check_rules: Callable[[dict[str, Any]], None] = field(default=no_extra_checks)
    rules_version: int = 1
    interchangeable: tuple[tuple[int, ...], ...] = ()
    state_vars: tuple[int, ...] = ()
    features: tuple[tuple[str, str], ...] = ()  # the game's own heuristic features: name, doc
    greedy_ties: str = "listed"  # the feature greedy breaks ties within a kind by (its ties_by)
    lookahead_order: tuple[str, ...] = ()  # lookahead's order of kinds (empty: greedy's)
    heuristic_weights: dict = field(default_factory=dict)  # the built-in heuristic's, changed
    heuristic_kinds: dict = field(default_factory=dict)  # its kind weights, changed
    solver_defaults: dict = field(default_factory=dict)  # the solver's settings, changed
    feature_ranges: dict = field(default_factory=dict)  # feature -> (low, high) tune searches
    feature_score: Callable = no_game_features
    safe_move: Callable = no_safe_move  # the solver's: a move that cannot be wrong, or -1
    solver_skips: Callable = never_skips  # the solver's dominance rule: a move it need not try
    solver_pile_hash: Callable = plain_pile_hash  # a pile's share of the solver's key
    solver_dead: Callable = never_dead  # the solver's dead-end test: a position never won
    solver_relax: Callable = no_relaxation  # the solver's relaxation: an easier game to search
    solver_reform: Callable = no_reform  # the solver's reformulation: the game with fewer moves
    narrow_kinds: tuple[str, ...] = ()  # kinds that change only their two piles (loop guard)
    progress_kinds: tuple[str, ...] = ()  # kinds that always make progress (loop guard)
    stock_turns_commute: bool = True  # the solver may leave stable moves out after a stock turn

    @property
    def feature_names(self) -> tuple[str, ...]:
        """Every feature a heuristic may weigh in this game: the shared ones, then its own."""
        from simsol.engine.choice import FEATURE_NAMES
        return FEATURE_NAMES + tuple(name for name, _ in self.features)

    @property
    def n_piles(self) -> int:
        return len(self.piles)

    def option(self, name: str) -> Option:
        return {opt.name: opt for opt in self.options}[name]


def declare(names: dict[str, Any], **overrides) -> Game:
    """The ``Game`` a module declares (see the module docstring); ``overrides`` replace names
    (for modules that declare two games over shared kernels)."""
    from simsol.engine.choice import MAX_GAME_FEATURES
    from simsol.engine.piles import PILE_MOVE_KINDS
    from simsol.engine.state import SHARED_STATE_COUNTERS
    names = {**names, **overrides}
    counters = names.get("COUNTERS", ())
    if len(names.get("FEATURES", ())) > MAX_GAME_FEATURES:
        raise ValueError(f"{names['NAME']}: at most {MAX_GAME_FEATURES} features of its own")
    kinds = names.get("MOVE_KINDS", PILE_MOVE_KINDS)
    for declared in ("NARROW_KINDS", "PROGRESS_KINDS"):
        unknown = set(names.get(declared, ())) - set(kinds)
        if unknown:
            raise ValueError(f"{names['NAME']}: {declared} {sorted(unknown)} are not move kinds")
    return Game(
        name=names["NAME"], title=names["TITLE"], source=names["SOURCE"], deck=names["DECK"],
        options=names["OPTIONS"], presets=names["PRESETS"], preset_docs=names["PRESET_DOCS"],
        piles=names["PILES"], capacity=names.get("CAPACITY", names["DECK"].size),
        move_kinds=kinds, greedy_order=names["GREEDY_ORDER"],
        setup=names["setup"], generate=names["generate"], apply=names["apply"],
        generate_stable=names.get("generate_stable", no_stable_moves),
        keeps_moves=names.get("keeps_moves", never_keeps),
        foundation_piles=tuple(names["FOUNDATIONS"]),
        var_names=counters.by_name() if counters else {},
        check_rules=names.get("check_rules", no_extra_checks),
        rules_version=names.get("RULES_VERSION", 1),
        interchangeable=tuple(tuple(group) for group in names.get("INTERCHANGEABLE", ())),
        state_vars=SHARED_STATE_COUNTERS + (counters.state if counters else ()),
        features=tuple(names.get("FEATURES", ())),
        greedy_ties=names.get("GREEDY_TIES", "listed"),
        lookahead_order=tuple(names.get("LOOKAHEAD_ORDER", ())),
        heuristic_weights=dict(names.get("HEURISTIC_WEIGHTS", {})),
        heuristic_kinds=dict(names.get("HEURISTIC_KINDS", {})),
        solver_defaults=dict(names.get("SOLVER_DEFAULTS", {})),
        feature_ranges=dict(names.get("FEATURE_RANGES", {})),
        feature_score=names.get("feature_score", no_game_features),
        safe_move=names.get("safe_move", no_safe_move),
        solver_skips=names.get("solver_skips", never_skips),
        solver_pile_hash=names.get("solver_pile_hash", plain_pile_hash),
        solver_dead=names.get("solver_dead", never_dead),
        solver_relax=names.get("solver_relax", no_relaxation),
        solver_reform=names.get("solver_reform", no_reform),
        narrow_kinds=tuple(names.get("NARROW_KINDS", ())),
        progress_kinds=tuple(names.get("PROGRESS_KINDS", ())),
        stock_turns_commute=names.get("STOCK_TURNS_COMMUTE", True))
