#!/usr/bin/env bash
# GPU round 352 (H200; written 2026-11-28 after the session's device time was spent; run in
# session 49): what round 351 left under the interleaved timer. (1) #3's float16 table (bfloat16 and
# float32 were re-timed in round 351; float16's newest rows are the blocks' of rounds 332-342);
# fold it into the standing with
#     python bench/memory_bound_standing.py bench/results/memory-bound-h200-graphs-float32-round351.json \
#         bench/results/memory-bound-h200-graphs-bfloat16-round351.json <this float16 table> \
#         --out bench/results/memory-bound-h200-standing.json
# (2) #4's max-autotune bar interleaved: bias+GELU 8192x8192x4096 with the H200's pingpong params
# against torch.compile(mode="max-autotune") (1.097x in blocks, round 337, the kernel first).
#     device run, no carry:  bash bench/gpu_round352.sh
# Outcome (run 2026-11-28, session 49): float16 table
# bench/results/memory-bound-h200-graphs-float16-round352.json (geomean 1.319x torch.compile, no
# row behind by more than 1%); bias+GELU 8192x8192x4096 with the H200 pingpong params against
# max-autotune, interleaved, in graph replays: 663.7 TFLOP/s against max-autotune's 595.7, 1.114x
# (eager 633.6: 1.048x; compile 626.8: 1.059x; cuBLAS's bare GEMM 702.8: 0.944x):
# bench/results/gemm-h200-graphs-max-autotune-round352.json. That half of #4's bar is met.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD
export KZOO_HOME=/tmp/kzoo-round352
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p "$OUT/tables" "$OUT/max-autotune"
timeout 200 python3 bench/memory_bound.py --graphs --dtypes float16 --out "$OUT/tables" 2>&1 \
    | grep -v -i warn | grep -E "geomean|wrote" | head -3
echo "float16 after $(( $(date +%s) - start )) s"
left=$(( 570 - ($(date +%s) - start) ))
case=linear_bias_gelu_8192x8192x4096
[ $left -gt 90 ] && timeout $left python3 bench/gemm.py --config-json bench/gemm-configs-h200.json \
    --graphs --cases $case --max-autotune --max-autotune-cases $case --out "$OUT/max-autotune" \
    2>&1 | grep -v -i warn | tail -3
echo "max-autotune after $(( $(date +%s) - start )) s"
exit 0
