#!/usr/bin/env bash
# GPU round 356 (H200): the norm template's `align_edges` (a misaligned row's 16-byte body and its
# edges apart; round 355's probe kernel took float32 add + RMSNorm 4096x4097 from 80.9 to 68.3
# us) checked through the verifier at every GPU shape and dtype of the three norms, then the
# `cols_le_16384` bucket (4096x4097 and 16384x8192) re-tuned with its variants against the served
# configs (bench/tune_buckets.py --knobs align_edges), float32 first; winners promoted.
#     device run, no carry:  bash bench/gpu_round356.sh
# Outcome: the `-k align_edges` selection also ran test_norm.py's interpreter tests, which
# fail on a GPU machine by design (CPU tensors without the interpreter): 4 failed, 4 passed (the 3
# GPU tests and the sm_90 compile test); round 361 ran `-m gpu tests/test_norm.py`: 9 passed.
# Promoted (sweeps in bench/results/runs/tune-buckets-h200-round356/; 4096x4097 and 16384x8192 in
# us, served -> winner): add_rms_norm 1.23.0 float32 80.0 -> 69.8 and 517.2 -> 518.4, 1.24.0
# bfloat16 78.6 -> 42.4 and 256.8 -> 260.9, 1.25.0 float16 75.6 -> 42.5 and 258.5 -> 258.5;
# rms_norm 1.32.0 float32 41.5 -> 38.4 and 253.1 -> 254.0, 1.33.0 bfloat16 34.5 -> 30.7 and
# 125.1 -> 125.1 (float16 kept its config); layer_norm 1.19.0 float32 88.3 -> 55.5, 1.20.0
# bfloat16 67.6 -> 57.7, 1.21.0 float16 67.1 -> 58.5 (16384x8192 level). The sweep's time for
# each served file is not the table's for layer_norm and 16-bit add_rms_norm (layer_norm bfloat16
# 67.6 here against 47.1 in round 351's table): rounds 358-360.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round356
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_norm.py -k align_edges 2>&1 \
    | tail -3
echo "gpu tests after $(( $(date +%s) - start )) s"
mkdir -p /tmp/tune356
for job in "add_rms_norm float32" "rms_norm float32" "layer_norm float32" \
           "add_rms_norm bfloat16" "add_rms_norm float16" "rms_norm bfloat16" \
           "rms_norm float16" "layer_norm bfloat16" "layer_norm float16"; do
    set -- $job
    [ $(( $(date +%s) - start )) -gt 420 ] && break
    tune_op 60 $1 $2 /tmp/tune356 --buckets cols_le_16384 --knobs align_edges --samples 0 \
        --jobs 14
    entries_pack_new; tar czf "$OUT/tune-buckets.tgz" -C /tmp tune356
done
exit 0
