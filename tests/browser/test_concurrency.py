"""Several people on the dashboard at once, in real Chromium, while ``handlab ingest`` runs.

A private ``streamlit run app.py`` server over a fresh warehouse (40 hands) and three browser
contexts driven together (Playwright's async API, one Chromium):

* session A uploads ``alpha.phhs`` and, at the same moment, session B uploads ``bravo.phhs``
  plus ``alpha-copy.phhs`` (alpha's exact bytes under another name): one of the two loads that
  content, the other must report it "already loaded";
* meanwhile ``handlab ingest charlie.phhs --db DB`` runs in another process (it waits for the
  writer; pages that cannot read show "the database is busy" and retry);
* meanwhile session C reloads the Overview page again and again;
* then A uploads ``alpha.phhs`` again ("this content was loaded before") with ``delta.phhs``,
  whose hands are all known but one;
* then ``handlab ingest echo.phhs`` loads a file big enough to hold the database for longer
  than a page waits to read it, while C keeps reloading the Overview: C may show the busy
  notice and retry (how many notices each session saw is printed, not asserted: timing).

One hand is in alpha, bravo and charlie.  Checked: no Streamlit exception ever appears on any
page (a MutationObserver records every one, across reloads), every upload shows its success
line and its per-file summary (read through the summary's CSV download), the Overview ends
with every hand, and after the server stops the database holds exactly the distinct hands of
a reference database loaded sequentially from the same files, each once.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import datetime as dt
import json
import re
import shutil
import sys
import time
from collections.abc import Awaitable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
from playwright.async_api import BrowserContext, Page, async_playwright

from analytics.simulate.bigtwo import simulate_bigtwo
from analytics.simulate.rummoli import simulate_rummoli
from analytics.simulate.seveneight import simulate_seveneight
from analytics.warehouse import IngestSummary, ingest, open_reader
from parsers import write_hands
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, REDUCED_MOTION, SETTLED
from tests.browser.server import Server, streamlit_server

pytestmark = pytest.mark.browser

T = TypeVar("T")

TIMEOUT_MS = 180_000
"""Per wait: the machine is busy, Streamlit reruns, and the CLI may hold the database."""

HANDLAB = Path(sys.executable).with_name("handlab")
ECHO_HANDS = 4000
"""About 5 s of the command line's work (inline), more than a page's 3 s wait to read."""
TABLES = ("hands", "seats", "actions", "showdowns", "awards", "board")

WATCH = """
(() => {
  const KEY = "handlab-watch";
  const scan = () => {
    let state = null;
    for (const el of document.querySelectorAll(
        '[data-testid="stException"], [data-testid="stAlert"]')) {
      if (el.dataset.handlabSeen) continue;
      const exception = el.matches('[data-testid="stException"]');
      const busy = !exception && (el.textContent || "").includes("The database is busy");
      if (!exception && !busy) continue;
      el.dataset.handlabSeen = "1";
      state = state || JSON.parse(sessionStorage.getItem(KEY) || '{"exceptions":[],"busy":0}');
      if (exception) {
        state.exceptions.push(location.pathname + ": " + (el.textContent || "").slice(0, 300));
      } else {
        state.busy += 1;
      }
    }
    if (state) sessionStorage.setItem(KEY, JSON.stringify(state));
  };
  new MutationObserver(scan).observe(document, {childList: true, subtree: true});
})();
"""
"""Runs in every document of a context: counts Streamlit exceptions and busy notices in the
tab's sessionStorage, which survives reloads, so none that flashed by is missed."""

LOADED = re.compile(r"Loaded ([\d,]+) new hands?|Nothing new")
OUTCOME = re.compile(r"Loaded [\d,]+ new hands?|Nothing was loaded|Nothing new")


@dataclass(frozen=True, slots=True)
class Histories:
    """The files of the scenario (one hand is in alpha, bravo and charlie)."""

    base: Path
    alpha: Path
    alpha_copy: Path
    bravo: Path
    charlie: Path
    delta: Path
    echo: Path


def _histories(folder: Path) -> Histories:
    folder.mkdir(parents=True, exist_ok=True)
    shared = list(simulate_seveneight(1, 3, 7100))
    alpha = [*simulate_seveneight(100, 3, 7102), *shared]
    bravo = [*shared, *simulate_bigtwo(40, 4, 7103)]
    charlie = [*simulate_rummoli(50, 4, 7104), *shared]
    delta = [*alpha[:5], *bravo[1:6], *simulate_seveneight(1, 5, 7105)]  # 10 known, 1 new
    files = Histories(*(folder / f"{name}.phhs" for name in
                        ("base", "alpha", "alpha-copy", "bravo", "charlie", "delta", "echo")))
    write_hands(simulate_seveneight(40, 4, 7101), files.base)
    write_hands(simulate_seveneight(ECHO_HANDS, 4, 7106), files.echo)
    for hands, path in ((alpha, files.alpha), (bravo, files.bravo), (charlie, files.charlie),
                        (delta, files.delta)):
        write_hands(hands, path)
    shutil.copy(files.alpha, files.alpha_copy)
    return files


@dataclass(frozen=True, slots=True)
class Upload:
    """What the Upload page showed: the success line's counts and the per-file summary."""

    loaded: int
    duplicates: int
    rejected: int
    rows: dict[str, dict[str, str]]  # file name as uploaded -> its row of the summary CSV
    # (the CSV says "upload: <name>", the name it is stored under)


@dataclass(slots=True)
class Log:
    """A timeline of the scenario, printed at the end (and on failure) to judge the overlap."""

    start: float = field(default_factory=time.monotonic)
    started_at: dt.datetime = field(default_factory=dt.datetime.now)  # beside the files table's
    events: list[str] = field(default_factory=list)

    def __call__(self, text: str) -> None:
        self.events.append(f"{time.monotonic() - self.start:6.1f} s  {text}")

    def __str__(self) -> str:
        return "\n".join([f"from {self.started_at:%H:%M:%S.%f}", *self.events])


async def _settle(page: Page) -> None:
    await page.wait_for_function(SETTLED, timeout=TIMEOUT_MS)


async def _no_exception(page: Page, where: str) -> None:
    exceptions = page.locator('[data-testid="stException"]')
    if await exceptions.count():
        text = await exceptions.first.text_content()
        raise AssertionError(f"a Streamlit exception on {where}: {text}")


async def _open(page: Page, url: str, title: str) -> None:
    await page.goto(url, wait_until="domcontentloaded")
    await page.get_by_role("heading", name=title).first.wait_for(timeout=TIMEOUT_MS)
    await _settle(page)
    await _no_exception(page, url)


async def _choose(page: Page, url: str, files: Sequence[Path]) -> None:
    """Open the Upload page and put ``files`` in its uploader, ready to load."""
    await _open(page, f"{url}/upload", "Upload hand histories")
    await page.locator('input[type="file"]').set_input_files([str(f) for f in files])
    for path in files:
        await page.get_by_text(path.name, exact=True).first.wait_for(timeout=TIMEOUT_MS)
    await _settle(page)
    await page.wait_for_function(
        "() => [...document.querySelectorAll('button')].some(b => "
        "b.innerText.includes('Load into the database') && !b.disabled)", timeout=TIMEOUT_MS)


async def _load(page: Page, who: str, log: Log) -> Upload:
    """Press "Load into the database"; the summary the page then shows."""
    log(f"{who}: load pressed")
    await page.get_by_role("button", name="Load into the database").click(timeout=TIMEOUT_MS)
    # The busy notice may come first (the run the press started could not read the
    # database); the press is kept, and the notice's rerun loads the files.
    outcome = page.get_by_text(OUTCOME).or_(page.locator('[data-testid="stException"]'))
    await outcome.first.wait_for(timeout=TIMEOUT_MS)
    await _no_exception(page, f"{who}'s upload")
    await _settle(page)
    line = await page.get_by_text(OUTCOME).first.text_content() or ""
    counts = LOADED.search(line)
    assert counts is not None, f"{who}'s upload failed: {line}"
    log(f"{who}: {line.strip()}")
    await page.get_by_role("heading", name="Per file").wait_for(timeout=TIMEOUT_MS)
    async with page.expect_download(timeout=TIMEOUT_MS) as download_info:
        await page.get_by_role("button", name="CSV", exact=True).first.click(timeout=TIMEOUT_MS)
    download = await download_info.value
    text = Path(await download.path()).read_text(encoding="utf-8-sig")  # a CSV for spreadsheets
    rows = {}
    for row in csv.DictReader(text.splitlines()):
        # Stored and shown under the name it was uploaded with, never a temporary path.
        assert row["file"].startswith("upload: "), row
        rows[row["file"].removeprefix("upload: ")] = row
    loaded, duplicates, rejected = (sum(int(row[column]) for row in rows.values())
                                    for column in ("loaded", "duplicates", "rejected"))
    said = counts.group(1)  # the verdict's count of new hands is the summary's
    assert int(said.replace(",", "")) == loaded if said else loaded == 0, line
    return Upload(loaded, duplicates, rejected, rows)


async def _hands(page: Page) -> int:
    """The Overview's "Hands" metric."""
    metric = page.locator('[data-testid="stMetric"]', has_text="Hands").first
    await metric.wait_for(timeout=TIMEOUT_MS)
    value = await metric.locator('[data-testid="stMetricValue"]').inner_text()
    return int(value.replace(",", ""))


async def _reload_overview(page: Page, url: str, done: asyncio.Event, log: Log,
                           least: int) -> int:
    """Session C: open the Overview again and again until ``done`` (at least ``least`` times)."""
    count = 0
    while not done.is_set() or count < least:
        await _open(page, url, "Overview")
        await _hands(page)
        count += 1
    log(f"C: the Overview opened {count} times")
    return count


async def _cli_ingest(path: Path, db: Path, log: Log, *options: str) -> tuple[int, str]:
    log(f"CLI: handlab ingest {path.name} started")
    process = await asyncio.create_subprocess_exec(
        str(HANDLAB), "ingest", str(path), "--db", str(db), "--quiet", *options,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        output, _ = await asyncio.wait_for(process.communicate(), timeout=TIMEOUT_MS / 1000)
    except BaseException:  # timed out, or the scenario failed elsewhere: leave no process
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        raise
    code = process.returncode if process.returncode is not None else -1
    log(f"CLI: handlab ingest {path.name} exited with {code}")
    return code, output.decode("utf-8", errors="replace")


async def _while_reloading(page: Page, url: str, work: Awaitable[T], log: Log,
                           least: int) -> tuple[T, int]:
    """Await ``work`` while session C reloads the Overview; its result and C's reloads."""
    done = asyncio.Event()
    reloads = asyncio.create_task(_reload_overview(page, url, done, log, least))
    try:
        result = await work
    except BaseException:
        reloads.cancel()
        raise
    finally:
        done.set()
    return result, await reloads


@dataclass(frozen=True, slots=True)
class Watched:
    """What the watcher recorded in one context's tabs."""

    exceptions: list[str]
    busy: int


async def _watched(context: BrowserContext) -> Watched:
    exceptions: list[str] = []
    busy = 0
    for page in context.pages:
        raw = await page.evaluate("() => sessionStorage.getItem('handlab-watch')")
        state: dict[str, Any] = json.loads(raw) if raw else {"exceptions": [], "busy": 0}
        exceptions += [str(text) for text in state["exceptions"]]
        busy += int(state["busy"])
    return Watched(exceptions, busy)


@dataclass(slots=True)
class Outcome:
    """What the browsers and the command line saw."""

    first_a: Upload
    first_b: Upload
    second_a: Upload
    cli: tuple[tuple[int, str], tuple[int, str]]  # exit code and output: charlie, echo
    reloads: int
    final_hands: int
    watched: dict[str, Watched]


async def _scenario(server: Server, db: Path, files: Histories, shots: Path, log: Log
                    ) -> Outcome:
    url = server.url
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM),
                                                   args=CHROMIUM_ARGS)
        contexts: dict[str, BrowserContext] = {}
        pages: dict[str, Page] = {}
        try:
            for who in "ABC":
                contexts[who] = await browser.new_context(
                    viewport={"width": 1280, "height": 900}, accept_downloads=True,
                    reduced_motion=REDUCED_MOTION)
                await contexts[who].add_init_script(WATCH)
                pages[who] = await contexts[who].new_page()
                pages[who].set_default_timeout(TIMEOUT_MS)
            await asyncio.gather(_choose(pages["A"], url, [files.alpha]),
                                 _choose(pages["B"], url, [files.bravo, files.alpha_copy]),
                                 _open(pages["C"], url, "Overview"))
            log("A and B ready to load; C on the Overview")

            (first_a, first_b, cli), reload_count = await _while_reloading(
                pages["C"], url, asyncio.gather(
                    _load(pages["A"], "A", log), _load(pages["B"], "B", log),
                    _cli_ingest(files.charlie, db, log)), log, least=3)

            second_a = await _load_again(pages["A"], url, files, log)

            echo, echo_reloads = await _while_reloading(
                pages["C"], url, _cli_ingest(files.echo, db, log, "--workers", "0"), log, least=2)
            await _open(pages["C"], url, "Overview")
            final_hands = await _hands(pages["C"])
            watched = {who: await _watched(context) for who, context in contexts.items()}
            for who, page in pages.items():
                await _no_exception(page, f"{who}'s last page")
            return Outcome(first_a, first_b, second_a, (cli, echo), reload_count + echo_reloads,
                           final_hands, watched)
        except BaseException:
            for who, page in pages.items():
                try:
                    await page.screenshot(path=str(shots / f"session-{who}.png"), full_page=True)
                except Exception as error:  # best effort: the test fails anyway
                    log(f"no screenshot of {who}: {error}")
            raise
        finally:
            await browser.close()


async def _load_again(page: Page, url: str, files: Histories, log: Log) -> Upload:
    """A's second upload, in a new script session: alpha again, and delta."""
    await _choose(page, url, [files.alpha, files.delta])
    return await _load(page, "A again", log)


def _reference(files: Histories, folder: Path) -> tuple[Path, IngestSummary]:
    """The same files loaded one after the other by ``ingest``: what the database must hold."""
    db = folder / "reference.duckdb"
    summary = ingest([files.base, files.alpha, files.bravo, files.charlie, files.delta,
                      files.echo, files.alpha_copy], db, workers=0)
    return db, summary


def _contents(db: Path) -> tuple[list[int], dict[str, int], dict[str, int]]:
    """All hand_id (duplicates kept), rows per table, and each loaded file's new hands."""
    con = open_reader(db)
    try:
        ids = [int(row[0]) for row in con.execute("SELECT hand_id FROM hands").fetchall()]
        counts = {table: int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])
                  for table in TABLES}
        loaded = {str(sha): int(n) for sha, n in
                  con.execute("SELECT sha256, loaded FROM files").fetchall()}
    finally:
        con.close()
    return ids, counts, loaded


def _files_table(db: Path) -> str:
    """The ``files`` table in load order, with the write-ahead log's size if one is left:
    printed with the timeline, so a failure shows which process's commit went where (an
    upload's commit was missing once, in a fresh clone's run, cause not found:
    docs/reliability.md, "Open")."""
    con = open_reader(db)
    try:
        rows = con.execute("SELECT path, started_at, finished_at, loaded, duplicates "
                           "FROM files ORDER BY finished_at").fetchall()
    finally:
        con.close()
    wal = db.with_name(db.name + ".wal")
    left = f"{wal.stat().st_size} bytes" if wal.exists() else "none"
    return "\n".join([f"files (write-ahead log left: {left}):",
                      *(f"  {started:%H:%M:%S.%f}-{finished:%H:%M:%S.%f}  {path}: "
                        f"{loaded} loaded, {duplicates} duplicates"
                        for path, started, finished, loaded, duplicates in rows)])


def test_uploads_ingest_and_readers_at_once(tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed at /usr/bin/chromium "
                    "(apt-get install -y chromium)")
    files = _histories(tmp_path / "histories")
    reference_db, reference = _reference(files, tmp_path)
    by_name = {Path(f.name).name: f for f in reference.files}
    db = tmp_path / "server.duckdb"
    ingest(files.base, db, workers=0)

    log = Log()
    with streamlit_server(db, tmp_path / "streamlit.log") as server:
        log("server healthy")
        try:
            # In a thread of its own: a worker that ran a sync Playwright test before keeps
            # that test's event loop running in this thread, where asyncio.run() refuses.
            with ThreadPoolExecutor(max_workers=1) as pool:
                outcome = pool.submit(asyncio.run,
                                      _scenario(server, db, files, tmp_path, log)).result()
        finally:
            print(log)
        assert server.alive(), server.output()
    output = server.output()
    print(_files_table(db))

    # No Streamlit exception on any page at any time; the busy notices are only reported.
    for who, seen in outcome.watched.items():
        assert seen.exceptions == [], f"session {who} showed exceptions: {seen}"
    print(f"busy notices seen: { {who: seen.busy for who, seen in outcome.watched.items()} };"
          f" Overview reloads: {outcome.reloads}")
    assert "Traceback" not in output, output

    # The command line loaded its files (after waiting for the writer if need be).
    for code, cli_output in outcome.cli:
        assert code == 0, cli_output

    # Each upload showed its per-file summary; alpha's content was loaded exactly once.
    a, b = outcome.first_a, outcome.first_b
    assert set(a.rows) == {"alpha.phhs"}
    assert set(b.rows) == {"bravo.phhs", "alpha-copy.phhs"}
    alpha_rows = [a.rows["alpha.phhs"], b.rows["alpha-copy.phhs"]]
    assert sorted(row["status"] for row in alpha_rows) == ["already loaded", "loaded"], alpha_rows
    for row in (*alpha_rows, b.rows["bravo.phhs"]):
        if row["status"] == "loaded":
            assert int(row["hands"]) == int(row["loaded"]) + int(row["duplicates"])
            assert row["rejected"] == "0"
    assert int(b.rows["bravo.phhs"]["hands"]) == by_name["bravo.phhs"].hands
    for upload in (a, b):
        assert upload.rejected == 0
        assert upload.loaded == sum(int(row["loaded"]) for row in upload.rows.values())
        assert upload.duplicates == sum(int(row["duplicates"]) for row in upload.rows.values())

    # The second upload: alpha is known as a file, delta's hands but one as hands.
    again = outcome.second_a
    assert set(again.rows) == {"alpha.phhs", "delta.phhs"}
    assert again.rows["alpha.phhs"]["status"] == "already loaded"
    assert again.rows["alpha.phhs"]["message"] == "this content was loaded before"
    delta = by_name["delta.phhs"]
    assert (delta.loaded, delta.duplicates) == (1, 10)
    assert again.rows["delta.phhs"]["status"] == "loaded"
    assert (again.loaded, again.duplicates, again.rejected) == (1, 10, 0)

    # The database: exactly the reference's distinct hands, each once, every row once.
    ids, counts, loaded = _contents(db)
    reference_ids, reference_counts, reference_loaded = _contents(reference_db)
    assert len(reference_ids) == len(set(reference_ids))
    assert len(ids) == len(set(ids)), "a hand_id is in the hands table twice"
    assert set(ids) == set(reference_ids)
    assert counts == reference_counts
    assert set(loaded) == set(reference_loaded)  # the same files recorded, each once
    assert sum(loaded.values()) == len(ids)
    # New hands: the base, then what A, B and the command line loaded add up to the rest
    # (the hand of alpha, bravo and charlie counts once, as new, wherever it came first).
    cli_loaded = loaded[by_name["charlie.phhs"].sha256 or ""]
    echo_loaded = loaded[by_name["echo.phhs"].sha256 or ""]
    assert echo_loaded == ECHO_HANDS
    assert (by_name["base.phhs"].loaded + a.loaded + b.loaded + cli_loaded + again.loaded
            + echo_loaded == len(ids))
    assert a.duplicates + b.duplicates + (by_name["charlie.phhs"].hands - cli_loaded) == 2

    # The Overview, opened last, counts them all.
    assert outcome.final_hands == len(ids)
