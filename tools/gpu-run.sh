#!/usr/bin/env bash
# The GPU experiments, for a person with a CUDA GPU, from any copy of the project (a clone, a
# `git archive`, a copied folder), with the machine's own torch and Triton (never the CPU pins).
# Usage: tools/gpu-run.sh [OUT] (default gpu-records)
#
#   1. prints the versions, the GPU and the SDPA backend PyTorch picks;
#   2. runs each GPU experiment of the suite in its own process, records into OUT;
#   3. times the attention ladder (tools/attention_ladder.py), every rung and SDPA backend;
#   4. runs the kernel and benchmark tests and the kernels' doctests natively.
# The whole run stays within $GPU_RUN_BUDGET_S seconds (default 230: under 4 minutes on an
# H200, where steps 2-4 took about 80, 60 and 80 s); each step gets at most its own cap and what
# is left, and a step cut short loses only what it had not finished: the suite merges each
# experiment into OUT as it ends, the ladder rewrites its file after each measurement, and
# nothing here ever removes a file from OUT. Everything is also appended to OUT/gpu.log. Bring
# OUT back and merge the suite's measurements into docs/_data/bench with
#   PYTHONPATH=src python3 -m infrabook.bench --merge OUT
set -u -o pipefail
cd "$(dirname "$0")/.."
out=${1:-gpu-records}
py=${PYTHON:-python3}
budget=${GPU_RUN_BUDGET_S:-230}
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 INFRABOOK_LANG=en
# A copy unpacked inside some other git checkout must not report that checkout's commit: git
# looks for a repository in this folder and never above it. Outside a checkout the record
# takes $INFRABOOK_COMMIT or the commit `git archive` stamped into the package.
GIT_CEILING_DIRECTORIES="$(dirname "$PWD")"
export GIT_CEILING_DIRECTORIES
unset TRITON_INTERPRET # the kernels must compile for the GPU, never run interpreted

if ! "$py" -c "import torch, triton, numpy, psutil, pytest, hypothesis" 2>/dev/null; then
    echo "missing Python packages: $py -m pip install psutil pytest hypothesis" \
        "(keep the machine's torch and triton)" >&2
    exit 2
fi
mkdir -p "$out" || exit 2
start=$SECONDS

# step CAP COMMAND...: run COMMAND under the smaller of CAP and the seconds left of the budget.
step() {
    local cap=$1 left=$((budget - (SECONDS - start)))
    shift
    ((left < cap)) && cap=$left
    if ((cap < 10)); then
        echo "gpu-run: out of time (budget ${budget} s), not run: $*"
        return 1
    fi
    timeout -k 5 "$cap" "$@"
}

{
    date -u
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
        --format=csv || echo "nvidia-smi: not available"
    "$py" tools/gpu_preflight.py || exit 2
    if ! "$py" -c "import docutils, myst_parser" 2>/dev/null; then
        echo "gpu-run: docutils or myst-parser missing, so tests/bench/test_hostile_record.py" \
            "will be skipped ($py -m pip install docutils myst-parser runs it)"
    fi
    status=0
    step 120 "$py" -m infrabook.bench --only gpu --isolate --out "$out" || status=1
    step 75 "$py" tools/attention_ladder.py "$out" || status=1
    # The tests in the environment CI gives them: the book's own language, not the log's.
    step 120 env -u INFRABOOK_LANG "$py" -m pytest -q -p no:cacheprovider tests/kernels \
        tests/bench src/infrabook/kernels || status=1
    echo "gpu-run: records in $out, $((SECONDS - start)) s, exit status $status"
    exit $status
} 2>&1 | tee -a "$out/gpu.log"
