#!/usr/bin/env bash
# GPU round 168 (H100): linear + LayerNorm as one GEMM with a row-norm epilogue
# (bench/probe_gemm_norm.py): the fused single-wave kernel (a cooperative launch whose tiles meet
# in a barrier) and the two-kernel path by config, now storing rows in 16-byte units, beside
# eager, torch.compile, cuBLAS and the composed plan's kernels; registers and spills of each
# kernel; TILED's fused kernel without its wait and combine (timing only); the verifier. Round
# 167: the fused tile keeps its pre-norm values in the output dtype (round 166: 255 registers, 36
# spilled, 44 us for the kernel), and the row-norm kernel reads a row of at most 4096 once.
# Round 168: both kernels' masks end at a 16-byte unit's end (round 167: the fused kernel's store
# addresses aligned but its mask not, so its stores went 2 bytes at a time in a 16-byte layout).
# Outcome (runs/probe-gemm-norm-h100-round168.json): fused kernel 25.3 us (call 30.0), GEMM + row
# norm 15.9 + 5.5 (call 25.3), eager 24.4; the combine loop 2.4 us of it.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round168
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout "${LIMIT_S:-540}" python3 bench/probe_gemm_norm.py --out "$OUT" > "$OUT/probe-gemm-norm.txt" 2>&1
echo "exit $?"
tail -60 "$OUT/probe-gemm-norm.txt"
exit 0
