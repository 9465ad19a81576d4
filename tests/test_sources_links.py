"""Symbolic links: followed when given, never inside a folder or an archive; rejects.raw
keeps at most the first 4 KB of a hand's text (issue #26, defect 2)."""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

import pytest

from analytics.warehouse import SourceError, ingest, reader
from analytics.warehouse.lake.catalogue import open_lake
from analytics.warehouse.lake.engine import ingest_lake
from analytics.warehouse.pipeline.rows import RAW_KEPT_BYTES, kept_raw
from analytics.warehouse.pipeline.sources import SourceRef, expand, open_source
from tests.test_warehouse_data import BIGTWO, RULES_BROKEN, SEVENEIGHT, phhs, write
from tests.test_warehouse_kill import check_consistent

SECRET = "root:x:0:0:the secret line:/root:/bin/bash\n" * 3


def _rejects(db: Path) -> list[tuple[str, str, str]]:
    with reader(db) as con:
        rows = con.execute("SELECT file, error, raw FROM rejects ORDER BY file").fetchall()
        return [(str(f), str(e), str(r)) for f, e, r in rows]


def _folder_of_links(tmp_path: Path) -> tuple[Path, Path]:
    """A folder with a good history, links to a secret file (as .phhs and .phh), a link to
    a folder of histories, and a link to a gzip file; and the secret file itself."""
    secret = tmp_path / "outside" / "passwd"
    write(secret, SECRET)
    other = tmp_path / "outside" / "histories"
    write(other / "more.phhs", phhs(BIGTWO))
    folder = tmp_path / "in"
    write(folder / "good.phhs", phhs(SEVENEIGHT))
    (folder / "passwd.phhs").symlink_to(secret)
    (folder / "sub").mkdir()
    (folder / "sub" / "shadow.phh").symlink_to(secret)
    (folder / "linked").symlink_to(other, target_is_directory=True)
    (folder / "broken.phhs").symlink_to(tmp_path / "nowhere")
    return folder, secret


def test_links_inside_a_folder_are_named_as_skipped_and_not_read(tmp_path: Path) -> None:
    folder, _ = _folder_of_links(tmp_path)
    db = tmp_path / "w.duckdb"
    summary = ingest([folder], db, workers=0)
    check_consistent(db)
    by_name = {Path(f.name).relative_to(folder).as_posix(): f for f in summary.files}
    assert set(by_name) == {"good.phhs", "passwd.phhs", "sub/shadow.phh", "linked",
                            "broken.phhs"}
    assert (by_name["good.phhs"].status, by_name["good.phhs"].loaded) == ("loaded", 1)
    for name in ("passwd.phhs", "sub/shadow.phh", "broken.phhs"):
        assert by_name[name].status == "skipped"
        assert by_name[name].message == (f"{folder / name}: a symbolic link inside a folder:"
                                         " not followed (only a link given itself is read)")
    assert by_name["linked"].status == "skipped"
    assert "a symbolic link to a folder inside a folder: not followed" in (
        by_name["linked"].message or "")
    assert (summary.loaded, summary.rejected, summary.exit_code) == (1, 0, 0)
    assert _rejects(db) == []
    with reader(db) as con:
        assert con.execute("SELECT count(*) FROM files").fetchall() == [(1,)]


def test_a_link_given_itself_is_followed(tmp_path: Path) -> None:
    target = write(tmp_path / "real" / "games.phhs", phhs(SEVENEIGHT, BIGTWO))
    link = tmp_path / "link.phhs"
    link.symlink_to(target)
    folder_link = tmp_path / "folder-link"
    folder_link.symlink_to(target.parent, target_is_directory=True)
    summary = ingest([link], tmp_path / "a.duckdb", workers=0)
    assert (summary.loaded, summary.exit_code) == (2, 0)
    summary = ingest([folder_link], tmp_path / "b.duckdb", workers=0)
    assert (summary.loaded, summary.exit_code) == (2, 0)


def test_a_file_swapped_for_a_link_after_listing_is_not_read(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    write(folder / "a.phhs", phhs(SEVENEIGHT))
    (ref,) = expand([folder])
    assert not ref.follow
    (folder / "a.phhs").unlink()
    (folder / "a.phhs").symlink_to(write(tmp_path / "secret", SECRET))
    with pytest.raises(SourceError, match="cannot be read"), open_source(ref) as stream:
        stream.read()
    given = SourceRef("file", str(folder / "a.phhs"))  # given itself: followed
    with open_source(given) as stream:
        assert stream.read() == SECRET.encode()


def test_links_inside_an_archive_are_skipped(tmp_path: Path) -> None:
    archive = tmp_path / "games.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("good.phhs", phhs(SEVENEIGHT))
        link = zipfile.ZipInfo("passwd.phhs")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        bundle.writestr(link, "/etc/passwd")
    db = tmp_path / "w.duckdb"
    summary = ingest([archive], db, workers=0)
    statuses = {f.name: (f.status, f.message) for f in summary.files}
    assert statuses[f"{archive}:good.phhs"][0] == "loaded"
    assert statuses[f"{archive}:passwd.phhs"] == (
        "skipped", f"{archive}:passwd.phhs: a symbolic link inside an archive: not followed")
    assert (summary.loaded, summary.exit_code) == (1, 0)
    assert _rejects(db) == []


def test_a_rejected_hand_keeps_at_most_4_kb_of_its_text(tmp_path: Path) -> None:
    # A long file that is not a history (a file given by mistake): one reject, its text cut.
    long_text = "".join(f"line {n}: {'é' * 50} not a hand history\n" for n in range(400))
    source = write(tmp_path / "notes.phhs", long_text)
    db = tmp_path / "w.duckdb"
    summary = ingest([source], db, workers=0)
    assert summary.rejected == 1
    ((_, error, raw),) = _rejects(db)
    assert len(raw.encode("utf-8")) <= RAW_KEPT_BYTES
    assert raw.encode("utf-8") == long_text.encode("utf-8")[:len(raw.encode("utf-8"))]
    assert len(raw.encode("utf-8")) > RAW_KEPT_BYTES - 4  # cut at a character's start
    size = len(long_text.rstrip("\n").encode("utf-8"))
    assert error.endswith(f"(the hand's text is {size:,} bytes: rejects.raw keeps its first "
                          f"{RAW_KEPT_BYTES:,})")


def test_a_short_rejected_hand_is_kept_whole(tmp_path: Path) -> None:
    bad = phhs(SEVENEIGHT.replace('"p3 cbr 6 #', '"p3 cbr -6 #'))
    source = write(tmp_path / "bad.phhs", bad)
    db = tmp_path / "w.duckdb"
    ingest([source], db, workers=0)
    ((_, error, raw),) = _rejects(db)
    assert "rejects.raw keeps" not in error
    assert raw.strip() in bad and len(raw) > 200


@pytest.mark.parametrize("text", ["", "a" * 4096, "a" * 4097, "é" * 2047 + "ab",
                                  "a" + "€" * 2000, "x" * 1023 + "😀" * 2])
def test_kept_raw_cuts_utf8_at_a_character(text: str) -> None:
    kept, note = kept_raw(text)
    data, whole = kept.encode(), text.encode()
    assert whole.startswith(data) and len(data) <= RAW_KEPT_BYTES
    if len(whole) <= RAW_KEPT_BYTES:
        assert (kept, note) == (text, None)
    else:
        assert len(data) > RAW_KEPT_BYTES - 4
        assert note == (f"the hand's text is {len(whole):,} bytes: rejects.raw keeps its "
                        f"first {RAW_KEPT_BYTES:,}")


def test_the_etc_passwd_case_of_the_issue(tmp_path: Path) -> None:
    """A folder of links to /etc/passwd and /etc/shadow stores nothing of them."""
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("passwd", "shadow"):
        if os.path.exists(f"/etc/{name}"):
            (folder / f"{name}.phhs").symlink_to(f"/etc/{name}")
    db = tmp_path / "w.duckdb"
    summary = ingest([folder], db, workers=0)
    assert {f.status for f in summary.files} <= {"skipped"}
    assert _rejects(db) == []


@pytest.mark.parametrize(("bad", "kept", "problem"), [
    ('"Bö"'.encode("latin-1"), '"B\\xf6"', "not valid UTF-8"),
    (b'"B\x00"', '"B\\x00"', "binary data (NUL byte)"),
    (b'"B\xff\x00"', '"B\\xff\\x00"', "not valid UTF-8")])
def test_a_rejected_hands_line_of_bad_bytes_is_kept(tmp_path: Path, bad: bytes, kept: str,
                                                    problem: str) -> None:
    """A hand whose ``players`` line holds a Latin-1 or a NUL byte is rejected at that line,
    and rejects.raw keeps the line (the bad bytes escaped), so the hand's text is complete:
    what was rejected can be read back from the database."""
    hand = SEVENEIGHT.encode().replace(b'"Bo"', bad)
    source = tmp_path / "latin1.phhs"
    source.write_bytes(b"[1]\n" + hand + b"\n[2]\n" + BIGTWO.encode())
    db = tmp_path / "w.duckdb"
    summary = ingest([source], db, workers=0)
    assert (summary.loaded, summary.rejected) == (1, 1)
    ((_, error, raw),) = _rejects(db)
    line = 1 + SEVENEIGHT.splitlines().index('players = ["Ann", "Bo", "Cy"]') + 1
    assert error.startswith(f"{source}:{line}: hand 1: {problem}")
    assert raw.splitlines() == SEVENEIGHT.replace('"Bo"', kept).splitlines()


def _folder_with_a_name_not_utf8(tmp_path: Path) -> tuple[Path, str]:
    """A folder with a good history and one whose file name holds bytes that are not UTF-8
    (a hand loads from it, another is rejected); and how that file is named."""
    folder = tmp_path / "in"
    write(folder / "good.phhs", phhs(SEVENEIGHT))
    with open(os.path.join(os.fsencode(folder), b"bad\xff\xfename.phhs"), "wb") as stream:
        stream.write(phhs(BIGTWO, RULES_BROKEN).encode())
    return folder, f"{folder}{os.sep}bad\\xff\\xfename.phhs"


def test_a_file_name_not_utf8_loads_under_an_escaped_name(tmp_path: Path) -> None:
    """A file whose name is not UTF-8 loads under its name with the bad bytes escaped, the
    same in every run (so a rerun finds it loaded), and the rest of the folder loads."""
    folder, shown = _folder_with_a_name_not_utf8(tmp_path)
    db = tmp_path / "w.duckdb"
    summary = ingest([folder], db, workers=0)
    check_consistent(db)
    assert sorted((f.name, f.status) for f in summary.files) == [
        (shown, "partial"), (str(folder / "good.phhs"), "loaded")]
    assert (summary.loaded, summary.rejected, summary.exit_code) == (2, 1, 1)
    ((file, error, _),) = _rejects(db)
    assert file == shown and error.startswith(f"{shown}:")
    with reader(db) as con:
        stored = sorted(str(path) for (path,) in con.execute("SELECT path FROM files").fetchall())
    assert stored == sorted([shown, str(folder / "good.phhs")])
    given = os.fsdecode(os.path.join(os.fsencode(folder), b"bad\xff\xfename.phhs"))
    again = ingest([given], db, workers=0)
    assert [(f.name, f.status) for f in again.files] == [(shown, "already loaded")]


def test_a_named_pipe_inside_a_folder_is_skipped_unopened(tmp_path: Path) -> None:
    """A named pipe named like a history inside a folder hung the ingest (opening it waits
    for a writer): it is named as skipped, never opened, and the rest loads."""
    folder = tmp_path / "in"
    write(folder / "good.phhs", phhs(SEVENEIGHT))
    os.mkfifo(folder / "zz.phhs")
    why = "a named pipe (FIFO), not a regular file inside a folder: not read"
    assert [(ref.name, ref.skipped) for ref in expand([folder])] == [
        (str(folder / "good.phhs"), None), (str(folder / "zz.phhs"), why)]
    summary = ingest([folder], tmp_path / "w.duckdb", workers=0)
    assert [(f.status, f.message) for f in summary.files] == [
        ("skipped", f"{folder / 'zz.phhs'}: {why}"), ("loaded", None)]
    assert (summary.loaded, summary.exit_code) == (1, 0)


def test_a_named_pipe_or_a_device_given_itself_is_refused(tmp_path: Path) -> None:
    """A named pipe or a device given on the command line is refused (never opened): an
    error naming what it is; the other paths load."""
    fifo = tmp_path / "pipe.phhs"
    os.mkfifo(fifo)
    good = write(tmp_path / "good.phhs", phhs(SEVENEIGHT))
    (pipe_ref,) = expand([fifo])
    assert pipe_ref.problem == ("a named pipe (FIFO), not a regular file: refused (handlab "
                                "reads files and folders)")
    summary = ingest([fifo, "/dev/null", good], tmp_path / "w.duckdb", workers=0)
    assert [(f.name, f.status) for f in summary.files] == [
        (str(fifo), "error"), ("/dev/null", "error"), (str(good), "loaded")]
    assert "a character device, not a regular file: refused" in str(summary.files[1].message)
    assert (summary.loaded, summary.exit_code) == (1, 2)


def test_a_source_that_became_a_device_is_not_read() -> None:
    """A file replaced by a device (or a pipe) after the folder was listed fails as
    unreadable when it is opened: a device is never read endlessly, a pipe never waited
    on."""
    with pytest.raises(SourceError, match="a character device, not a regular file"), \
            open_source(SourceRef("file", "/dev/zero", follow=False)) as stream:
        stream.read(1)


def test_a_sub_folder_that_cannot_be_listed_is_an_error(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A sub-folder that cannot be listed (no permission) was passed over in silence: it is
    an error naming it, and the rest of the folder loads."""
    folder = tmp_path / "in"
    write(folder / "good.phhs", phhs(SEVENEIGHT))
    write(folder / "locked" / "hidden.phhs", phhs(BIGTWO))
    listing = os.scandir

    def scandir(path: str) -> object:
        if os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return listing(path)

    monkeypatch.setattr(os, "scandir", scandir)
    summary = ingest([folder], tmp_path / "w.duckdb", workers=0)
    assert [(f.name, f.status, f.message) for f in summary.files] == [
        (str(folder / "locked"), "error",
         f"{folder / 'locked'}: cannot be listed: Permission denied"),
        (str(folder / "good.phhs"), "loaded", None)]


def test_a_lake_ingest_skips_links_and_pipes_as_the_database_ingest_does(
        tmp_path: Path) -> None:
    """``ingest --lake`` read the symbolic links inside a folder (the /etc/passwd case of
    the issue, stored as rejects in the lake): it now sets aside what the database's ingest
    sets aside, and reads the rest."""
    folder, _ = _folder_of_links(tmp_path)
    os.mkfifo(folder / "pipe.phhs")
    lake = tmp_path / "lake"
    summary = ingest_lake([folder], lake, engine="local", workers=0)
    by_name = {Path(f.name).relative_to(folder).as_posix(): f.status for f in summary.files}
    assert by_name == {"good.phhs": "loaded", "passwd.phhs": "skipped",
                       "sub/shadow.phh": "skipped", "linked": "skipped",
                       "broken.phhs": "skipped", "pipe.phhs": "skipped"}
    assert (summary.loaded, summary.rejected, summary.exit_code) == (1, 0, 0)
    con = open_lake(lake)
    try:
        assert con.execute("SELECT count(*) FROM rejects").fetchall() == [(0,)]
        assert con.execute("SELECT count(*) FROM files").fetchall() == [(1,)]
    finally:
        con.close()
