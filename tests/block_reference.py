"""A 7 & 8 block built value by value from hands the per-hand path has read.

:func:`block_from_hands` is the reference the block scanner (:mod:`parsers.block_scan`) is
checked against (tests/test_parsers_block.py: a chunk the scanner takes holds exactly what
this makes of the per-hand path's reading), and the way tests and the block benchmarks
make blocks of any hands.  It lived in :mod:`parsers.block` until session 20: nothing but
tests and benchmarks calls it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import numpy as np
import numpy.typing as npt

from parsers.block import MAX_ACTION_CARDS, NO_VALUE, VERB_CODE, SevenEightBlock
from parsers.cards import DECK, UNKNOWN
from parsers.model import HandHistory
from parsers.rule_options import Game

__all__ = ["block_from_hands"]

Ints = npt.NDArray[np.int64]

_CARD_CODE: Final = {id(card): code for code, card in enumerate(DECK)}
"""A card's code (``DECK.index``: rank * 4 + suit, 2c = 0 ... As = 51) by the interned card."""


def _int(value: int | None) -> int:
    return NO_VALUE if value is None else value


def block_from_hands(source: str, hands: Iterable[tuple[int, HandHistory]]) -> SevenEightBlock:
    """The block of ``hands`` (each with its chunk position), built value by value from the
    per-hand path's reading: the reference for the scanner.  Raises ValueError for a hand a
    block cannot hold."""
    per_hand: dict[str, list[object]] = {name: [] for name in (
        "positions", "indexes", "lines", "raws", "variants", "min_bets", "small_bets",
        "big_bets", "players", "seats", "seat_counts", "hand_numbers", "tables", "times",
        "days", "months", "years", "user_fields")}
    per_seat: dict[str, list[int]] = {name: [] for name in (
        "starting_stacks", "antes", "blinds", "finishing_stacks", "winnings")}
    per_action: dict[str, list[object]] = {name: [] for name in (
        "actors", "verbs", "targets", "amounts", "card_counts", "cards", "card_texts",
        "action_lines")}
    seat_offsets = [0]
    action_offsets = [0]
    for position, hand in hands:
        _check_blockable(hand)
        assert hand.starting_stacks is not None and hand.finishing_stacks is not None
        assert hand.winnings is not None and hand.players is not None
        n = len(hand.starting_stacks)
        for name, value in (("positions", position), ("indexes", hand.index),
                            ("lines", hand.line), ("raws", hand.raw),
                            ("variants", hand.variant), ("min_bets", _int(hand.min_bet)),
                            ("small_bets", _int(hand.small_bet)),
                            ("big_bets", _int(hand.big_bet)), ("players", hand.players),
                            ("seats", hand.seats), ("seat_counts", hand.seat_count),
                            ("hand_numbers", hand.hand), ("tables", hand.table),
                            ("times", hand.time), ("days", hand.day),
                            ("months", hand.month), ("years", hand.year),
                            ("user_fields", hand.user_fields)):
            per_hand[name].append(value)
        per_seat["starting_stacks"].extend(hand.starting_stacks)
        per_seat["antes"].extend(hand.antes or ())
        per_seat["blinds"].extend(hand.blinds_or_straddles or ())
        per_seat["finishing_stacks"].extend(hand.finishing_stacks)
        per_seat["winnings"].extend(hand.winnings)
        seat_offsets.append(seat_offsets[-1] + n)
        for number, action in enumerate(hand.actions):
            actor, verb, cards, amount, target = (action.actor, action.verb, action.cards,
                                                  action.amount, action.target)
            pot, comment, line = action.pot, action.comment, hand.action_line(number)
            if pot is not None or comment is not None or len(cards) > MAX_ACTION_CARDS or (
                    any(card is UNKNOWN for card in cards)):
                raise ValueError(f"hand {hand.index}: an action a block cannot hold")
            codes = [_CARD_CODE[id(card)] for card in cards]
            per_action["actors"].append(actor)
            per_action["verbs"].append(VERB_CODE[verb])
            per_action["targets"].append(_int(target))
            per_action["amounts"].append(_int(amount))
            per_action["card_counts"].append(len(codes))
            per_action["cards"].append(codes + [NO_VALUE] * (MAX_ACTION_CARDS - len(codes)))
            per_action["card_texts"].append("".join(map(str, cards)) if cards else None)
            per_action["action_lines"].append(line)
        action_offsets.append(action_offsets[-1] + len(hand.actions))

    def ints(values: list[object]) -> Ints:
        return np.array(values, dtype=np.int64)

    return SevenEightBlock(
        source=source,
        positions=ints(per_hand["positions"]), indexes=ints(per_hand["indexes"]),
        lines=ints(per_hand["lines"]), raws=per_hand["raws"],  # type: ignore[arg-type]
        variants=per_hand["variants"],  # type: ignore[arg-type]
        min_bets=ints(per_hand["min_bets"]), small_bets=ints(per_hand["small_bets"]),
        big_bets=ints(per_hand["big_bets"]), seat_offsets=ints(seat_offsets),  # type: ignore[arg-type]
        players=per_hand["players"], seats=per_hand["seats"],  # type: ignore[arg-type]
        seat_counts=ints(per_hand["seat_counts"]), hand_numbers=ints(per_hand["hand_numbers"]),
        tables=per_hand["tables"], times=per_hand["times"],  # type: ignore[arg-type]
        days=ints(per_hand["days"]), months=ints(per_hand["months"]),
        years=ints(per_hand["years"]), user_fields=per_hand["user_fields"],  # type: ignore[arg-type]
        starting_stacks=ints(per_seat["starting_stacks"]),  # type: ignore[arg-type]
        antes=ints(per_seat["antes"]), blinds=ints(per_seat["blinds"]),  # type: ignore[arg-type]
        finishing_stacks=ints(per_seat["finishing_stacks"]),  # type: ignore[arg-type]
        winnings=ints(per_seat["winnings"]),  # type: ignore[arg-type]
        action_offsets=ints(action_offsets),  # type: ignore[arg-type]
        actors=ints(per_action["actors"]),
        verbs=np.array(per_action["verbs"], dtype=np.int8),
        targets=ints(per_action["targets"]), amounts=ints(per_action["amounts"]),
        card_counts=np.array(per_action["card_counts"], dtype=np.int8),
        cards=np.array(per_action["cards"], dtype=np.int8).reshape(-1, MAX_ACTION_CARDS),
        card_texts=per_action["card_texts"],  # type: ignore[arg-type]
        action_lines=ints(per_action["action_lines"]),
    )


_OPTIONAL_ABSENT: Final = ("currency", "event", "author", "venue", "url", "city", "region",
                           "country", "time_zone", "dealer", "game_id", "round",
                           "board_before", "finale_pot")
_REQUIRED: Final = ("antes", "blinds_or_straddles", "starting_stacks", "finishing_stacks",
                    "winnings", "players", "seats", "seat_count", "hand", "table", "time",
                    "day", "month", "year")


def _check_blockable(hand: HandHistory) -> None:
    """Raise ValueError unless the block's fields hold all of ``hand`` (see the class)."""
    problem = None
    if hand.errors or hand.game is not Game.SEVENEIGHT:
        problem = "not a 7 & 8 hand read without problems"
    elif any(getattr(hand, name) is not None for name in _OPTIONAL_ABSENT):
        problem = "an optional field a block has no column for"
    elif any(getattr(hand, name) is None for name in _REQUIRED):
        problem = "a field a block requires is missing"
    elif hand.format_version != 1:
        problem = "another format version"
    elif type(hand.hand) is not int or type(hand.table) is not str:
        problem = "a hand label that is not a number or a table name that is not text"
    if problem is not None:
        raise ValueError(f"hand {hand.index}: {problem}")
