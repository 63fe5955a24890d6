"""Plain JSON values from the package's results and back, for the CLI's ``--json`` and the
benchmark records."""

from __future__ import annotations

import dataclasses
import math
import types
import typing
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


def from_jsonable(hint: Any, data: Any, where: str) -> Any:
    """The inverse of :func:`jsonable`: parsed JSON ``data`` as a value of type ``hint`` (a
    dataclass, ``X | None``, ``list``, ``tuple[X, ...]``, ``dict[str, X]``, a scalar or
    ``Any``), checked all the way down; ``ValueError`` naming ``where`` it is wrong.

    >>> from infrabook.crossover import Regime
    >>> regime = Regime(65.2, 78.0, "bucketed")
    >>> from_jsonable(Regime, jsonable(regime), "regime") == regime
    True
    >>> from_jsonable(dict[str, int], {"a": "3"}, "x")
    Traceback (most recent call last):
    ...
    ValueError: x.a must be int, got '3'
    """
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return data
    if dataclasses.is_dataclass(hint):
        if not isinstance(data, dict):
            raise ValueError(f"{where} must be an object, got {type(data).__name__}")
        hints, fields = typing.get_type_hints(hint), {f.name: f for f in dataclasses.fields(hint)}
        if set(data) - set(fields):
            raise ValueError(f"{where} has unknown fields {sorted(set(data) - set(fields))}")
        for name, f in fields.items():
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            if required and name not in data:
                raise ValueError(f"{where} lacks the field {name!r}")
        kwargs = {k: from_jsonable(hints[k], v, f"{where}.{k}") for k, v in data.items()}
        return typing.cast(Any, hint)(**kwargs)
    if origin in (types.UnionType, typing.Union):
        if data is None and type(None) in args:
            return None
        (inner,) = (a for a in args if a is not type(None))
        return from_jsonable(inner, data, where)
    if origin in (list, tuple, dict):
        if not isinstance(data, dict if origin is dict else list):
            kind = "an object" if origin is dict else "a list"
            raise ValueError(f"{where} must be {kind}, got {type(data).__name__}")
        if isinstance(data, dict):
            return {k: from_jsonable(args[1], v, f"{where}.{k}") for k, v in data.items()}
        items = [from_jsonable(args[0], v, f"{where}[{i}]") for i, v in enumerate(data)]
        return tuple(items) if origin is tuple else items
    wanted = (int, float) if hint is float else hint
    if not isinstance(data, wanted) or (isinstance(data, bool) and hint is not bool):
        raise ValueError(f"{where} must be {hint.__name__}, got {data!r}")
    return data
