"""What the attention ladder's rungs compile to for a Hopper GPU (sm_90), without one.

:func:`compile_rung` compiles a rung's kernel for ``GPUTarget("cuda", 90, 32)`` the way a
launch on an H100 or H200 would (pointers and the sequence length specialised as 16-aligned,
as Triton does for a real launch at such a length), and reports what a reader checks in the
compiled code: registers per thread and spilled bytes (from ``ptxas -v`` on the PTX), shared
memory (the compiled kernel's metadata), and how often each instruction of
:data:`EVIDENCE` occurs in the PTX.

The compile runs in a child process with ``TRITON_INTERPRET=0``: in the interpreter a
``@triton.jit`` function is no longer compilable, and which mode a kernel is in is fixed
when its module is imported.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

#: The PTX that shows each rung's idea: TMA bulk tensor copies (rung 1), warp-group
#: register reallocation of warp specialization on Hopper (rung 2), and the Hopper
#: tensor-core instruction every rung's dots should become.
EVIDENCE = {
    "tma": "cp.async.bulk.tensor",
    "setmaxnreg": "setmaxnreg",
    "wgmma": "wgmma.mma_async",
}

_ARCH = 90
_POINTERS = ("q_ptr", "k_ptr", "v_ptr", "o_ptr")


@dataclass(frozen=True)
class Compiled:
    """A rung compiled for sm_90: its tile, registers per thread, bytes spilled (stores),
    shared memory in bytes, and the count of each :data:`EVIDENCE` pattern in the PTX."""

    rung: int
    dtype: str
    causal: bool
    tile: tuple[int, int, int, int]
    registers: int
    spill_bytes: int
    shared_bytes: int
    evidence: dict[str, int]


def _ptxas_report(ptx: str, ptxas: str) -> tuple[int, int]:
    """Registers per thread and spill-store bytes, from ``ptxas -v`` on ``ptx``."""
    arch = re.search(r"^\.target\s+(\S+)", ptx, re.MULTILINE)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "kernel.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        done = subprocess.run(
            [ptxas, "-v", f"--gpu-name={arch.group(1) if arch else 'sm_90a'}", src],
            capture_output=True,
            text=True,
            cwd=tmp,
            check=False,
        )
    log = done.stdout + done.stderr
    if done.returncode != 0:
        raise RuntimeError(f"ptxas failed:\n{log}")
    # The kernel's own report follows "Compiling entry function"; a helper function that
    # was not inlined would have its report first.
    entry = log[log.find("Compiling entry function") :]
    registers = re.search(r"Used (\d+) registers", entry)
    spills = re.search(r"(\d+) bytes spill stores", entry)
    if registers is None or spills is None:
        raise RuntimeError(f"ptxas -v gave no register or spill report:\n{log}")
    return int(registers.group(1)), int(spills.group(1))


def _child(rung: int, dtype: str, causal: bool, tile: tuple[int, int, int, int]) -> dict:
    """Compile in this process (TRITON_INTERPRET=0); the report as a dict."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from infrabook.kernels import attention_ladder
    from infrabook.kernels.flash_attention import _flash_attention_kernel

    block_m, block_n, warps, stages = tile
    head_dim = 128
    consts = {
        "CAUSAL": causal,
        "HEAD_DIM": head_dim,
        "BLOCK_M": block_m,
        "BLOCK_N": block_n,
        "BLOCK_D": head_dim,
        "WIDEN": False,
    }
    ints = ["seq_len"]
    if rung == 0:
        kernel = _flash_attention_kernel
    else:
        kernel = attention_ladder._ladder_kernel
        consts |= attention_ladder.rung_flags(rung)
        ints.append("n_heads")
    names = list(kernel.arg_names)
    signature = {
        name: "constexpr"
        if name in consts
        else f"*{dtype}"
        if name in _POINTERS
        else "*fp32"
        if name == "lse_ptr"
        else "i32"
        if name in ints
        else "fp32"
        for name in names
    }
    aligned = [*_POINTERS, "lse_ptr", "seq_len"]
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in aligned}
    compiled = triton.compile(
        ASTSource(kernel, signature, consts, attrs),
        target=GPUTarget("cuda", _ARCH, 32),
        options={"num_warps": warps, "num_stages": stages},
    )
    ptx = compiled.asm["ptx"]
    # The ptxas Triton itself used for this target: which bundled one that is differs
    # between releases (3.9 takes its newer "ptxas-blackwell" for sm_90 too).
    from triton.backends.nvidia import compiler as nvidia

    chosen = nvidia.get_ptxas(_ARCH) if hasattr(nvidia, "get_ptxas") else None
    ptxas_path = getattr(chosen, "path", None) or shutil.which("ptxas")
    if ptxas_path is None:
        raise RuntimeError("no ptxas: neither Triton's own nor one on PATH")
    registers, spills = _ptxas_report(ptx, ptxas_path)
    return {
        "registers": registers,
        "spill_bytes": spills,
        "shared_bytes": int(compiled.metadata.shared),
        "evidence": {key: ptx.count(pattern) for key, pattern in EVIDENCE.items()},
    }


def _check_spec(rung: int, dtype: str, tile: tuple[int, int, int, int] | None) -> None:
    """Raise ``ValueError`` unless ``rung``, ``dtype`` and ``tile`` can be compiled."""
    from infrabook.kernels.attention_ladder import RUNG_TILES

    if rung not in RUNG_TILES:
        raise ValueError(f"compile_rung: rung must be one of {sorted(RUNG_TILES)}, got {rung!r}")
    if dtype not in {"bf16", "fp16", "fp32"}:
        raise ValueError(f"compile_rung: dtype must be bf16, fp16 or fp32, got {dtype!r}")
    if tile is not None and (len(tile) != 4 or not all(isinstance(x, int) for x in tile)):
        raise ValueError(
            f"compile_rung: tile must be (BLOCK_M, BLOCK_N, num_warps, num_stages), got {tile!r}"
        )


def compile_rungs(
    specs: list[tuple[int, str, bool, tuple[int, int, int, int]]],
) -> list[Compiled]:
    """Compile each (rung, dtype, causal, tile) of ``specs`` for sm_90 at head_dim 128, all
    in one child process (importing torch and Triton takes longer than a compile); the
    reports in the same order. ``RuntimeError`` naming the first spec that did not compile."""
    for rung, dtype, _, tile in specs:
        _check_spec(rung, dtype, tile)
    payload = json.dumps([[r, d, c, list(t)] for r, d, c, t in specs])
    env = os.environ | {"TRITON_INTERPRET": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "infrabook.kernels.compiled", payload],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"compile_rung: the sm_90 compile failed:\n{done.stderr}")
    reports = json.loads(done.stdout.strip().splitlines()[-1])
    compiled = []
    for (rung, dtype, causal, tile), report in zip(specs, reports, strict=True):
        if "error" in report:
            raise RuntimeError(
                f"compile_rung: rung {rung} ({dtype}, causal {causal}, tile {tile}) did not "
                f"compile for sm_90:\n{report['error']}"
            )
        compiled.append(
            Compiled(rung, dtype, causal, (tile[0], tile[1], tile[2], tile[3]), **report)
        )
    return compiled


def compile_rung(
    rung: int,
    dtype: str = "bf16",
    causal: bool = False,
    tile: tuple[int, int, int, int] | None = None,
) -> Compiled:
    """Compile ``rung`` of the attention ladder for sm_90 at head_dim 128, in ``dtype``
    ("bf16", "fp16" or "fp32"), with ``tile`` = (BLOCK_M, BLOCK_N, num_warps, num_stages),
    by default the rung's largest autotuning tile; takes seconds, needs no GPU."""
    from infrabook.kernels.attention_ladder import RUNG_TILES

    _check_spec(rung, dtype, tile)
    return compile_rungs([(rung, dtype, causal, tile or max(RUNG_TILES[rung]))])[0]


def _children(specs: list[list]) -> list[dict]:
    """Each spec's report, or its error: one spec failing keeps the others' reports."""
    reports = []
    for rung, dtype, causal, tile in specs:
        try:
            reports.append(_child(rung, dtype, causal, tuple(tile)))
        except Exception as err:  # reported to the parent, which names the spec
            reports.append({"error": f"{type(err).__name__}: {err}"})
    return reports


if __name__ == "__main__":
    print(json.dumps(_children(json.loads(sys.argv[1]))))
