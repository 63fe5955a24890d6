"""The live calculators in a real browser: they compute what the package computes.

Serves the built site on 127.0.0.1 and drives Debian's headless Chromium (through
Playwright, which never downloads a browser) over every page with a calculator:

* before the reader asks, nothing of Pyodide is requested and the static tables equal
  :func:`infrabook.live.run` on the defaults;
* after "启用实时计算", changing an input gives exactly the tables ``run`` gives in Python
  for that input, and a bad input shows ``run``'s own message beside its field; while any
  input is bad the last valid tables stay, dimmed and marked stale; two bad fields show two
  messages; an error between fields (a call larger than every bucket) shows above the
  tables; in the Chinese edition every message is Chinese;
* no request leaves 127.0.0.1; opened from ``file://`` a calculator says so in one line
  and keeps its static tables.

With ``--record FILE`` it also writes the timings (first result after the click, and the
median time of an update) with the browser, commit and date: a benchmark, not a test.

    python -m docs.checks.live docs/_build/html [--record docs/_data/live.json]
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
from urllib.parse import urlparse

from playwright.sync_api import Page, sync_playwright

from infrabook import live
from infrabook.calc_fields import Field
from infrabook.calculators import calculators
from infrabook.labels import text

from .browser import CHROMIUM_FLAGS, has_chromium, serve_edition

CHROMIUM = "/usr/bin/chromium"
BOOT_TIMEOUT_MS = 120_000
UPDATES = 9


def _changed(field: Field) -> str:
    """A valid input different from the field's default."""
    if field.kind == "choice":
        return next(c for c in field.choices if c != field.default)
    if field.kind == "bool":
        return "false" if field.default == "true" else "true"
    if field.kind == "calls":
        return "300x4,1000,1500x2"
    if field.kind in ("floats", "ints"):
        items = field.default.split(",")
        return ",".join([*items[:-1], str(int(float(items[-1])) + 1)])
    value = float(field.default)
    new = value * 2 if field.high is None or value * 2 <= field.high else value / 2
    return str(int(new)) if field.kind == "int" else repr(new)


def _bad(field: Field) -> str | None:
    return None if field.kind in ("choice", "bool") else "-1e99x"


def _tables(page: Page, section: str) -> list[list[list[str]]]:
    return page.eval_on_selector(
        section,
        """s => [...s.querySelectorAll('.live-output table')].map(t =>
             [...t.querySelectorAll('tr')].map(r =>
               [...r.querySelectorAll('th,td')].map(c => c.textContent)))""",
    )


def _expected(result: dict) -> list[list[list[str]]]:
    return [[t["header"], *t["rows"]] for t in result["tables"]]


def _set(page: Page, section: str, field: Field, value: str) -> None:
    selector = f"{section} [name='{field.name}']"
    if field.kind == "choice":
        page.select_option(selector, value)
    elif field.kind == "bool":
        page.set_checked(selector, value == "true")
    else:
        page.fill(selector, value)


def _wait_update(page: Page, section: str, before: int) -> None:
    page.wait_for_function(
        "([s, n]) => Number(document.querySelector(s).dataset.updates || 0) > n",
        arg=[section, before],
    )


def _updates(page: Page, section: str) -> int:
    return int(page.eval_on_selector(section, "s => s.dataset.updates || '0'"))


def check_page(page: Page, url: str, timings: dict) -> list[str]:
    """Every calculator on one page; returns the failures."""
    failures: list[str] = []
    page.goto(url)
    names = page.eval_on_selector_all(".live-calc", "els => els.map(e => e.dataset.calc)")
    calcs = calculators()
    for name in names:
        section = f"section.live-calc[data-calc='{name}']"
        calc = calcs[name]
        if _tables(page, section) != _expected(live.run(name, {})):
            failures.append(f"{url} {name}: static tables differ from live.run(defaults)")
        first = page.eval_on_selector(section, "s => s.dataset.state") == "static" and (
            page.eval_on_selector_all(".live-calc[data-state='ready']", "els => els.length") == 0
        )
        if first and calc.fields[0].kind not in ("choice", "bool"):
            # The reader edits a field before Python is there (the edit starts it): until the
            # first answer, the build-time tables are for other inputs, so they are stale.
            _set(page, section, calc.fields[0], calc.fields[0].default)
            if page.eval_on_selector(section, "s => s.dataset.stale") != "true":
                failures.append(
                    f"{url} {name}: a field edited while Python loads leaves the "
                    "build-time tables undimmed"
                )
        else:
            page.click(f"{section} .live-enable")
        page.wait_for_function(
            "s => ['ready', 'failed'].includes(document.querySelector(s).dataset.state)",
            arg=section,
            timeout=BOOT_TIMEOUT_MS,
        )
        state = page.eval_on_selector(section, "s => s.dataset.state")
        if state != "ready":
            status = page.inner_text(f"{section} .live-status")
            failures.append(f"{url} {name}: did not start: {status}")
            continue
        # Python is loaded: no other calculator still offers the download
        for button in page.eval_on_selector_all(
            ".live-calc[data-state='static'] .live-enable", "els => els.map(e => e.textContent)"
        ):
            if button != text("live.ui.enable_loaded"):
                failures.append(f"{url}: once Python is loaded a button still says {button!r}")
        timings.setdefault("first_ms", []).append(
            float(page.eval_on_selector(section, "s => s.dataset.firstMs"))
        )
        inputs: dict[str, str] = {}
        for field in calc.fields:
            before = _updates(page, section)
            inputs[field.name] = _changed(field)
            _set(page, section, field, inputs[field.name])
            _wait_update(page, section, before)
            expected = live.run(name, inputs)
            if expected["ok"] and _tables(page, section) != _expected(expected):
                failures.append(
                    f"{url} {name}: {field.name}={inputs[field.name]!r}: "
                    "tables differ from live.run"
                )
            if not expected["ok"]:
                shown = page.eval_on_selector(section, "s => s.dataset.error")
                if shown != expected["error"]:
                    failures.append(
                        f"{url} {name}: {field.name}: error {shown!r} is not "
                        f"live.run's {expected['error']!r}"
                    )
            timings.setdefault("update_ms", []).append(
                float(page.eval_on_selector(section, "s => s.dataset.updateMs"))
            )
        bad_field = next(f for f in calc.fields if _bad(f) is not None)
        before = _updates(page, section)
        _set(page, section, bad_field, _bad(bad_field))
        _wait_update(page, section, before)
        expected = live.run(name, {**inputs, bad_field.name: _bad(bad_field)})
        beside = page.inner_text(f"{section} .live-error[data-for='{bad_field.name}']")
        if expected["ok"] or beside != expected["error"]:
            failures.append(
                f"{url} {name}: bad {bad_field.name}: shown {beside!r}, "
                f"expected {expected.get('error')!r}"
            )
        failures += _stale(page, section, f"{url} {name}", live.run(name, inputs))
        # A second bad field: each shows its own message, the first one's stays.
        second = next((f for f in calc.fields if _bad(f) and f is not bad_field), None)
        bad_inputs = {**inputs, bad_field.name: _bad(bad_field)}
        if second is not None:
            before = _updates(page, section)
            _set(page, section, second, _bad(second))  # type: ignore[arg-type]
            _wait_update(page, section, before)
            bad_inputs[second.name] = _bad(second)  # type: ignore[assignment]
            expected = live.run(name, bad_inputs)
            for err in expected["errors"]:
                shown = page.inner_text(f"{section} .live-error[data-for='{err['field']}']")
                if shown != err["error"]:
                    failures.append(
                        f"{url} {name}: with two bad fields, {err['field']} shows {shown!r}, "
                        f"expected {err['error']!r}"
                    )
        failures += _in_language(f"{url} {name}", live.run(name, bad_inputs))
        # Valid again: the tables follow and are no longer marked stale.
        for field in (bad_field, second):
            if field is not None:
                before = _updates(page, section)
                _set(page, section, field, inputs[field.name])
                _wait_update(page, section, before)
        if page.eval_on_selector(section, "s => s.dataset.stale") != "false":
            failures.append(f"{url} {name}: still marked stale after the inputs are valid")
        if name == "buckets":
            failures += _between_fields(page, section, f"{url} {name}", inputs)
    return failures


def _stale(page: Page, section: str, where: str, last_valid: dict) -> list[str]:
    """While an input is invalid the last valid tables stay, dimmed and marked stale."""
    failures = []
    if page.eval_on_selector(section, "s => s.dataset.stale") != "true":
        failures.append(f"{where}: a bad input does not mark the tables stale")
    opacity = page.eval_on_selector(
        f"{section} .live-output", "o => Number(getComputedStyle(o).opacity)"
    )
    if opacity > 0.6:
        failures.append(f"{where}: stale tables are not dimmed (opacity {opacity})")
    if last_valid["ok"] and _tables(page, section) != _expected(last_valid):
        failures.append(f"{where}: the stale tables are not the last valid inputs' tables")
    return failures


def _in_language(where: str, result: dict) -> list[str]:
    """Each error message is in the edition's words: Chinese ones hold Chinese."""
    if os.environ.get("INFRABOOK_LANG", "zh") == "en":
        return []
    return [
        f"{where}: error message not in Chinese: {e['error']!r}"
        for e in result.get("errors", [])
        if not any("\u4e00" <= ch <= "\u9fff" for ch in e["error"])
    ]


def _between_fields(page: Page, section: str, where: str, inputs: dict) -> list[str]:
    """An error that no single field has (a call larger than every bucket) is shown above
    the tables, in the edition's language, as the package words it."""
    calls = next(f for f in calculators()["buckets"].fields if f.name == "calls")
    big = str(2 * max(int(b) for b in inputs.get("buckets", "2048").split(",")))
    before = _updates(page, section)
    _set(page, section, calls, big)
    _wait_update(page, section, before)
    expected = live.run("buckets", {**inputs, "calls": big})
    shown = page.inner_text(f"{section} .live-form-error")
    failures = _in_language(where, expected)
    if expected["ok"] or expected["field"] is not None or shown != expected["error"]:
        failures.append(
            f"{where}: calls={big}: shown {shown!r}, expected {expected.get('error')!r}"
        )
    failures += _stale(page, section, where, live.run("buckets", inputs))
    before = _updates(page, section)
    _set(page, section, calls, inputs["calls"])
    _wait_update(page, section, before)
    return failures


def live_pages(html: Path, only: list[str] | None = None) -> list[Path]:
    """The pages of the edition built at ``html`` that hold a live calculator (those whose path
    has one of ``only``, if given)."""
    return sorted(
        p
        for p in html.rglob("*.html")
        if "live-calc" in p.read_text(encoding="utf-8", errors="ignore")
        and "_static" not in p.parts
        # the English edition (html/en) is checked on its own run, with INFRABOOK_LANG=en
        and p.relative_to(html).parts[0] != "en"
        and (not only or any(s in str(p) for s in only))
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", type=Path)
    parser.add_argument("--record", type=Path, help="write the timings to this JSON file")
    args = parser.parse_args(argv)
    if not has_chromium(CHROMIUM):
        return 2
    pages = live_pages(args.html)
    if not pages:
        print(f"no page under {args.html} has a live calculator", file=sys.stderr)
        return 1
    server, _, base = serve_edition(args.html)
    failures: list[str] = []
    timings: dict[str, list[float]] = {}
    outside: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        version = browser.version
        for path in pages:
            context = browser.new_context()
            page = context.new_page()
            requested: list[str] = []

            def route(r, *, requested: list[str] = requested) -> None:
                url = r.request.url
                requested.append(url)
                host = urlparse(url).hostname
                if url.startswith("data:") or url.startswith("blob:") or host == "127.0.0.1":
                    r.continue_()
                else:
                    outside.append(url)
                    r.abort()

            page.route("**/*", route)
            url = base + str(path.relative_to(args.html))
            page.goto(url)
            page.wait_for_load_state("load")
            early = [
                u for u in requested if "/_static/pyodide/" in u or u.endswith((".whl", ".zip"))
            ]
            if early:
                failures.append(f"{url}: loaded {early[0]} before the reader asked")
            failures += check_page(page, url, timings)
            file_page = context.new_page()
            file_page.goto(path.resolve().as_uri())
            status = file_page.inner_text(".live-calc .live-status")
            if "file://" not in status or file_page.is_visible(".live-calc .live-enable"):
                failures.append(
                    f"{path}: from file:// the calculator does not say why it "
                    f"cannot run (status: {status!r})"
                )
            context.close()
        browser.close()
    server.shutdown()
    failures += [f"request left 127.0.0.1: {u}" for u in outside]
    for line in failures:
        print("FAIL", line)
    first, update = timings.get("first_ms", []), timings.get("update_ms", [])
    print(
        f"{len(pages)} page(s), {len(first)} calculator(s): first result "
        f"{max(first, default=0):.0f} ms at worst, update median "
        f"{statistics.median(update) if update else 0:.1f} ms"
    )
    if args.record and not failures:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
        record = {
            "what": "live calculators: first result after the click, and one update",
            "browser": f"Chromium {version} (headless)",
            "served_from": "127.0.0.1 (python http.server)",
            "cpu_cores": len(os.sched_getaffinity(0)),  # the cores the browser could use
            "commit": commit,
            "date_utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
            "first_result_ms": {
                "first_on_page_max": max(first),
                "median": statistics.median(first),
            },
            "update_ms": {
                "median": statistics.median(update),
                "max": max(update),
                "count": len(update),
            },
        }
        args.record.write_text(json.dumps(record, ensure_ascii=False, indent=2) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
