#!/usr/bin/env bash
# GPU round 171 (H100): the GEMM's output store by vector width (bench/probe_gemm_store.py).
# Round 170: with N and the output's strides in units of C_UNIT, TILED's _gemm_kernel at
# 1000x1024->3000 stores 16 bytes at a time (an offline sm_90 compile: 16 v4 stores a thread,
# where it was 128 of 2 bytes), and its kernel took 19.4 us against 15.9 before; the persistent
# descriptor kernel (two epilogue slices) went from 21.6 to 19.1 us a call, the fused row-norm
# kernel from 23.6 to 22.2. This round times the Linear + bias at each unit cap by config.
# Outcome (runs/probe-gemm-store-h100-round171.json): in every config one unit was 4 us slow, the
# one that makes 32 vectors a store row (Triton's one-row-per-warp layout): TILED 23.0 us at 16
# bytes, 18.9 at 8, 19.5 at 2; 128x128 tiles 20.4 at 8 bytes, 18.4 at 16.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round171
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout "${LIMIT_S:-500}" python3 bench/probe_gemm_store.py --out "$OUT" > "$OUT/probe-gemm-store.txt" 2>&1
echo "exit $?"
grep -E " us |Error|wrong" "$OUT/probe-gemm-store.txt" | head -80
exit 0
