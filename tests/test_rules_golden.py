"""Differential test of the rules engines against stored golden outcomes.

``tests/data/golden_outcomes/<game>.json`` holds a few hundred hand histories
per game (simulated hands of many shapes, plus mutated copies that the rules
reject) with what ``analytics.rules.replay`` gave for each when the file was
written: the whole :class:`~analytics.rules.Outcome` (every field, ``extra``
included) or the :class:`~analytics.rules.RuleError` (message, rule, line,
action).  The histories are stored as text, so neither the simulators nor the
bots can make the reference drift; a change of any replay result fails here.

Regenerate (only when a rules change is intended, and say so in the commit)::

    .venv/bin/python -m tests.test_rules_golden --write
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
from collections.abc import Callable, Iterator
from enum import Enum
from pathlib import Path
from typing import Final

import pytest

from analytics.rules import Outcome, RuleError, replay
from parsers import HandHistory, dumps_hand, loads_hands
from parsers.model import Action

GOLDEN: Final = Path(__file__).resolve().parent / "data" / "golden_outcomes"
GAMES: Final = ("seveneight", "bigtwo", "rummoli")

JSON = None | bool | int | float | str | list["JSON"] | dict[str, "JSON"]


# ----------------------------------------------------------------------------- encoding


def encode(value: object) -> JSON:
    """A JSON form of an outcome's value that keeps tuples and lists apart."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Enum):
        return {"__enum__": f"{type(value).__name__}.{value.name}"}
    if isinstance(value, tuple):
        return [encode(item) for item in value]
    if isinstance(value, list):
        return {"__list__": [encode(item) for item in value]}
    if isinstance(value, dict):
        return {"__dict__": [[encode(k), encode(v)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"__" + type(value).__name__ + "__": {
            f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    return {"__repr__": repr(value)}


def result_of(text: str, name: str) -> JSON:
    """What replaying the one hand of ``text`` gives, in JSON form."""
    (hand,) = loads_hands(text, name=name)
    try:
        outcome = replay(hand)
    except RuleError as error:
        return {"error": {"str": str(error), "message": error.message, "rule": error.rule,
                          "line": error.line, "action_index": error.action_index,
                          "action_text": error.action_text}}
    assert isinstance(outcome, Outcome)
    return {"outcome": encode(outcome)}


# ----------------------------------------------------------------------------- cases


def simulated_hands(game: str) -> Iterator[HandHistory]:
    """Valid hands of many shapes: variants, table sizes, short stacks (side pots), knobs."""
    if game == "seveneight":
        from analytics.simulate.seveneight import simulate_seveneight

        shapes = [("N78", 2, 200, 0), ("N78", 3, 30, 1), ("N78", 6, 40, 0), ("P78", 4, 200, 1),
                  ("P78", 5, 25, 0), ("F78", 2, 60, 0), ("F78", 4, 30, 2), ("N78", 9, 20, 1)]
        for number, (variant, players, stack, ante) in enumerate(shapes):
            yield from simulate_seveneight(30, players, 100 + number, variant=variant,
                                           starting_stack=stack, ante=ante,
                                           styles=("tight", "loose"))
    elif game == "bigtwo":
        from analytics.simulate.bigtwo import simulate_bigtwo

        for number, players in enumerate((2, 3, 4, 4, 3, 2)):
            yield from simulate_bigtwo(40, players, 200 + number, random_knobs=number >= 2,
                                       games_per_match=4)
    else:
        from analytics.simulate.rummoli import simulate_rummoli

        rounds: list[tuple[str, int, str, str]] = [
                  ("NRM", 3, "auto", "single"), ("PRM", 4, "manual", "per_pot"),
                  ("FRM", 5, "auto", "none"), ("NRM", 6, "manual", "per_pot"),
                  ("NRM", 4, "auto", "single")]
        for number, (variant, players, claim, finale) in enumerate(rounds):
            yield from simulate_rummoli(40, players, 300 + number, variant=variant,
                                        claim=claim, finale=finale, starting_stack=25)


def mutated_hand(hand: HandHistory, rng: random.Random, kind: str) -> HandHistory:
    """``hand`` with one action dropped, duplicated, swapped or altered (mostly illegal).

    ``kind`` is ``any`` (a random edit) or ``sized``: an amount (betting games)
    or the cards of a play changed.
    """
    actions = list(hand.actions)
    index = rng.randrange(len(actions))
    if kind == "sized":
        sized = [i for i, a in enumerate(actions) if a.amount is not None]
        if sized:
            index, kind = rng.choice(sized), "amount"
        else:
            index, kind = rng.choice([i for i, a in enumerate(actions) if a.cards] or [index]), \
                "cards"
    else:
        kind = rng.choice(("drop", "duplicate", "swap", "amount", "cards", "actor"))
    action = actions[index]
    if kind == "drop":
        del actions[index]
    elif kind == "duplicate":
        actions.insert(index, action)
    elif kind == "swap" and index + 1 < len(actions):
        actions[index], actions[index + 1] = actions[index + 1], action
    elif kind == "amount" and action.amount is not None:
        actions[index] = dataclasses.replace(action, amount=action.amount + rng.choice(
            (-2, -1, 1, 3, action.amount)))
    elif kind == "cards" and action.cards:
        other = rng.choice([a for a in actions if a.cards])
        actions[index] = dataclasses.replace(action, cards=other.cards)
    elif action.actor > 0:
        players = hand.num_players
        actions[index] = dataclasses.replace(action, actor=action.actor % players + 1)
    else:
        del actions[index]
    return dataclasses.replace(hand, actions=tuple(Action(**{
        f.name: getattr(a, f.name) for f in dataclasses.fields(a) if f.name != "line"})
        for a in actions))


Result = tuple[str, object]


def result(replay: Callable[[HandHistory], Outcome], hand: HandHistory) -> Result:
    """What ``replay`` gives for ``hand``: the outcome (with ``extra``), or the error's fields."""
    try:
        outcome = replay(hand)
    except RuleError as error:
        return "rule", (str(error), error.message, error.rule, error.line, error.action_index,
                        error.action_text)
    except Exception as error:  # the other errors of two paths must match too
        return "other", (type(error).__name__, str(error))
    return "outcome", (outcome, outcome.extra)


def stated_figures_off(hand: HandHistory) -> Iterator[HandHistory]:
    """``hand`` with each player's stated finishing stack, then winnings, one chip off, and
    with neither stated."""
    n = hand.num_players
    for stated in (hand.finishing_stacks or (0,) * n, hand.winnings or (0,) * n):
        for player in range(n):
            changed = list(stated)
            changed[player] += 1
            if stated is hand.winnings:
                yield dataclasses.replace(hand, winnings=tuple(changed))
            else:
                yield dataclasses.replace(hand, finishing_stacks=tuple(changed))
    yield dataclasses.replace(hand, finishing_stacks=None, winnings=None)


def cases(game: str) -> list[str]:
    """The histories of ``game``'s golden file: every simulated hand and two mutated copies."""
    rng = random.Random(f"golden-{game}")
    texts: list[str] = []
    for hand in simulated_hands(game):
        texts.append(dumps_hand(hand))
        if hand.actions:
            texts.append(dumps_hand(mutated_hand(hand, rng, "any")))
            texts.append(dumps_hand(mutated_hand(hand, rng, "sized")))
    return texts


def write(game: str) -> Path:
    """Replay every case of ``game`` with the current engines and store the results."""
    GOLDEN.mkdir(parents=True, exist_ok=True)
    entries = [{"text": text, "result": result_of(text, f"golden-{game}-{number}")}
               for number, text in enumerate(cases(game))]
    path = GOLDEN / f"{game}.json"
    # One case a line: compact, and a diff shows which cases changed.
    lines = ",\n".join(json.dumps(entry, separators=(",", ":")) for entry in entries)
    path.write_text(f"[\n{lines}\n]\n", encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- tests


def _entries(game: str) -> list[dict[str, JSON]]:
    loaded = json.loads((GOLDEN / f"{game}.json").read_text(encoding="utf-8"))
    assert isinstance(loaded, list)
    return loaded


@pytest.mark.parametrize("game", GAMES)
def test_golden_file_covers_legal_and_illegal_hands(game: str) -> None:
    entries = _entries(game)
    outcomes = sum(1 for e in entries if isinstance(e["result"], dict) and "outcome" in e["result"])
    assert outcomes >= 150
    assert len(entries) - outcomes >= 200


@pytest.mark.parametrize("game", GAMES)
def test_replay_matches_golden_outcomes(game: str) -> None:
    mismatches = []
    for number, entry in enumerate(_entries(game)):
        text = entry["text"]
        assert isinstance(text, str)
        got = json.loads(json.dumps(result_of(text, f"golden-{game}-{number}")))
        if got != entry["result"]:
            mismatches.append((number, entry["result"], got))
    assert not mismatches, f"{len(mismatches)} differ; first: {mismatches[0]}"


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.test_rules_golden --write")
    for name in GAMES:
        print(write(name))
