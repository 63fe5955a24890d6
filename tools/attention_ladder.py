"""Time every rung of the attention ladder beside every SDPA backend, on one CUDA GPU.

Usage: python tools/attention_ladder.py OUT_DIR

bf16, batch 2, 16 heads, head_dim 128, causal and not, L from 1k to 16k (8k first: the
issue's goal is stated there), each timed with ``triton.testing.do_bench`` (L2 flushed
between runs). Writes ``OUT_DIR/attention-ladder.json``: the device, the library versions,
the date, and per measurement its milliseconds, TFLOP/s and, for a rung, the tile its
autotuner chose. The file is rewritten after every measurement, so a run cut short keeps
what it measured and says it is incomplete. Without a CUDA device it writes nothing, says
why and exits 0. Run by tools/gpu-run.sh within its time budget.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

BATCH, HEADS, HEAD_DIM = 2, 16, 128
LENGTHS = (8192, 16384, 4096, 2048, 1024)
SDPA_BACKENDS = ("CUDNN_ATTENTION", "FLASH_ATTENTION", "EFFICIENT_ATTENTION")
FILE = "attention-ladder.json"


def _write(path: Path, record: dict) -> None:
    # Replace the file whole, so a kill mid-write leaves the previous complete version.
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    """Measure and write the record; 0 also when there is no GPU (nothing written)."""
    parser = argparse.ArgumentParser(prog="tools/attention_ladder.py", description=__doc__)
    parser.add_argument("out", type=Path, help="folder for attention-ladder.json")
    args = parser.parse_args(argv)
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"{str(args.out)!a} is not a folder")
    if not torch.cuda.is_available():
        print("attention_ladder: no CUDA device, so nothing was timed and nothing written")
        return 0

    import torch.nn.functional as F
    import triton
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from triton.testing import do_bench

    from infrabook.attention_sizes import attention_flop
    from infrabook.kernels.attention_ladder import RUNGS, ladder_attention, tuned_tile

    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / FILE
    props = torch.cuda.get_device_properties(0)
    record: dict = {
        "kind": "attention_ladder",
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "device": {
            "name": props.name,
            "capability": f"{props.major}.{props.minor}",
            "sm_count": props.multi_processor_count,
        },
        "versions": {
            "torch": torch.__version__,
            "triton": triton.__version__,
            "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(),
        },
        "shape": {"batch": BATCH, "heads": HEADS, "head_dim": HEAD_DIM, "dtype": "bf16"},
        "lengths": list(LENGTHS),
        "rungs": [{"number": r.number, "name": r.name, "idea": r.idea} for r in RUNGS],
        "results": [],
        "complete": False,
    }
    _write(path, record)
    for seq_len in LENGTHS:
        q, k, v = (
            torch.randn(BATCH, HEADS, seq_len, HEAD_DIM, device="cuda", dtype=torch.bfloat16)
            for _ in range(3)
        )
        for causal in (False, True):
            flop = BATCH * HEADS * attention_flop(seq_len, HEAD_DIM, causal)
            runs: list[tuple[str, Callable[[], object], dict]] = [
                (f"rung {r.number}", partial(ladder_attention, q, k, v, causal, r.number), {})
                for r in RUNGS
            ]
            sdpa = partial(F.scaled_dot_product_attention, q, k, v, is_causal=causal)
            runs += [(f"sdpa {name}", sdpa, {"backend": name}) for name in SDPA_BACKENDS]
            for label, fn, extra in runs:
                row: dict = {"seq_len": seq_len, "causal": causal, "kernel": label, **extra}
                try:
                    if "backend" in extra:
                        with sdpa_kernel([SDPBackend[extra["backend"]]]):
                            ms = do_bench(fn, warmup=10, rep=50)
                    else:
                        ms = do_bench(fn, warmup=10, rep=50)
                        row["tile"] = tuned_tile(int(label.split()[1]))
                    row |= {"ms": ms, "tflops": flop / ms / 1e9}
                except Exception as err:  # a backend this machine lacks: recorded, not fatal
                    row["error"] = f"{type(err).__name__}: {err}"[:300]
                record["results"].append(row)
                _write(path, record)
                print(json.dumps(row), flush=True)
    record["complete"] = True
    _write(path, record)
    print(f"attention_ladder: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
