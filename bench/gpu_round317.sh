#!/usr/bin/env bash
# GPU round 317 (H100): bench/probe_gluon_coop.py without the epilogue partition (round 316: its
# 2 warps issue the GELU fit too slowly): the consumers run tile j-1's GELU in eight 64x64 slices
# between tile j's wgmmas, while those are in flight, and store each 128x64 column block with TMA
# as soon as it is done. Tile groups of 8 and 4 rows, 3 and 2 stages; the bare GEMM + bias.
# Outcome (2026-11-25): round 317's first call failed to compile: Triton 3.6's Gluon names its
# barrier thread_barrier (3.9: barrier); the probe now takes either. Then: smoke all correct; at
# 8192x4096->8192 (4096x4096->14336), graph replays: 0.867 ms (0.764), tile groups of 4 0.864
# (0.751), 2 stages 1.191 (1.060); bare GEMM + bias 0.722 (0.654), eager 0.854 (0.760),
# ws_pingpong 0.865 (0.752). The verifier's timer: 0.787 against eager 0.808 (1.027x). The GELU
# still costs 0.145 ms: a 64x64 slice (16 values a thread, about 2000 cycles of issue) outlasts
# the one wgmma left in flight (a K step, about 1100 cycles). runs/probe-gluon-coop-h100-round317.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 150 python3 bench/probe_gluon_coop.py --smoke > "$OUT/smoke.txt" 2>&1
rc=$?
echo "smoke rc $rc after $(( $(date +%s) - start )) s"
grep -v -i "warn\|leaked\|nanobind" "$OUT/smoke.txt" | tail -25
if [ $rc -eq 0 ]; then
    timeout 360 python3 bench/probe_gluon_coop.py --out "$OUT" 2>&1 | grep -v -i "warn" | tail -12
    echo "timed run after $(( $(date +%s) - start )) s"
fi
exit 0
