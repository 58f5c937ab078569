#!/usr/bin/env bash
# GPU round 380 (H200, 2026-11-29): bench/probe_ring_softmax.py, a persistent CTA an SM that holds
# a 32768-wide float32 row in registers while the next row lands in shared memory (per-thread
# cp.async into the thread's own slots, or one bulk copy), beside the served one-pass kernel and a
# copy; then `kzoo zoo verify --newest` for the two ops round 378 promoted (softmax 1.26.0,
# log_softmax 1.29.0), one op a test file call. (The row_lag sweep of the 1024x32768 bucket this
# script held before was dropped: bench/probe_split_lag.py had it at 75.1 against 71.1 us.)
#     device run, no carry:  bash bench/gpu_round380.sh
# Outcome (ran 2026-11-29 04:11-04:17, 307 s): every variant correct, every one slower than the served
#   kernel: ring 256/512/1024 threads 82.2/78.9/98.2 us, one-CTA bulk copies 84.2-94.4, against
#   the zoo's 71.6 and a copy's 65.3 (runs/probe-ring-softmax-h200-round380.json). zoo verify
#   passed for softmax (150 s) and log_softmax (133 s): runs/gpu-tests-h200-round380/.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round380
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/r380/probe
timeout 240 python3 bench/probe_ring_softmax.py --out /tmp/r380/probe 2>&1 | tee /tmp/r380/probe.txt
for op in softmax log_softmax; do
    left=$(( 560 - ($(date +%s) - start) ))
    [ $left -lt 60 ] && break
    timeout $left python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
        "tests/test_zoo_cli.py::test_kzoo_zoo_verify_passes_for_every_shipped_op_on_the_gpu[$op]" \
        > "/tmp/r380/pytest-zoo_cli-$op.txt" 2>&1
    echo "zoo verify $op: rc $? $(tail -1 /tmp/r380/pytest-zoo_cli-$op.txt)"
done
tar czf "$OUT/round380.tgz" -C /tmp r380
exit 0
