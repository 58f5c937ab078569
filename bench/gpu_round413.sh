#!/usr/bin/env bash
# GPU round 413 (H200; written 2026-11-29 after the session's device time was spent):
# the norms' narrow rows, never swept on the H200. LayerNorm's, RMSNorm's and add + RMSNorm's
# `cols_le_1024` (4099x1000) and LayerNorm's and add + RMSNorm's `cols_le_4096` (8192x4096) serve
# the H100's configs in every dtype (`bench/unswept_buckets.py`). Their rows are where the norms
# are closest to `torch.compile` in the standing: RMSNorm 4099x1000 bfloat16 0.997x, float16
# 1.01x, float32 1.05x; LayerNorm 8192x4096 float32 0.993x; add + RMSNorm 4099x1000 float32 1.01x.
# A full sweep is 515-849 sources a bucket (every bucket's served config with each variant, and
# the other dtypes' configs), too many for a call; `tune_buckets.py --local` derives the variants
# from the config serving the swept bucket alone: 161-166 sources a sweep (counted offline), about
# 65 s at round 408's pace (narrow32's two buckets: 194-302 sources, so 180 s a sweep at most).
# Then the rows.
#     device run, no carry:  bash bench/gpu_round413.sh narrow16    (cols_le_1024, 16-bit: 413)
#                            bash bench/gpu_round413.sh narrow32    (cols_le_1024 float32 and
#                                                                   cols_le_4096 float32: 414)
#                            bash bench/gpu_round413.sh wide16      (cols_le_4096, 16-bit: 415)
# Outcome: narrow16 ran as round 413 (2026-11-29, 315 s): all six pairs took configs (rms_norm
# 1.42.0-1.43.0, layer_norm 1.37.0-1.38.0, add_rms_norm 1.31.0-1.32.0); at 4099x1000 in the
# sweeps RMSNorm 9.0 -> 8.2 us (0.997x / 1.01x -> 1.11x `torch.compile` in the table), LayerNorm
# 8.8 -> 8.4 (bfloat16) and 8.5 -> 8.4, add + RMSNorm 11.2 -> 11.1 and 11.6 -> 11.4
# (`memory-bound-h200-graphs-16bit-narrow-norms-local-round413.json`). narrow32 ran as round 414
# (2026-11-29, 205 s): all six (op, bucket) pairs took configs (rms_norm 1.44.0-1.45.0,
# layer_norm 1.39.0-1.40.0, add_rms_norm 1.33.0-1.34.0); in the table LayerNorm 8192x4096
# 0.993x -> 1.011x `torch.compile`, add + RMSNorm 4099x1000 1.010x -> 1.056x, RMSNorm 8192x4096
# 0.99x as before (`memory-bound-h200-graphs-float32-norms-narrow-local-round414.json`).
# wide16 ran as round 415 (2026-11-29, 230 s): all four pairs took configs (layer_norm
# 1.41.0-1.42.0, add_rms_norm 1.35.0-1.36.0); at 8192x4096 in the sweeps LayerNorm 35.8 -> 34.3 us
# (bfloat16) and 37.5 -> 34.1 (float16), add + RMSNorm 66.4 -> 63.4 and 67.2 -> 63.5; in the table
# LayerNorm 1.39x/1.34x -> 1.45x/1.46x `torch.compile`, add + RMSNorm 1.06x/1.05x -> 1.09x/1.10x
# (`memory-bound-h200-graphs-16bit-norms-wide-local-round415.json`).
set -uo pipefail
which=${1:-narrow16}
case $which in
    narrow16) n=413 buckets=cols_le_1024 dtypes=bfloat16,float16 secs=140
              pairs="rms_norm:bfloat16 rms_norm:float16 layer_norm:bfloat16 layer_norm:float16
                     add_rms_norm:bfloat16 add_rms_norm:float16" ;;
    narrow32) n=414 buckets=cols_le_1024,cols_le_4096 dtypes=float32 secs=180
              pairs="rms_norm:float32 layer_norm:float32 add_rms_norm:float32" ;;
    wide16) n=415 buckets=cols_le_4096 dtypes=bfloat16,float16 secs=140
            pairs="layer_norm:bfloat16 layer_norm:float16 add_rms_norm:bfloat16
                   add_rms_norm:float16" ;;
    *) echo "usage: bash bench/gpu_round413.sh [narrow16|narrow32|wide16]" >&2; exit 2 ;;
esac
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round$n
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r$n/tune
tune_pairs 470 $secs /tmp/r$n/tune "$pairs" --buckets $buckets --samples 0 --jobs 14 --local
entries_pack_new
table_rows 585 /tmp/r$n layer_norm,rms_norm,add_rms_norm "$dtypes"
grep -E "4099x1000|8192x4096" /tmp/r$n/table/stdout.txt | head -12
tar czf "$OUT/round$n.tgz" -C /tmp "r$n"
exit 0
