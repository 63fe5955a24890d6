"""Plain JSON values from the package's results, for the CLI's ``--json`` and the benchmark
records (which are read back by :data:`infrabook.bench.records.store.CONVERTER`)."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any


def jsonable(obj: Any, where: str | None = None) -> Any:
    """``obj`` as plain JSON values, for ``json.dumps(..., allow_nan=False)``.

    - dict: a dict with ``str`` keys; list and tuple: a list; converted all the way down.
    - A dataclass instance: the dict of its fields (:func:`dataclasses.asdict`).
    - :class:`~fractions.Fraction`: its exact text, ``"7/3"`` (a float would round it).
    - numpy and torch scalars and arrays: Python numbers and lists (their ``tolist()``).
    - inf, -inf and nan, also from numpy: None (JSON's null). JSON has no such numbers,
      and null keeps a numeric field a number or nothing, never a string. With ``where``
      (the name of ``obj``), they raise ``ValueError`` naming the field instead: a record
      whose field must be a number would be written and then refused when read.
    - bool, int, finite float, str and None: as they are (a float subclass as a float).
    - Anything else: ``TypeError`` naming it, so a bad value fails before any file is touched.

    The article's online-softmax result stays exact, and the open end of the last
    crossover regime becomes null:

    >>> import numpy as np
    >>> from infrabook.crossover import Regime
    >>> jsonable({"result": Fraction(7, 3), "regime": Regime(89.3, float("inf"), "specialised")})
    {'result': '7/3', 'regime': {'start': 89.3, 'end': None, 'best': 'specialised'}}
    >>> jsonable({1: (np.float32(0.5), np.float64("nan")), "a": np.arange(2)})
    {'1': [0.5, None], 'a': [0, 1]}
    >>> jsonable({"rows": [{"diff": float("nan")}]}, "gpu_flash")
    Traceback (most recent call last):
    ...
    ValueError: gpu_flash.rows[0].diff is nan: only finite numbers can be stored
    """
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return jsonable(dataclasses.asdict(obj), where)
    if isinstance(obj, dict):
        return {str(k): jsonable(v, where and f"{where}.{k}") for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v, where and f"{where}[{i}]") for i, v in enumerate(obj)]
    if obj is None or isinstance(obj, bool | int | str):
        return obj
    if isinstance(obj, float):
        if math.isfinite(obj):
            return float(obj)
        if where is not None:
            raise ValueError(f"{where} is {obj}: only finite numbers can be stored")
        return None
    if isinstance(obj, Fraction):
        return str(obj)
    tolist = getattr(obj, "tolist", None)  # numpy and torch scalars and arrays
    if callable(tolist):
        return jsonable(tolist(), where)
    raise TypeError(f"cannot store {type(obj).__name__} as JSON: {obj!r}")
