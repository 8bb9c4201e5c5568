"""One deal played move by move: the trace behind ``simsol show`` and the contract tests."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simsol.cards import HIDDEN, card_text
from simsol.engine.binder import bind
from simsol.engine.loop import DEFAULT_MAX_MOVES
from simsol.engine.loop import Trace as TraceArrays
from simsol.engine.state import (
    END_REASONS,
    MOVE_COLUMNS,
    RECORD_DTYPE,
    V_BEST_FOUNDATION,
    V_FOUNDATION,
)
from simsol.games import get_game
from simsol.policies import build_policy
from simsol.positions import Move, Position, describe, parse_position
from simsol.rules import RuleSet, build_rules, encode_rules
from simsol.runner import check_count


@dataclass
class Trace:
    """Every move of one deal and the position after it (``piles[0]`` is the deal itself)."""

    game: object
    rules: RuleSet
    policy: str
    seed: int
    deal: int
    end: str
    moves: list[Move]
    piles: np.ndarray
    lens: np.ndarray
    down: np.ndarray
    foundation: int
    passes: int

    @property
    def won(self) -> bool:
        return self.end == "won"

    def position(self, step: int) -> Position:
        """The position after ``step`` moves, to ask what was legal there.  Traces keep the
        cards, not the counters: those start at zero (set the ones that matter on ``.vars``)."""
        position = parse_position(self.game, "")
        position.piles[:] = self.piles[step]
        position.lens[:] = self.lens[step]
        position.down[:] = self.down[step]
        played = sum(int(self.lens[step, f]) for f in self.game.foundation_piles)
        position.vars[V_FOUNDATION] = position.vars[V_BEST_FOUNDATION] = played
        return position

    def cards_at(self, step: int) -> list[int]:
        """Every card id lying anywhere at ``step``, in pile order."""
        return [int(c) for p in range(self.game.n_piles)
                for c in self.piles[step, p, : self.lens[step, p]]]

    def render(self, step: int, ascii: bool = False) -> str:
        """The position at ``step``, one line a pile, face-down cards as ## (counted if many)."""
        lines = []
        for p, name in enumerate(self.game.piles):
            cards = self.piles[step, p, : self.lens[step, p]]
            hidden = int(self.down[step, p])
            shown = [HIDDEN] * hidden if hidden <= 7 else [f"[{hidden} face down]"]
            text = " ".join(shown + [card_text(int(c), ascii) for c in cards[hidden:]])
            lines.append(f"{name:>12}: {text or '-'}")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {
            "game": self.game.name, "rules": self.rules.id, "policy": self.policy,
            "seed": self.seed, "deal": self.deal, "end": self.end, "won": self.won,
            "foundation": self.foundation, "passes": self.passes,
            "deck": [card_text(c) for c in self.cards_at(0)],
            "moves": [
                {"step": i + 1, "kind": m.kind, "from": m.src, "to": m.dst, "count": m.count,
                 "cards": self.moved_cards(i)}
                for i, m in enumerate(self.moves)
            ],
        }

    def moved_cards(self, i: int) -> list[str]:
        """The cards that move ``i`` put on its destination, bottom first."""
        move = self.moves[i]
        p = self.game.piles.index(move.dst)
        length = int(self.lens[i + 1, p])
        return [card_text(int(c)) for c in self.piles[i + 1, p, length - move.count: length]]


def trace(game: str, preset: str | None = None, rules: dict | None = None,
          policy: str = "greedy", seed: int = 0, deal: int = 0,
          max_moves: int = DEFAULT_MAX_MOVES, policy_options: dict | None = None,
          policies: dict | None = None) -> Trace:
    """Play deal ``deal`` of ``seed`` recording every move and position."""
    the_game = get_game(game)
    ruleset = build_rules(the_game, preset, rules)
    the_policy = build_policy(the_game, policy, policy_options, policies, ruleset.preset)
    seed = check_count("seed", seed, 0, 2**63 - 1)
    deal = check_count("deal", deal, 0, 2**63 - 1)
    max_moves = check_count("max moves", max_moves, 1, 100_000)
    steps = max_moves + 1
    shape = (steps, the_game.n_piles)
    arrays = TraceArrays(np.zeros((max_moves, MOVE_COLUMNS), dtype=np.int64),
                         np.zeros(shape + (the_game.capacity,), dtype=np.uint8),
                         np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64))
    record = np.zeros(1, dtype=RECORD_DTYPE)
    bind(the_game).run_batch(  # with the guard's check on: a tool's slow path proves it too
        the_game.deck.cards(), the_game.n_piles, the_game.capacity,
        encode_rules(the_game, ruleset), the_policy.array, the_policy.make_work(the_game), seed,
        deal, max_moves, record, True, arrays)
    n = int(record["moves"][0])
    return Trace(the_game, ruleset, the_policy.id, seed, deal, END_REASONS[record["end"][0]],
                 [describe(the_game, row) for row in arrays.moves[:n]],
                 arrays.piles[: n + 1], arrays.lens[: n + 1], arrays.down[: n + 1],
                 int(record["foundation"][0]), int(record["passes"][0]))
