"""Hand-written positions in a compact text notation, and the legal moves from them.

One line per non-empty pile, bottom card first; a card in parentheses is face down::

    stock: (5♠) (6♥) (Q♣)
    waste: 9♦ 3♣
    foundation1: A♠ 2♠
    tableau1: (K♠) (2♥) 9♠ 8♥
    vars: redeals=1 pass_progress=0

Piles not named are empty.  ``vars`` sets counters by name (the shared ones below and the
game's own ``var_names``); the foundation count is worked out from the foundation piles.
Tests use this to assert exactly which moves each rule allows, and how a position ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simsol.cards import card_text, parse_card
from simsol.engine import state
from simsol.engine.binder import bind
from simsol.engine.loop import DEFAULT_MAX_MOVES
from simsol.engine.state import (
    END_REASONS,
    M_CARD,
    M_COUNT,
    M_DST,
    M_KIND,
    M_SRC,
    MAX_MOVES_LISTED,
    MOVE_COLUMNS,
    N_VARS,
    RECORD_DTYPE,
    V_BEST_FOUNDATION,
    V_FOUNDATION,
    V_PASS_PROGRESS,
    V_PASSES,
    V_REDEALS,
)
from simsol.rules import RuleSet, SimsolError, build_rules, encode_rules

SHARED_VARS = {"passes": V_PASSES, "redeals": V_REDEALS, "pass_progress": V_PASS_PROGRESS}


@dataclass
class Position:
    """The state arrays of one game position, and the move list a game may keep between calls."""

    game: object
    piles: np.ndarray
    lens: np.ndarray
    down: np.ndarray
    vars: np.ndarray
    moves: np.ndarray = field(
        default_factory=lambda: np.zeros((MAX_MOVES_LISTED, MOVE_COLUMNS), dtype=np.int64))

    @property
    def won(self) -> bool:
        """Won as the loop judges it: every card of the deck on the foundations."""
        return int(self.vars[V_FOUNDATION]) == self.game.deck.size

    def state(self) -> state.Position:
        """The arrays as the kernels take them (shared, not copied: kernels change them)."""
        return state.Position(self.piles, self.lens, self.down, self.vars)

    def hash(self) -> int:
        """The position hash the loop guard (and a solver's table) keys on, engine/hashing.py."""
        return int(bind(self.game).hash_position(self.state()))

    def copy(self) -> "Position":
        return Position(self.game, self.piles.copy(), self.lens.copy(), self.down.copy(),
                        self.vars.copy(), self.moves.copy())

    def legal_rows(self, rules: np.ndarray) -> np.ndarray:
        n = bind(self.game).legal_moves(self.state(), rules, self.moves)
        return self.moves[:n].copy()

    def pile(self, name: str) -> list[int]:
        p = self.game.piles.index(name)
        return [int(c) for c in self.piles[p, : self.lens[p]]]

    def face_down(self, name: str) -> int:
        return int(self.down[self.game.piles.index(name)])


@dataclass(frozen=True)
class Move:
    """A move in words: its kind, the piles it goes from and to, how many cards, the card."""

    kind: str
    src: str
    dst: str
    count: int
    card: str

    def key(self) -> tuple[str, str, str, int]:
        return (self.kind, self.src, self.dst, self.count)


def parse_position(game, text: str) -> Position:
    piles = np.zeros((game.n_piles, game.capacity), dtype=np.uint8)
    lens = np.zeros(game.n_piles, dtype=np.int64)
    down = np.zeros(game.n_piles, dtype=np.int64)
    vars = np.zeros(N_VARS, dtype=np.int64)
    var_names = SHARED_VARS | game.var_names
    used: dict[int, int] = {}
    for line in text.strip().splitlines():
        name, sep, rest = line.strip().partition(":")
        if not sep:
            raise SimsolError(f"bad position line {line!r}: write 'pile: cards'")
        name = name.strip()
        if name == "vars":
            for item in rest.split():
                key, _, value = item.partition("=")
                if key not in var_names:
                    raise SimsolError(f"unknown counter {key!r}; allowed: {', '.join(var_names)}")
                vars[var_names[key]] = int(value)
            continue
        if name not in game.piles:
            raise SimsolError(f"unknown pile {name!r}; allowed: {', '.join(game.piles)}")
        p = game.piles.index(name)
        for token in rest.split():
            hidden = token.startswith("(") and token.endswith(")")
            face = parse_card(token.strip("()"))
            copy = used.get(face, 0)
            used[face] = copy + 1
            if hidden:
                if down[p] != lens[p]:
                    raise SimsolError(f"pile {name}: face-down cards must lie under face-up ones")
                down[p] += 1
            piles[p, lens[p]] = face + 52 * copy
            lens[p] += 1
    vars[V_FOUNDATION] = sum(int(lens[f]) for f in game.foundation_piles)
    vars[V_BEST_FOUNDATION] = vars[V_FOUNDATION]
    if vars[V_PASSES] == 0:
        vars[V_PASSES] = 1
    return Position(game, piles, lens, down, vars)


def describe(game, row) -> Move:
    card = int(row[M_CARD])
    return Move(game.move_kinds[int(row[M_KIND])], game.piles[int(row[M_SRC])],
                game.piles[int(row[M_DST])], int(row[M_COUNT]),
                card_text(card) if card >= 0 else "")


def _rules_array(game, preset, rules) -> np.ndarray:
    ruleset = rules if isinstance(rules, RuleSet) else build_rules(game, preset, rules)
    return encode_rules(game, ruleset)


def moves_from(game, position: Position | str, preset: str | None = None,
               rules: dict | None = None) -> list[Move]:
    """The legal moves of a position (given as text or a ``Position``) under the given rules."""
    if isinstance(position, str):
        position = parse_position(game, position)
    return [describe(game, row) for row in position.legal_rows(_rules_array(game, preset, rules))]


def play(game, position: Position, move: Move, preset: str | None = None,
         rules: dict | None = None) -> bool:
    """Apply ``move`` (one of ``moves_from``) to ``position`` in place; True on progress."""
    encoded = _rules_array(game, preset, rules)
    for row in position.legal_rows(encoded):
        if describe(game, row) == move:
            rng = np.zeros(6, dtype=np.uint64)
            return bool(bind(game).apply_move(position.state(), encoded, row.copy(),
                                                      rng))
    raise SimsolError(f"{move} is not a legal move here")


def choice(game, position: Position | str, policy: str = "greedy", preset: str | None = None,
           rules: dict | None = None, policy_options: dict | None = None,
           seed: int = 0, game_key: int = 0) -> Move | None:
    """The move ``policy`` picks in ``position`` (None when it has none); ``game_key`` sets the
    game's own future randomness (0: the one the seed gives)."""
    from simsol.policies import build_policy
    if isinstance(position, str):
        position = parse_position(game, position)
    compiled = build_policy(game, policy, policy_options, preset=preset)
    copy = position.copy()
    row = bind(game).pick_move(copy.state(), _rules_array(game, preset, rules),
                                                compiled.array, compiled.make_work(game), seed,
                                                copy.moves, game_key)
    return None if row[0] < 0 else describe(game, row)


def play_out(game, position: Position | str, policy: str = "greedy", preset: str | None = None,
             rules: dict | None = None, seed: int = 0, max_moves: int = DEFAULT_MAX_MOVES,
             policy_options: dict | None = None) -> tuple[str, Position]:
    """Play ``position`` to its end with ``policy`` through the game loop: how it ended (one of
    ``END_REASONS``) and the final position."""
    from simsol.policies import build_policy
    if isinstance(position, str):
        position = parse_position(game, position)
    compiled = build_policy(game, policy, policy_options, preset=preset)
    end = bind(game).play_position(
        position.state(), _rules_array(game, preset, rules), compiled.array,
        compiled.make_work(game), seed, max_moves, position.moves, game.deck.cards(),
        np.zeros(0, dtype=RECORD_DTYPE))
    return END_REASONS[end], position
