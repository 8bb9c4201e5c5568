"""The simple players' move choice: random, greedy and heuristic, one kernel for the three.

They read only the listed moves (computed by the game from visible cards) and the visible shape
of the position (how many cards lie face down, never which).  The three share one kernel, so
the loop is compiled once for all of them; ``P_MODE`` says which one plays.  The searching
players use ``pick_simple`` as their roll-out player.

Greedy plays the first kind of move in its order; where the game declares a tie rule
(``GREEDY_TIES``: a feature such as the 12x5 game's ``movable_after``), among several moves of
that kind it plays the one the feature rates highest, the first listed on equal values.  Only the
tied moves are rated, so a greedy without a tie rule costs what it always did.

A heuristic weighs the shared features below and the game's own (``FEATURES`` and the kernel
``feature_score`` in the game's module, for what the shared ones miss: a card safe to play up,
a space kept for a King, a same-suit build).  The game's features take the weight slots after
the shared ones; the move choice is compiled per game (``@template``) so it can call them.
"""

from __future__ import annotations

from simsol.engine.binder import _unbound, template
from simsol.engine.jit import kernel
from simsol.engine.layout import (
    MAX_FEATURES,
    NEVER,
    NO_FEATURE,
    P_FEATURES,
    P_MODE,
    P_PRIORITY,
    Setting,
    own_slots,
)
from simsol.engine.state import M_COUNT, M_DST, M_KIND, M_SRC
from simsol.engine.streams import POLICY_STREAM, below

MODES = ("random", "greedy", "heuristic")
RANDOM, GREEDY, HEURISTIC = range(len(MODES))

# Move features a heuristic weighs (all read from visible state):
FEATURE_NAMES = ("reveal", "empties", "hidden_under", "cards", "into_space", "source_length")
F_REVEAL, F_EMPTIES, F_HIDDEN_UNDER, F_CARDS, F_INTO_SPACE, F_SOURCE_LENGTH = range(
    len(FEATURE_NAMES))
P_GAME_FEATURES = P_FEATURES + len(FEATURE_NAMES)  # the first weight of a game's own features
MAX_GAME_FEATURES = MAX_FEATURES - len(FEATURE_NAMES)
game_feature_score = _unbound  # the game's ``feature_score`` (bound per game, binder.py)
game_feature_score_inline = _unbound  # the same compiled inline (the heuristic's choice only)

TIES = ("first", "random")
HEURISTIC_SETTINGS = (
    Setting("ties", "first", "how equal scores are broken: the first listed move or a random "
            "one", choices=TIES),
)
(P_TIES,) = own_slots(HEURISTIC_SETTINGS)
GREEDY_SETTINGS = (
    Setting("ties_by", NO_FEATURE, "among several moves of its best kind, play the one this "
            "heuristic feature rates highest (listed: the first listed); each game has its own "
            "default", feature=True),
)
(P_TIES_BY,) = own_slots(GREEDY_SETTINGS)  # 1: rate ties by the one feature weighted 1


@kernel
def allowed(moves, i, policy):
    return policy[P_PRIORITY + moves[i, M_KIND]] != NEVER


@template(compile_as=kernel(inline="always"))
def choose_greedy(pos, rules, moves, n, policy, ties_by):
    """The move whose kind has the best (lowest) priority; on ties the first listed, or with
    ``ties_by`` the one the policy's weighted feature rates highest (the first of those).

    Compiled inline into the loop: called as a function of its own it cost about a tenth of a
    Klondike or Canfield greedy move (a call takes a reference to each array it is passed),
    and inline it adds nothing measurable to the compile time (README *Speed*)."""
    best = -1
    best_priority = 1e300
    for i in range(n):
        priority = policy[P_PRIORITY + moves[i, M_KIND]]
        if priority != NEVER and priority < best_priority:
            best = i
            best_priority = priority
    if ties_by == 0.0 or best < 0:
        return best
    first = best
    best_score = 0.0
    rated = False  # the first is rated only once a second move of its kind turns up
    for i in range(first + 1, n):
        if policy[P_PRIORITY + moves[i, M_KIND]] == best_priority:
            if not rated:
                best_score = move_score(pos, rules, moves[first], policy)
                rated = True
            score = move_score(pos, rules, moves[i], policy)
            if score > best_score:
                best, best_score = i, score
    return best


@kernel
def choose_random(moves, n, policy, rng):
    """Uniform over the moves whose kind the policy allows."""
    count = 0
    for i in range(n):
        count += allowed(moves, i, policy)
    if count == 0:
        return -1
    pick = below(rng, POLICY_STREAM, count)
    for i in range(n):
        if allowed(moves, i, policy):
            if pick == 0:
                return i
            pick -= 1
    return -1


@template(compile_as=kernel(inline="always"))
def move_score(pos, rules, move, policy):
    """A heuristic's score of one move: its kind's weight plus weighted features of what it does
    to the visible position (face-down cards are only counted, never read), the game's own
    features included."""
    return shared_score(pos, move, policy) + game_feature_score(pos, rules, move, policy,
                                                                P_GAME_FEATURES)


@kernel(inline="always")
def shared_score(pos, move, policy):
    """``move_score`` less the game's own features: the kind's weight and the shared ones."""
    lens, down = pos.lens, pos.down
    src = move[M_SRC]
    left = lens[src] - move[M_COUNT]
    score = policy[P_PRIORITY + move[M_KIND]]
    score += policy[P_FEATURES + F_REVEAL] * (left > 0 and left == down[src])
    score += policy[P_FEATURES + F_EMPTIES] * (left == 0)
    score += policy[P_FEATURES + F_HIDDEN_UNDER] * down[src]
    score += policy[P_FEATURES + F_CARDS] * move[M_COUNT]
    score += policy[P_FEATURES + F_INTO_SPACE] * (lens[move[M_DST]] == 0)
    score += policy[P_FEATURES + F_SOURCE_LENGTH] * lens[src]
    return score


@template(compile_as=kernel(inline="always"))
def choose_heuristic(pos, rules, moves, n, policy, rng):
    """The allowed move with the highest score; ties go to the first or a random one.

    ``move_score`` with the game's features compiled inline: a call per candidate move was a
    sixth of a Klondike move's time (399 against 329 ns a move).  Inlined here, where the loop
    and the look-ahead's roll-outs (``pick_simple``) pick moves, not in every kernel that scores
    one (greedy's ties, the searches' ordering), it keeps the compile time.  The choice itself is
    inline too, as greedy's is: a call of its own takes a reference to each array it is passed,
    every move (README *Speed*)."""
    best = -1
    best_score = -1e300
    ties = 0
    for i in range(n):
        if not allowed(moves, i, policy):
            continue
        score = shared_score(pos, moves[i], policy) + game_feature_score_inline(
            pos, rules, moves[i], policy, P_GAME_FEATURES)
        if score > best_score:
            best, best_score, ties = i, score, 1
        elif score == best_score and policy[P_TIES] == 1:
            ties += 1
            if below(rng, POLICY_STREAM, ties) == 0:
                best = i
    return best


@template(compile_as=kernel(inline="always"))
def pick_simple(mode, pos, rules, moves, n, policy, rng, ties_by):
    """One move of the simple player ``mode`` (-1 when it allows none of the ``n`` moves);
    ``ties_by``: greedy's tie rule is on (the roll-outs of a search pass 0: their policy array
    is the search's, whose slots mean other things)."""
    if mode == RANDOM:
        return choose_random(moves, n, policy, rng)
    if mode == HEURISTIC:
        return choose_heuristic(pos, rules, moves, n, policy, rng)
    return choose_greedy(pos, rules, moves, n, policy, ties_by)


@template(compile_as=kernel(inline="always"))
def choose_simple(pos, rules, moves, n, policy, rng, work):
    """The player-base kernel of random, greedy and heuristic (``work`` is unused)."""
    mode = policy[P_MODE]
    return pick_simple(mode, pos, rules, moves, n, policy, rng,
                       policy[P_TIES_BY] if mode == GREEDY else 0.0)


def no_work(game, policy):
    """The simple players need no scratch space."""
    return ()
