"""Hypothesis strategies for syntactically valid hand histories of the three games.

They generate hands the reader must accept (syntax and structure), not hands
that are legal under the rules: the rules engines have their own generators.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from parsers.actions import GAME_VERBS
from parsers.build import PLAYER_LIMITS, visible_name
from parsers.cards import DECK, UNKNOWN, Card
from parsers.fields import VARIANTS
from parsers.model import DEALER, RUMMOLI_POTS, Action, HandHistory, Verb
from parsers.rule_options import (
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

DEALER_VERBS = {Verb.DEAL_HOLE, Verb.DEAL_WIDOW, Verb.IMPASSE}
_text = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\r"), max_size=12
)
_comment = st.none() | _text.map(str.strip).filter(lambda t: "\n" not in t)
_label = st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc"]), max_size=12)
"""Names and header labels: no control character (parsers.build refuses one)."""
_chips = st.integers(min_value=0, max_value=10**6)


@st.composite
def rules_for(draw: st.DrawFn, game: Game) -> Any:
    if game is Game.RUMMOLI:
        return RummoliRules(
            ante=draw(st.integers(0, 5)),
            claim=draw(st.sampled_from(Claim)),
            finale=draw(st.sampled_from(Finale)),
        )
    if game is Game.BIGTWO:
        return BigTwoRules(
            deal=draw(st.sampled_from(BigTwoDeal)),
            lead_card=draw(st.sampled_from(["3d", "3c"])),
            suit_order="".join(draw(st.permutations("cdhs"))),
            straights=draw(st.sampled_from(Straights)),
            flush_order=draw(st.sampled_from(FlushOrder)),
            four_card_plays=draw(st.booleans()),
            scoring=draw(st.sampled_from(BigTwoScoring)),
        )
    return SevenEightRules()


@st.composite
def actions_for(draw: st.DrawFn, game: Game, players: int) -> tuple[Action, ...]:
    deck = list(draw(st.permutations(DECK)))
    verbs = sorted(GAME_VERBS[game] | {Verb.NOOP}, key=lambda v: v.value)
    actions: list[Action] = []
    for _ in range(draw(st.integers(0, 12))):
        verb = draw(st.sampled_from(verbs))
        comment = draw(_comment)
        if verb is Verb.NOOP:  # a note: an action without its words is refused
            actions.append(Action(DEALER, verb, comment=comment or "a note"))
            continue
        actor = DEALER if verb in DEALER_VERBS else draw(st.integers(1, players))
        cards: tuple[Card, ...] = ()
        amount = target = pot = None
        if verb in (Verb.DEAL_HOLE, Verb.DEAL_WIDOW):
            count = draw(st.integers(1, 3))
            cards = tuple(deck.pop() if draw(st.booleans()) or not deck else UNKNOWN
                          for _ in range(min(count, len(deck)) or 1))
            if verb is Verb.DEAL_HOLE:
                target = draw(st.integers(1, players))
        elif verb in (Verb.PLAY, Verb.SHOW_MUCK, Verb.TURN_UP):
            count = 1 if verb is Verb.TURN_UP else draw(st.integers(0 if verb is Verb.SHOW_MUCK
                                                                    else 1, 5))
            cards = tuple(draw(st.lists(st.sampled_from(DECK), min_size=count, max_size=count,
                                        unique=True)))
        elif verb in (Verb.BET_RAISE, Verb.BID, Verb.AUCTION_WIN):
            amount = draw(st.integers(1 if verb is Verb.BET_RAISE else 0, 10**9))
        elif verb is Verb.CLAIM:
            pot = draw(st.sampled_from(RUMMOLI_POTS))
        actions.append(Action(actor, verb, cards=cards, amount=amount, target=target, pot=pot,
                              comment=comment))
    return tuple(actions)


@st.composite
def hands(draw: st.DrawFn, game: Game | None = None) -> HandHistory:
    """A hand the reader must read back exactly as it is."""
    game = game or draw(st.sampled_from(Game))
    variant = draw(st.sampled_from(sorted(code for code, v in VARIANTS.items() if v.game is game)))
    fixed = variant.startswith("F")
    low, high = PLAYER_LIMITS[game]
    players = draw(st.integers(low, high))
    per_player = st.lists(_chips, min_size=players, max_size=players).map(tuple)
    fields: dict[str, Any] = {
        "starting_stacks": draw(per_player),
        # Each player has a name of his own (parsers.build refuses a blank, padded or
        # repeated one).
        "players": draw(st.none() | st.lists(_label.map(str.strip).filter(visible_name),
                                             min_size=players,
                                             max_size=players, unique=True).map(tuple)),
        "table": draw(st.none() | _label | st.integers(0, 999)),
        "hand": draw(st.none() | st.integers(0, 10**6)),
        "time": draw(st.none() | st.times().map(lambda t: t.replace(tzinfo=None))),
        "day": draw(st.none() | st.integers(1, 28)),
        "month": draw(st.none() | st.integers(1, 12)),
        "year": draw(st.none() | st.integers(1990, 2100)),
        "event": draw(st.none() | _label),
        "finishing_stacks": draw(st.none() | per_player),
    }
    if game is Game.SEVENEIGHT:
        fields["antes"] = draw(per_player)
        fields["blinds_or_straddles"] = draw(per_player)
        fields["winnings"] = draw(st.none() | per_player)
    if game in (Game.SEVENEIGHT, Game.RUMMOLI):
        if fixed:
            fields["small_bet"] = draw(st.integers(1, 100))
            if game is Game.SEVENEIGHT:
                fields["big_bet"] = draw(st.integers(1, 200))
        elif game is Game.SEVENEIGHT or draw(st.booleans()):
            fields["min_bet"] = draw(st.integers(1, 100))
    if game is Game.RUMMOLI:
        fields["dealer"] = draw(st.integers(1, players))
        board = st.lists(_chips, min_size=9, max_size=9).map(tuple)
        fields["board_before"] = draw(st.none() | board)
        fields["finale_pot"] = draw(st.none() | st.sampled_from(("all", *RUMMOLI_POTS)))
    if game in (Game.RUMMOLI, Game.BIGTWO):
        fields["game_id"] = draw(st.none() | _label)
        fields["round"] = draw(st.none() | st.integers(1, 500))
    user = draw(st.dictionaries(st.from_regex(r"_[a-z][a-z0-9_]{0,8}", fullmatch=True),
                                st.integers(-5, 5) | _text | st.booleans()
                                | st.lists(st.integers(0, 9), max_size=3),
                                max_size=3))
    return HandHistory(
        game=game, variant=variant, rules=draw(rules_for(game)),
        actions=draw(actions_for(game, players)), user_fields=tuple(user.items()),
        **{k: v for k, v in fields.items() if v is not None},
    )



# ---- action tokens for the readers' quick paths (canonical and mangled)

CANONICAL_CARDS: list[str] = [str(card) for card in DECK]
"""The 52 cards as the writer spells them."""
ODD_CARDS: list[str] = ["??", "10d", "10S", "as", "AS", "aS", "Q♥", "1d", "Xx", "A", "Tz", "0c"]
"""Card spellings a quick path must leave to the general action parser (some legal, some not)."""


def card_tokens(most_canonical: int) -> st.SearchStrategy[str]:
    """A card argument: up to ``most_canonical`` canonical cards in one token, or a few cards
    with odd spellings among them, in one token or separated by spaces."""
    return st.one_of(
        st.lists(st.sampled_from(CANONICAL_CARDS), min_size=1, max_size=most_canonical)
        .map("".join),
        st.lists(st.sampled_from(CANONICAL_CARDS + ODD_CARDS), min_size=0, max_size=5)
        .map("".join),
        st.lists(st.sampled_from(CANONICAL_CARDS + ODD_CARDS), min_size=2, max_size=3)
        .map(" ".join),
    )
