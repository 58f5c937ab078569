#!/usr/bin/env bash
# GPU round 223 (H100): the norm template's `row_ahead` (as softmax's: each program publishes its
# next row's statistics as slot words before it writes this row; no counter). The norm split's
# GPU tests (row_ahead at 4 and 16 among them: RMSNorm, LayerNorm, AddRMSNorm at every GPU shape
# and dtype of their tasks, then 256x65536), then the `cols_le_65536` buckets of the three in
# float32, bfloat16 and float16 against the row_ahead variants only (`--knobs row_ahead`).
# Outcome (2026-11-24; runs/tune-buckets-h100-round223/): the three GPU tests passed. At 256x65536
# (CUDA graphs), row_ahead took: float32 RMSNorm 53.1 -> 47.6 us (row_split 16, 32 a thread;
# 1.17.0), LayerNorm 65.0 -> 53.4 (row_split 32; 1.17.0), AddRMSNorm 96.5 -> 90.6 (row_split 16,
# 16 a thread; 1.20.0); RMSNorm bfloat16 30.9 -> 28.8 (row_split 4; 1.18.0) and float16 31.1 ->
# 27.6 (row_split 32; 1.19.0); LayerNorm float16 32.7 -> 31.8 (1.18.0). LayerNorm bfloat16 and
# AddRMSNorm in both half types kept their looped configs (within 1%).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round223
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_norm.py -k row_split \
    2>&1 | tail -15 | tee "$OUT/tests-norm.log"
echo "tests norm: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
mkdir -p /tmp/tune223
for dtype in float32 bfloat16 float16; do
    for op in rms_norm layer_norm add_rms_norm; do
        left=$(( 585 - ($(date +%s) - start) ))
        [ $left -gt 30 ] || break
        tune_op $(( left < 60 ? left : 60 )) $op $dtype /tmp/tune223 --buckets cols_le_65536 \
            --samples 0 --jobs 14 --knobs row_ahead
    done
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune223
entries_pack_new
exit 0
