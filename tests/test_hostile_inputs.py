"""Hostile uploads through the ingest API: a clear error, bounded memory and time, nothing partial.

Each input of issue 8's list goes through ``analytics.ingest`` with the
dashboard's upload limits (the upload page calls the same function in the
server's process, so "ingest returns a summary" is "the app stays up"), and the
reader where it matters.  The big ones (a 1 GB file, a 100 MB line, zip and gzip
bombs) run in one subprocess that reports its peak memory.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import struct
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Final

import pytest

from analytics import ingest
from analytics.warehouse import Limits, reader
from analytics.warehouse.pipeline.run import IngestSummary
from parsers import read_hands
from tests.test_warehouse_data import BIGTWO, SEVENEIGHT, phhs, write
from tests.test_warehouse_kill import check_consistent

ROOT: Final = Path(__file__).resolve().parent.parent
MIB: Final = 1024**2

UPLOAD: Final = Limits(max_file_bytes=100 * MIB, max_uncompressed_bytes=1024**3,
                       max_ratio=100.0, ratio_floor=16 * MIB, max_members=10_000)
"""The upload page's limits (analytics/dashboard/pages/upload.py; test_exposure checks them)."""

HANG: Final = 300.0
"""Seconds after which a hostile input counts as a hang (a generous bound, not a timing)."""


def load(tmp_path: Path, *paths: Path, limits: Limits = UPLOAD) -> IngestSummary:
    """Ingest like the upload page does; check the database holds whole files only."""
    db = tmp_path / "hostile.duckdb"
    summary = ingest(list(paths), db, workers=0, limits=limits, wait=30.0)
    check_consistent(db)
    return summary


def rejects(tmp_path: Path) -> list[tuple[str, int, str]]:
    with reader(tmp_path / "hostile.duckdb") as con:
        rows = con.execute("SELECT file, line, error FROM rejects ORDER BY file, hand_index")
        return [(str(f), int(line), str(e)) for f, line, e in rows.fetchall()]


def around(bad: bytes) -> bytes:
    """A bad hand between two good ones (7 & 8 and Big Two)."""
    return (b"[1]\n" + SEVENEIGHT.encode() + b"\n[2]\n" + bad + b"\n[3]\n" + BIGTWO.encode())


def hand_with(field: str, value: str) -> bytes:
    """The 7 & 8 example with one header line replaced (or added)."""
    lines = [line for line in SEVENEIGHT.splitlines() if not line.startswith(f"{field} =")]
    return "\n".join([*lines, f"{field} = {value}"]).encode()


PLAYERS: Final = 10_000
CASES: Final[dict[str, tuple[bytes, str]]] = {
    "binary": (os.urandom(4096).replace(b"[", b"(") + b"\n", ""),
    "invalid_utf8": (SEVENEIGHT.replace('"Bo"', '"B\xff"').encode("latin-1"),
                     "not valid UTF-8"),
    "nul_byte": (SEVENEIGHT.replace('"Bo"', '"B\x00"').encode(), "NUL byte"),
    "deep_array": (b"_x = " + b"[" * 30_000 + b"]" * 30_000, "nested too deeply"),
    "deep_table": (b"_x = " + b"{a = " * 10_000 + b"1" + b"}" * 10_000, "nested too deeply"),
    "deep_actions": (b'variant = "B2"\nplayers = ["a", "b"]\nactions = ' + b"[" * 5000
                     + b"]" * 5000, "TOML"),
    "huge_integer": (hand_with("starting_stacks", "[1" + "0" * 5000 + ", 100, 100]"), "64-bit"),
    "big_integer": (hand_with("starting_stacks", "[100000000000000000000, 100, 100]"),
                    "64-bit"),
    "beyond_chips": (hand_with("starting_stacks", "[1000000000000000, 100, 100]"),
                     "starting_stacks"),
    "negative_stack": (hand_with("starting_stacks", "[-100, 100, 100]"), "starting_stacks"),
    "fractional_stack": (hand_with("starting_stacks", "[100.5, 100, 100]"), "starting_stacks"),
    "negative_bet": (SEVENEIGHT.replace('"p3 cbr 6 #', '"p3 cbr -6 #').encode(), "cbr"),
    "fractional_bet": (SEVENEIGHT.replace('"p3 cbr 6 #', '"p3 cbr 6.5 #').encode(), "cbr"),
    "negative_blind": (hand_with("blinds_or_straddles", "[1, -2, 0]"), "blinds_or_straddles"),
    "players_10000": (
        b'variant = "N78"\nmin_bet = 2\nstarting_stacks = [' + b", ".join([b"100"] * PLAYERS)
        + b"]\nantes = [" + b", ".join([b"0"] * PLAYERS) + b"]\nblinds_or_straddles = ["
        + b", ".join([b"0"] * PLAYERS) + b"]\nplayers = [\n"
        + b"".join(b'  "p%d",\n' % n for n in range(PLAYERS)) + b"]\nactions = []\n",
        "players, not 10000"),
    "players_10000_bigtwo": (
        b'variant = "B2"\nplayers = [\n' + b"".join(b'  "p%d",\n' % n for n in range(PLAYERS))
        + b"]\nactions = []\n", "players, not 10000"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_hostile_hand_is_rejected_at_its_line_and_the_rest_loads(tmp_path: Path,
                                                                 name: str) -> None:
    bad, message = CASES[name]
    path = tmp_path / f"{name}.phhs"
    path.write_bytes(around(bad))
    summary = load(tmp_path, path)
    (file,) = summary.files
    assert file.status == "partial", file
    assert (file.loaded, file.rejected) == (2, 1), file
    ((_, line, error),) = rejects(tmp_path)
    first = SEVENEIGHT.count("\n") + 4  # [1], the hand, a blank line, [2]: the bad hand
    assert first <= line <= first + bad.count(b"\n"), (line, error)
    assert message in error, error
    assert len(error) < 2000  # a clear message, not the input echoed back
    # The reader alone says the same, hand by hand, without raising.
    hands = list(read_hands(io.BytesIO(around(bad)), name=path.name))
    assert [hand.ok for hand in hands] == [True, False, True] or name == "binary"


def test_binary_file_loads_nothing(tmp_path: Path) -> None:
    path = tmp_path / "noise.phhs"
    path.write_bytes(os.urandom(4 * MIB))
    summary = load(tmp_path, path)
    assert summary.loaded == 0 and summary.rejected >= 1
    assert all(line >= 1 for _, line, _ in rejects(tmp_path))


def test_utf16_file_with_bom_is_one_clear_reject(tmp_path: Path) -> None:
    path = tmp_path / "u16.phhs"
    path.write_bytes(phhs(SEVENEIGHT, BIGTWO).encode("utf-16"))  # BOM first
    summary = load(tmp_path, path)
    assert (summary.loaded, summary.rejected) == (0, 1)
    ((_, line, error),) = rejects(tmp_path)
    assert line == 1 and "UTF-16" in error


def zip_with(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_zip_with_path_traversal_names(tmp_path: Path) -> None:
    good = phhs(SEVENEIGHT).encode()
    evil = {"../../evil1.phhs": good, "/tmp/evil2.phhs": good, "a\\..\\..\\evil3.phhs": good,
            "ok/../../evil4.phhs": good, "C:/evil5.phhs": good, "fine/good.phhs": good}
    (tmp_path / "up").mkdir()
    archive = zip_with(tmp_path / "up" / "traversal.zip", evil)
    summary = load(tmp_path, archive)
    status = {f.name.split(":", 1)[1]: f for f in summary.files}
    assert status["fine/good.phhs"].status == "loaded"
    for name in evil:
        if name != "fine/good.phhs":
            assert status[name].status == "error", status[name]
            assert "absolute" in str(status[name].message) or "climbs" in str(
                status[name].message) or "backslash" in str(status[name].message)
    assert summary.loaded == 1
    assert not list(tmp_path.rglob("evil*")) and not list(tmp_path.parent.glob("evil*"))


def test_zip_with_too_many_members(tmp_path: Path) -> None:
    members = {f"m{n}.phhs": phhs(BIGTWO.replace("round = 1", f"round = {n + 1}")).encode()
               for n in range(6)}
    archive = zip_with(tmp_path / "many.zip", members)
    summary = load(tmp_path, archive, limits=Limits(max_members=5))
    assert summary.loaded == 0 and "more than the limit of 5" in str(summary.files[0].message)


def test_zip_folder_entries_count_against_the_member_limit(tmp_path: Path) -> None:
    """Folder entries cost the index's reading as members do: 300,000 of them beside a few
    histories kept an upload busy for 80 s; they count against ``max_members``."""
    archive = tmp_path / "folders.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        for number in range(6):
            bundle.writestr(zipfile.ZipInfo(f"d{number}/"), b"")
        bundle.writestr("d0/a.phhs", phhs(BIGTWO))
    summary = load(tmp_path, archive, limits=Limits(max_members=5))
    assert summary.loaded == 0 and "7 members, more than the limit of 5" in str(
        summary.files[0].message)


@pytest.mark.slow
def test_an_archive_index_is_read_once_not_once_a_member(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each member was read two or three times, each read opening the archive and reading
    its whole index again: quadratic in the members (2,000 tiny members, 43 s an upload).
    The index is now read a bounded number of times, whatever the member count."""
    archive = tmp_path / "tiny.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        for number in range(200):
            bundle.writestr(f"m{number:03d}.phhs",
                            phhs(BIGTWO.replace("round = 1", f"round = {number + 1}")))
    reads = 0
    real = zipfile.ZipFile._RealGetContents  # type: ignore[attr-defined]

    def counted(self: zipfile.ZipFile) -> None:
        nonlocal reads
        reads += 1
        real(self)

    monkeypatch.setattr(zipfile.ZipFile, "_RealGetContents", counted)
    summary = load(tmp_path, archive)
    assert summary.loaded == 200
    assert reads <= 5, reads


def test_zip_member_lying_about_its_size(tmp_path: Path) -> None:
    """The central directory says 100 bytes; the data inflates to 4 MiB: a CRC error, not 4 MiB."""
    archive = zip_with(tmp_path / "liar.zip", {"liar.phhs": b"_x = 1\n" * (600_000)})
    data = bytearray(archive.read_bytes())
    central = data.rindex(b"PK\x01\x02")
    data[central + 24 : central + 28] = struct.pack("<I", 100)  # uncompressed size
    archive.write_bytes(bytes(data))
    summary = load(tmp_path, archive)
    (file,) = summary.files
    assert file.status == "error" and "cannot be read" in str(file.message), file
    assert summary.loaded == 0


def test_zip_member_name_marked_utf8_but_not(tmp_path: Path) -> None:
    """A member whose name the archive marks as UTF-8 but is not (zipfile raises a
    UnicodeDecodeError opening the archive) fails that archive with a clear error; the
    other files load."""
    archive = zip_with(tmp_path / "names.zip", {"gooé.phhs": phhs(BIGTWO).encode()})
    archive.write_bytes(archive.read_bytes().replace("gooé".encode(), b"goo\xff\xfe"))
    other = write(tmp_path / "other.phhs", phhs(SEVENEIGHT))
    summary = load(tmp_path, archive, other)
    by_name = {f.name: f for f in summary.files}
    assert by_name[str(other)].status == "loaded"
    assert by_name[str(archive)].status == "error"
    assert "not a readable zip archive" in str(by_name[str(archive)].message)
    assert (summary.loaded, summary.exit_code) == (1, 2)


BIG_SCRIPT = """
import json, resource, sys, time, tracemalloc
from pathlib import Path
from analytics import ingest
from analytics.warehouse import Limits
upload = Limits(max_file_bytes=100 * 2**20, max_uncompressed_bytes=2**30, max_ratio=100.0,
                ratio_floor=16 * 2**20, max_members=10_000)
folder = Path(sys.argv[1])
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
ingest([folder / "warm.phhs"], folder / "warm.duckdb", workers=0)  # imports, JIT, DuckDB
report = {"baseline_rss": rss()}
for name in sys.argv[2:]:
    for limits_name, limits in (("upload", upload), ("cli", Limits())):
        tracemalloc.start()
        started = time.monotonic()
        summary = ingest([folder / name], folder / f"{name}-{limits_name}.duckdb", workers=0,
                         limits=limits)
        seconds = time.monotonic() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        report[f"{name}/{limits_name}"] = {
            "seconds": seconds, "traced_peak": peak, "rss": rss(),
            "files": [[f.status, f.loaded, f.rejected, f.message] for f in summary.files]}
print(json.dumps(report))
"""


@pytest.mark.slow
def test_big_hostile_inputs_in_bounded_memory_and_time(tmp_path: Path) -> None:
    """A 1 GB file, a 100 MB line, a zip bomb and a gzip bomb, with the upload limits and
    the command line's: each ends in a clear error (or loads its valid hands) while the
    process's peak memory stays far below the input's size."""
    write(tmp_path / "warm.phhs", phhs(SEVENEIGHT, BIGTWO))
    good = phhs(SEVENEIGHT).encode()
    # 1 GiB, sparse: a valid hand, then hand 2: NUL bytes (no line end) up to the last byte.
    with (tmp_path / "1gb.phhs").open("wb") as stream:
        stream.write(good + b"[2]\n")
        stream.truncate(1024**3)
    # One line of 100 MB inside hand 2, between two valid hands.
    with (tmp_path / "line.phhs").open("wb") as stream:
        stream.write(good + b"[2]\n_x = \"")
        for _ in range(100):
            stream.write(b"a" * 1_000_000)
        stream.write(b'"\n' + phhs(BIGTWO).replace("[1]", "[3]").encode())
    # A zip bomb: 400 MB of zeros in one member (about 400 KB compressed).
    with zipfile.ZipFile(tmp_path / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("readme.txt", b"not a history")
        archive.writestr("ok.phhs", good)
        with archive.open("bomb.phhs", "w", force_zip64=True) as member:
            for _ in range(400):
                member.write(bytes(1_000_000))
    # A gzip bomb: 400 MB of zeros.
    with gzip.open(tmp_path / "bomb.phhs.gz", "wb") as packed:
        for _ in range(400):
            packed.write(bytes(1_000_000))
    names = ["1gb.phhs", "line.phhs", "bomb.zip", "bomb.phhs.gz"]
    completed = subprocess.run(
        [sys.executable, "-c", BIG_SCRIPT, str(tmp_path), *names], cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True,
        timeout=HANG)
    assert completed.returncode == 0, completed.stderr[-3000:]
    report = json.loads(completed.stdout.splitlines()[-1])
    baseline = report.pop("baseline_rss")
    for key, item in report.items():  # pytest -s: the figures of docs/reliability.md
        print(f"{key}: {item['seconds']:.1f} s, traced peak {item['traced_peak'] / MIB:.1f} MiB,"
              f" peak RSS {baseline / MIB:.0f} MiB + {(item['rss'] - baseline) / MIB:.0f} MiB")
    for key, item in report.items():
        assert item["traced_peak"] < 64 * MIB, (key, item["traced_peak"])
        assert item["rss"] - baseline < 256 * MIB, (key, item["rss"] - baseline)
        for status, _, _, message in item["files"]:
            assert status in ("loaded", "partial") or message, (key, item)

    def files(key: str) -> list[list[object]]:
        return list(report[key]["files"])

    # The 1 GB file: over the upload limit (refused unread); the CLI reads it through.
    ((status, loaded, _, message),) = files("1gb.phhs/upload")
    assert status == "error" and loaded == 0 and "over the limit" in str(message)
    ((status, loaded, rejected, message),) = files("1gb.phhs/cli")
    assert (status, loaded, rejected) == ("partial", 1, 1), message
    assert "line longer than" in str(message) or "NUL" in str(message)
    for limits in ("upload", "cli"):
        ((status, loaded, rejected, message),) = files(f"line.phhs/{limits}")
        assert (status, loaded, rejected) == ("partial", 2, 1)
        assert "line longer than" in str(message) and ":36:" in str(message), message
        statuses = sorted(str(f[0]) for f in files(f"bomb.zip/{limits}"))
        assert statuses == ["error", "loaded", "skipped"], files(f"bomb.zip/{limits}")
        assert any("zip bomb" in str(f[3]) for f in files(f"bomb.zip/{limits}"))
        ((status, loaded, _, message),) = files(f"bomb.phhs.gz/{limits}")
        assert status == "error" and loaded == 0 and "decompressed" in str(message), message


ESCAPES: Final = "\x1b]0;PWNED\x07\x1b[2J\x1b[31mRED\x1b[0m"
"""A terminal's escape sequences: retitle the window, clear the screen, recolour."""


@pytest.mark.parametrize("where", ["players", "table", "event", "file name", "sheet name"])
def test_escape_sequences_never_reach_the_terminal(tmp_path: Path, where: str) -> None:
    """A name, a label or a file name holding escape sequences: a history's is refused
    naming the field (the reader, as the recorder and the score sheet reader), a file name
    is printed with its control characters as ``\\x1b``; nothing a command prints holds
    one (``stats`` wrote them to the terminal, which acted on them)."""
    from typer.testing import CliRunner

    from analytics.cli import app

    text = phhs(BIGTWO)
    name = "games.phhs"
    if where == "players":
        text = text.replace('players = ["', f'players = ["{ESCAPES}'.replace("\x1b", "\\u001b")
                            .replace("\x07", "\\u0007"), 1)
    elif where in ("table", "event"):
        text = text.replace("[1]\n", f'[1]\n{where} = "x\\u001b[2J"\n', 1)
    elif where == "file name":  # with a bad hand, so that the file is named
        name = f"games{ESCAPES}.phhs"
        text += '[2]\nvariant = "nope"\n'
    if where == "sheet name":
        name = "sheet.txt"
        text = f"Ann B{ESCAPES} Cy\n0 1 2\n"
    (tmp_path / name).write_text(text, encoding="utf-8")
    result = CliRunner().invoke(app, ["validate", str(tmp_path / name)])
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert result.exit_code == 1, result.output
    said = "games\\x1b]0;PWNED\\x07" if where == "file name" else "holds a control character"
    assert said in result.output


def test_a_truncated_gzip_is_no_valid_hand_in_validate_as_in_ingest(tmp_path: Path) -> None:
    """The first half of a gzipped file: ingest loads none of it (a source loads whole);
    validate counted the hands read before the break as valid. It now says they are not
    loaded, and counts none."""
    from typer.testing import CliRunner

    from analytics.cli import app
    from analytics.simulate.seveneight import simulate_seveneight
    from parsers import dumps_hands

    # Big enough that the reader meets hands before the break: 3,000 hands (300 written
    # ten times, as cheap to check as distinct ones).
    whole = gzip.compress(10 * dumps_hands(list(simulate_seveneight(300, 6, 3))).encode())
    cut = tmp_path / "cut.phhs.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    result = CliRunner().invoke(app, ["validate", str(cut)])
    assert result.exit_code == 2, result.output  # a file that cannot be read
    said = " ".join(result.output.split())
    read = re.search(r"cut\.phhs\.gz: cannot be read: .* \(ingest loads a file whole: none "
                     r"of the ([\d,]+) hands read before this is loaded\)", said)
    assert read and int(read[1].replace(",", "")) > 0, said
    assert "valid" not in said  # no table of valid hands: none is
    assert load(tmp_path, cut).loaded == 0


def _zips(folder: Path, count: int) -> list[Path]:
    """``count`` small archives of three members each."""
    folder.mkdir(exist_ok=True)
    paths = []
    for number in range(count):
        path = folder / f"a{number}.zip"
        with zipfile.ZipFile(path, "w") as bundle:
            for member in range(3):
                bundle.writestr(f"m{member}.phhs", f"# archive {number} member {member}\n" * 9)
        paths.append(path)
    return paths


def test_kept_archives_are_read_by_many_threads_at_once(tmp_path: Path) -> None:
    """Six threads read the members of more archives than are kept open: one thread's
    archive was closed by another's eviction before its member opened (ValueError:
    'Attempt to use ZIP archive that was already closed', 7 of 18,000 reads)."""
    import threading

    from analytics.warehouse.pipeline.sources import SourceRef, open_source

    refs = [SourceRef("zip", str(path), f"m{member}.phhs")
            for path in _zips(tmp_path / "zips", 8) for member in range(3)]
    errors: list[str] = []

    def read(start: int) -> None:
        for number in range(1500):
            ref = refs[(start * 7 + number) % len(refs)]
            try:
                with open_source(ref) as stream:
                    assert stream.read().startswith(b"# archive ")
            except Exception as error:  # every failure is counted
                errors.append(f"{type(error).__name__}: {error}")

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=read, args=(k,)) for k in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []


def test_an_archive_rewritten_in_place_is_read_anew(tmp_path: Path) -> None:
    """Rewritten in place with the same size and modification time put back (rsync
    --inplace -t): the kept index read the old bytes; the change time tells."""
    from analytics.warehouse.pipeline.sources import SourceRef, open_source

    def archive(text: str) -> bytes:
        data = io.BytesIO()
        with zipfile.ZipFile(data, "w", zipfile.ZIP_STORED) as bundle:
            bundle.writestr("a.phhs", text)
        return data.getvalue()

    path = tmp_path / "inplace.zip"
    path.write_bytes(archive("# version A\n" * 20))
    ref = SourceRef("zip", str(path), "a.phhs")
    with open_source(ref) as stream:
        assert stream.read(12) == b"# version A\n"
    before = os.stat(path)
    with path.open("r+b") as rewrite:
        rewrite.write(archive("# version B\n" * 20))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    with open_source(ref) as stream:
        assert stream.read(12) == b"# version B\n"


def test_an_ingest_keeps_no_archive_open(tmp_path: Path) -> None:
    """An upload's zip stayed open in the dashboard's process after its temporary folder
    was removed (its disk space held); an ingest lets its archives go."""
    archive = zip_with(tmp_path / "upload.zip", {"h.phhs": phhs(BIGTWO).encode()})
    assert load(tmp_path, archive).loaded == 1
    held = [os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")
            if os.path.exists(f"/proc/self/fd/{fd}")]
    assert str(archive) not in held
