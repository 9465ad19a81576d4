"""Reading one action string: ``p2 cbr 6 # a comment``, ``d dh p1 AsKd``, ``p3 pl 7h8h9h``.

Syntax only: the actor exists, the verb is known for the game and the arguments
have the right shape.  Whether the action was allowed at that moment is the
rules engines' question.
"""

from __future__ import annotations

from typing import Final

from parsers.caching import BoundedCache
from parsers.cards import Card, CardError, parse_cards
from parsers.model import DEALER, RUMMOLI_POTS, Action, Verb
from parsers.rule_options import Game

__all__ = ["GAME_VERBS", "ActionSyntaxError", "parse_action"]


class ActionSyntaxError(ValueError):
    """An action string that does not follow the grammar."""


DEALER_VERBS: Final = frozenset({Verb.DEAL_HOLE, Verb.DEAL_WIDOW, Verb.IMPASSE})

GAME_VERBS: Final[dict[Game, frozenset[Verb]]] = {
    Game.SEVENEIGHT: frozenset(
        {Verb.DEAL_HOLE, Verb.BET_RAISE, Verb.CHECK_CALL, Verb.FOLD, Verb.SHOW_MUCK, Verb.TURN_UP}
    ),
    Game.RUMMOLI: frozenset(
        {
            Verb.DEAL_HOLE, Verb.DEAL_WIDOW, Verb.IMPASSE, Verb.BET_RAISE, Verb.CHECK_CALL,
            Verb.FOLD, Verb.SHOW_MUCK, Verb.EXCHANGE, Verb.PASS_WIDOW, Verb.BID, Verb.BID_PASS,
            Verb.AUCTION_WIN, Verb.CLAIM, Verb.PLAY,
        }
    ),
    Game.BIGTWO: frozenset({Verb.DEAL_HOLE, Verb.PLAY, Verb.PASS}),
}
"""The verbs each game's histories may use (besides no-op commentary)."""

_VERBS: Final = {verb.value: verb for verb in Verb if verb is not Verb.NOOP}
NO_ARGUMENT: Final = frozenset(
    {Verb.CHECK_CALL, Verb.FOLD, Verb.EXCHANGE, Verb.PASS_WIDOW, Verb.BID_PASS, Verb.PASS,
     Verb.IMPASSE}
)
MAX_DIGITS: Final = 15
"""Chip amounts have at most 15 digits, so every total fits a 64-bit integer."""

AMOUNT: Final = frozenset({Verb.BET_RAISE, Verb.BID, Verb.AUCTION_WIN})
_GAME_NAMES: Final = {Game.SEVENEIGHT: "7 & 8", Game.RUMMOLI: "Rummoli", Game.BIGTWO: "Big Two"}

# What parse_action_parts does with a verb's arguments, by the verb's class.
_TAKES_NOTHING: Final = 0
_TAKES_AMOUNT: Final = 1
_TAKES_DEAL: Final = 2
_TAKES_POT: Final = 3
_TAKES_ONE_CARD: Final = 4
_TAKES_CARDS: Final = 5


def _takes(verb: Verb) -> int:
    if verb in NO_ARGUMENT:
        return _TAKES_NOTHING
    if verb in AMOUNT:
        return _TAKES_AMOUNT
    if verb is Verb.DEAL_HOLE:
        return _TAKES_DEAL
    if verb is Verb.CLAIM:
        return _TAKES_POT
    if verb is Verb.TURN_UP:
        return _TAKES_ONE_CARD
    return _TAKES_CARDS  # sm (cards optional), pl and dw (cards required)


_VERB_TABLES: Final[dict[str, dict[str, tuple[Verb, bool, int]]]] = {
    str(game.value): {text: (verb, verb in DEALER_VERBS, _takes(verb))
                      for text, verb in _VERBS.items() if verb in verbs}
    for game, verbs in GAME_VERBS.items()}
"""By game (its value) and verb text: the verb, whether it is the dealer's, and what it takes.
A new action text is read with one look-up by strings: hashing the enums (Python-level
``__hash__``) for the four set tests cost a third of reading a new line."""


_PLAYER_TOKENS: Final = {f"p{number}": number for number in range(1, 100)}
"""The usual actor tokens, read without the checks of :func:`_read_actor`."""


def _actor(token: str, players: int) -> int:
    number = _PLAYER_TOKENS.get(token)
    if number is not None and number <= players:
        return number
    return _read_actor(token, players)  # the dealer, an unusual spelling, or an error


def _read_actor(token: str, players: int) -> int:
    if token == "d":
        return DEALER
    digits = token[1:]
    if len(token) >= 2 and token[0] == "p" and digits.isascii() and digits.isdigit() and (
            token[1] != "0"):
        number = int(token[1:])
        if number <= players:
            return number
        raise ActionSyntaxError(f"{token!r} is not a player (this hand has {players})")
    raise ActionSyntaxError(f"{token!r} is not an actor (expected d or p1..p{players})")


def _card_list(tokens: list[str], verb: Verb, *, required: bool
               ) -> tuple[tuple[Card, ...], list[int]]:
    """The cards of ``tokens`` and the codes of the known ones, in order."""
    if not tokens:
        if required:
            raise ActionSyntaxError(f"{verb.value} needs cards")
        return (), []
    if len(tokens) == 1:  # the writer's form: one token of cards without separators
        cards = _cards_of(tokens[0])
    else:
        cards = tuple([card for token in tokens for card in _cards_of(token)])
    codes = [code for card in cards if (code := card.code) >= 0]  # the known cards
    if len(set(codes)) != len(codes):
        seen: set[int] = set()
        for card in cards:
            if card.is_known:
                if card.code in seen:
                    raise ActionSyntaxError(f"card {card} appears twice in {' '.join(tokens)!r}")
                seen.add(card.code)
    return cards, codes


def _cards_of(token: str) -> tuple[Card, ...]:
    try:
        return parse_cards(token)
    except CardError:
        raise ActionSyntaxError(f"{token[:20]!r} is not a card or a list of cards") from None


def parse_action(text: str, game: Game, players: int) -> Action:
    """Read one action string of a hand of ``game`` with ``players`` players.

    Raises :class:`ActionSyntaxError` with a message that says what was expected.  The
    same text gives the same (shared) object.
    """
    # Betting and passing strings repeat across hands ("p1 cc", "p2 f"): parse each once.
    key = (text, game, players)
    cached = _PARSED.get(key)
    if cached is None:
        cached = _PARSED.put(key, _parsed(text, game, players))
    return cached[0]


ParsedAction = tuple[Action, tuple[int, ...] | None]
"""An action, then the codes of the known cards it deals (dealing verbs only, else None):
what :func:`action_table` remembers per action text."""

_CACHE_LIMIT: Final = 100_000
"""The most action texts remembered, in all and per game and player count."""
_PARSED: Final = BoundedCache[tuple[str, Game, int], ParsedAction]("parsers.actions.parsed",
                                                                  _CACHE_LIMIT)


def action_table(game: Game, players: int) -> BoundedCache[str, ParsedAction]:
    """The parsed actions of ``game`` with ``players`` players, by text (fill with
    :func:`parse_into`).

    One dictionary per game and player count, keyed by the text alone: the reader
    looks each action up once per hand, and a string key hashes much faster than
    a key holding an enum.
    """
    key = (game._value_, players)  # not .value: a Python-level property
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES.put(key, BoundedCache(f"parsers.actions.table.{key[0]}.{players}",
                                              _CACHE_LIMIT))
    return table


_TABLES: Final = BoundedCache[tuple[str, int], BoundedCache[str, ParsedAction]](
    "parsers.actions.tables", 64)
"""The tables of :func:`action_table`: a handful (a game's player counts are few; a file
may name any count, which the reader reports, so these are bounded too)."""


def parse_into(table: dict[str, ParsedAction], text: str, game: Game,
               players: int) -> ParsedAction:
    """Parse ``text`` as :func:`parse_action` does and remember it in ``table`` (bounded when
    it is a :class:`~parsers.caching.BoundedCache`, as :func:`action_table`'s are)."""
    entry = table[text] = _parsed(text, game, players)
    return entry


def _parsed(text: str, game: Game, players: int) -> ParsedAction:
    """The action ``text`` and the codes of the cards it deals, as a :data:`ParsedAction`."""
    actor, verb, cards, amount, target, pot, comment, codes = _action_fields(text, game, players)
    return Action(actor, verb, cards, amount, target, pot, comment), codes


def _action_fields(text: str, game: Game, players: int) -> tuple[
        int, Verb, tuple[Card, ...], int | None, int | None, str | None, str | None,
        tuple[int, ...] | None]:
    """The fields of the action ``text`` in :class:`~parsers.model.Action`'s order, then the
    codes of the known cards it deals (dealing verbs only, else None)."""
    body, hash_mark, comment_text = text.partition("#")
    comment = comment_text.strip() if hash_mark else None
    # Words are separated by spaces only (docs/format.md): a no-break space or a tab is
    # part of a word, which then names no actor, verb or card.
    tokens = [word for word in body.split(" ") if word]
    if not tokens:
        if not comment:
            raise ActionSyntaxError(f"{text!r} is an empty action: an action is 'actor verb"
                                    " ...', a note '# ...' (or leave the string out)")
        return DEALER, Verb.NOOP, (), None, None, None, comment, None
    if len(tokens) < 2:
        raise ActionSyntaxError(f"{text.strip()!r}: expected an actor then a verb")
    actor = _actor(tokens[0], players)
    found = _VERB_TABLES[game._value_].get(tokens[1])  # not .value: a Python-level property
    if found is None:
        allowed = " ".join(sorted(v.value for v in GAME_VERBS[game]))
        raise ActionSyntaxError(
            f"{tokens[1]!r} is not a {_GAME_NAMES[game]} verb (expected one of: {allowed})"
        )
    verb, dealer_verb, takes = found
    if (actor == DEALER) != dealer_verb:
        who = "the dealer" if actor == DEALER else "a player"
        raise ActionSyntaxError(f"{verb.value!r} is not an action of {who}")
    arguments = tokens[2:]
    if takes == _TAKES_NOTHING:
        if arguments:
            raise ActionSyntaxError(f"{verb.value} takes no argument, got {' '.join(arguments)!r}")
        return actor, verb, (), None, None, None, comment, None
    if takes == _TAKES_AMOUNT:
        if len(arguments) != 1:
            raise ActionSyntaxError(f"{verb.value} takes one amount of chips")
        amount = _amount(arguments[0], verb)
        return actor, verb, (), amount, None, None, comment, None
    if takes == _TAKES_DEAL:
        if not arguments:
            raise ActionSyntaxError("dh needs a player and cards, as in 'd dh p1 AsKd'")
        target = _actor(arguments[0], players)
        if target == DEALER:
            raise ActionSyntaxError("dh deals to a player (p1..pN), not to d")
        cards, codes = _card_list(arguments[1:], verb, required=True)
        return actor, verb, cards, None, target, None, comment, tuple(codes)
    if takes == _TAKES_POT:
        if len(arguments) != 1 or arguments[0] not in RUMMOLI_POTS:
            raise ActionSyntaxError(f"cl takes one pot name: {' '.join(RUMMOLI_POTS)}")
        return actor, verb, (), None, None, arguments[0], comment, None
    if takes == _TAKES_ONE_CARD:
        cards, _known = _card_list(arguments, verb, required=True)
        if len(cards) != 1:
            raise ActionSyntaxError(f"up turns exactly one card face up, not {len(cards)}")
        return actor, verb, cards, None, None, None, comment, None
    # sm (cards optional), pl and dw (cards required)
    cards, codes = _card_list(arguments, verb, required=verb is not Verb.SHOW_MUCK)
    return (actor, verb, cards, None, None, None, comment,
            tuple(codes) if verb is Verb.DEAL_WIDOW else None)


def _amount(token: str, verb: Verb) -> int:
    if not (token.isascii() and token.isdigit()) or len(token) > MAX_DIGITS:
        raise ActionSyntaxError(
            f"{token[:20]!r} is not an amount: {verb.value} takes a whole number of chips"
            f" from 0 to {10**MAX_DIGITS - 1}"
        )
    amount = int(token)
    if verb is Verb.BET_RAISE and amount == 0:
        raise ActionSyntaxError("cbr needs an amount above 0")
    return amount
