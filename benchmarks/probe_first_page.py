"""Where a session's first page goes: the browser's and the server's CPU, files, messages.

For handlab's Overview (``serve.py`` over the samples, after its warm-up) and any peer pages
(benchmarks/peer_page.py, ``HANDLAB_PEER`` values), on a fresh server each: a new browser
(nothing cached) and then a returning user's tab (the same browser), each timed to idle as
benchmarks/bench_pages.py times it, with Chrome's own counters through the DevTools
Protocol (Playwright's ``new_cdp_session`` and tracing): the CPU seconds of the renderer's
main thread (thread time from a trace: what it ran, not what it waited for a loaded machine),
the server process's CPU seconds (``/proc``), the main thread's script, layout and style
seconds (``Performance.getMetrics``), the websocket's messages, the static files fetched
(``--files``: names and compressed bytes, each with the seconds after the navigation when it
was asked for) and, with ``--profile``, JavaScript seconds by file (the sampling profiler).
Thread CPU is the figure to compare under load; bench_pages.py's wall seconds the one a user
feels on an idle machine (docs/dashboard.md, "Where a first page's time goes").

    .venv/bin/python benchmarks/probe_first_page.py --peer table  # handlab, the table peer
    .venv/bin/python benchmarks/probe_first_page.py --repeats 2 --peer table --peer table+filters
    .venv/bin/python benchmarks/probe_first_page.py --no-handlab --files --peer table+overview
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(_ROOT))
sys.path.insert(0, str(_ROOT / "benchmarks"))

from bench_pages import PAGES, Page, wait_idle  # noqa: E402

from analytics.warehouse.pipeline.run import SAMPLES, ensure_database  # noqa: E402
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.server import streamlit_server  # noqa: E402

_TRACE = ["devtools.timeline", "disabled-by-default-devtools.timeline", "toplevel"]
_METRICS = ("ScriptDuration", "TaskDuration", "LayoutDuration", "RecalcStyleDuration")


def _cpu(process: Any) -> float:
    """CPU seconds (user + system) ``process`` (a ``subprocess.Popen``) has used so far."""
    fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _main_thread_cpu(trace: dict[str, Any]) -> float:
    """CPU seconds of the renderer main threads' top-level tasks (``tdur``: thread time, what
    the thread ran, not what it waited for the machine) in a Chrome trace."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    main = {(e["pid"], e["tid"]) for e in events
            if e.get("name") == "thread_name" and e.get("args", {}).get("name") == "CrRendererMain"}
    return float(sum(e.get("tdur", 0) for e in events
                     if e.get("name") == "RunTask" and e.get("ph") == "X"
                     and (e["pid"], e["tid"]) in main)) / 1e6


def _by_file(profile: dict[str, Any]) -> dict[str, float]:
    """Seconds of JavaScript by script file (self time) in a ``Profiler`` profile; the
    browser's own work (garbage collection, drawing, idle) under its node's name."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    deltas = profile["timeDeltas"]
    spent: dict[str, float] = {}
    for sample, delta in zip(profile["samples"], deltas[1:] + [0], strict=True):
        frame = nodes[sample]["callFrame"]
        name = frame["url"].rsplit("/", 1)[-1] or f"({frame['functionName']})"
        spent[name] = spent.get(name, 0.0) + delta / 1e6
    spent.pop("(idle)", None)
    return spent


def _probe(page: Any, url: str, target: Page, server: Any, profile: bool = False
           ) -> dict[str, Any]:
    """Open ``url`` in ``page`` until idle; seconds, main-thread counters and files."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    cdp.send("Network.enable")
    asked: dict[str, tuple[str, float]] = {}
    sizes: dict[str, int] = {}
    cached: set[str] = set()
    started = time.perf_counter()

    def request(event: dict[str, Any]) -> None:
        name = event["request"]["url"].split("?", 1)[0].rsplit("/", 1)[-1]
        asked[event["requestId"]] = (name, time.perf_counter() - started)

    def finished(event: dict[str, Any]) -> None:
        sizes[event["requestId"]] = int(event.get("encodedDataLength", 0))

    def from_cache(event: dict[str, Any]) -> None:
        cached.add(event["requestId"])

    frames: list[tuple[str, float]] = []
    cdp.on("Network.webSocketFrameSent",
           lambda event: frames.append(("sent", time.perf_counter() - started)))
    cdp.on("Network.webSocketFrameReceived",
           lambda event: frames.append(("received", time.perf_counter() - started)))
    cdp.on("Network.requestWillBeSent", request)
    cdp.on("Network.loadingFinished", finished)
    cdp.on("Network.requestServedFromCache", from_cache)
    before = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    if profile:
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 200})
        cdp.send("Profiler.start")
    browser = page.context.browser
    browser.start_tracing(page=page, categories=_TRACE)
    server_before = _cpu(server)
    started = time.perf_counter()
    page.goto(f"{url}/{target.path}")
    wait_idle(page, target.title)
    seconds = time.perf_counter() - started
    server_cpu = _cpu(server) - server_before
    by_file = _by_file(cdp.send("Profiler.stop")["profile"]) if profile else {}
    main_cpu = _main_thread_cpu(json.loads(browser.stop_tracing()))
    after = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    files = [(name, at, sizes.get(key, 0), key in cached) for key, (name, at) in asked.items()]
    cdp.detach()
    sent = [at for kind, at in frames if kind == "sent"]
    received = [at for kind, at in frames if kind == "received"]
    return {"seconds": seconds, "main cpu": main_cpu, "server cpu": server_cpu,
            "by file": by_file,
            "files": files, "first sent": sent[0] if sent else 0.0,
            "received": len(received), "last received": received[-1] if received else 0.0,
            **{name: after.get(name, 0.0) - before.get(name, 0.0) for name in _METRICS}}


def _show(label: str, result: dict[str, Any], files: bool) -> None:
    fetched = [f for f in result["files"] if f[0].endswith((".js", ".css", ".woff2"))]
    print(f"{label}: idle {result['seconds']:.2f} s; CPU: browser main thread "
          f"{result['main cpu']:.2f} s, server {result['server cpu']:.2f} s; main thread: task "
          f"{result['TaskDuration']:.2f} s, script {result['ScriptDuration']:.2f}, layout "
          f"{result['LayoutDuration']:.2f}, style {result['RecalcStyleDuration']:.2f}; "
          f"{len(fetched)} js/css/font files, {sum(f[2] for f in fetched) / 1e6:.2f} MB "
          f"over the wire; websocket: first sent {result['first sent']:.2f} s, "
          f"{result['received']} received, the last at {result['last received']:.2f} s",
          flush=True)
    if result["by file"]:
        top = sorted(result["by file"].items(), key=lambda item: -item[1])[:25]
        print("    JavaScript by file (self seconds): " + ", ".join(
            f"{name} {spent:.3f}" for name, spent in top))
    if files:
        for name, at, size, cached in sorted(fetched, key=lambda f: f[1]):
            print(f"    {at:5.2f} s  {size / 1e3:8.1f} kB  {'cache ' if cached else ''}{name}")


def _session(server: Any, target: Page, label: str, files: bool, profile: bool) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            page.set_default_timeout(120_000)
            first = _probe(page, server.url, target, server.process, profile)
            _show(f"{label} new browser", first, files)
            again = context.new_page()
            again.set_default_timeout(120_000)
            returning = _probe(again, server.url, target, server.process, profile)
            _show(f"{label} returning tab", returning, files)
        finally:
            browser.close()


def main() -> None:
    """Probe handlab's Overview and the peers named, each on a fresh server."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", action="append", default=[], metavar="KIND",
                        help="A peer page (HANDLAB_PEER value, e.g. table+nav); repeatable.")
    parser.add_argument("--no-handlab", action="store_true", help="Peers only.")
    parser.add_argument("--files", action="store_true", help="List each file fetched.")
    parser.add_argument("--profile", action="store_true", help="JavaScript seconds by file "
                        "(the sampling profiler; it slows the page).")
    parser.add_argument("--base", type=Path, metavar="PATH", help="Another checkout's "
                        "Overview too, each round, alternately first (a worktree of main).")
    parser.add_argument("--repeats", type=int, default=1)
    options = parser.parse_args()
    from analytics.dashboard.startup import WARM_MARK

    with tempfile.TemporaryDirectory(prefix="handlab-probe-") as folder:
        root = Path(folder)
        db = None if options.no_handlab else ensure_database(root / "samples.duckdb", SAMPLES)
        for number in range(options.repeats):
            checkouts = [(_ROOT, "handlab Overview")]
            if options.base is not None:
                checkouts.append((options.base, "base Overview"))
            # Alternated: odd rounds start with the base.
            for checkout, label in (checkouts[::-1] if number % 2 else checkouts) if db else ():
                assert db is not None
                with streamlit_server(db, root / "serve.log", script="serve.py",
                                      root=checkout) as server:
                    while WARM_MARK not in server.output():
                        time.sleep(0.05)
                    _session(server, PAGES[0], label, options.files, options.profile)
            for kind in options.peer:
                with streamlit_server(root / "unused", root / "peer.log",
                                      script="benchmarks/peer_serve.py",
                                      env={"HANDLAB_PEER": kind}) as server:
                    peer = Page("", "", f"Peer {kind}", "")
                    _session(server, peer, f"peer {kind}", options.files, options.profile)


if __name__ == "__main__":
    main()
