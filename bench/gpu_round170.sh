#!/usr/bin/env bash
# GPU round 170 (H100): the GEMM kernels take N and the output's strides in units of the widest
# vector N aligns to (C_UNIT, _output_unit), so that a store at N = 3000 (bf16) is 16 bytes wide:
# in an offline sm_90 compile TILED's _gemm_kernel at linear + LayerNorm's 1000x1024->3000 went
# from 128 scalar 2-byte stores per thread to 16 of 16 bytes. First the GEMM's GPU tests (every
# kernel's store changed: pointer, descriptor, split-K, skinny, decode, the row norm's two paths),
# then bench/probe_gemm_norm.py (round 169: GEMM 15.9 us + row norm 5.4, the call 25.5 against
# eager's 24.4).
# Outcome (runs/probe-gemm-norm-h100-round170.json, runs/gpu-tests-gemm-h100-round170.txt): 10 GPU
# tests passed; TILED's _gemm_kernel took 19.4 us (15.9 in round 169): 16-byte stores made it
# slower; the persistent descriptor GEMM 19.1 us a call (21.6), the fused kernel 22.2 (23.6).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round170
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout 230 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py \
    > "$OUT/gpu-tests-gemm.txt" 2>&1
echo "pytest exit $?"
tail -5 "$OUT/gpu-tests-gemm.txt"
timeout 330 python3 bench/probe_gemm_norm.py --out "$OUT" > "$OUT/probe-gemm-norm.txt" 2>&1
echo "exit $?"
grep -E " us |verify|Error" "$OUT/probe-gemm-norm.txt" | head -60
exit 0
