#!/usr/bin/env bash
# GPU round 211 (H100): the split-row softmax's GPU tests (`-m gpu`: softmax and log-softmax
# tasks at every GPU shape and dtype through the verifier, then 256x128256 with -inf rows,
# twice, the cooperative launch taken; row_split 4, 8, 16, and 16 with `row_prefetch`); then
# the `cols_gt_65536` buckets re-tuned with the row_split and row_prefetch variants: float32
# (served since round 210 by row_split 16), float16 and bfloat16 (256x128256 at 0.60 of copy).
# Outcome (stop 35, 2026-11-24; runs/tune-buckets-h100-round211/): both GPU tests passed. At
# 256x128256: softmax float32 kept round 210's row_split 16 (105.1 us; with row_prefetch 104.7,
# within the sweep's 1%); log-softmax float32 took row_split 16 with row_prefetch (102.0 us,
# 1.18.0); float16 and bfloat16 took row_split 4 with row_prefetch: softmax 72.0 -> 62.6 us
# (float16, 1.16.0, its cols_le_65536 pinned) and 71.8 -> 65.2 (bfloat16, 1.17.0), log-softmax
# 71.6 -> 58.8 (float16, 1.19.0) and 70.9 -> 58.9 (bfloat16, 1.20.0).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round211
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
timeout 170 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_templates_search.py \
    -k row_split 2>&1 | tail -25 | tee "$OUT/tests.log"
echo "tests: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
mkdir -p /tmp/tune211
for dtype in float32 float16 bfloat16; do
    for op in softmax log_softmax; do
        left=$(( 560 - ($(date +%s) - start) ))
        [ $left -gt 40 ] && tune_op $(( left < 75 ? left : 75 )) $op $dtype /tmp/tune211 \
            --buckets cols_gt_65536 --samples 0 --jobs 14
    done
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune211
entries_pack_new
exit 0
