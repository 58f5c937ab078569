#!/usr/bin/env bash
# GPU round 314 (H100): round 313's probe (bench/probe_gluon_coop.py) again with other places for
# the GELU: in the consumers themselves (fp32, before the one rounding; tile groups of 8 and 4
# rows), and in the 2-warp epilogue partition over 8- and 32-row slices; the bare GEMM + bias
# beside them. Smoke check first, then the timed run at the two large gelu(linear) shapes.
# Outcome (2026-11-25): smoke all correct. At 8192x4096->8192 (4096x4096->14336): the GELU in the
# consumers 0.911-0.931 ms (0.801-0.815), in the epilogue partition 1.77-2.11 (1.56-1.83); bare
# GEMM + bias 0.710 (0.623) against cuBLAS F.linear's 0.766 (0.667); eager 0.873 (0.749). ptxas -v
# on the CPU then showed the epilogue's slices spilling (1.8 KB): each slice's math held 64-256
# values a thread. runs/probe-gluon-coop-h100-round314.json.
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
