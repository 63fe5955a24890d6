"""The experiment decorator: one declaration per experiment, with its sizes and results type
(:mod:`infrabook.bench.experiments.suite` lists them), and what experiments share.

Calling an :class:`Experiment` runs it and wraps what it measured in an
:class:`~infrabook.bench.records.entry.Entry` whose parameters are the call's arguments, defaults
included, with what the function adds.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from infrabook.bench.measure import cuda, host
from infrabook.bench.records import validate
from infrabook.bench.records.entry import Entry, Results, Target
from infrabook.bench.records.results.described import title
from infrabook.serialise import jsonable

log = logging.getLogger("infrabook.bench")

#: Where an experiment runs: the host CPU, or a CUDA GPU (skipped without one).
Device = Literal["cpu", "cuda"]


@dataclass(frozen=True)
class Measured:
    """What an experiment's function returns; ``params`` adds to the call's arguments what
    was derived from them (a dtype, a thread count, scaled sizes)."""

    results: Results
    targets: tuple[Target, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(repr=False)
class Experiment:
    """A declared experiment: call it to measure."""

    name: str
    device: Device
    run: Callable[..., Measured]
    results: type[Results]
    full: dict[str, Any]
    quick: dict[str, Any]
    limit_s: float

    def __post_init__(self) -> None:
        self.__doc__ = self.run.__doc__

    def __repr__(self) -> str:
        return f"Experiment({self.name!r})"

    @property
    def title(self) -> str:
        """The title pages show, in the build's language."""
        return title(self.name)

    def __call__(self, quick: bool = True, **sizes: Any) -> Entry:
        """Run at the quick sizes (a page's live run) or the full ones, ``sizes`` overriding.

        A GPU experiment takes ``rig`` (device and timers;
        :func:`infrabook.bench.measure.cuda.rig` by default); without CUDA it returns a skipped
        entry that says why.
        """
        kwargs = (self.quick if quick else self.full) | sizes
        started = time.perf_counter()
        device = None  # the host CPU's description, unless a GPU rig describes its device
        if self.device == "cuda":
            if kwargs.get("rig") is None:
                reason = cuda.unavailable_reason()
                if reason:
                    log.info("%s: skipped, %s", self.name, reason)
                    prov = host.provenance(host.cpu_info(), quick=quick)
                    return Entry(self.name, "skipped", reason, prov)
                kwargs["rig"] = cuda.rig()
            device = kwargs["rig"].info
        call = inspect.signature(self.run).bind(**kwargs)
        call.apply_defaults()
        prov = host.provenance(device or host.cpu_info(), quick=quick)
        # a provenance the record would refuse stops the run before anything is measured
        unmeasured = Entry(self.name, "skipped", "not run yet", prov)
        validate.check_entry(jsonable(unmeasured, self.name), {self.name: self.results})
        m = self.run(**kwargs)
        elapsed = round(time.perf_counter() - started, 3)
        params = {k: v for k, v in call.arguments.items() if k != "rig"} | m.params
        return Entry(self.name, "ok", None, prov, params, m.results, m.targets, elapsed)


def experiment(
    results: type[Results],
    *,
    full: Mapping[str, Any],
    quick: Mapping[str, Any] | None = None,
    limit_s: float = 600.0,
) -> Callable[[Callable[..., Measured]], Experiment]:
    """Declare an experiment named after the function that measures, which must be the
    name its results type states (as must the device it runs on): its full and quick sizes
    (the full ones unless given), and the seconds after which a run in its own process is
    killed (``python -m infrabook.bench --isolate``)."""

    def declare(run: Callable[..., Measured]) -> Experiment:
        if results.experiment != run.__name__:
            raise ValueError(f"{results.__name__} is the results of {results.experiment!r}")
        sizes = dict(full), dict(full if quick is None else quick)
        return Experiment(run.__name__, results.runs_on, run, results, *sizes, limit_s)

    return declare


def first_line(err: BaseException) -> str:
    """An error's type and first line, for a record: folders in it (a compiler's cache path
    names the user) are cut to ``…/``, since a record holds no path.

    >>> first_line(OSError("cannot open /tmp/torchinductor_ada/x.cpp\\nmore"))
    'OSError: cannot open …/x.cpp'
    """
    lines = str(err).strip().splitlines()
    first = validate.PATH.sub("…/", lines[0] if lines else "")
    return f"{type(err).__name__}: {first}"[:300]
