"""The persistent kernel: one program per tile against a persistent grid, the same tile
body (GPU only)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import torch

from infrabook import config
from infrabook.bench.experiments.base import Measured, experiment, log
from infrabook.bench.measure.cuda import Rig, bf16
from infrabook.bench.records.results.persistent import PersistentResults, Variant
from infrabook.dataflow import account, fully_fused
from infrabook.ffn_chain import activation_chain

_CHAIN = config.scenarios().ffn_chain


_SHAPE = {"shape": (_CHAIN.rows, _CHAIN.cols)}


@experiment(PersistentResults, full=_SHAPE, limit_s=30)  # 1.5 s on the H200 (2026-12-04)
def gpu_persistent(rig: Rig, shape: tuple[int, int]) -> Measured:
    """One program per tile against a persistent grid (one program per SM, 4 per SM, and as
    many as the SMs hold at once, the kernel's default).

    Same tile body, bf16, L2 flushed; GB/s from the fused model (72 MiB at the article's shape).
    """
    from infrabook.kernels import Launch, swiglu_per_tile, swiglu_persistent

    g, u = bf16(rig, *shape)
    graph = activation_chain(*shape, "bf16")
    sms = rig.info.sm_count
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
