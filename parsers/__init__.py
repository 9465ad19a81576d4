"""handlab parsers: cards, the hand-history format, and the typed hand objects.

This is the bottom layer: it imports nothing from ``analytics`` or the app.

>>> from parsers import loads_hands
>>> hand = loads_hands('variant = "B2"\\nplayers = ["Ann", "Bo"]\\nactions = []\\n')[0]
>>> hand.game.value, hand.num_players, hand.ok
('bigtwo', 2, True)
"""

from parsers.cards import (
    DECK,
    UNKNOWN,
    Card,
    CardError,
    Rank,
    Suit,
    card_from_code,
    cards_from_codes,
    cards_to_codes,
    format_cards,
    parse_card,
    parse_cards,
)
from parsers.errors import HandlabError, ParseError
from parsers.model import DEALER, FORMAT_VERSION, RUMMOLI_POTS, Action, HandHistory, Verb
from parsers.reader import loads_hands, read_hands
from parsers.rule_options import (
    Betting,
    BigTwoDeal,
    BigTwoRules,
    BigTwoScoring,
    Claim,
    Finale,
    FlushOrder,
    Game,
    RummoliRules,
    SevenEightRules,
    Straights,
)
from parsers.writer import dumps_hand, dumps_hands, format_action, write_hands

__all__ = [
    "DEALER",
    "DECK",
    "FORMAT_VERSION",
    "RUMMOLI_POTS",
    "UNKNOWN",
    "Action",
    "Betting",
    "BigTwoDeal",
    "BigTwoRules",
    "BigTwoScoring",
    "Card",
    "CardError",
    "Claim",
    "Finale",
    "FlushOrder",
    "Game",
    "HandHistory",
    "HandlabError",
    "ParseError",
    "Rank",
    "RummoliRules",
    "SevenEightRules",
    "Straights",
    "Suit",
    "Verb",
    "card_from_code",
    "cards_from_codes",
    "cards_to_codes",
    "dumps_hand",
    "dumps_hands",
    "format_action",
    "format_cards",
    "loads_hands",
    "parse_card",
    "parse_cards",
    "read_hands",
    "write_hands",
]
