#!/usr/bin/env bash
# The GPU experiments, for a person with a CUDA GPU, from a fresh clone, with the machine's
# own torch and Triton (never the CPU pins). Usage: tools/gpu-run.sh [OUT] (default gpu-records)
#
#   1. prints the versions, the GPU, its clocks and the SDPA backend PyTorch picks;
#   2. runs each GPU experiment in its own process under its time limit, records into OUT;
#   3. runs the GPU-marked kernel tests.
# Everything is also written to OUT/gpu.log. Worst case about 7 minutes (the limits), on an
# H200 about 2-3. Bring OUT back and merge its measurements into docs/_data/bench with
#   PYTHONPATH=src python3 -m infrabook.bench --merge OUT
set -u -o pipefail
cd "$(dirname "$0")/.."
out=${1:-gpu-records}
py=${PYTHON:-python3}
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 INFRABOOK_LANG=en
unset TRITON_INTERPRET  # the kernels must compile for the GPU, never run interpreted

if ! "$py" -c "import torch, triton, numpy, psutil, pytest, hypothesis" 2>/dev/null; then
    echo "missing Python packages: $py -m pip install psutil pytest hypothesis" \
        "(keep the machine's torch and triton)" >&2
    exit 2
fi
mkdir -p "$out"
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem \
        --format=csv || echo "nvidia-smi: not available"
    "$py" tools/gpu_preflight.py || exit 2
    status=0
    "$py" -m infrabook.bench --only gpu --isolate --out "$out" || status=1
    timeout -k 5 120 "$py" -m pytest -q -p no:cacheprovider -m gpu tests/kernels || status=1
    echo "gpu-run: records in $out, exit status $status"
    exit $status
} 2>&1 | tee "$out/gpu.log"
