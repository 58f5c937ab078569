#!/usr/bin/env bash
# GPU round 341 (H200; written and run 2026-11-28): bench/probe_norm_variants.py first (run as a
# bare call before this script: its table is runs/probe-norm-variants-h200-round341.json): a
# two-pass loop with the weight hinted evict_last took RMSNorm 16384x8192 bfloat16 in 124.4 us,
# torch.compile's time, where the template's looped kernel took 134. Then the norm template's
# hint_affine knob: rms_norm re-tuned in bfloat16 and float16, cols_le_16384 (16384x8192) and
# cols_le_4096 (8192x4096), with only its variants.
#     device run, no carry:  bash bench/gpu_round341.sh
# Outcome (probe 37 s, this script 93 s): promoted rms_norm 1.24.0 (bfloat16 cols_le_16384), 1.25.0
# (float16 cols_le_16384) and 1.26.0 (float16 cols_le_4096), each a hinted loop: 16384x8192 129.8
# -> 126.6 us in bfloat16 (0.967x -> 0.987x torch.compile's 125.0) and 129.0 -> 126.0 in float16
# (0.990x); 4096x4097 level (1.34-1.36x); float16 8192x4096 33.8 -> 33.3 (1.126x). The probe's
# loop with the width a compile-time constant kept its lead (124.4). bfloat16 cols_le_4096 kept
# its one pass. runs/tune-buckets-h200-round341/, runs/probe-norm-variants-h200-round341.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round341
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune341
for dtype in bfloat16 float16; do
    tune_op 80 rms_norm $dtype /tmp/tune341 --buckets cols_le_4096,cols_le_16384 \
        --knobs hint_affine --samples 0 --jobs 14
    entries_pack_new; tar czf "$OUT/tune-buckets.tgz" -C /tmp tune341
done
exit 0
