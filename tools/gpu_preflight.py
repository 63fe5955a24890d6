"""Before the GPU experiments: print the versions, the GPU and the SDPA backend PyTorch
picks at the FlashAttention target's shape, and refuse, in one line, to go on when the
kernels would run in Triton's interpreter on a GPU, or when a record of this GPU would not
be written (a dry merge of its provenance into a temporary folder: the first GPU run
measured everything and kept nothing). Run by ``tools/gpu-run.sh``; on a machine without
CUDA it says so and the experiments are then recorded as skipped.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import torch

from infrabook.bench.experiments import attention
from infrabook.bench.experiments.suite import GPU_EXPERIMENTS
from infrabook.bench.measure import cuda, host
from infrabook.bench.records import store
from infrabook.bench.records.entry import CudaDevice, Entry


def dry_merge(device: CudaDevice) -> None:
    """Merge an unmeasured entry of each GPU experiment, with this machine's provenance,
    into a record in a temporary folder and read it back; ``ValueError`` (a
    :class:`~infrabook.bench.records.store.RecordError`) when the record would be refused."""
    prov = host.provenance(device, quick=False)
    with tempfile.TemporaryDirectory() as folder:
        name = store.machine_name(device)
        for experiment in GPU_EXPERIMENTS:
            entry = Entry(experiment, "skipped", "preflight: not run", prov)
            store.merge(name, entry, Path(folder))
        store.read(store.record_path(name, Path(folder)))


def main() -> int:
    """Print what the run will compare; 2 when it must not start."""
    print("versions:", host.versions())
    print("TORCH_CUDNN_SDPA_DEPRIORITIZED:", os.environ.get("TORCH_CUDNN_SDPA_DEPRIORITIZED"))
    reason = cuda.unavailable_reason()
    if reason:
        print(f"{reason}: every GPU experiment will be recorded as skipped")
        return 0
    try:
        cuda.check_native()
    except cuda.RigError as err:
        print(f"refused: {err}", file=sys.stderr)
        return 2
    device = cuda.gpu_info()
    print("device:", device)
    try:
        dry_merge(device)
    except ValueError as err:
        print(f"refused: a record of this GPU would not be written: {err}", file=sys.stderr)
        return 2
    heads, head_dim, seq_len = 16, 128, 8192  # gpu_flash at the target's L (batch 2)
    q = torch.randn(2, heads, seq_len, head_dim, device="cuda", dtype=torch.bfloat16)
    print(f"sdpa backend at L={seq_len}, d={head_dim}, bf16:", attention.sdpa_backend(q, q, q))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
