"""parsers.actions: one action string, read the same way by every entry point.

``parse_action`` (an ``Action``) and ``parse_into`` (the reader's table: the action and the
codes of the cards it deals) share one parser; these cases pin the fields and the messages
of both, including the card-list shapes (one token, several tokens, unknown cards) and the
actor spellings.
"""

from __future__ import annotations

import pytest

from parsers.actions import ActionSyntaxError, parse_action, parse_into
from parsers.cards import parse_cards
from parsers.model import DEALER, Action, Verb
from parsers.rule_options import Game

GOOD = [
    (Game.BIGTWO, "p1 pl 3d4d", Action(1, Verb.PLAY, parse_cards("3d4d")), None),
    (Game.BIGTWO, "p2 pl 3d 4d # pair", Action(2, Verb.PLAY, parse_cards("3d4d"), comment="pair"),
     None),
    (Game.BIGTWO, "d dh p3 As??Kd", Action(DEALER, Verb.DEAL_HOLE, parse_cards("As??Kd"),
                                           target=3), (51, 45)),
    (Game.BIGTWO, "p4 ps", Action(4, Verb.PASS), None),
    (Game.BIGTWO, "  # only a comment", Action(DEALER, Verb.NOOP, comment="only a comment"),
     None),
    (Game.SEVENEIGHT, "p1 cbr 20", Action(1, Verb.BET_RAISE, amount=20), None),
    (Game.SEVENEIGHT, "p2 up 7h", Action(2, Verb.TURN_UP, parse_cards("7h")), None),
    (Game.SEVENEIGHT, "p3 sm", Action(3, Verb.SHOW_MUCK), None),
    (Game.RUMMOLI, "d dw As Kd ??", Action(DEALER, Verb.DEAL_WIDOW, parse_cards("AsKd??")),
     (51, 45)),
    (Game.RUMMOLI, "p2 cl rummoli", Action(2, Verb.CLAIM, pot="rummoli"), None),
]


@pytest.mark.parametrize(("game", "text", "expected", "codes"), GOOD)
def test_good_actions(game: Game, text: str, expected: Action, codes: tuple[int, ...] | None
                      ) -> None:
    action = parse_action(text, game, 4)
    assert action == expected
    assert type(action) is Action and parse_action(text, game, 4) is action  # shared
    assert parse_into({}, text, game, 4) == (expected, codes)


BAD = [
    (Game.BIGTWO, "p5 pl 3d", "'p5' is not a player (this hand has 4)"),
    (Game.BIGTWO, "p0 pl 3d", "'p0' is not an actor (expected d or p1..p4)"),
    (Game.BIGTWO, "p1 pl 3d Zz 4d", "'Zz' is not a card or a list of cards"),
    (Game.BIGTWO, "p1 pl 3dXx", "'3dXx' is not a card or a list of cards"),
    (Game.BIGTWO, "p1 pl 3d 3d", "card 3d appears twice in '3d 3d'"),
    (Game.BIGTWO, "p1 pl", "pl needs cards"),
    (Game.BIGTWO, "p1 cc", "'cc' is not a Big Two verb (expected one of: dh pl ps)"),
    (Game.BIGTWO, "d dh d 3d", "dh deals to a player (p1..pN), not to d"),
    (Game.SEVENEIGHT, "p1 up 7h8h", "up turns exactly one card face up, not 2"),
    (Game.SEVENEIGHT, "d cbr 5", "'cbr' is not an action of the dealer"),
    (Game.SEVENEIGHT, "p1", "'p1': expected an actor then a verb"),
    # Actor numbers are ASCII digits, words are separated by spaces only (docs/format.md).
    (Game.SEVENEIGHT, "p\u0663 f", "'p\u0663' is not an actor (expected d or p1..p4)"),
    (Game.SEVENEIGHT, "p3\u00a0f", "'p3\\xa0f': expected an actor then a verb"),
    (Game.SEVENEIGHT, "", "'' is an empty action: an action is 'actor verb ...', a note"
     " '# ...' (or leave the string out)"),
]


@pytest.mark.parametrize(("game", "text", "message"), BAD)
def test_bad_actions(game: Game, text: str, message: str) -> None:
    with pytest.raises(ActionSyntaxError) as by_action:
        parse_action(text, game, 4)
    with pytest.raises(ActionSyntaxError) as by_table:
        parse_into({}, text, game, 4)
    assert str(by_action.value) == str(by_table.value) == message


@pytest.mark.parametrize("game", list(Game))
@pytest.mark.parametrize("actor", ["d", "p1"])
@pytest.mark.parametrize("verb_text", [*(verb.value for verb in Verb if verb is not Verb.NOOP),
                                       "zz", "PL"])
def test_every_verb_is_accepted_or_refused_as_the_games_verbs_say(
        game: Game, actor: str, verb_text: str) -> None:
    """The verb table (one look-up by text per game) accepts exactly ``GAME_VERBS[game]``,
    gives the dealer exactly his verbs, and refuses the others with the same messages."""
    from parsers.actions import GAME_VERBS

    dealer_verbs = {Verb.DEAL_HOLE, Verb.DEAL_WIDOW, Verb.IMPASSE}
    verb = next((v for v in Verb if v.value == verb_text and v is not Verb.NOOP), None)
    try:
        got: object = parse_action(f"{actor} {verb_text}", game, 4).verb
    except ActionSyntaxError as error:
        got = str(error)
    if verb is None or verb not in GAME_VERBS[game]:
        assert isinstance(got, str) and f"{verb_text!r} is not a " in got and " verb " in got
    elif (actor == "d") != (verb in dealer_verbs):
        who = "the dealer" if actor == "d" else "a player"
        assert got == f"{verb.value!r} is not an action of {who}"
    else:  # accepted (or refused for its missing arguments only)
        assert got is verb or (isinstance(got, str) and " verb " not in got
                               and "is not an action of" not in got)
