"""Property-based tests: random rule-option combinations and policies for every game.

For any rules a game accepts and any policy, at every step of a traced deal each physical card
lies exactly once somewhere, foundations only ever hold legal sequences (checked here from
RULES.md, independently of the kernels' move generation), and the game ends.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from simsol.cards import rank_of, suit_of
from simsol.engine.state import END_REASONS
from simsol.games import game_names, get_game
from simsol.rules import SimsolError, build_rules
from simsol.trace import trace

PIQUET_ORDER = (1, 7, 8, 9, 10, 11, 12, 13)
MAX_MOVES = 3000


def option_values(option):
    if option.boolean:
        return [True, False]
    if option.choices:
        return list(option.choices)
    return list(option.values) + ([None] if option.none_ok else [])


def rises(cards, order, wrap=False):
    """Same suit throughout, each card the next rank of ``order`` (wrapping if asked)."""
    ranks = [rank_of(c) for c in cards]
    if any(suit_of(c) != suit_of(cards[0]) for c in cards):
        return False
    for low, high in zip(ranks, ranks[1:]):
        i = order.index(low)
        following = order[(i + 1) % len(order)] if wrap else (
            order[i + 1] if i + 1 < len(order) else None)
        if high != following:
            return False
    return True


def foundations_legal(game, piles) -> bool:
    """Every foundation pile of ``game`` holds a legal sequence (RULES.md, per game)."""
    named = {game.piles[f]: piles[f] for f in game.foundation_piles}
    up = tuple(range(1, 14))
    if game.name == "elevens":
        return True  # a pile of removed cards, in no order
    if game.name == "canfield":
        bases = {rank_of(cards[0]) for cards in named.values() if cards}
        return len(bases) <= 1 and all(len(c) <= 13 and rises(c, up, wrap=True)
                                       for c in named.values() if c)
    if game.name == "strata":
        return all(rank_of(c[0]) == 1 and rises(c, PIQUET_ORDER) for c in named.values() if c)
    if game.name == "letter-t":
        return all((rank_of(c[0]) == 1 and rises(c, up)) if name.startswith("ace")
                   else (rank_of(c[0]) == 13 and rises(c, up[::-1]))
                   for name, c in named.items() if c)
    return all(rank_of(c[0]) == 1 and rises(c, up) for c in named.values() if c)


@pytest.mark.parametrize("game_name", game_names())
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_rules_any_policy(game_name, data):
    game = get_game(game_name)
    rules = {option.name: data.draw(st.sampled_from(option_values(option)), label=option.name)
             for option in game.options}
    try:
        build_rules(game, "book", rules)
    except SimsolError:
        assume(False)  # a combination the game refuses, with a clear message
    policy = data.draw(st.sampled_from(["random", "greedy", "heuristic"]), label="policy")
    seed = data.draw(st.integers(0, 2**40), label="seed")
    deal = data.draw(st.integers(0, 2**40), label="deal")
    t = trace(game_name, rules=rules, policy=policy, seed=seed, deal=deal, max_moves=MAX_MOVES)
    deck = Counter(int(c) for c in game.deck.cards())
    for step in range(len(t.moves) + 1):
        piles = [[int(c) for c in t.piles[step, p, : t.lens[step, p]]]
                 for p in range(game.n_piles)]
        assert Counter(c for pile in piles for c in pile) == deck, f"step {step}"
        assert (t.down[step] <= t.lens[step]).all()
        assert foundations_legal(game, piles), f"step {step}: {t.moves[step - 1]}"
    assert t.end in END_REASONS
    assert len(t.moves) <= MAX_MOVES
    assert (t.end == "move cap") == (len(t.moves) == MAX_MOVES and not t.won)


def test_the_checker_can_fail():
    """The foundation checker rejects wrong sequences (so the property can fail)."""
    klondike, canfield = get_game("klondike"), get_game("canfield")
    empty = [[] for _ in range(klondike.n_piles)]
    bad = [list(p) for p in empty]
    bad[klondike.foundation_piles[0]] = [0, 2]  # A♠ 3♠
    assert not foundations_legal(klondike, bad)
    good = [list(p) for p in empty]
    good[klondike.foundation_piles[0]] = [0, 1, 2]
    assert foundations_legal(klondike, good)
    wrap = [[] for _ in range(canfield.n_piles)]
    wrap[canfield.foundation_piles[0]] = [12, 0, 1]  # K♠ A♠ 2♠: legal from base K
    wrap[canfield.foundation_piles[1]] = [13 + 7]  # 8♥: a different base rank
    assert not foundations_legal(canfield, wrap)
