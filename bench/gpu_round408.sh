#!/usr/bin/env bash
# GPU round 408 (H200; written 2026-11-29 after the session's device time was spent; run 2026-11-29):
# the norms' 65536-wide rows with `row_lag`. LayerNorm, RMSNorm and add + RMSNorm at 256x65536
# (their `cols_le_65536` bucket) still serve the H100's configs in every dtype but float32 add +
# RMSNorm (swept in rounds 335, 373 and 378, where `row_lag` tied it): in the standing they read
# 0.53 (16-bit LayerNorm), 0.62-0.65 (16-bit RMSNorm), 0.80-0.81 (16-bit add + RMSNorm), and in
# float32 0.67 (LayerNorm) and 0.78 (RMSNorm) of copy. The split kernel's `row_lag` (each row
# written a step after it is read, from a second read L2 holds; with `split_maxnreg`, more
# programs an SM) took 16-bit softmax and log-softmax at 256x128256 from 0.51-0.59 to 0.63-0.72
# of copy in rounds 404-405. The norm template has had it since softmax got it (rounds 376-378),
# but of these buckets only float32 add + RMSNorm's was swept with it. `--knobs row_lag` (77-151
# sources a sweep, counted offline): the 16-bit dtypes here (a knob sweep takes no other dtype's
# configs, so both run in one call), float32 LayerNorm and RMSNorm in round 409
# (`bash bench/gpu_round409.sh`), then those rows.
#     device run, no carry:  bash bench/gpu_round408.sh [16bit|float32]
# Outcome (2026-11-29, 16bit 310 s, float32 123 s): every sweep promoted a `row_lag` config
# (with `row_ahead`; layer_norm 1.34.0-1.36.0, rms_norm 1.39.0-1.41.0, add_rms_norm 1.29.0-1.30.0).
# 256x65536 of copy: LayerNorm 0.67 -> 0.77 (float32), 0.53 -> 0.58 (16-bit); RMSNorm 0.78 -> 0.81,
# 0.62-0.65 -> 0.65-0.68; 16-bit add + RMSNorm 0.80-0.81 -> 0.82. bench/RESULTS.md "Rounds 407-411";
# memory-bound-h200-graphs-{16bit,float32}-norms-row-lag-round40{8,9}.json.
set -uo pipefail
which=${1:-16bit}
case $which in
    16bit) n=408 pairs="layer_norm:bfloat16 layer_norm:float16 rms_norm:bfloat16 rms_norm:float16
                        add_rms_norm:bfloat16 add_rms_norm:float16" dtypes=bfloat16,float16 ;;
    float32) n=409 pairs="layer_norm:float32 rms_norm:float32" dtypes=float32 ;;
    *) echo "usage: bash bench/gpu_round408.sh [16bit|float32]" >&2; exit 2 ;;
esac
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round$n
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r$n/tune
tune_pairs 400 100 /tmp/r$n/tune "$pairs" --buckets cols_le_65536 --samples 0 --jobs 14 \
    --knobs row_lag
entries_pack_new
table_rows 585 /tmp/r$n layer_norm,rms_norm,add_rms_norm "$dtypes"
grep -E "65536" /tmp/r$n/table/stdout.txt | head -12
tar czf "$OUT/round$n.tgz" -C /tmp "r$n"
exit 0
