"""What the persistent-kernel experiment measured (``gpu_persistent``), and what pages
derive from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from infrabook.bench.records.entry import Compared, Device, Params, Results
from infrabook.bench.records.results.described import datasheet, table
from infrabook.bench.records.schema import Checked, ModelBytes, Positive
from infrabook.bench.records.timing import Timing
from infrabook.labels import text
from infrabook.tables import Table


@dataclass(frozen=True)
class Variant(Checked):
    """One way to launch the same tile body; ``stages``: tiles each program keeps in
    flight (a software-pipelined loop; 1, and absent from records before 2026-12-05,
    for a loop that waits for each tile)."""

    programs: Positive
    tiles: Positive
    timing: Timing
    equal_to_per_tile: bool
    stages: Positive = 1


@dataclass(frozen=True)
class PersistentResults(Results):
    """Each launch variant, and the fused model's bytes they move."""

    experiment = "gpu_persistent"
    runs_on = "cuda"

    PARAMS: ClassVar[dict[str, Any]] = {"shape": tuple[Positive, ...]}
    model_bytes: ModelBytes
    variants: dict[str, Variant]

    def __post_init__(self) -> None:
        super().__post_init__()
        for name, v in self.variants.items():
            v.timing.check_rate(self.model_bytes, f"PersistentResults.variants.{name}.timing")

    def compared(self, params: Params, device: Device) -> Compared:
        """Each variant's bandwidth as a share of the GPU's datasheet DRAM bandwidth (model:
        100 %, a memory-bound kernel at DRAM speed; only for a GPU ``conf/`` has a profile
        of, else its GB/s without a model)."""
        dram = datasheet(device, "dram_tb_s")
        rows: Compared = {}
        for n, v in self.variants.items():
            gb_s = v.timing.gb_s(self.model_bytes)
            if dram:
                rows[text("bench.cmp.pct_dram", what=n)] = (100.0, 100 * gb_s / (dram * 1e3))
            else:
                rows[text("bench.cmp.gb_s", what=n)] = (None, gb_s)
        return rows

    def tables(self, params: Params, device: Device) -> list[Table]:
        """One row per variant."""
        rows = (
            (n, v.programs, v.tiles, v.timing.us, v.timing.gb_s(self.model_bytes))
            + (v.equal_to_per_tile,)
            for n, v in self.variants.items()
        )
        rows_, cols = params["shape"]
        title = text("bench.persistent.table", rows=rows_, cols=cols)
        return [table(title, "variant programs tiles median_us gb_s bitwise_equal", rows)]
