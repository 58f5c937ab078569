#!/usr/bin/env bash
# GPU round 319 (H100): round 318 without its 16x32 slices: bench/probe_gluon_coop.py's
# interleaved GELU in 32x32, 64x32 and 32x64 slices, the bare GEMM + bias beside them.
# Outcome (2026-11-25): smoke all correct. At 8192x4096->8192 (4096x4096->14336), graph replays:
# 32x32 slices 0.849 ms (0.745), 64x32 0.844 (0.748), 32x64 0.826 (0.738); bare GEMM + bias 0.752
# (0.683); eager 0.842 (0.750); ws_pingpong 0.862 (0.744); cuBLAS F.linear 0.782 (0.655). The
# verifier's timer: 32x64 0.774 against eager 0.824 (1.065x), 0.686 against 0.734 (1.071x);
# ws_pingpong 1.002x, 1.015x. bench/results/probe-gluon-coop-h100.json. The template renders the
# 32x64 form as its ws_coop knob (round 320).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 200 python3 bench/probe_gluon_coop.py --smoke > "$OUT/smoke.txt" 2>&1
rc=$?
echo "smoke rc $rc after $(( $(date +%s) - start )) s"
grep -v -i "warn\|leaked\|nanobind" "$OUT/smoke.txt" | tail -25
if [ $rc -eq 0 ]; then
    timeout 360 python3 bench/probe_gluon_coop.py --out "$OUT" 2>&1 | grep -v -i "warn" | tail -12
    echo "timed run after $(( $(date +%s) - start )) s"
fi
exit 0
