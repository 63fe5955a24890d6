"""A calculator's inputs as a reader types them: each :class:`Field` (name, kind, default,
bounds, label) reads its raw text into a value, or refuses it with a :class:`FieldError` in
the reader's language that names the field, so the page can show it beside the field.

The live calculators read the fields with their bounds (an answer in milliseconds in a
reader's browser); the CLI reads the same fields without them (:attr:`Field.unbounded`).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, replace
from typing import Any

from infrabook.bucketing import parse_calls
from infrabook.labels import LABELS, text
from infrabook.quoting import quoted


class FieldError(ValueError):
    """Bad input for one field; ``field`` names it so the page can show the message beside it."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name


#: The largest integer the CLI reads (its fields have no upper bound of their own): sizes are
#: turned into floats and numpy's int64, which a larger one overflows.
CLI_INT_LIMIT = 2**63 - 1


@dataclass(frozen=True)
class Field:
    """One input: its name, kind, default (the article's case) and bounds.

    The bounds keep a live calculator's answer to milliseconds in a reader's browser
    (:meth:`parse`); the CLI reads the same field without them (:attr:`unbounded`).
    """

    name: str
    kind: str  # int, float, choice, bool, floats, calls, ints
    default: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    max_items: int = 32

    @property
    def label(self) -> str:
        """The field's label in the build's language."""
        return text(f"live.field.{self.name}")

    @property
    def name_text(self) -> str:
        """The field's name in its errors: the label, less the help some labels carry (an
        example, "comma-separated") that the error states itself.

        >>> Field("calls", "calls", "256").name_text == text("live.field_name.calls")
        True
        >>> Field("rows", "int", "1").name_text == Field("rows", "int", "1").label
        True
        """
        key = f"live.field_name.{self.name}"
        return text(key) if key in LABELS else self.label

    @property
    def option(self) -> str:
        """The CLI's option for the field.

        >>> Field("seq_len", "int", "8192").option
        '--seq-len'
        """
        return "--" + self.name.replace("_", "-")

    @property
    def unbounded(self) -> Field:
        """The same field without the bounds a browser needs: what the CLI reads, leaving the
        checks to the calculators, so a terminal can ask for any size they accept.

        >>> Field("block", "int", "1", 1, 64).unbounded.parse("4096")
        4096
        >>> Field("block", "int", "1", 1, 64).unbounded.parse("0")
        Traceback (most recent call last):
        ...
        infrabook.calc_fields.FieldError: 每块几个分数：应为正整数，收到 0
        """
        # an integer field with a lower bound counts or sizes something: the calculators
        # refuse less than 1 too, so the CLI says so here, in the reader's language
        counts = self.kind in ("int", "ints", "calls") and (self.low or 0) >= 1
        return replace(self, low=1 if counts else None, high=None, max_items=sys.maxsize)

    def parse(self, raw: str) -> Any:
        """The value in ``raw``, checked against the field's kind and bounds: the live
        calculators' reading, every error a :class:`FieldError` in the reader's language."""
        raw = raw.strip()
        if self.kind == "bool":
            return raw.lower() in ("1", "true", "on", "yes")
        if self.kind == "choice":
            if raw not in self.choices:
                self._fail("live.error.choice", raw, choices=" / ".join(self.choices))
            return raw
        if self.kind == "calls":
            items = raw.split(",")
            if not raw or len(items) > self.max_items:
                self._fail("live.error.items", raw)
            try:
                calls = parse_calls(raw)
            except ValueError:
                self._fail("live.error.calls", raw)
            for rows, count in calls:
                self._bounded(rows, raw)
                if self.high is not None and count > self.high:
                    self._fail("live.error.items", raw)
                self._bounded(count, raw, sizes_only=True)
            return calls
        if self.kind in ("floats", "ints"):
            items = [x.strip() for x in raw.split(",")]
            if not raw or len(items) > self.max_items:
                self._fail("live.error.items", raw)
            return [self._number(x, raw) for x in items]
        return self._number(raw, raw)

    def _number(self, token: str, raw: str) -> Any:
        integer = self.kind in ("int", "ints")
        try:
            value: Any = int(token) if integer else float(token)
        except ValueError:
            self._fail("live.error.int" if integer else "live.error.float", raw)
        if not integer and not math.isfinite(value):
            self._fail("live.error.float", raw)
        return self._bounded(value, raw)

    def _bounded(self, value: Any, raw: str, sizes_only: bool = False) -> Any:
        if self.high is None and isinstance(value, int) and value > CLI_INT_LIMIT:
            self._fail("live.error.large_int", raw, limit=str(CLI_INT_LIMIT))
        if sizes_only:
            return value
        if (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            key = "live.error.int" if isinstance(value, int) else "live.error.float"
            self._fail(key, raw)
        return value

    def _fail(self, key: str, raw: str, **extra: str) -> Any:
        low = bound_text(self.low) if self.low is not None else ""
        high = bound_text(self.high) if self.high is not None else ""
        if self.high is None and key not in ("live.error.choice", "live.error.large_int"):
            # the CLI's unbounded reading
            lists = {"calls": "calls", "ints": "items", "floats": "floats"}
            what = lists.get(self.kind) or key.rsplit(".", 1)[1]
            key = f"live.error.{'positive' if low == '1' else 'read'}_{what}"
        raise FieldError(
            self.name,
            text(
                key,
                label=self.name_text,
                low=low,
                high=high,
                # an unprintable character (a control code, a line break) is shown escaped
                # and a long value cut: the message is one line in a terminal and one
                # short paragraph on a page
                raw=quoted(raw) or text("live.error.empty_raw"),
                items=self.max_items,
                **extra,
            ),
        )


def bound_text(value: float) -> str:
    """A field's bound as a reader writes it, not as Python prints it.

    >>> bound_text(1e-6), bound_text(1e9), bound_text(1048576), bound_text(0.5)
    ('0.000001', '1,000,000,000', '1,048,576', '0.5')
    """
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.12f}".rstrip("0")
