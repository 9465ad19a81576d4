"""Files in another format, recognised by their first bytes: say what a file looks like.

A PokerStars export, a CSV sheet or a JSON dump fed to handlab used to fail with the TOML
reader's "malformed TOML: Expected '='", which tells a user nothing.  :func:`foreign_format`
looks at a file's head (the first :data:`HEAD_BYTES` bytes are plenty) and names the
format when it is a common one that handlab does not read; the ingest (a file-level error,
nothing of it loaded) and ``handlab validate`` both print :attr:`ForeignFormat.message`.

Only formats recognised with confidence are named; anything else (handlab's own TOML,
binary data, UTF-16, a Big Two score sheet, plain text of unknown shape) is left to the
reader, whose per-hand errors name the line.  A score sheet (a date line, ``F=10``, a
line of names, rows of digits) is never claimed here: it is what
:func:`parsers.scoresheet.looks_like_score_sheet` recognises.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Final

from parsers.fields import VARIANTS
from parsers.scoresheet import looks_like_score_sheet

__all__ = ["HANDLAB_READS", "HEAD_BYTES", "ForeignFormat", "foreign_format"]

HEAD_BYTES: Final = 8192
"""How much of a file :func:`foreign_format` needs."""

HANDLAB_READS: Final = ("handlab reads its own TOML hand histories (.phh: one hand, .phhs: "
                        "many under [1], [2], ...; see docs/format.md) of Rummoli, Big Two "
                        "and 7 & 8 Poker")
"""What handlab reads, said once for every foreign format."""


@dataclass(frozen=True, slots=True)
class ForeignFormat:
    """A recognised format handlab does not read: ``what`` names it (``a PokerStars hand
    history``), ``hint`` says what to do with it, if anything more than converting."""

    what: str
    hint: str = ""

    @property
    def message(self) -> str:
        """One sentence for a person: what the file looks like and what handlab reads."""
        hint = f" {self.hint}" if self.hint else ""
        return f"this looks like {self.what}, not a handlab history; {HANDLAB_READS}.{hint}"


# Site exports, by the first line of a hand (each site's own opening words).
_SITES: Final = (
    (re.compile(r"PokerStars (?:Zoom |Home Game )?(?:Hand|Game) #"), "PokerStars"),
    (re.compile(r"(?:Full Tilt Poker|FullTiltPoker) Game #"), "Full Tilt Poker"),
    (re.compile(r"Winamax Poker - "), "Winamax"),
    (re.compile(r"(?:\*{5} )?888(?:poker)? ?Hand History|#Game No ?:"), "888poker"),
    (re.compile(r"\*{5} Hand History for Game \d+"), "partypoker"),
    (re.compile(r"Poker Hand #[A-Z]*\d+:"), "GGPoker"),
    (re.compile(r"(?:iPoker|Everest Poker|Betfair|Bovada|Ignition|Bodog) ?(?:Hand|Game) ?#"),
     "poker site's"),
    (re.compile(r".{0,40}\b(?:Hand|Game) ?(?:#|No\.?|ID:?) ?\d{4,}.*"
                r"\b(?:Hold'?em|Omaha|Stud|Razz|Draw|Badugi)\b", re.IGNORECASE),
     "poker site's"),
)

# pokerkit's PHH variant codes (phh-std): the same file layout as handlab's, other games.
_PHH_GAMES: Final = {
    "FT": "fixed-limit Texas hold'em", "NT": "no-limit Texas hold'em",
    "NS": "no-limit short-deck hold'em", "PO": "pot-limit Omaha",
    "FO/8": "fixed-limit Omaha hi-lo", "F7S": "fixed-limit seven-card stud",
    "F7S/8": "fixed-limit seven-card stud hi-lo", "FR": "fixed-limit razz",
    "N2L1D": "no-limit 2-7 single draw", "F2L3D": "fixed-limit 2-7 triple draw",
    "FB": "fixed-limit badugi",
}
_VARIANT_LINE: Final = re.compile(r"""\s*variant\s*=\s*["']([^"']*)["']""")

_TOML_HEADER: Final = re.compile(r"\s*\[\s*[A-Za-z0-9_-]+\s*\]\s*(?:#.*)?\Z")
_TOML_KEY: Final = re.compile(r"""\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')\s*(?:\.|=)""")


def _lines(head: str) -> list[str]:
    """The head's meaningful lines (not blank, not a ``#`` comment); the last one is
    dropped when the head was cut in its middle."""
    lines = head.split("\n")
    if len(head) >= HEAD_BYTES - 4 and len(lines) > 1:
        lines = lines[:-1]
    return [line.rstrip("\r") for line in lines
            if line.strip() and not line.lstrip().startswith("#")]


def _site(lines: list[str]) -> ForeignFormat | None:
    for line in lines[:5]:
        text = line.strip().lstrip("\ufeff")
        for pattern, site in _SITES:
            if pattern.match(text):
                what = ("another poker site's text hand history" if site == "poker site's"
                        else f"a {site} hand history (the site's text export)")
                return ForeignFormat(what, "Convert it to the format first (a poker "
                                           "site's hold'em is none of handlab's games).")
    return None


def _pokerkit(lines: list[str]) -> ForeignFormat | None:
    codes = [m.group(1) for line in lines if (m := _VARIANT_LINE.match(line))]
    if not codes or any(code in VARIANTS for code in codes):
        return None
    games = sorted({_PHH_GAMES[code] for code in codes if code in _PHH_GAMES})
    if not games:
        return None
    return ForeignFormat(f"a PHH hand history of {', '.join(games)} (pokerkit's variant "
                         f"{codes[0]})",
                         "handlab uses PHH's layout with its own variants: N78, P78, F78 "
                         "(7 & 8), NRM, PRM, FRM (Rummoli) and B2 (Big Two).")


def _markup(text: str) -> ForeignFormat | None:
    lowered = text[:200].lower()
    if lowered.startswith(("<!doctype html", "<html")):
        return ForeignFormat("an HTML page")
    if lowered.startswith("<?xml") or re.match(r"<[a-z_][\w:.-]*[\s>/]", lowered):
        return ForeignFormat("an XML document (as some poker sites export)")
    if text.startswith("%PDF"):
        return ForeignFormat("a PDF document")
    if text.startswith("{\\rtf"):
        return ForeignFormat("an RTF document")
    return None


def _json(text: str, first: str) -> ForeignFormat | None:
    if _TOML_HEADER.match(first):
        return None  # [1] opens a hand of a .phhs
    try:
        json.loads(text)
    except ValueError:
        pass
    else:
        return ForeignFormat("JSON") if text[:1] in "{[" else None
    line = first.strip()
    if line.startswith("{") and line.endswith("}") and len(line) > 2:
        try:
            json.loads(line)
        except ValueError:
            pass
        else:
            return ForeignFormat("JSON lines (a JSON object a line)")
    if text.startswith("{") or re.match(r"\[\s*(?:[{\[\"\d-]|\]|true|false|null|\Z)", text):
        return ForeignFormat("JSON")
    return None


def _csv(lines: list[str]) -> ForeignFormat | None:
    sample = lines[:20]
    if len(sample) < 2:
        return None
    for delimiter, name in ((",", "a CSV table"), ("\t", "a tab-separated table"),
                            (";", "a CSV table")):
        counts = [line.count(delimiter) for line in sample]
        if counts[0] >= 1 and all(count == counts[0] for count in counts) and \
                "=" not in sample[0]:
            return ForeignFormat(f"{name} (a spreadsheet export)",
                                 "A table of results has no hands to replay.")
    return None


def foreign_format(head: bytes | str) -> ForeignFormat | None:
    """The foreign format a file's first bytes show, or None (read it as a history).

    ``head`` is the start of the file (:data:`HEAD_BYTES` of it is enough), bytes or
    text.  Binary data, UTF-16 and anything with a NUL byte are left to the reader.
    """
    if isinstance(head, bytes):
        if b"\x00" in head:
            return None
        text = head.decode("utf-8", errors="replace")
    else:
        text = head
    text = text.lstrip("\ufeff")
    lines = _lines(text)
    if not lines:
        return None
    first = lines[0]
    if _TOML_HEADER.match(first) or _TOML_KEY.match(first):
        return _pokerkit(lines)
    if looks_like_score_sheet(text):  # the score-sheet import reads it
        return None
    stripped = text.lstrip()
    return _site(lines) or _markup(stripped) or _json(stripped, first) or _csv(lines)
