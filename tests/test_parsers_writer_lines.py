"""The reader's fast path reads a new action line of the writer's form as the action parser
does.

:func:`parsers.fastpath.writer_entry` reads an element line ``  "p1 pl 3h3d",`` without
the general action parser's layers; it must give exactly
:func:`parsers.actions.parse_action_parts`'s entry for the line's text, or None (the general
reading then says what the line is).  Lines here are the writer's shapes for every game
and verb, valid or not, and mangled ones: bad cards, cards given twice, ``??``, ``10d``,
comments, odd spacing, unknown verbs, players beyond the hand's.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from parsers.actions import GAME_VERBS, ActionSyntaxError, parse_action_parts
from parsers.build import PLAYER_LIMITS
from parsers.fastpath import writer_entry
from parsers.knobs import Game
from parsers.model import RUMMOLI_POTS, Verb
from parsers.tomlsubset import element_text
from tests.strategies import CANONICAL_CARDS as CARDS
from tests.strategies import card_tokens

VERBS = sorted({str(verb.value) for verbs in GAME_VERBS.values() for verb in verbs})

games = st.sampled_from(list(Game))
players = st.sampled_from(["d", *(f"p{n}" for n in range(1, 19)), "p0", "p01", "P1", "x"])
cards = card_tokens(14)
amounts = st.one_of(st.integers(0, 10**16).map(str),
                    st.sampled_from(["0", "012", "00", "-5", "+5", "1_000", "1e3", "٣"]))
arguments = st.one_of(cards, amounts, st.sampled_from([*RUMMOLI_POTS, "Poker", "ts", "pot"]))


@st.composite
def writer_texts(draw: st.DrawFn) -> str:
    """An action text in the writer's shape: actor, verb, maybe a target, maybe one token."""
    verb = draw(st.sampled_from([*VERBS, "xx", "DH"]))
    actor = draw(players)
    parts = [actor, verb]
    if draw(st.integers(0, 3)) == 0 or verb == "dh":
        parts.append(draw(players))
    if draw(st.integers(0, 4)):
        parts.append(draw(arguments))
    return " ".join(parts)


@st.composite
def mangled_texts(draw: st.DrawFn) -> str:
    """A writer-shaped text with odd spacing, a comment, or something more."""
    text = draw(writer_texts())
    change = draw(st.integers(0, 4))
    if change == 0:
        text = text.replace(" ", draw(st.sampled_from(["  ", "\t", " \t"])), 1)
    elif change == 1:
        text += draw(st.sampled_from([" # note", "#", " ", "\t"]))
    elif change == 2:
        text = " " + text
    elif change == 3:
        text += " " + draw(arguments)
    else:
        text += draw(st.sampled_from(['"', "\\", "\x00", "\x7f"]))
    return text


def parsed(text: str | None, game: Game, count: int) -> object:
    if text is None:
        return "not an element"
    try:
        return parse_action_parts(text, game, count)
    except ActionSyntaxError:
        return "error"


@settings(max_examples=1500, deadline=None)
@given(games, st.integers(0, 18), st.one_of(writer_texts(), mangled_texts()),
       st.sampled_from(['  "{}",', '  "{}", ', ' "{}",', '  "{}" ,', '  "{}"', '  "{}",,']))
def test_a_writer_line_reads_as_the_action_parser_reads_it(game: Game, count: int, text: str,
                                                           shape: str) -> None:
    low, high = PLAYER_LIMITS[game]
    count = min(max(count, low), high)
    line = shape.format(text)
    entry = writer_entry(line, game, count)
    if entry is not None:
        assert element_text(line) == text
        assert entry == parsed(text, game, count), line
        # The same objects: cards interned, verbs the enum's.
        expected = parse_action_parts(text, game, count)
        assert all(a is b for a, b in zip(entry[2], expected[2], strict=True))
        assert entry[1] is expected[1]


@settings(max_examples=800, deadline=None)
@given(games, st.integers(2, 17), writer_texts())
def test_every_writer_line_the_parser_accepts_in_canonical_form_is_read(
        game: Game, count: int, text: str) -> None:
    """The fast reading declines only what it must: the writer's own lines (one space,
    canonical cards, no comment) are all read when the parser accepts them."""
    low, high = PLAYER_LIMITS[game]
    count = min(max(count, low), high)
    line = f'  "{text}",'
    expected = parsed(text, game, count)
    tokens = text.split(" ")
    if isinstance(expected, str) or count > 9 or not all(
            writer_token(token, tokens[1]) for token in tokens) or not one_argument(tokens):
        return
    assert writer_entry(line, game, count) == expected, line


def one_argument(tokens: list[str]) -> bool:
    """Whether the tokens after the actor and verb are the writer's: a target at most, then
    one argument at most (the writer joins cards into one token: ``2c 2d`` is not its)."""
    rest = tokens[2:]
    if rest and rest[0][:1] == "p" and rest[0][1:].isdigit():
        rest = rest[1:]
    return len(rest) <= 1


def writer_token(token: str, verb: str) -> bool:
    """Whether the writer could have written ``token`` in an action of ``verb``: ``d``,
    ``p1``..``p9``, a verb, an amount, a pot for ``cl``, canonical cards (not an empty
    token: a space too many)."""
    pairs = [token[at:at + 2] for at in range(0, len(token), 2)]
    return (token == "d" or (token[:1] == "p" and token[1:] in [*"123456789"])
            or token in VERBS or token.isdigit() or (verb == "cl" and token in RUMMOLI_POTS)
            or (token != "" and len(token) % 2 == 0 and all(pair in CARDS for pair in pairs)))


def test_the_writers_lines_of_each_game() -> None:
    lines = {
        Game.BIGTWO: ["d dh p1 3h4d4c4h5d6d8hTcKdKcAd2d2s", "p4 pl 3d3s", "p2 ps",
                      "p3 pl 8s9dThJcQs"],
        Game.RUMMOLI: ["d dh p2 2s3d4h5c6h8c8sJcJdQcQsKdAc", "d dw 2h4c4d5s6c7h8d9sTcTdJsKcAs",
                       "p1 pw", "p2 cbr 1", "p1 f", "p3 cc", "p2 pl 2s", "p1 xw", "p2 ab 0",
                       "p2 ap", "p3 aw 12", "p1 cl poker", "p1 cl 789", "d im", "p2 sm",
                       "p2 sm AsKs"],
        Game.SEVENEIGHT: ["d dh p1 5s2d", "p1 up 5s", "p4 cbr 12", "p1 sm Td2sAc", "p2 sm",
                          "p3 f", "p1 cc"],
    }
    for game, texts in lines.items():
        for text in texts:
            entry = writer_entry(f'  "{text}",', game, 4)
            assert entry is not None, text
            assert entry == parse_action_parts(text, game, 4)


def test_what_the_fast_reading_leaves_to_the_parser() -> None:
    declined = {
        Game.BIGTWO: ["d dh p1 3h3h", "d dh p5 3h", "p1 pl 10d", "p1 pl ??", "p1 pl 3H",
                      "p1 pl", "p1 ps 3h", "d pl 3h", "p1 dh p2 3h", "p1 cc", "p1 pl 3h # x",
                      "p1  pl 3h", "p1 pl 3h ", "d dh 3h", "d dh p1", "p1 ps p2"],
        Game.RUMMOLI: ["p1 cbr 0", "p1 cbr 1234567890123456", "p1 cl pot", "p1 cl",
                       "d dw", "p1 dw 3h", "d im 3h", "p1 cbr", "p1 ab 5s", "p1 up 3h"],
    }
    for game, texts in declined.items():
        for text in texts:
            assert writer_entry(f'  "{text}",', game, 4) is None, text
    assert Verb.TURN_UP not in GAME_VERBS[Game.RUMMOLI]
