"""Cards: notation, codes, interning."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parsers.cards import (
    DECK,
    UNKNOWN,
    CardError,
    Rank,
    Suit,
    card_from_code,
    format_cards,
    parse_card,
    parse_cards,
)


def test_codes_follow_four_rank_plus_suit() -> None:
    assert parse_card("2c").code == 0
    assert parse_card("2d").code == 1
    assert parse_card("2s").code == 3
    assert parse_card("As").code == 51
    assert parse_card("Th").code == 4 * 8 + 2
    assert [card.code for card in DECK] == list(range(52))


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("As", "As"), ("10d", "Td"), ("td", "Td"), ("Q♥", "Qh"), ("k♣", "Kc"), ("10♠", "Ts"),
     ("AS", "As"), ("??", "??"), ("9♢", "9d")],
)
def test_input_forms_are_accepted(text: str, canonical: str) -> None:
    assert str(parse_card(text)) == canonical


@pytest.mark.parametrize("text", ["", "1s", "Ax", "AsK", "A", "11d", "s", "?", "Ss"])
def test_bad_cards_are_rejected(text: str) -> None:
    with pytest.raises(CardError):
        parse_card(text)


def test_card_lists_with_and_without_spaces() -> None:
    assert format_cards(parse_cards("AsKd")) == "AsKd"
    assert format_cards(parse_cards("As Kd")) == "AsKd"
    assert format_cards(parse_cards("10d10s 9♠")) == "TdTs9s"
    assert format_cards(parse_cards("As,Kd")) == "AsKd"
    assert parse_cards("") == ()
    assert parse_cards("????") == (UNKNOWN, UNKNOWN)


def test_bad_card_list_names_the_position() -> None:
    with pytest.raises(CardError, match="position 3"):
        parse_cards("AsXdKh")


def test_cards_are_interned() -> None:
    assert parse_card("As") is parse_card("A♠") is card_from_code(51)
    assert card_from_code(-1) is UNKNOWN
    with pytest.raises(CardError):
        card_from_code(52)


def test_rank_and_suit_properties() -> None:
    card = parse_card("Qh")
    assert card.rank is Rank.QUEEN and card.suit is Suit.HEARTS
    assert card.suit.is_red and not parse_card("Qs").suit.is_red  # type: ignore[union-attr]
    assert Rank.ACE.pips == 14 and Rank.TWO.symbol == "2"
    assert not UNKNOWN.is_known and UNKNOWN.code == -1


@given(st.lists(st.integers(min_value=-1, max_value=51), max_size=20))
def test_format_parse_round_trip(codes: list[int]) -> None:
    cards = tuple(card_from_code(code) for code in codes)
    assert parse_cards(format_cards(cards)) == cards
    assert parse_cards(format_cards(cards, " ")) == cards


def _pieces_reference(text: str) -> object:
    """parse_cards as it read the canonical form before it cut the text with a regex: the
    slices [0:2], [2:4], ... looked up, else the scanner; a CardError's message."""
    from parsers import cards

    try:
        if len(text) % 2 == 0 and " " not in text:
            try:
                return tuple([cards._BY_TEXT[text[i:i + 2]] for i in range(0, len(text), 2)])
            except KeyError:
                pass
        return tuple(cards._scan(text))
    except CardError as error:
        return str(error)


@pytest.mark.parametrize("text", ["", "As", "AsKd2c", "As\nKd", "As\n\nKd", "\nAsK", "AsKd\n\n",
                                  "As\tKd", "10s10h", "AsK", "????", "As??Kd", "asKD", "♠A"])
def test_canonical_path_reads_what_the_slices_read(text: str) -> None:
    """The canonical path's two-character pieces are the text's slices, line breaks
    included (DOTALL): the same cards, or the same error, as before."""
    try:
        got: object = parse_cards(text)
    except CardError as error:
        got = str(error)
    assert got == _pieces_reference(text)


def test_a_card_error_quotes_the_word_and_says_what_a_card_is() -> None:
    """``eval rummoli As Xs`` said ``'Xs ' ... is not a card``: three characters, a space
    among them, and no word of what a card is."""
    with pytest.raises(CardError) as error:
        parse_cards("As Xs Qs")
    assert str(error.value) == ("'Xs' at position 4 of 'As Xs Qs' is not a card (a rank 2-9, "
                                "T or 10, J, Q, K, A, then a suit c, d, h, s)")
