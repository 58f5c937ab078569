#!/usr/bin/env bash
# GPU round 313 (H100): bench/probe_gluon_coop.py, a cooperative warp-specialized GEMM (two
# consumer warp groups on one 128x256 tile, a producer warp, an epilogue partition that applies
# the GELU and stores while the consumers' next main loop runs): its smoke check, then the timed
# run beside eager, cuBLAS's F.linear and the template's ws_pingpong path at the two large
# gelu(linear) shapes.
# Outcome (2026-11-25): smoke all correct (4 shapes x 5 variants). At 8192x4096->8192 the bare
# GEMM + bias took 0.703 ms against cuBLAS F.linear's 0.753 (1.07x cuBLAS; 4096x4096->14336: 0.616
# against 0.660), but the GELU in a 2-warp epilogue partition took 1.74-1.93 ms (1 warp 3.52):
# the epilogue partition set the pace. Eager 0.857, ws_pingpong 0.844.
# runs/probe-gluon-coop-h100-round313.json.
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
