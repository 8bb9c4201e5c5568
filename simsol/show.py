"""Text rendering of a traced deal: the layout, then every move with the cards it carried."""

from __future__ import annotations

from simsol.trace import Trace


def move_line(t: Trace, i: int, ascii: bool = False) -> str:
    move = t.moves[i]
    cards = " ".join(t.moved_cards(i)) if move.card or move.count else ""
    if ascii:
        from simsol.cards import cards_text, parse_cards
        cards = cards_text(parse_cards(cards), ascii=True) if cards else ""
    return f"{i + 1:>4}. {move.kind:<22} {move.src:>12} -> {move.dst:<12} {cards}"


def trace_text(t: Trace, ascii: bool = False, every: int = 0) -> str:
    """The deal, each move, and the final position (and the position every ``every`` moves)."""
    lines = [f"{t.game.title}  rules {t.rules.id}  policy {t.policy}  seed {t.seed}  "
             f"deal {t.deal}", "", t.render(0, ascii), ""]
    for i in range(len(t.moves)):
        lines.append(move_line(t, i, ascii))
        if every and (i + 1) % every == 0:
            lines += ["", t.render(i + 1, ascii), ""]
    lines += ["", t.render(len(t.moves), ascii), "",
              f"{t.end}: {t.foundation} cards on the foundations after {len(t.moves)} moves "
              f"and {t.passes} pass(es)"]
    return "\n".join(lines) + "\n"
