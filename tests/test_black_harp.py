"""Black Harp's rules (RULES.md §4), each pinned on a tiny hand-built position.

The hand procedure is checked against the book's words played out on a Python list (two cards
from the bottom to the top, turn the third, put it back on top; stop when a state repeats), not
against the kernel's own arithmetic.
"""

from __future__ import annotations

from simsol.cards import card_text, parse_cards
from simsol.engine.state import NO_PROGRESS, V_END_HINT
from simsol.games import get_game
from simsol.positions import moves_from, parse_position, play, play_out
from simsol.rules import build_rules
from simsol.trace import trace

HARP = get_game("black-harp")


def legal(position, **kw):
    return moves_from(HARP, position, **kw)


def do(position, move, **kw):
    return play(HARP, position, move, **kw)

# 24 cards none of which can go anywhere on an empty table: no aces (foundations are empty) and
# no kings (spaces take only kings).
DEAD_HAND = [f"{rank}{suit}" for rank in "234567" for suit in "♠♥♣♦"]


def keys(position, **kw):
    return {m.key() for m in legal(position, **kw)}


def hand_text(cards):
    return "hand: " + " ".join(f"({c})" for c in cards)


def book_turns(hand, turned=None):
    """The cards the book's procedure turns up, bottom card first in ``hand`` (and ``turned``
    lying turned up now), until the hand comes back to a state already seen."""
    hand = list(hand)
    seen = {(tuple(hand), turned)}
    shown = []
    while True:
        if turned is not None:
            hand.append(turned)  # back on top
        hand.append(hand.pop(0))
        hand.append(hand.pop(0))
        turned = hand.pop(0)
        state = (tuple(hand), turned)
        if state in seen:
            return shown
        seen.add(state)
        shown.append(turned)


def turn_once(position):
    """Play the hand's turn move; the card it turned up."""
    do(position, next(m for m in legal(position) if m.kind == "stock"))
    return card_text(position.pile("turned")[0])


def game_turns(position, **kw):
    """Play the hand's turn move until it is no longer offered; the cards turned, in order."""
    shown = []
    while True:
        turns = [m for m in legal(position, **kw) if m.kind == "stock"]
        if not turns:
            return shown
        do(position, turns[0], **kw)
        shown.append(card_text(position.pile("turned")[0]))


def test_hand_of_24_turns_every_third_card_then_stops_as_no_progress():
    position = parse_position(HARP, hand_text(DEAD_HAND))
    shown = game_turns(position)
    assert shown == book_turns(DEAD_HAND)
    assert shown == DEAD_HAND[2::3]  # 8 cards: the same 8 would come up again
    assert legal(position) == []
    assert position.vars[V_END_HINT] == NO_PROGRESS


def test_hand_of_23_shows_every_card_before_it_repeats():
    hand = DEAD_HAND[:23]
    shown = game_turns(parse_position(HARP, hand_text(hand)))
    assert shown == book_turns(hand)
    assert len(shown) == 23 and sorted(shown) == sorted(hand)
    assert shown[:9] == [hand[i] for i in (2, 5, 8, 11, 14, 17, 20, 0, 3)]  # round and on


def test_hand_of_21_shows_seven_cards():
    hand = DEAD_HAND[:21]
    shown = game_turns(parse_position(HARP, hand_text(hand)))
    assert shown == book_turns(hand) == hand[2::3]


def test_small_hands_come_round_too():
    for size in (1, 2, 3, 4, 5):
        hand = DEAD_HAND[:size]
        assert game_turns(parse_position(HARP, hand_text(hand))) == book_turns(hand)


def test_playing_the_turned_card_goes_on_from_the_next_and_restarts_the_cycle():
    hand = list(DEAD_HAND)
    hand[0] = "8♠"  # no 2♠, which would fit (and have to be played) once A♠ is up
    hand[5] = "A♠"
    position = parse_position(HARP, hand_text(hand))
    assert turn_once(position) == hand[2]
    assert turn_once(position) == "A♠"
    (to_ace,) = [m for m in legal(position) if m.kind == "waste_to_foundation"]
    assert do(position, to_ace)
    assert position.vars[HARP.var_names["cycle_turns"]] == 0
    # The 23 cards left, the next two from the bottom first, are one new cycle.
    rest = [card_text(c) for c in position.pile("hand")]
    assert rest[:2] == hand[6:8]
    shown = game_turns(position)
    assert shown == book_turns(rest)
    assert shown[0] == hand[8] and len(shown) == 23


def test_progress_while_a_card_lies_turned_counts_that_card_as_seen():
    position = parse_position(HARP, """
    hand: (2♥) (3♥) (4♥)
    turned: 5♥
    tableau1: (3♦) 8♥
    tableau2: 9♠
    """)
    (reveal,) = legal(position)
    assert reveal.kind == "reveal" and do(position, reveal)
    assert game_turns(position) == book_turns(["2♥", "3♥", "4♥"], "5♥") == ["4♥", "3♥", "2♥"]


def test_a_turned_card_that_fits_must_go_to_a_foundation_or_a_pile():
    """«Если же ни то, ни другое не получается — перекладываете наверх»: back only when it
    fits nowhere, so no next turn is offered while it fits."""
    position = """
    hand: (2♣) (3♣)
    turned: 8♥
    tableau1: (K♦) 9♣
    tableau2: (K♥) 9♠
    foundation1: A♠ 2♠ 3♠ 4♠ 5♠ 6♠ 7♠
    """
    assert keys(position) == {
        ("waste_to_tableau", "turned", "tableau1", 1),
        ("waste_to_tableau", "turned", "tableau2", 1),
    }
    assert keys(position.replace("8♥", "8♠")) == {
        ("waste_to_foundation", "turned", "foundation1", 1),
    }
    assert keys(position.replace("8♥", "8♦").replace("9♣", "10♣").replace("9♠", "10♠")) == {
        ("stock", "hand", "turned", 1),
    }


def test_nothing_else_may_be_done_while_a_fitting_card_lies_turned():
    position = SHUTTLE.replace("hand: (2♥) (3♥) (4♥)", "hand: (2♥) (3♥)\nturned: A♥")
    for reading in ("no-useful-move", "no-move", "any-time"):
        assert keys(position, rules={"hand_when": reading}) == {
            ("waste_to_foundation", "turned", "foundation2", 1)}


def turned_away(t):
    """The steps of trace ``t`` at which the next turn put back a card that fitted."""
    return [step + 1 for step, move in enumerate(t.moves)
            if move.kind == "stock" and t.lens[step, HARP.piles.index("turned")] > 0
            and any(m.kind.startswith("waste_") for m in legal(t.position(step)))]


def test_played_games_never_turn_a_fitting_card_away():
    """The issue's cases: A♥ turned at step 5 and turned away at step 6 (random, seed 0, deal
    1); 3♦ turned away at step 83 and the game lost at step 90 (lookahead, seed 2027, deal 8)."""
    games = [trace("black-harp", policy="random", deal=deal) for deal in range(6)]
    games.append(trace("black-harp", policy="lookahead", seed=2027, deal=8))
    for t in games:
        assert turned_away(t) == []
    assert sum(m.kind == "stock" for t in games for m in t.moves) > 100


def test_no_game_is_lost_with_a_fitting_card_passed_over():
    """An ace in a dead hand comes up once in the hand's cycle: it goes up, whoever plays."""
    hand = list(DEAD_HAND)
    hand[5] = "A♥"
    for seed in range(8):
        end, final = play_out(HARP, hand_text(hand), policy="random", seed=seed)
        assert end == "no progress" and card_text(final.pile("foundation2")[0]) == "A♥"


def test_a_move_between_piles_starts_the_cycle_again():
    """A card that fitted nowhere may fit after any other move: the hand goes round again."""
    position = parse_position(HARP, SHUTTLE.replace("(4♥)", "(4♥) (5♥)"))
    turn_once(position)
    turn_once(position)
    do(position, next(m for m in legal(position) if m.kind == "build"))
    assert position.vars[HARP.var_names["cycle_turns"]] == 1  # the card lying turned is seen
    hand = [card_text(c) for c in position.pile("hand")]
    shown = game_turns(position)
    assert shown == book_turns(hand, card_text(position.pile("turned")[0])) and len(shown) == 3


def test_the_rules_id_says_version_2():
    assert build_rules(HARP).id == "black-harp:book@r2"


# The hand waits while the tableau has work: a card to a foundation, a card to turn up, a pile
# to empty, a card to free for a foundation.
BLOCKING = {
    "to_foundation": "tableau1: A♠",
    "reveal": "tableau1: (3♦) 8♥\ntableau2: 9♠",
    "empty_pile": "tableau1: 8♥\ntableau2: (3♦) 9♠",
    "uncover": "foundation1: A♠ 2♠\ntableau1: (5♦) 4♥ 3♠ 2♥\ntableau2: (6♦) 3♣",
}


def test_hand_is_not_used_while_a_tableau_card_can_go_somewhere_useful():
    for kind, tableau in BLOCKING.items():
        position = tableau + "\nhand: (2♥) (3♥) (4♥)"
        assert {k[0] for k in keys(position)} == {kind}
        assert {k[0] for k in keys(position, rules={"hand_when": "no-move"})} == {kind}


# 8♥ can only shuttle between 9♠ and 9♣: that changes nothing the book counts.
SHUTTLE = """
hand: (2♥) (3♥) (4♥)
tableau1: (3♦) 10♥ 9♠ 8♥
tableau2: (4♦) 9♣
"""


def test_a_shuttle_does_not_keep_the_hand_waiting_by_default():
    assert keys(SHUTTLE) == {
        ("build", "tableau1", "tableau2", 1),
        ("stock", "hand", "turned", 1),
    }


def test_no_move_reading_waits_until_nothing_can_move():
    assert keys(SHUTTLE, rules={"hand_when": "no-move"}) == {
        ("build", "tableau1", "tableau2", 1),
    }
    without = "hand: (2♥) (3♥)\ntableau1: (3♦) 10♥ 9♠ 8♥"
    assert keys(without, rules={"hand_when": "no-move"}) == {("stock", "hand", "turned", 1)}


def test_a_group_or_any_part_of_it_may_move():
    position = """
    tableau1: (2♦) 10♥ 9♠ 8♥
    tableau2: (2♣) J♣
    tableau3: (3♣) 10♦
    tableau4: (3♦) 9♣
    """
    assert keys(position) == {
        ("reveal", "tableau1", "tableau2", 3),  # the whole group on J♣
        ("build", "tableau1", "tableau3", 2),  # 9♠ 8♥ on 10♦
        ("build", "tableau1", "tableau4", 1),  # 8♥ on 9♣
        ("reveal", "tableau3", "tableau2", 1),  # 10♦ on J♣
        ("reveal", "tableau4", "tableau3", 1),  # 9♣ on 10♦
    }


def test_building_is_down_in_alternate_colours():
    position = """
    tableau1: (2♦) 8♠
    tableau2: (2♣) 9♠
    tableau3: (3♣) 9♥
    tableau4: (3♦) 7♠
    """
    assert keys(position) == {("reveal", "tableau1", "tableau3", 1)}


def test_a_space_takes_only_a_king_with_its_retinue():
    position = """
    tableau1: (5♣) K♠ Q♥ J♣
    tableau2: (6♦) Q♦
    tableau3: (6♣) Q♠ J♥
    """
    assert keys(position) == {
        ("reveal", "tableau1", "tableau4", 3),  # K♠ Q♥ J♣ into one of the spaces
        ("build", "tableau1", "tableau2", 1),  # J♣ on Q♦
    }


def test_a_space_takes_a_turned_king_but_not_a_queen():
    position = "hand: (2♥)\ntableau1: (5♣) 4♥\nturned: K♥"
    assert keys(position) == {("waste_to_tableau", "turned", "tableau2", 1)}
    assert keys(position.replace("K♥", "Q♥")) == {("stock", "hand", "turned", 1)}


def test_deal_is_the_klondike_layout():
    t = trace("black-harp", seed=3, deal=0)
    lens = dict(zip(HARP.piles, t.lens[0]))
    down = dict(zip(HARP.piles, t.down[0]))
    assert [lens[f"tableau{i}"] for i in range(1, 8)] == list(range(1, 8))
    assert [down[f"tableau{i}"] for i in range(1, 8)] == list(range(7))
    assert lens["hand"] == down["hand"] == 24 and lens["turned"] == 0


def test_every_card_is_in_the_hand_pack_or_turned():
    position = parse_position(HARP, hand_text(DEAD_HAND[:7]))
    before = sorted(parse_cards(" ".join(DEAD_HAND[:7])))
    for _ in range(5):
        turn_once(position)
        assert sorted(position.pile("hand") + position.pile("turned")) == before
        assert position.face_down("hand") == len(position.pile("hand"))
