"""The persistent kernel: one program per tile against a persistent grid, the same tile
body (GPU only)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import torch

from infrabook import config
from infrabook.bench.cuda import Rig, bf16, datasheet
from infrabook.bench.entry import Compared, Params, Results
from infrabook.bench.experiment import Measured, experiment, log, table
from infrabook.bench.timing import Timing
from infrabook.dataflow import account, fully_fused
from infrabook.ffn_chain import activation_chain
from infrabook.labels import text
from infrabook.tables import Table

_CHAIN = config.scenarios().ffn_chain


@dataclass(frozen=True)
class Variant:
    """One way to launch the same tile body."""

    programs: int
    tiles: int
    timing: Timing
    equal_to_per_tile: bool


@dataclass(frozen=True)
class PersistentResults(Results):
    """Each launch variant, and the fused model's bytes they move."""

    model_bytes: int
    variants: dict[str, Variant]

    def compared(self, params: Params, device: Params) -> Compared:
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

    def tables(self, params: Params, device: Params) -> list[Table]:
        """One row per variant."""
        rows = (
            (n, v.programs, v.tiles, v.timing.us, v.timing.gb_s(self.model_bytes))
            + (v.equal_to_per_tile,)
            for n, v in self.variants.items()
        )
        rows_, cols = params["shape"]
        title = text("bench.persistent.table", rows=rows_, cols=cols)
        return [table(title, "variant programs tiles median_us gb_s bitwise_equal", rows)]


_SHAPE = {"shape": (_CHAIN.rows, _CHAIN.cols)}


@experiment("cuda", PersistentResults, full=_SHAPE, limit_s=45)
def gpu_persistent(rig: Rig, shape: tuple[int, int]) -> Measured:
    """One program per tile against a persistent grid (one program per SM, 4 per SM, and as
    many as the SMs hold at once, the kernel's default).

    Same tile body, bf16, L2 flushed; GB/s from the fused model (72 MiB at the article's shape).
    """
    from infrabook.kernels import Launch, swiglu_per_tile, swiglu_persistent

    g, u = bf16(rig, *shape)
    graph = activation_chain(*shape, "bf16")
    sms = rig.info["sm_count"]
    launchers: dict[str, Callable[[], Launch]] = {
        "per_tile": partial(swiglu_per_tile, g, u),
        "persistent_1x_sm": partial(swiglu_persistent, g, u, num_programs=sms),
        "persistent_4x_sm": partial(swiglu_persistent, g, u, num_programs=4 * sms),
        # the kernel's default: as many programs as the SMs hold at once
        "persistent_resident": partial(swiglu_persistent, g, u),
    }
    z_ref = launchers["per_tile"]().z
    variants = {}
    for name, fn in launchers.items():
        log.info("gpu_persistent: %s ...", name)
        launch = fn()
        equal = bool(torch.equal(launch.z, z_ref))
        variants[name] = Variant(launch.programs, launch.tiles, rig.flushed(fn), equal)
    return Measured(
        PersistentResults(account(graph, fully_fused(graph)).traffic, variants),
        params={"dtype": "bf16", "sm_count": sms},
    )
