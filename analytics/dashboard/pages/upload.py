"""Upload: several history files or .zip folders at once, with a progress bar and a summary."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Final

import pandas as pd
import streamlit as st

from analytics.dashboard import logic, ui
from analytics.warehouse import (
    FileSummary,
    IngestProgress,
    Limits,
    SourceError,
    WarehouseBusy,
    reader,
)
from analytics.warehouse.connection import resolve_db
from analytics.warehouse.loading import load_where_read
from analytics.warehouse.sql import views
from analytics.words import counted

# (Comments, not docstrings: a page is a script, and Streamlit's "magic" would show a bare
# string on the page.)
# Per-file upload limit; the server's own limit (.streamlit/config.toml) is the outer bound.
MAX_FILE_MB: Final = 100

# The widget takes files up to the server's limit, so that one over MAX_FILE_MB reaches the
# page and is listed as refused (the widget would drop it silently in the browser).
SERVER_MB: Final = int(st.get_option("server.maxUploadSize"))

# Tighter than the command line's: uploads come from whoever can reach the page.
UPLOAD_LIMITS: Final = Limits(max_file_bytes=MAX_FILE_MB * 1024**2,
                              max_uncompressed_bytes=1024**3, max_ratio=100.0,
                              ratio_floor=16 * 1024**2, max_members=10_000)

# How long an upload waits for another writer (a CLI ingest, another session's upload).
UPLOAD_WAIT_S: Final = 90.0

# The session key of a press of the Load button not yet acted on.
LOAD_ASKED: Final = "upload_asked"

_SAFE: Final = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str, number: int) -> str:
    """A file name for an upload inside the temp folder: its last path part, tame characters
    only, numbered so two uploads of the same name do not collide."""
    base = _SAFE.sub("_", Path(name.replace("\\", "/")).name).strip("._") or "upload"
    return f"{number:02d}-{base}"


def stored_name(name: str) -> str:
    """The name an upload is stored and shown under: ``upload: hands.phhs`` (its original
    name as the browser sent it, printable characters only and at most 200 of them)."""
    shown = "".join(ch if ch.isprintable() else "_" for ch in name).strip() or "upload"
    return f"upload: {shown[:200]}"


def render() -> None:
    """Draw the page; load the chosen files when asked."""
    ui.context()  # the sidebar
    st.title("Upload hand histories")
    st.write("Histories in handlab's format (`.phh`, `.phhs`), gzip files (`.gz`) or whole "
             "folders packed as `.zip`, and Big Two score sheets (`.txt`, recognised by their "
             "content). Hands already in the database are counted as "
             "duplicates; broken hands are rejected with the line and the reason; a file in "
             "another format (a poker site's export, CSV, JSON) is named as such.")
    st.caption(f"At most {MAX_FILE_MB} MB a file here (larger ones are listed as refused; "
               f"the browser refuses files over {SERVER_MB} MB before sending them). Load "
               "bigger files with `handlab ingest FILE`.")
    # Any type: a file in another format is read and named, rather than greyed out.
    files = st.file_uploader("History files", accept_multiple_files=True, key="upload_files",
                             max_upload_size=SERVER_MB)
    # The press is kept in the session by the button's callback, which runs before the
    # script: a run the busy notice cuts short (a CLI ingest holding the database at the
    # run's start) loads the files on the notice's rerun instead of forgetting the press.
    st.button("Load into the database", type="primary", disabled=not files,
              key="upload_go", on_click=_ask_to_load)
    if st.session_state.pop(LOAD_ASKED, False) and files:
        _load(list(files))
    result = st.session_state.get("upload_result")
    if isinstance(result, dict):
        _show(result)


def _ask_to_load() -> None:
    st.session_state[LOAD_ASKED] = True


def _load(uploads: list[object]) -> None:
    bar = st.progress(0.0, text="Reading…")

    def progress(step: IngestProgress) -> None:
        share = step.bytes_done / step.bytes_total if step.bytes_total else 1.0
        bar.progress(min(1.0, share), text=f"{step.hands:,} hands read…")

    def parts(done: int, total: int) -> None:  # a lake's ingest counts its ranges
        bar.progress(done / total, text=f"{done} of {counted(total, 'part')} read…")

    refused: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="handlab-upload-") as folder:
        names: dict[str, str] = {}
        paths = []
        for number, upload in enumerate(uploads, start=1):
            original = str(getattr(upload, "name", "upload"))
            reason = logic.upload_refusal(int(getattr(upload, "size", 0)), MAX_FILE_MB)
            if reason is not None:
                refused.append((stored_name(original), reason))
                continue
            path = Path(folder) / safe_name(original, number)
            path.write_bytes(upload.getvalue())  # type: ignore[attr-defined]
            names[str(path)] = stored_name(original)
            paths.append(path)
        files: list[FileSummary] = []
        if paths:
            # DuckDB opens the file read-write only if this process does not hold it
            # read-only.
            ui.release_connection()
            try:
                files = load_where_read(paths, limits=UPLOAD_LIMITS, names=names,
                                        wait=UPLOAD_WAIT_S, progress=progress,
                                        parts=parts).files
            except SourceError as error:
                bar.empty()
                st.error(f"Nothing was loaded: {ui.literal(error)}")
                return
            except WarehouseBusy:
                # Said here rather than by the pages' busy notice, whose rerun would forget
                # that this upload was ever asked for; the files stay in the uploader for
                # another try.
                bar.empty()
                st.error(f"Nothing was loaded: another ingest kept the database for over "
                         f"{UPLOAD_WAIT_S:.0f} s. Press the button again to retry.")
                return
    bar.progress(1.0, text="Done.")
    db = str(resolve_db())  # after a lake's upload, its new manifest's catalogue
    # The summary is kept before anything else touches the database: another writer (a CLI
    # ingest) may take it right now, and the rejected hands' details can wait for it.
    table = logic.upload_table(files, names, refused)
    st.session_state["upload_result"] = {
        "table": table, "rejects": None, "names": names, "db": db,
        "rejected": int(table["rejected"].sum())
        + int(table["bad lines"].sum() if "bad lines" in table else 0),
    }
    # Drawn again from the top: the sidebar's filters and file count then include the upload.
    st.rerun()


def _rejects(result: dict[str, object]) -> pd.DataFrame | None:
    """The upload's rejected hands, read once and kept; None while the database is busy."""
    rejects = result.get("rejects")
    if isinstance(rejects, pd.DataFrame):
        return rejects
    names = result["names"]
    assert isinstance(names, dict)
    try:
        with reader(str(result["db"]), wait=10.0) as con:
            rejects = views.rejects(con, files=[*names.values(), *names], limit=1000)
    except WarehouseBusy:
        return None
    for temp, original in names.items():
        rejects["file"] = rejects["file"].str.replace(temp, original, regex=False)
    result["rejects"] = rejects
    return rejects


_SAY: Final = {"error": st.error, "warning": st.warning, "success": st.success,
               "info": st.info}


def _show(result: dict[str, object]) -> None:
    table = result["table"]
    assert isinstance(table, pd.DataFrame)
    rejects = _rejects(result) if result["rejected"] else pd.DataFrame()
    verdict = logic.upload_verdict(table)
    _SAY[verdict.level](verdict.text)
    st.subheader("Per file")
    ui.dataframe(table, hide_index=True, column_config={
        "message": st.column_config.TextColumn("message (in full below)", width="large")})
    ui.download_buttons(table, "upload-summary", key="upload_summary")
    if rejects is None:
        st.info("The rejected hands' details will show here once the database is free "
                "(another ingest is writing to it); reload the page in a moment.")
    messages = logic.upload_messages(table, rejects)
    if messages:
        st.subheader("Messages in full")
        st.code("\n".join(messages), language=None, wrap_lines=True)
    if rejects is not None and not rejects.empty:
        bad = "bad lines" in table and bool(table["bad lines"].any())
        st.subheader("Rejected hands and bad lines" if bad else "Rejected hands")
        shown = logic.rejects_table(rejects)
        ui.dataframe(shown, hide_index=True, column_config={
            "reason": st.column_config.TextColumn(width="large")})
        ui.download_buttons(shown, "upload-rejects", key="upload_rejects")


render()
