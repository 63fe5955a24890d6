"""Chapter 3's attention ladder: each rung's changed lines, its sm_90 compilation and its
measured speed, for the page's hidden cells.

The lines a rung changes are read from the kernel's source (the blocks under the rung's
flag in :mod:`infrabook.kernels.attention_ladder`), never pasted into the page; the compiled
evidence comes from :func:`infrabook.kernels.compiled.compile_rung`, run once per docs build
(:func:`infrabook.measured_once`) because each compile takes many seconds; the speeds come
from the reference GPU record.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from typing import Any

from infrabook import config
from infrabook.kernels.compiled import EVIDENCE
from infrabook.labels import text
from infrabook.tables import Table

#: Each rung's flag in the ladder's kernel (rung 0 has none: it is the book's kernel).
FLAGS = {1: "TMA", 2: "WARP_SPECIALIZE", 3: "PERSISTENT", 4: "HEAVY_FIRST"}
_TOOLING = re.compile(r"\s+# (fmt|noqa)\b.*$")
#: The device whose shared memory per SM the compiled rungs are held against.
DEVICE = "h200"
#: The length the issue's goal is stated at, non-causal, as in the record.
GOAL_EXPERIMENT = "gpu_flash_vs_sdpa_8192"


def rungs() -> list[str]:
    """The rungs the page shows, bottom first, by their names in code.

    >>> rungs()[:2]
    ['baseline', 'tma']
    """
    from infrabook.kernels.attention_ladder import RUNGS

    return [r.name for r in RUNGS]


def _blocks(source: str, flag: str) -> list[str]:
    """The lines of ``source`` that ``flag`` selects: an ``if`` on it with the block under
    it (up to its ``else``), and a keyword argument set to it; comment lines left out."""
    lines = source.splitlines()
    found: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.search(rf"^\s*if\b.*\b{flag}\b|=\s*{flag}\b", line):
            block = [line]
            if line.strip().startswith("if "):
                depth = len(line) - len(line.lstrip())
                i += 1
                while i < len(lines) and (
                    not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > depth
                ):
                    block.append(lines[i])
                    i += 1
            # the formatter's and linter's markers say nothing to a reader
            kept = [_TOOLING.sub("", b) for b in block if not b.strip().startswith("#")]
            found.append(textwrap.dedent("\n".join(kept)).rstrip())
        i += 1
    return found


def rung_source(rung: int) -> str:
    """The kernel lines ``rung`` adds, each block headed by the function it is in; for
    rung 0, the pointer loads and program ids that the rungs above replace.

    >>> print(rung_source(2))
    # attention_inner
    for start_n in tl.range(lo, hi, BLOCK_N, warp_specialize=WARP_SPECIALIZE):
    >>> "k_src.load" in rung_source(1), "tl.program_id(0)" in rung_source(0)
    (True, True)
    """
    from infrabook.kernels import _attention, attention_ladder
    from infrabook.kernels.flash_attention import _flash_attention_kernel

    parts = []
    if rung == 0:
        for fn in (_flash_attention_kernel, _attention.query_tile, _attention.attention_inner):
            src = inspect.getsource(fn.fn)
            picked = [
                line.strip()
                for line in src.splitlines()
                if "tl.program_id(" in line or re.search(r"= tl\.load\(", line)
            ]
            if picked:
                parts.append("\n".join([f"# {fn.fn.__name__}", *picked]))
        return "\n\n".join(parts)
    for fn in (_attention.attention_inner, _attention.query_tile, attention_ladder._ladder_kernel):
        blocks = _blocks(inspect.getsource(fn.fn), FLAGS[rung])
        if blocks:
            parts.append("\n".join([f"# {fn.fn.__name__}", *blocks]))
    return "\n\n".join(parts)


def source_markdown(rung: int) -> str:
    """:func:`rung_source` as a fenced Python block for a page.

    >>> source_markdown(3).splitlines()[0]
    '```python'
    """
    return f"```python\n{rung_source(rung)}\n```"


def evidence_tile(rung: int) -> tuple[int, int, int, int]:
    """The tile a rung is compiled with on the page: its largest (``compile_rung``'s
    default, the bf16 winner one expects on a Hopper GPU), or, for a warp-specialized rung,
    its 4-warp tile with the narrowest key block (the only tiles where specialization takes
    effect, the narrowest needing the least shared memory).

    >>> evidence_tile(0), evidence_tile(2)
    ((128, 128, 8, 2), (128, 32, 4, 2))
    """
    from infrabook.kernels.attention_ladder import RUNG_TILES, rung_flags

    tiles = RUNG_TILES[rung]
    if rung and rung_flags(rung)["WARP_SPECIALIZE"]:
        return min((t for t in tiles if t[2] == 4), key=lambda t: t[1])
    return max(tiles)


def _compile_all() -> list[Any]:
    from infrabook.kernels.compiled import compile_rung

    return [
        compile_rung(rung, "bf16", causal=rung == 4, tile=evidence_tile(rung))
        for rung in range(len(rungs()))
    ]


def compiled() -> list[Any]:
    """Every rung compiled for sm_90 (bf16, head_dim 128; rung 4 causal, as it only acts
    there), once per docs build."""
    from infrabook.measured_once import measured_once

    return measured_once(_compile_all)


def evidence(reports: list[Any]) -> tuple[Table, dict[str, str]]:
    """The compiled rungs (``reports``, from :func:`compiled`) as a table, and the values
    the prose quotes: the shared memory an SM has and the rungs that ask for more.

    >>> from infrabook.kernels.compiled import Compiled
    >>> ev = {"tma": 0, "setmaxnreg": 0, "wgmma": 32}
    >>> r = [Compiled(n, "bf16", n == 4, (128, 64, 4, 2), 168, 0, 240 * 1024, ev) for n in range(5)]
    >>> table, values = evidence(r)
    >>> values["c3l_smem_kib"], values["c3l_over"], len(table.columns), len(table.rows)
    ('228', '0, 1, 2, 3, 4', 6, 7)
    """
    limit = config.device(DEVICE).smem_per_sm_kib.value
    names = rungs()
    # one column a rung, one row a quantity: five narrow columns fit a phone's text column
    quantities = (
        (text("prose.ladder.col.tile"), lambda r: "×".join(str(x) for x in r.tile)),
        (text("prose.ladder.col.registers"), lambda r: r.registers),
        (text("prose.ladder.col.spills"), lambda r: r.spill_bytes),
        (text("prose.ladder.col.smem", kib=f"{limit:g}"), lambda r: round(r.shared_bytes / 1024)),
        *((EVIDENCE[key], lambda r, key=key: r.evidence[key]) for key in EVIDENCE),
    )
    over = [str(r.rung) for r in reports if r.shared_bytes / 1024 > limit]
    table = Table(
        "",
        (text("prose.ladder.col.rung"), *(f"{r.rung} {names[r.rung]}" for r in reports)),
        tuple((name, *(value(r) for r in reports)) for name, value in quantities),
        formats=("",) + ("d",) * len(reports),
    )
    by = {r.rung: r for r in reports}
    return table, {
        "c3l_smem_kib": f"{limit:g}",
        "c3l_over": ", ".join(over) if over else text("prose.ladder.none"),
        "c3l_regs_0": str(by[0].registers),
        "c3l_regs_1": str(by[1].registers),
        "c3l_tma_1": str(by[1].evidence["tma"]),
        "c3l_setmaxnreg_2": str(by[2].evidence["setmaxnreg"]),
        "c3l_smem_2": f"{by[2].shared_bytes / 1024:.0f}",
        "c3l_smem_3": f"{by[3].shared_bytes / 1024:.0f}",
        "c3l_tile_p": "×".join(str(x) for x in by[3].tile),
        "c3l_tile_ws": "×".join(str(x) for x in by[2].tile),
    }


def _at_goal(folder: Any) -> tuple[Any, Any, str]:
    """The reference GPU record's gpu_flash entry, its row at the goal's length and the
    device's name."""
    from infrabook.bench.records.results.described import profile_for
    from infrabook.prose import reference_entry

    entry = reference_entry("gpu_flash", folder)
    goal = config.bench_targets()[GOAL_EXPERIMENT]
    at = next(r for r in entry.results.per_seq_len if r.seq_len == goal.seq_len)
    spec = profile_for(entry.provenance.device.name)
    return entry, at, spec.name if spec else entry.provenance.device.name


def measured(folder: Any = None) -> dict[str, float]:
    """TFLOP/s of each rung the reference GPU record measured at the goal's length,
    non-causal, by rung name: today rung 0 alone, the book's kernel (``gpu_flash``).

    >>> measured()
    {'baseline': 476.8...}
    """
    _, at, _ = _at_goal(folder)
    return {rungs()[0]: at.tflop_s("flash")}


def speeds(folder: Any = None) -> dict[str, str]:
    """The values the prose quotes about the rungs' speed at the goal's length, non-causal:
    how many rungs were measured, rung 0's TFLOP/s and SDPA's default backend's.

    >>> v = speeds()
    >>> v["c3l_measured"], v["c3l_rung0_tflops"], v["c3l_sdpa_backend"]
    ('1', '477', 'CUDNN_ATTENTION')
    """
    entry, at, device = _at_goal(folder)
    names = rungs()
    done = measured(folder)
    sdpa = at.tflop_s("sdpa")
    return {
        "c3l_dev": device,
        "c3l_dtype": entry.params["dtype"],
        "c3l_batch": str(at.batch),
        "c3l_heads": str(entry.params["heads"]),
        "c3l_dim": str(entry.params["head_dim"]),
        "c3l_measured": str(len(done)),
        "c3l_rungs": str(len(names)),
        "c3l_L": f"{at.seq_len:,}",
        "c3l_rung0_tflops": f"{done[names[0]]:.0f}",
        "c3l_sdpa_backend": at.sdpa_backend,
        "c3l_sdpa_tflops": f"{sdpa:.0f}",
        "c3l_ratio": f"{done[names[0]] / sdpa:.2f}",
    }


def figures(folder: Any = None) -> dict[str, Any]:
    """The ladder's figure: the measured rungs' TFLOP/s as bars, the others written "not
    yet measured", SDPA's default backend in the same run as a line.

    >>> sorted(figures())
    ['fig_ladder']
    """
    from infrabook.plots.ladder import ladder_bars

    entry, at, device = _at_goal(folder)
    title = text(
        "prose.ladder.fig_title",
        device=device,
        dtype=entry.params["dtype"],
        length=f"{at.seq_len:,}",
    )
    line = f"SDPA ({at.sdpa_backend})"
    return {"fig_ladder": ladder_bars(rungs(), measured(folder), {line: at.tflop_s("sdpa")}, title)}
