"""Measure what each page of the built site transfers on a first visit, in Chromium.

Usage: python -m docs.checks.weight BUILD_HTML_DIR [--out docs/_data/weight.json]
                                     [--chromium PATH]

Serves the site from 127.0.0.1 with Python's http.server (no compression, so bytes are the
files' own sizes) and opens every page in a fresh browser context (an empty cache), waits
until the network is idle and the math is typeset, and counts every response: requests and
body bytes. Writes the record (date, commit, Chromium version, one row per page) as JSON,
lists failed requests, and exits 1 when the heaviest page is over BUDGET_BYTES. A benchmark
record, not a test: nothing here is timed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

from .browser import CHROMIUM_FLAGS, SKIP_DIRS, _serve, has_chromium

DOCS = Path(__file__).resolve().parents[1]
# Issue #17: the heaviest chapter's first load is at most 2.5 MB, uncompressed.
BUDGET_BYTES = 2_500_000
LARGEST = 3


def _commit() -> dict[str, object]:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=DOCS, capture_output=True, text=True, check=True
        ).stdout.strip()

    return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain"))}


def measure_page(browser: Browser, base: str, name: str) -> dict[str, object]:
    """One cold first load of ``name``: requests, bytes, and the largest files."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    sizes: dict[str, int] = {}
    failed: list[str] = []

    def record(response) -> None:
        url = response.url
        if response.status >= 400:
            failed.append(url)
        sizes[url] = len(response.body()) if response.status < 300 else 0

    page.on("response", record)
    page.goto(base + name, wait_until="load")
    page.wait_for_load_state("networkidle")
    if page.evaluate("document.querySelectorAll('.math').length"):
        page.evaluate("window.MathJax.startup.promise.then(() => true)")
        page.wait_for_load_state("networkidle")  # fonts the typeset formulas asked for
    context.close()
    largest = sorted(sizes.items(), key=lambda kv: kv[1], reverse=True)[:LARGEST]
    return {
        "page": name,
        "requests": len(sizes),
        "bytes": sum(sizes.values()),
        "failed": [u.removeprefix(base) for u in failed],
        "largest": [{"file": u.removeprefix(base).split("?")[0], "bytes": b} for u, b in largest],
    }


def measure(root: Path, chromium: str) -> dict[str, object]:
    pages = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*.html")
        if not SKIP_DIRS & set(p.relative_to(root).parts)
    )
    server, base = _serve(root)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
            version = browser.version
            rows = []
            for i, name in enumerate(pages, 1):
                print(f"[{i}/{len(pages)}] {name}", file=sys.stderr)
                rows.append(measure_page(browser, base, name))
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "git": _commit(),
        "chromium": version,
        "server": "python http.server on 127.0.0.1, no compression, empty cache",
        "viewport": "1280x900",
        "budget_bytes": BUDGET_BYTES,
        "pages": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--out", type=Path, default=DOCS / "_data" / "weight.json")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    if not has_chromium(args.chromium):
        return 2
    record = measure(args.root, args.chromium)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n")
    heaviest = max(record["pages"], key=lambda r: r["bytes"])
    over = heaviest["bytes"] > BUDGET_BYTES
    for row in record["pages"]:
        for url in row["failed"]:
            print(f"note: {row['page']}: request failed: {url}", file=sys.stderr)
    print(
        f"heaviest first load: {heaviest['page']}, {heaviest['bytes']:,} bytes in "
        f"{heaviest['requests']} requests (budget {BUDGET_BYTES:,}); wrote {args.out}"
    )
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
