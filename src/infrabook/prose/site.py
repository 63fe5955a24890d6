"""The site appendix: page weight and the live calculators' response times, read from the
records the build keeps in ``docs/_data`` (``weight.json``, ``live.json``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from infrabook import config
from infrabook.labels import text
from infrabook.tables import Table


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: the site appendix needs this record") from None


def _kb(n: float) -> str:
    return f"{n / 1e3:,.0f}"


def weight(data: Path) -> tuple[Table, dict[str, str]]:
    """Each page's requests and bytes on first load, heaviest first, from
    ``data/weight.json``; glued, the record's date, commit and the heaviest page.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> page = {"page": "a.html", "requests": 3, "bytes": 12000,
    ...         "largest": [{"file": "x/b.js", "bytes": 9000}]}
    >>> _ = (d / "weight.json").write_text(json.dumps({"date": "2026-12-01T10:00",
    ...     "git": {"commit": "0123456789abc"}, "chromium": "131", "pages": [page],
    ...     "budget_bytes": 2e6}))
    >>> table, v = weight(d)
    >>> table.rows, v["wt_commit"], v["wt_budget_mb"]
    ((('a.html', '3', '12', 'b.js（9）'),), '0123456789', '2')
    """
    record = _read(data / "weight.json")
    heaviest = max(record["pages"], key=lambda r: r["bytes"])
    rows = tuple(
        (
            r["page"],
            str(r["requests"]),
            _kb(r["bytes"]),
            text("prose.list_sep").join(
                text("prose.site.file", name=f["file"].rsplit("/", 1)[-1], kb=_kb(f["bytes"]))
                for f in r["largest"][:2]
            ),
        )
        for r in sorted(record["pages"], key=lambda r: r["bytes"], reverse=True)
    )
    columns = tuple(text(f"prose.site.col.{k}") for k in ("page", "requests", "first", "largest"))
    return Table("", columns, rows), {
        "wt_date": record["date"][:10],
        "wt_commit": record["git"]["commit"][:10],
        "wt_chromium": record["chromium"],
        "wt_pages": str(len(record["pages"])),
        "wt_heaviest": heaviest["page"],
        "wt_heaviest_mb": f"{heaviest['bytes'] / 1e6:.2f}",
        "wt_heaviest_n": str(heaviest["requests"]),
        "wt_budget_mb": f"{record['budget_bytes'] / 1e6:g}",
    }


def live(data: Path) -> dict[str, str]:
    """The live calculators' measured first answer and update times (``data/live.json``)
    against the targets in ``conf/``.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "live.json").write_text(json.dumps({"date_utc": "d", "commit": "c",
    ...     "browser": "b", "cpu_cores": 2,
    ...     "first_result_ms": {"first_on_page_max": 1e9, "median": 900},
    ...     "update_ms": {"median": 5, "max": 7, "count": 4}}))
    >>> v = live(d)
    >>> v["lv_first_verdict"], v["lv_update_median"]
    ('未达到', '5.0')
    """
    record = _read(data / "live.json")
    first = record["first_result_ms"]
    goal = config.live_targets()
    met_first = first["first_on_page_max"] <= goal.first_result_ms
    met_update = record["update_ms"]["max"] <= goal.update_ms
    return {
        "lv_date": record["date_utc"],
        "lv_commit": record["commit"],
        "lv_browser": record["browser"],
        "lv_cores": str(record["cpu_cores"]),
        "lv_first_max": f"{first['first_on_page_max'] / 1e3:.1f}",
        "lv_first_median": f"{first['median'] / 1e3:.1f}",
        "lv_update_median": f"{record['update_ms']['median']:.1f}",
        "lv_update_max": f"{record['update_ms']['max']:.0f}",
        "lv_updates": str(record["update_ms"]["count"]),
        "lv_first_target": f"{goal.first_result_ms / 1e3:g}",
        "lv_update_target": f"{goal.update_ms:g}",
        "lv_first_verdict": text(f"prose.site.{'met' if met_first else 'missed'}"),
        "lv_update_verdict": text(f"prose.site.{'met' if met_update else 'missed'}"),
    }
