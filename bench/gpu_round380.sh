#!/usr/bin/env bash
# GPU round 380 (H200; written 2026-11-29 after the session's device time was spent, NOT YET RUN):
# the float32 32768-wide rows (1024x32768: softmax 0.89 of copy, log-softmax 0.88, one program
# a row) swept with the split kernel's `row_lag` (round 378 promoted it for rows over 65536 wide;
# bench/probe_split_lag.py's 2-8 programs a row lost at 32768 in round 376, 75.1 against 71.1
# us, so expect the served one-pass kernel to stay), then `kzoo zoo verify --newest` for the two
# ops round 378 promoted (softmax 1.26.0, log_softmax 1.29.0), one op a test file call.
#     device run, no carry:  bash bench/gpu_round380.sh
# Outcome: not yet run.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round380
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r380/tune
tune_op 120 softmax float32 /tmp/r380/tune --buckets cols_le_65536 --knobs row_lag --samples 0 \
    --jobs 14
tune_op 120 log_softmax float32 /tmp/r380/tune --buckets cols_le_65536 --knobs row_lag \
    --samples 0 --jobs 14
entries_pack_new
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
