"""The hop player (engine/hop.py): the solver's judgement in sampled worlds, honest, and a
player of the real game like the others.

Its honesty (the same choice whatever the face-down cards and the stock beyond what is seen, and
whatever the game's own future) is tested with the other honest players in tests/test_policies.py.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

import simsol
from simsol.cards import parse_card
from simsol.engine.binder import bind
from simsol.engine.hop import STOCK_SEEN, line_moves, remember
from simsol.engine.search import sample_unseen
from simsol.engine.state import END_REASONS, M_DST, M_KIND, M_SRC, V_MOVES
from simsol.engine.streams import GAME_STREAM, N_STREAMS, init_streams
from simsol.experiments import run_experiment
from simsol.games import game_names, get_game
from simsol.games.klondike import PILES
from simsol.players import BASES
from simsol.policies import build_policy
from simsol.positions import parse_position, play_out
from simsol.report import write_report
from simsol.rules import build_rules, encode_rules
from simsol.trace import trace
from tests.test_solver_positions import CASES

SMALL = {"samples": 1, "nodes": 40, "depth": 30, "table_mb": 1}  # a budget a test can afford
DEALS = (0, 1)
CAP = 120  # moves: long games (Grandma's Patience plays hundreds) are cut, and say so


@pytest.mark.parametrize("lines", [False, True], ids=["moves", "lines"])
@pytest.mark.parametrize("game_name", game_names())
def test_hop_plays_the_real_game_and_its_trace_matches_the_batch(game_name, lines):
    """Every card exactly once at every step; an ordinary end (never a solver verdict: hop is a
    player, not a solver); the traced game and the batch kernel agree.  Judging lines, hop
    plays a line through move by move across the loop's calls, so the batch (whose scratch
    space lives across deals) and a single traced deal must agree on that too."""
    game = get_game(game_name)
    deck = Counter(int(c) for c in game.deck.cards())
    options = {**SMALL, "lines": lines, "closure": 200}
    records = simsol.simulate(game_name, policy="hop", policy_options=options, deals=len(DEALS),
                              seed=11, workers=1, max_moves=CAP).data
    for deal, record in zip(DEALS, records):
        t = trace(game_name, policy="hop", policy_options=options, seed=11, deal=deal,
                  max_moves=CAP)
        assert t.end in END_REASONS and t.end not in ("unsolvable", "unknown")
        for step in range(0, len(t.moves) + 1, 7):
            assert Counter(t.cards_at(step)) == deck, f"deal {deal} step {step}"
        assert (record["won"], record["foundation"], record["moves"]) == (
            t.won, t.foundation, len(t.moves))


OPEN_WINS = [c for c in CASES if c.end == "won" and "(" not in c.position]


@pytest.mark.parametrize("mode", [{"halving": False}, {"halving": True},
                                  {"lines": True, "closure": 50}],
                         ids=["one-round", "halving", "lines"])
@pytest.mark.parametrize("case", OPEN_WINS, ids=[f"{c.game}-{c.name}" for c in OPEN_WINS])
def test_hop_wins_a_winnable_position_with_every_card_in_sight(case, mode):
    """With nothing unseen every sampled world is the real one, so a move the solver can win
    from beats every move it cannot: hop wins each hand-built solvable position that has no
    face-down card (tests/test_solver_positions.py), where a trap or a rule is the whole point.
    With sequential halving the winning move must survive every round; judging lines, the
    winning line must be found and played through."""
    rules = dict(case.rules)
    preset = rules.pop("preset", None)
    end, final = play_out(get_game(case.game), case.position, policy="hop", preset=preset,
                          rules=rules or None,
                          policy_options={"samples": 1, "nodes": 50_000, "table_mb": 4,
                                          **mode})
    assert end == "won", case.why


def test_hop_wins_more_klondike_deals_than_greedy_on_the_same_deals():
    """The point of the player: on the same 40 deals of Klondike's modern rules it wins at least
    as many as greedy and as the heuristic, and more than greedy."""
    deals = 40
    hop = simsol.simulate("klondike", preset="standard", policy="hop", deals=deals, seed=3,
                          workers=1, policy_options={"samples": 3, "nodes": 600}).data
    greedy = simsol.simulate("klondike", preset="standard", policy="greedy", deals=deals,
                             seed=3, workers=1).data
    heuristic = simsol.simulate("klondike", preset="standard", policy="heuristic", deals=deals,
                                seed=3, workers=1).data
    assert hop["won"].sum() > greedy["won"].sum()
    assert hop["won"].sum() >= heuristic["won"].sum()
    assert np.all(hop["foundation"][hop["won"]] == 52)


def test_hop_settings_are_listed_and_stamped_into_its_id():
    game = get_game("klondike")
    assert build_policy(game, "hop").id == "hop"
    changed = build_policy(game, "hop", {"samples": 3, "fallback": "none"})
    assert changed.id == "hop[samples=3,fallback=none]"
    assert not changed.config.sees_hidden  # honest: no "(sees-hidden-cards)" label
    peeking = build_policy(game, "hop", {"sees_stock": True})
    assert peeking.config.sees_hidden and peeking.id.endswith("(sees-hidden-cards)")


# Three cards seen (a turned-through stock: 4♠ 5♠ 6♠) and three never seen, face down.
MEMORY = """
tableau1: (A♥) (2♥) 3♥
tableau2: (7♦) 8♣
stock: (4♠) (5♠) (6♠)
"""


def memory_position(text=MEMORY):
    position = parse_position(get_game("klondike"), text)
    seen = np.zeros(256, dtype=np.uint8)
    for name in ("4♠", "5♠", "6♠"):
        seen[parse_card(name)] = 1
    return position, seen


def streams(seed):
    rng = np.zeros(2 * N_STREAMS, dtype=np.uint64)
    init_streams(rng, seed, 0)
    return rng


def test_a_world_keeps_the_seen_cards_in_place_and_deals_only_the_unseen():
    position, seen = memory_position()
    stock = position.piles[PILES.index("stock"), :3].copy()
    hidden = np.zeros(52, dtype=np.uint8)
    worlds = set()
    for seed in range(12):
        world, _ = memory_position()
        sample_unseen(world.state(), streams(seed), hidden, seen)
        assert np.array_equal(world.piles[PILES.index("stock"), :3], stock)
        first, second = PILES.index("tableau1"), PILES.index("tableau2")
        unseen = [int(world.piles[first, 0]), int(world.piles[first, 1]),
                  int(world.piles[second, 0])]
        assert sorted(unseen) == sorted(parse_card(c) for c in ("A♥", "2♥", "7♦"))
        worlds.add(tuple(unseen))
    assert len(worlds) > 2  # the unseen cards do move between the unseen places


def test_a_world_does_not_depend_on_where_the_unseen_cards_really_lie():
    """Two real positions that differ only in where the never-seen cards lie give the same
    world, sample by sample: the memory holds only what was seen."""
    _, seen = memory_position()
    swapped = MEMORY.replace("(A♥)", "(X)").replace("(7♦)", "(A♥)").replace("(X)", "(7♦)")
    hidden = np.zeros(52, dtype=np.uint8)
    for seed in range(5):
        one, _ = memory_position()
        other, _ = memory_position(swapped)
        sample_unseen(one.state(), streams(seed), hidden, seen)
        sample_unseen(other.state(), streams(seed), hidden, seen)
        assert np.array_equal(one.piles, other.piles)


def test_the_memory_is_what_was_face_up_and_is_forgotten_at_a_reshuffle():
    position, _ = memory_position()
    seen = np.zeros(256, dtype=np.uint8)
    memory = np.array([1, 0, -1], dtype=np.int64)  # one card of each kind; the stock unseen
    rng = streams(1)
    position.vars[V_MOVES] = 5
    seen[parse_card("4♠")] = 1  # seen before this move
    remember(position.state(), rng, seen, memory)
    assert {i for i in range(256) if seen[i]} == {parse_card(c) for c in ("4♠", "3♥", "8♣")}
    rng[2 * GAME_STREAM + 1] += np.uint64(1)  # the game drew on its randomness: a reshuffle
    remember(position.state(), rng, seen, memory)
    assert {i for i in range(256) if seen[i]} == {parse_card(c) for c in ("3♥", "8♣")}
    position.vars[V_MOVES] = 0  # a new deal
    seen[parse_card("4♠")] = 1
    remember(position.state(), rng, seen, memory)
    assert not seen[parse_card("4♠")]
    memory[0] = 0  # two cards of a kind: no memory at all
    remember(position.state(), rng, seen, memory)
    assert not seen.any()


def test_seeing_the_stock_keeps_its_order_in_every_world():
    """``sees_stock`` (lonelybot's hop's information, a peek): the stock's cards count as seen
    from the first move, so a world deals only the tableau's face-down cards."""
    position, _ = memory_position()
    seen = np.zeros(256, dtype=np.uint8)
    memory = np.array([1, 0, PILES.index("stock")], dtype=np.int64)
    remember(position.state(), streams(1), seen, memory)  # move 0: nothing remembered yet
    assert {i for i in range(256) if seen[i]} == {
        parse_card(c) for c in ("4♠", "5♠", "6♠", "3♥", "8♣")}
    work = build_policy(get_game("klondike"), "hop", {"sees_stock": True}).make_work(
        get_game("klondike"))[BASES["hop"].kernel_index]
    assert work.memory[STOCK_SEEN] == PILES.index("stock")


def test_the_report_says_how_much_of_perfect_play_each_player_gets(tmp_path):
    """On the same deals: each player's share of the deals the solver won, counted here from the
    records directly, and the solver's bracket with its unknowns."""
    spec = tmp_path / "ladder.toml"
    spec.write_text("""
name = "perfect"
seed = 1
deals = 30
chunk_size = 10
[[cells]]
game = "klondike"
presets = ["standard"]
policies = ["greedy", "hop-small", "solver-small"]
[policies.hop-small]
base = "hop"
samples = 2
nodes = 300
[policies.solver-small]
base = "solver"
nodes = 20000
table_mb = 4
""")
    store = run_experiment(spec, out=tmp_path / "perfect", workers=1, progress=False)
    out = write_report(tmp_path / "perfect")
    table = pd.read_csv(out / "of_perfect_play.csv").set_index("policy")
    solver = store.records("klondike__standard__solver-small")
    solved = solver["won"].to_numpy()
    assert solved.sum() > 0
    for policy in ("greedy", "hop-small"):
        won = store.records(f"klondike__standard__{policy}")["won"].to_numpy()
        row = table.loc[policy]
        assert row["solvable"] == solved.sum()
        assert row["won_of_solvable"] == (won & solved).sum()
        assert row["share"] == pytest.approx((won & solved).sum() / solved.sum())
        assert not np.any(won & (solver["end"] == END_REASONS.index("unsolvable")).to_numpy())
        assert row["unknown"] == (solver["end"] == END_REASONS.index("unknown")).sum()
        assert row["solvable_low"] <= solved.mean() <= row["solvable_high"]
    # The README's table: one row for the rules, the verdicts counted from the solver's records
    # and each player's win rate beside the share of the solvable deals it won.
    verdicts = pd.read_csv(out / "solvability.csv")
    assert len(verdicts) == 1
    line = verdicts.iloc[0]
    ends = solver["end"].to_numpy()
    assert line["solvable"] == solved.sum()
    assert line["unsolvable"] == (ends == END_REASONS.index("unsolvable")).sum()
    assert line["unknown"] == (ends == END_REASONS.index("unknown")).sum()
    assert line["solvable"] + line["unsolvable"] + line["unknown"] == line["deals"] == 30
    greedy = store.records("klondike__standard__greedy")["won"].to_numpy()
    share = (greedy & solved).sum() / solved.sum()
    assert line["greedy"] == f"{100 * greedy.mean():.2f}% ({100 * share:.1f}% of solvable)"
    assert "solvability.md" in {f.name for f in out.iterdir()}


# The 9♠ covers a face-down card and the only ten it may go on is 10♥ until the 9♣ leaves the
# 10♦ for it: lines of one move and of two.
TWO_PLACES = """
tableau1: (5♣) 9♠
tableau2: 10♥
tableau3: (3♦) 10♦ 9♣
"""


def lines_of(text, seed=0, **options):
    """hop's candidate lines in a Klondike ``standard`` position, as lists of
    ``(kind, source, destination)``, and the lines' raw moves."""
    game = get_game("klondike")
    position = parse_position(game, text)
    policy = build_policy(game, "hop", {"lines": True, **options})
    work = BASES["hop"].make_work(game, policy.array)
    count = bind(game).hop_lines(position.state(), encode_rules(game, build_rules(
        game, "standard")), policy.array, work, seed, position.moves)
    raw = [line_moves(work.lines, e) for e in range(count)]
    named = [[(game.move_kinds[m[M_KIND]], game.piles[m[M_SRC]], game.piles[m[M_DST]])
              for m in line] for line in raw]
    return named, raw


def test_a_line_is_moves_without_progress_ended_by_the_first_that_makes_some():
    """Judging lines, hop's candidates are every line of moves that make no progress and show
    no unseen card, ended by one that does: the 9♠ onto the 10♥ at once (turning up the card it
    covered), or the 9♣ onto the 10♥ first and the 9♠ onto the 10♦ then.  The 9♣ moved back
    reaches a position already reached and starts no new line.  Replayed in the real position,
    every move but the last makes no progress, and the last does."""
    named, raw = lines_of(TWO_PLACES)
    assert sorted([(src, dst) for _, src, dst in line] for line in named) == [
        [("tableau1", "tableau2")], [("tableau3", "tableau2"), ("tableau1", "tableau3")]]
    assert all(line[-1][0] == "reveal" for line in named)
    game = get_game("klondike")
    rules = encode_rules(game, build_rules(game, "standard"))
    for line in raw:
        position = parse_position(game, TWO_PLACES)
        state = position.state()
        rng = streams(0)
        progress = [bind(game).apply_move(state, rules, move, rng) for move in line]
        assert progress == [False] * (len(line) - 1) + [True]


def test_the_lines_are_the_same_whatever_the_face_down_cards_are():
    """The search for lines plays only moves that read visible cards, in a world of its own:
    the same lines whatever lies face down, and whichever seed deals that world."""
    swapped = TWO_PLACES.replace("(5♣)", "(X)").replace("(3♦)", "(5♣)").replace("(X)", "(3♦)")
    assert lines_of(TWO_PLACES)[0] == lines_of(swapped)[0] == lines_of(TWO_PLACES, seed=9)[0]
