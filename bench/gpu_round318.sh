#!/usr/bin/env bash
# GPU round 318 (H100): bench/probe_gluon_coop.py's interleaved GELU in finer slices, each short
# enough to run under one in-flight K step: 32x32 (4 values a thread, 32 slices a tile), 64x32,
# 32x64 and 16x32; the bare GEMM + bias beside them.
# Outcome (2026-11-25): the smoke check passed 512x512->512 for every variant and 1000x1024->3000
# for three, then hung or compiled past its 150 s limit on the 16x32 slices (whose layout covers
# 32 rows: each value twice). Dropped; round 319 runs the other three.
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
