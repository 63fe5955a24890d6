"""What each ``conf/*.toml`` file must contain, checked once when the file is loaded.

A typo in a conf file (a missing key, a string where a number belongs, a negative size, an
unknown dtype) would otherwise surface as a ``KeyError`` or ``TypeError`` deep inside a page
or a calculator. Checking the whole file against its schema up front turns it into one
``ConfError`` that names the file, the key and what was expected.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any


class ConfError(ValueError):
    """A conf file that does not hold what the loader expects; the message is one line."""


@dataclass(frozen=True)
class Expect:
    """A leaf value: what it should be, in words, and the test it must pass."""

    what: str
    ok: Callable[[Any], bool]


@dataclass(frozen=True)
class ListOf:
    """A non-empty array whose every item matches ``item``."""

    item: Schema

    @property
    def what(self) -> str:
        return f"a non-empty array of {_what(self.item)}"


@dataclass(frozen=True)
class MapOf:
    """A non-empty table of named entries (``[devices.NAME]``), each matching ``item``."""

    item: Schema

    @property
    def what(self) -> str:
        return f"a non-empty table of named entries, each {_what(self.item)}"


@dataclass(frozen=True)
class Optional:
    """A key that may be absent."""

    item: Schema


Schema = Expect | ListOf | MapOf | Optional | dict[str, Any]


def _what(schema: Schema) -> str:
    if isinstance(schema, dict):
        return "a table with keys " + ", ".join(schema)
    if isinstance(schema, Optional):
        return _what(schema.item)
    return schema.what


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _is_numeral(v: Any) -> bool:
    try:
        Fraction(v)
    except (ValueError, TypeError, ZeroDivisionError):
        return False
    return isinstance(v, str)


def one_of(*choices: str) -> Expect:
    """A string from a fixed set.

    >>> one_of("bf16", "fp32").what
    "one of 'bf16', 'fp32'"
    """
    return Expect("one of " + ", ".join(map(repr, choices)), lambda v: v in choices)


POSITIVE_INT = Expect("a positive integer", lambda v: type(v) is int and v > 0)
POSITIVE = Expect("a finite number > 0", lambda v: _is_number(v) and v > 0)
NON_NEGATIVE = Expect("a finite number >= 0", lambda v: _is_number(v) and v >= 0)
NUMBER = Expect("a finite number", _is_number)
FRACTION = Expect("a number in (0, 1]", lambda v: _is_number(v) and 0 < v <= 1)
NAME = Expect("a non-empty string", lambda v: isinstance(v, str) and v.strip() != "")
STRING = Expect("a string", lambda v: isinstance(v, str))
BOOL = Expect("true or false", lambda v: isinstance(v, bool))
NUMERAL = Expect('a number or fraction written as a string, e.g. "24" or "7/3"', _is_numeral)
CALL = Expect(
    "a [rows, count] pair of positive integers",
    lambda v: isinstance(v, list) and len(v) == 2 and all(POSITIVE_INT.ok(x) for x in v),
)
VALUE_DTYPE = one_of("fp32", "fp16", "bf16")
FIGURE = {"value": Optional(POSITIVE), "source": NAME}

SCHEMAS: dict[str, Schema] = {
    "scenarios.toml": {
        "ffn_chain": {
            "rows": POSITIVE_INT,
            "cols": POSITIVE_INT,
            "dtype": VALUE_DTYPE,
            "quant_dtype": one_of("int8", "fp8"),
        },
        "attention": {
            "seq_len": POSITIVE_INT,
            "head_dim": POSITIVE_INT,
            "dtype": VALUE_DTYPE,
            "score_dtype": VALUE_DTYPE,
            "block_q": POSITIVE_INT,
            "block_k": POSITIVE_INT,
        },
        "online_softmax": {
            "score_exps": ListOf(POSITIVE),
            "values": ListOf(NUMBER),
            "block": POSITIVE_INT,
        },
        "graph_replay": {
            "runs": POSITIVE_INT,
            "kernels_per_run": POSITIVE_INT,
            "fused_kernels_per_run": POSITIVE_INT,
        },
        "bucketing": {
            "calls": ListOf(CALL),
            "buckets": ListOf(POSITIVE_INT),
            "peak_tflops": POSITIVE,
            "peak_device": NAME,
            "d_model": POSITIVE_INT,
            "d_ff": POSITIVE_INT,
            "flop_per_row_factor": POSITIVE_INT,
            "strategies": ListOf(
                {
                    "name": NAME,
                    "article_rate_tflops": Optional(POSITIVE),
                    "bucketed": BOOL,
                    "mfu": FRACTION,
                    "prep_ms": NON_NEGATIVE,
                }
            ),
        },
    },
    "hardware.toml": {
        "devices": MapOf(
            {
                "name": NAME,
                "bf16_dense_tflops": FIGURE,
                "dram_tb_s": FIGURE,
                "l2_mib": FIGURE,
                "smem_per_sm_kib": FIGURE,
                "sm_count": FIGURE,
            }
        ),
    },
    "claims.toml": {
        "claim": ListOf(
            {
                "id": NAME,
                "section": NAME,
                "text": NAME,
                "text_en": NAME,
                "stated": NUMERAL,
                "unit": STRING,
                "unit_en": Optional(NAME),
            }
        ),
    },
    "bench_targets.toml": {
        "live": {"first_result_ms": POSITIVE_INT, "update_ms": POSITIVE_INT},
        "target": ListOf(
            {
                "id": NAME,
                "experiment": NAME,
                "threshold": NUMBER,
                "comparison": one_of(">=", "<="),
                "unit": STRING,
                "seq_len": Optional(POSITIVE_INT),
                "head_dim": Optional(POSITIVE_INT),
                "dtype": Optional(VALUE_DTYPE),
                "device": Optional(NAME),
            }
        ),
        "reference": Optional(
            ListOf({"kind": one_of("cpu", "gpu"), "record": NAME, "reason": NAME})
        ),
    },
}


def _fail(path: Path, key: str, what: str, got: str) -> ConfError:
    return ConfError(f"{path}: {key}: expected {what}, got {got}")


def _walk(schema: Schema, value: Any, key: str, path: Path) -> None:
    if isinstance(schema, Optional):
        _walk(schema.item, value, key, path)
    elif isinstance(schema, Expect):
        if not schema.ok(value):
            raise _fail(path, key, schema.what, repr(value))
    elif isinstance(schema, ListOf):
        if not isinstance(value, list) or not value:
            raise _fail(path, key, schema.what, repr(value))
        for i, item in enumerate(value):
            _walk(schema.item, item, f"{key}[{i}]", path)
    elif isinstance(schema, MapOf):
        if not isinstance(value, dict) or not value:
            raise _fail(path, key, schema.what, repr(value))
        for name, item in value.items():
            _walk(schema.item, item, f"{key}.{name}", path)
    else:
        if not isinstance(value, dict):
            raise _fail(path, key, _what(schema), repr(value))
        for name, sub in schema.items():
            where = f"{key}.{name}" if key else name
            if name in value:
                _walk(sub, value[name], where, path)
            elif not isinstance(sub, Optional):
                raise _fail(path, where, _what(sub), "nothing (the key is missing)")


def _distinct(path: Path, key: str, items: list[Any]) -> None:
    seen = set()
    for item in items:
        if item in seen:
            raise _fail(path, key, "distinct entries", f"{item!r} twice")
        seen.add(item)


def _relations(name: str, data: dict[str, Any], path: Path) -> None:
    """Rules between keys of one file, which the per-key schema cannot state."""
    if name == "scenarios.toml":
        sm, gr, bk = data["online_softmax"], data["graph_replay"], data["bucketing"]
        if len(sm["values"]) != len(sm["score_exps"]):
            raise _fail(
                path,
                "online_softmax.values",
                f"as many entries as score_exps ({len(sm['score_exps'])})",
                str(len(sm["values"])),
            )
        if gr["fused_kernels_per_run"] > gr["kernels_per_run"]:
            raise _fail(
                path,
                "graph_replay.fused_kernels_per_run",
                f"at most kernels_per_run ({gr['kernels_per_run']})",
                str(gr["fused_kernels_per_run"]),
            )
        _distinct(path, "bucketing.buckets", bk["buckets"])
        _distinct(path, "bucketing.strategies[].name", [s["name"] for s in bk["strategies"]])
        largest_call = max(rows for rows, _ in bk["calls"])
        if max(bk["buckets"]) < largest_call:
            raise _fail(
                path,
                "bucketing.buckets",
                f"a bucket that holds the largest call ({largest_call} rows)",
                repr(bk["buckets"]),
            )
    elif name == "claims.toml":
        _distinct(path, "claim[].id", [c["id"] for c in data["claim"]])
    elif name == "bench_targets.toml":
        _distinct(path, "target[].id", [t["id"] for t in data["target"]])
        refs = data.get("reference", [])
        _distinct(path, "reference[].kind", [r["kind"] for r in refs])
        for i, r in enumerate(refs):
            if not r["record"].startswith(f"{r['kind']}-"):
                raise _fail(
                    path,
                    f"reference[{i}].record",
                    f"a record name starting {r['kind']}-",
                    repr(r["record"]),
                )


def validate(name: str, data: dict[str, Any], path: Path) -> dict[str, Any]:
    """Return ``data`` (the parsed ``path``) if it matches the schema of conf file ``name``,
    else raise one ``ConfError`` naming the file, the key and what was expected.

    >>> validate("scenarios.toml", {"ffn_chain": {"rows": -3}}, Path("s.toml"))
    Traceback (most recent call last):
    ...
    infrabook.conf_schema.ConfError: s.toml: ffn_chain.rows: expected a positive integer, got -3
    """
    if name not in SCHEMAS:
        raise ConfError(
            f"{path}: no schema for a conf file named {name!r}: "
            f"expected one of {', '.join(SCHEMAS)}"
        )
    _walk(SCHEMAS[name], data, "", path)
    _relations(name, data, path)
    return data
