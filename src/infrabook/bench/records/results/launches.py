"""What the launch experiments counted: dispatches (``launches``) and host submissions,
graph launches and kernels (``gpu_graphs``), and what pages derive from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from infrabook.bench.records.entry import Compared, Device, Params, Results
from infrabook.bench.records.results.described import table
from infrabook.bench.records.schema import (
    MAX_ITEMS,
    Checked,
    Count,
    MaxItems,
    Pattern,
    Positive,
    Text,
)
from infrabook.bench.records.timing import Timing
from infrabook.labels import text
from infrabook.launches import article_launch_counts
from infrabook.tables import Table


@dataclass(frozen=True)
class Dispatches(Checked):
    """The operators one configuration dispatched over all runs."""

    dispatches: Count
    ops_first_run: tuple[Text, ...]
    histogram: Annotated[dict[str, Count], MaxItems(MAX_ITEMS)]


@dataclass(frozen=True)
class LaunchResults(Results):
    """Eager and fused, as counted; the article's counts are beside them when read."""

    experiment = "launches"
    runs_on = "cpu"

    PARAMS: ClassVar[dict[str, Any]] = {"runs": Positive}
    eager: Dispatches
    fused: Dispatches

    def compared(self, params: Params, device: Device) -> Compared:
        """Dispatches counted, beside the article's kernel counts."""
        article = {c.name: c.kernels for c in article_launch_counts()}
        counted = (("eager", self.eager), ("fused", self.fused))
        what = {n: text(f"bench.launches.{n}") for n, _ in counted}
        return {
            text("bench.cmp.dispatches", what=what[n]): (article[n], c.dispatches)
            for n, c in counted
        }

    def tables(self, params: Params, device: Device) -> list[Table]:
        """The operators of one run and the counts, beside the article's."""
        article = {c.name: c.kernels for c in article_launch_counts()}
        rows = (
            (text(f"bench.launches.{n}"), " → ".join(c.ops_first_run), c.dispatches, article[n])
            for n, c in (("eager", self.eager), ("fused", self.fused))
        )
        keys = "configuration ops_one_run dispatches article_kernels"
        return [table(text("bench.launches.table", runs=params["runs"]), keys, rows)]


@dataclass(frozen=True)
class Submissions(Checked):
    """What the profiler saw of one configuration's runs, and the host's time for them."""

    host_launches: Count
    graph_launches: Count
    kernels: Count
    by_api: Annotated[dict[str, Count], MaxItems(MAX_ITEMS)]
    kernel_names: Annotated[dict[str, Count], MaxItems(MAX_ITEMS)]
    issue: Timing
    total: Timing

    @property
    def undercounted(self) -> bool:
        """Without a graph every kernel is one host launch: fewer launches than kernels
        means the profiler missed a launch API (Triton 3.6 launches through
        ``cuLaunchKernelEx``, which some profiler versions do not report); ``by_api``
        shows which calls it did see."""
        return self.graph_launches == 0 and self.host_launches != self.kernels


#: What ``gpu_graphs`` runs: the configurations :func:`article_launch_counts` counts.
Configuration = Annotated[
    str, Pattern(r"eager|graph|fused|fused\+graph", "eager, graph, fused or fused+graph")
]


@dataclass(frozen=True)
class GraphResults(Results):
    """``eager``, ``graph``, ``fused`` and ``fused+graph``, in that order."""

    experiment = "gpu_graphs"
    runs_on = "cuda"

    PARAMS: ClassVar[dict[str, Any]] = {"runs": Positive, "reps": Positive}
    configs: dict[Configuration, Submissions]

    def compared(self, params: Params, device: Device) -> Compared:
        """Host submissions and kernels run per configuration, beside the article's counts."""
        a = {c.name: c for c in article_launch_counts()}
        rows: Compared = {}
        for n, c in self.configs.items():
            host = c.host_launches + c.graph_launches
            rows[text("bench.cmp.host", what=n)] = (a[n].host_submissions, host)
            rows[text("bench.cmp.kernels", what=n)] = (a[n].kernels, c.kernels)
        return rows

    def tables(self, params: Params, device: Device) -> list[Table]:
        """Counts and host times beside the article's counts."""
        a = {c.name: c for c in article_launch_counts()}
        rows = (
            (n, c.host_launches, c.graph_launches, c.kernels, a[n].host_submissions)
            + (a[n].kernels, c.issue.us, c.total.us)
            for n, c in self.configs.items()
        )
        keys = "configuration host_launches graph_launches device_kernels article_host"
        title = text("bench.graphs.table", runs=params["runs"])
        return [table(title, keys + " article_kernels issue_us total_us", rows)]
