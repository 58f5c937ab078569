#!/usr/bin/env bash
# GPU round 404 (H200; written 2026-11-29 after the session's device time was spent):
# the first H200 sweeps of 16-bit softmax and log-softmax over long rows and over dim 1, bfloat16
# here and float16 in round 405 (`bash bench/gpu_round404.sh float16`, which gpu_round405.sh
# runs). Their cols_le_65536 and cols_gt_65536 buckets (and bfloat16's `any`, which serves its
# 32768-wide rows) and their `inner_dim` ones still serve the H100's configs to the H200;
# float32's were re-swept on the H200 (rounds 334-335, 373-378, 398) and took row_lag, row_ahead
# and body_tile. In the standing these 16-bit rows read 0.68-0.69 of copy at 1024x32768,
# 0.51-0.59 at 256x128256 and 0.52-0.59 at 32x1000x1024 over dim 1 (1.2-1.7x torch.compile; none
# is a "large" row, so none is under the 90% bar, but all count in the geometric mean). Full
# sweeps of the two long-row buckets (365 sources over 2 shapes an op, counted offline), then the
# inner-dim knobs over dim 1 (33-46 sources over 4 shapes, as round 399's float32 sweep), then
# those rows. Run bfloat16 first and commit its entries (extract entries.tgz) before float16: a
# dtype's candidates include the other dtypes' served configs.
#     device run, no carry:  bash bench/gpu_round404.sh [bfloat16|float16]
# Outcome (bfloat16, run 2026-11-29, 309 s): promoted softmax 1.31.0-1.33.0 (cols_gt_65536
# 60.6 -> 48.4 us at 256x128256, cols_le_65536, inner_dim 54.0 -> 42.0 at 64x128x4096) and
# log_softmax 1.33.0-1.34.0 (52.1 -> 43.6, 46.3 -> 42.9 at 1024x32768); log-softmax's inner_dim
# kept. float16 (gpu_round405.sh, 318 s): softmax 1.34.0-1.36.0, log_softmax 1.35.0-1.36.0, the
# same buckets; bench/RESULTS.md "Rounds 403-406".
set -uo pipefail
dtype=${1:-bfloat16}
case $dtype in
    bfloat16) n=404 ;;
    float16) n=405 ;;
    *) echo "usage: bash bench/gpu_round404.sh [bfloat16|float16]" >&2; exit 2 ;;
esac
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round$n
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r$n/tune
tune_pairs 260 180 /tmp/r$n/tune "softmax:$dtype log_softmax:$dtype" \
    --buckets cols_le_65536,cols_gt_65536 --samples 0 --jobs 14
tune_pairs 420 90 /tmp/r$n/tune "softmax_dim1:$dtype log_softmax_dim1:$dtype" \
    --buckets inner_dim --samples 0 --jobs 14 \
    --knobs col_block_inner,one_pass_block_inner,one_pass_maxnreg_inner,col_split_per_sm
entries_pack_new
table_rows 585 /tmp/r$n softmax,log_softmax "$dtype"
grep -E "32768 |128256|1000x1024" /tmp/r$n/table/stdout.txt | head -8
tar czf "$OUT/round$n.tgz" -C /tmp "r$n"
exit 0
