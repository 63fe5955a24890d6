"""The live calculators' entry point: a reader's raw inputs in, tables as HTML and text out.

The calculators themselves are :mod:`infrabook.calculators`. The docs build calls :func:`run`
with the defaults to print the static table; in the reader's browser, Pyodide runs this very
module from the package's wheel and calls :func:`run_json` whenever an input changes. Nothing
here imports numpy, so it runs there.

>>> out = run("fusion", {})
>>> out["ok"], out["tables"][0]["rows"][0][2]
(True, '72')
>>> run("fusion", {"rows": "-3"})["error"]
'行数 rows：应为 1 到 1,048,576 之间的整数，收到 -3'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from infrabook.calc_fields import FieldError
from infrabook.calculators import calculators
from infrabook.quoting import line


def run(name: str, raw: Mapping[str, str]) -> dict[str, Any]:
    """Compute calculator ``name`` on the reader's raw inputs (missing ones take defaults).

    Returns ``{"ok": True, "tables": [...], "html": ...}``, or ``{"ok": False, "errors":
    [{"field": ..., "error": ...}, ...], "field": ..., "error": ...}``: every bad field with the
    package's own message (``field`` and ``error`` repeat the first), or, when each field is
    valid but together they are not, one error whose ``field`` is ``None``.

    >>> out = run("crossover", {})
    >>> [row[1] for row in out["tables"][0]["rows"]]
    ['65.2', '78.4', '89.3']
    >>> run("softmax", {"values": "1"})["error"]
    '值的个数（1）与分数的个数（2）不同'
    >>> [e["field"] for e in run("fusion", {"rows": "-5", "cols": "x"})["errors"]]
    ['rows', 'cols']
    """
    calcs = calculators()
    if name not in calcs:
        raise ValueError(f"no live calculator {name!r}; expected one of {', '.join(calcs)}")
    calc = calcs[name]
    unknown = set(raw) - {f.name for f in calc.fields}
    if unknown:
        raise ValueError(f"calculator {name!r} has no field(s) {', '.join(sorted(unknown))}")
    values, errors = calc.parse(raw)
    if not errors:
        try:
            tables = calc.compute(values).tables
        except FieldError as err:
            errors.append(err)
        except ValueError as err:
            errors.append(FieldError("", str(err)))
    if errors:
        # each message as a terminal would show it: nothing unprintable, nothing 1 MB long
        listed = [{"field": e.field or None, "error": line(e)} for e in errors]
        return {"ok": False, "errors": listed, **listed[0]}
    return {
        "ok": True,
        "tables": [{"header": list(t.columns), "rows": t.cells(), "note": t.note} for t in tables],
        "html": "".join(t.html() for t in tables),
    }


def run_json(name: str, raw_json: str) -> str:
    """:func:`run` for the page's script: JSON in, JSON out."""
    return json.dumps(run(name, json.loads(raw_json)), ensure_ascii=False)
