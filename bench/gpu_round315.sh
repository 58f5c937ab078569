#!/usr/bin/env bash
# GPU round 315 (H100): bench/probe_gluon_coop.py with the epilogue partition's GELU in slices of
# 8 or 16 rows by 64 or 128 columns (at most 16 values a thread: no spills by ptxas -v), tile
# groups of 8 and 4 rows, and the bare GEMM + bias. Smoke check first, then the timed run at the
# two large gelu(linear) shapes beside eager, cuBLAS's F.linear and ws_pingpong.
# Outcome (2026-11-25): smoke all correct; no faster: the epilogue partition's GELU 1.73-1.80 ms
# at 8192x4096->8192 (1.52-1.57 at 4096x4096->14336) in every slicing, the bare GEMM + bias 0.710
# (0.621), eager 0.877 (0.768), ws_pingpong 0.857 (0.750). The spills were not what held it back.
# runs/probe-gluon-coop-h100-round315.json.
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
