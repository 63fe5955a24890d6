"""A measurement taken once per docs build and shown by both editions.

The pages time a few things live while the site is built (a scaled-down benchmark, say).
The Chinese and the English edition execute their pages separately, so each would time
again and print other numbers: the same page would disagree with itself across languages.
While a build runs, ``INFRABOOK_MEASURED_DIR`` names a folder (conf.py puts it beside the
execution cache, so it lives exactly as long as the cached outputs do); the first edition
to run a measurement stores its result there and the other reads it back. Outside a docs
build the measurement simply runs.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

ENV = "INFRABOOK_MEASURED_DIR"


def measured_once(fn: Callable[..., T], /, **kwargs: object) -> T:
    """``fn(**kwargs)``, run once per build folder and then read back.

    >>> calls = []
    >>> def timing(size):
    ...     calls.append(size)
    ...     return {"size": size, "ms": 1.5}
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     os.environ[ENV] = d
    ...     first, again = measured_once(timing, size=4), measured_once(timing, size=4)
    ...     del os.environ[ENV]
    >>> first == again, calls
    (True, [4])
    """
    folder = os.environ.get(ENV)
    if not folder:
        return fn(**kwargs)
    # a function by its name; a callable object (a bench Experiment) by its repr
    name = getattr(fn, "__qualname__", None) or repr(fn)
    key = f"{fn.__module__}.{name}({sorted(kwargs.items())!r})"
    path = Path(folder) / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.pickle"
    if path.is_file():
        # written by this build's other edition, in this folder, never by anyone else
        with path.open("rb") as f:
            return pickle.load(f)
    result = fn(**kwargs)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as tmp:
        pickle.dump(result, tmp)
    os.replace(tmp.name, path)
    return result
