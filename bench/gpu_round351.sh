#!/usr/bin/env bash
# GPU round 351 (H200; written 2026-11-28): #3's tables again under the interleaved timer (round
# 350: identical callables 0.0-0.2% apart interleaved, 14% apart in blocks; every table of
# rounds 332-342 ran in blocks, the zoo's first). bench/memory_bound.py --graphs, one dtype a run
# (float32, bfloat16, float16, within 410 s: the device time left), each written to $OUT as it ends; first the timer's flush test
# again (1.299x where it asks 1.3x in round 350).
#     device run, no carry:  bash bench/gpu_round351.sh
# Outcome (410 s; the device time ran out before float16): the flush test passed. float32
# geomean 1.178x torch.compile, bfloat16 1.325x (memory-bound-h200-graphs-{float32,bfloat16}-
# round351.json). The same 150 rows in the blocked tables (runs/memory-bound-h200-standing-blocks-
# round342.json) read 0.9998x of these in geomean (bfloat16 1.002x, float32 0.998x; single rows
# 0.91-1.09x): no order bias to speak of where every variant is memory-bound. The standing over
# the two (memory-bound-h200-standing.json): 1.250x, 17 rows behind torch.compile, 5 by more than
# 1% (argmax f32 4099x1000 0.897x, geglu f32 16x16384 0.977x, amin f32 32x4096x1024 over dim 1
# 0.981x, rms_norm f32 16384x8192 0.985x, mean f32 4096x4097 0.989x); 9 of 54 large rows under
# 90% of copy, all float32.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD
export KZOO_HOME=/tmp/kzoo-round351
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 60 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py -k flush_sends 2>&1 \
    | grep -E "passed|failed|^E +" | cut -c1-200 | tail -4
for dtype in float32 bfloat16 float16; do
    left=$(( 410 - ($(date +%s) - start) ))
    [ $left -lt 30 ] && break
    mkdir -p "$OUT/tables"
    timeout $left python3 bench/memory_bound.py --graphs --dtypes $dtype --out "$OUT/tables" 2>&1 \
        | grep -v -i warn | grep -E "geomean|wrote" | head -3
    echo "$dtype after $(( $(date +%s) - start )) s"
done
exit 0
