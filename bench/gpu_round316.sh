#!/usr/bin/env bash
# GPU round 316 (H100): a diagnostic of bench/probe_gluon_coop.py's slow epilogue partition (2
# warps, 1.73-1.80 ms for a GEMM whose main loop takes 0.71): the same partition with the GELU,
# with only the slices' load and store (x2), and with SiLU (a third of the GELU fit's
# instructions), beside the bare GEMM + bias. The two diagnostics are timed, not checked.
# Outcome (2026-11-25): at 8192x4096->8192 (4096x4096->14336), graph replays: the partition's
# GELU 1.773 ms (1.554), its load and store alone 0.726 (0.631), SiLU 0.806 (0.717), the bare
# GEMM + bias 0.765 (0.676), eager 0.852 (0.756). The slices' shared-memory traffic is hidden;
# the GELU fit's math in 2 warps is not (about 3x SiLU's instructions, and 2 warps issue too
# little of it). runs/probe-gluon-coop-h100-round316.json.
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
