#!/usr/bin/env bash
# GPU round 213 (H100): the norm template's new `row_split` (as softmax's: a 65536-wide row read
# once by programs that share their slices' statistics in one cooperative launch). Its GPU tests
# (`-m gpu`: RMSNorm, LayerNorm, AddRMSNorm tasks at every GPU shape and dtype through the
# verifier, then 256x65536 with the split taken); the float32 `cols_le_65536` buckets of the three
# re-tuned with the row_split variants (256x65536 at 0.62-0.86 of copy); then round 212's lost
# float32 and float16 softmax tables, each dtype into its own folder.
# Outcome (stop 35, 2026-11-24; runs/tune-buckets-h100-round213/): the three GPU tests passed. At
# 256x65536 float32: RMSNorm 66.8 -> 53.2 us (row_split 4, row_prefetch; 1.16.0), LayerNorm 72.0
# -> 64.6 (row_split 16, row_prefetch; 1.15.0), AddRMSNorm 102.9 -> 97.5 (row_split 8; 1.17.0,
# 0.91 of copy). Tables (memory-bound-h100-graphs-{float32,float16}-softmax-round213.json): none
# wrong, none behind torch.compile; float32 1.27x, 256x128256 at 0.82 (softmax) and 0.84 of copy;
# float16 1.44x, 256x128256 at 0.69 and 0.71.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round213
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_norm.py -k row_split \
    2>&1 | tail -25 | tee "$OUT/tests.log"
echo "tests: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
mkdir -p /tmp/tune213
for op in rms_norm layer_norm add_rms_norm; do
    tune_op 70 $op float32 /tmp/tune213 --buckets cols_le_65536 --samples 0 --jobs 14
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune213
entries_pack_new
for dtype in float32 float16; do
    left=$(( 575 - ($(date +%s) - start) ))
    [ $left -gt 40 ] || break
    mkdir -p /tmp/tables213/$dtype
    timeout $(( left < 90 ? left : 90 )) python3 bench/memory_bound.py --graphs --dtypes $dtype \
        --ops softmax,log_softmax --out /tmp/tables213/$dtype 2>&1 | grep -v -i warn | tail -12
    echo "table $dtype: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/tables.tgz" -C /tmp tables213
exit 0
