#!/usr/bin/env bash
# GPU round 210 (H100): the softmax template's new `row_split` (a row wider than single_pass_max
# read once by that many programs that share their slices' max and sum in one cooperative
# launch). Its GPU tests first (softmax and log-softmax tasks at every GPU shape and dtype through
# the verifier, then 256x128256 with -inf rows, twice); then the float32 `cols_gt_65536` buckets
# of softmax and log-softmax re-tuned with the row_split variants (256x128256 at 0.68 of copy).
# Outcome (stop 35, 2026-11-24; runs/tune-buckets-h100-round210/): the tests ran without `-m gpu`,
# and the interpreter-only test failed on the GPU machine (CPU tensors without the interpreter)
# before the GPU test ran. At 256x128256 float32, row_split 16 (16 elements a thread) took 104.9 us
# (softmax) and 103.4 us (log-softmax) against the served 128.0 and 128.8: promoted as softmax
# 1.15.0 and log-softmax 1.17.0 (the verifier 1.76x and 1.79x torch.compile). row_split 4 took
# 110-111 us, row_split 8 (one program of 1024 threads per SM) 131-135, slower than the loop.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round210
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_templates_search.py -k row_split \
    -x 2>&1 | tail -25 | tee "$OUT/tests.log"
echo "tests: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
mkdir -p /tmp/tune210
tune_op 150 softmax float32 /tmp/tune210 --buckets cols_gt_65536 --samples 0 --jobs 14
tune_op 150 log_softmax float32 /tmp/tune210 --buckets cols_gt_65536 --samples 0 --jobs 14
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune210
entries_pack_new
exit 0
