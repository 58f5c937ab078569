#!/usr/bin/env bash
# GPU round 400 (H200; written 2026-11-29 after the session's device time was spent, run the same day):
# `affine_table` and `edges_maxnreg` (the norm template). After body_tile and edges_persist the
# 16-bit 4097-wide rows read 0.47 of copy (LayerNorm) and 0.70 (RMSNorm), float32 LayerNorm
# 0.80. Compiled for sm_90 (compile-norm-affine-table-sm90-{bf16,fp32}.json), the body_tile
# kernel's per-row scalar affine loads (67 a 16-bit LayerNorm tile) become 16-byte loads from
# per-head tables, and float32 LayerNorm's registers drop from 143 (1 program of 8 warps an SM)
# to 121 (2); edges_maxnreg caps them (16-bit LayerNorm at 80: 3 programs an SM, spilling). First
# the GPU tests (test_norm's align_edges test, whose configs now include both knobs), then sweeps
# with `--knobs affine_table,edges_maxnreg` (the served configs against 16 variants: 4096- and
# 8192-element tiles, 16 or 32 values a thread, uncapped or at 64 or 80 registers; about 85
# sources an op, counted offline) of LayerNorm's and RMSNorm's `cols_le_16384` in 16-bit, then
# their rows. gpu_round401.sh does float32 and add + RMSNorm.
#     device run, no carry:  bash bench/gpu_round400.sh
# Outcome (run 2026-11-29, first of the session): the GPU tests passed (3); affine_table with
# edges_maxnreg 80 won both 16-bit LayerNorm buckets (34.0 -> 27.8 us at 4096x4097 in bfloat16,
# 33.3 -> 27.6 in float16; 0.47 -> 0.56-0.57 of copy in the table; layer_norm 1.30.0-1.31.0);
# 16-bit RMSNorm kept its configs. bench/RESULTS.md, "Rounds 398-402".
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round400
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/r400/tune /tmp/r400/tests
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
    "tests/test_norm.py::test_align_edges_is_correct_on_the_gpu" \
    > /tmp/r400/tests/pytest-norm.txt 2>&1
rc=$?
echo "norm align_edges GPU tests: rc $rc $(tail -1 /tmp/r400/tests/pytest-norm.txt)"
if [ $rc -ne 0 ]; then
    grep -E "^(FAILED|E  )" /tmp/r400/tests/pytest-norm.txt | head -20
    tar czf "$OUT/round400.tgz" -C /tmp r400
    exit 0
fi
entries_snapshot
tune_pairs 450 75 /tmp/r400/tune \
    "layer_norm:bfloat16 rms_norm:bfloat16 layer_norm:float16 rms_norm:float16" \
    --buckets cols_le_16384 --knobs affine_table,edges_maxnreg --samples 0 --jobs 14
entries_pack_new
table_rows 585 /tmp/r400 layer_norm,rms_norm bfloat16,float16
tar czf "$OUT/round400.tgz" -C /tmp r400
exit 0
