"""How long a reader waits for the first live answer: cold, per calculator page, by phase.

Serves the built site on 127.0.0.1 and, for every page with a live calculator, opens it
``--runs`` times in a fresh browser context (an empty profile: nothing cached, no compiled
WebAssembly kept), scrolls to the page's first calculator, waits ``--dwell-ms`` (a reader
reading the form; 0, the default, is a reader who clicks at once), clicks "启用实时计算"
and waits for the first computed tables. The phases come from the marks ``live.js`` sets
(``ib-live:*``) and from the browser's own timing of each download, all in ms after the
click: when the last download of the runtime finished, when Python was up (WebAssembly
compiled and instantiated, the standard library mounted), when the package's wheel and
conf were unpacked, when ``infrabook.live`` was imported, and the first answer. Then one
update: a field changed, timed in the page from the change to the new tables.

It prints the median of the runs per page, with the machine's load average, and writes them
with ``--record FILE``. This is a benchmark, not a test: timings on a loaded machine are not
the reader's, so it fails only when asked, with ``--goal-ms`` (the first answer's median
on some page above it) or ``--update-goal-ms`` (an update's median above it).

    python -m docs.checks.live_timing docs/_build/html [--runs 3] [--dwell-ms 0]
        [--record FILE] [--goal-ms 1500] [--update-goal-ms 50]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

from infrabook.calculators import calculators

from .browser import CHROMIUM_FLAGS, has_chromium, serve_edition
from .live import BOOT_TIMEOUT_MS, CHROMIUM, _changed, live_pages

#: The marks live.js sets, in the order they happen, and what each ends.
PHASES = {
    "loader": "Pyodide's loader module fetched",
    "runtime": "runtime up: downloads, WebAssembly compiled and instantiated, stdlib mounted",
    "archives": "the package's wheel and conf fetched and unpacked",
    "imports": "infrabook.live imported",
    "first": "first answer computed and shown",
}
#: The downloads of the runtime (their browser timings say when each arrived).
RUNTIME_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib_precompiled.zip",
    "pyodide-lock.json",
)

_READ = """() => {
  const at = (n) => performance.getEntriesByName('ib-live:' + n)[0]?.startTime ?? null;
  const files = performance.getEntriesByType('resource')
    .filter(e => /\\/_static\\/(pyodide|live)\\//.test(e.name))
    .map(e => ({name: e.name.split('/').pop(), start: e.startTime, end: e.responseEnd,
                bytes: e.encodedBodySize}));
  const marks = {};
  for (const n of ['boot', 'click', 'loader', 'runtime', 'archives', 'imports', 'first'])
    marks[n] = at(n);
  return {marks, files};
}"""

# One update as a reader makes it: the value changes, the input event fires, and the time
# runs until live.js has drawn the new tables (its update counter moves).
_UPDATE = """async ([sel, name, value]) => {
  const section = document.querySelector(sel);
  const el = section.querySelector(`[name='${name}']`);
  const before = Number(section.dataset.updates || 0);
  const t0 = performance.now();
  if (el.type === 'checkbox') el.checked = value === 'true'; else el.value = value;
  el.dispatchEvent(new Event('input', {bubbles: true}));
  while (Number(section.dataset.updates || 0) === before)
    await new Promise(r => requestAnimationFrame(r));
  await new Promise(r => requestAnimationFrame(r));
  return performance.now() - t0;
}"""


def one_run(browser: Browser, url: str, dwell_ms: int) -> dict:
    """One cold start of the first calculator on ``url``: ms after the click per phase."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.wait_for_load_state("load")
    section = "section.live-calc"
    name = page.eval_on_selector(section, "s => s.dataset.calc")
    section = f"section.live-calc[data-calc='{name}']"
    page.locator(f"{section} .live-enable").scroll_into_view_if_needed()
    if dwell_ms:
        page.wait_for_timeout(dwell_ms)
    load = os.getloadavg()[0]
    page.click(f"{section} .live-enable")
    page.wait_for_function(
        "s => ['ready', 'failed'].includes(document.querySelector(s).dataset.state)",
        arg=section,
        timeout=BOOT_TIMEOUT_MS,
    )
    if page.eval_on_selector(section, "s => s.dataset.state") != "ready":
        status = page.inner_text(f"{section} .live-status")
        context.close()
        raise RuntimeError(f"{url} {name}: did not start: {status}")
    seen = page.evaluate(_READ)
    field = calculators()[name].fields[0]
    update = page.evaluate(_UPDATE, [section, field.name, _changed(field)])
    context.close()
    click = seen["marks"]["click"]
    after = {k: round(v - click, 1) for k, v in seen["marks"].items() if v is not None}
    runtime = [f for f in seen["files"] if f["name"] in RUNTIME_FILES]
    return {
        "calculator": name,
        "load_1min": round(load, 2),
        "ms_after_click": after,
        "downloads_done_ms": round(max(f["end"] for f in runtime) - click, 1) if runtime else None,
        "bytes": sum(f["bytes"] for f in seen["files"]),
        "update_ms": round(update, 1),
    }


def _median(runs: list[dict], key: str) -> float | None:
    values = [r["ms_after_click"].get(key) for r in runs]
    known = [v for v in values if v is not None]
    return round(statistics.median(known), 1) if known else None


def summary(runs: list[dict]) -> dict:
    """The median of the runs: each phase's end after the click, the downloads, an update."""
    return {
        "calculator": runs[0]["calculator"],
        "runs": len(runs),
        "first_ms": [r["ms_after_click"]["first"] for r in runs],
        "median_ms_after_click": {p: _median(runs, p) for p in ("boot", *PHASES)},
        "downloads_done_ms": statistics.median(
            r["downloads_done_ms"] for r in runs if r["downloads_done_ms"] is not None
        ),
        "bytes": runs[0]["bytes"],
        "update_ms_median": statistics.median(r["update_ms"] for r in runs),
        "load_1min": [r["load_1min"] for r in runs],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", type=Path, help="a built edition (docs/_build/html or …/en)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dwell-ms", type=int, default=0, help="wait in view before clicking")
    parser.add_argument("--page", action="append", help="only pages whose path has this")
    parser.add_argument("--record", type=Path, help="write the results to this JSON file")
    parser.add_argument("--goal-ms", type=float, help="fail if a first answer's median is above")
    parser.add_argument("--update-goal-ms", type=float, help="fail if an update's median is above")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs: expected at least 1, got {args.runs}")
    if not has_chromium(CHROMIUM):
        return 2
    pages = live_pages(args.html, args.page)
    if not pages:
        print(f"no page under {args.html} has a live calculator", file=sys.stderr)
        return 1
    server, _, base = serve_edition(args.html)
    results: dict[str, dict] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        version = browser.version
        for path in pages:
            rel = str(path.relative_to(args.html))
            runs = [one_run(browser, base + rel, args.dwell_ms) for _ in range(args.runs)]
            results[rel] = summary(runs) | {"each_run": runs}
            s = results[rel]
            phases = "  ".join(
                f"{p} {v:.0f}" for p, v in s["median_ms_after_click"].items() if v is not None
            )
            print(
                f"{rel} ({s['calculator']}): first {s['median_ms_after_click']['first']:.0f} ms "
                f"(runs {', '.join(f'{v:.0f}' for v in s['first_ms'])}); ms after the click: "
                f"{phases}; downloads done {s['downloads_done_ms']:.0f}; update "
                f"{s['update_ms_median']:.0f} ms; load {s['load_1min']}"
            )
        browser.close()
    server.shutdown()
    if args.record:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
        record = {
            "what": "live calculators, cold: ms after the click until each phase ends (median)",
            "phases": PHASES,
            "browser": f"Chromium {version} (headless)",
            "served_from": "127.0.0.1 (python http.server, no compression)",
            "cpu_cores": len(os.sched_getaffinity(0)),
            "dwell_ms": args.dwell_ms,
            "commit": commit,
            "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
            "pages": results,
        }
        args.record.write_text(json.dumps(record, ensure_ascii=False, indent=2) + "\n")
    failed = 0
    for rel, s in results.items():
        first = s["median_ms_after_click"]["first"]
        if args.goal_ms is not None and first > args.goal_ms:
            print(f"FAIL {rel}: first answer {first:.0f} ms after the click > {args.goal_ms:.0f}")
            failed += 1
        if args.update_goal_ms is not None and s["update_ms_median"] > args.update_goal_ms:
            print(f"FAIL {rel}: update {s['update_ms_median']:.0f} ms > {args.update_goal_ms:.0f}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
