#!/usr/bin/env bash
# GPU round 169 (H100): linear + LayerNorm as one GEMM with a row-norm epilogue
# (bench/probe_gemm_norm.py): the fused single-wave kernel (a cooperative launch whose tiles meet
# in a barrier) and the two-kernel path by config, now storing rows in 16-byte units, beside
# eager, torch.compile, cuBLAS and the composed plan's kernels; registers and spills of each
# kernel; TILED's fused kernel without its wait and combine (timing only); the verifier. Round
# 167: the fused tile keeps its pre-norm values in the output dtype (round 166: 255 registers, 36
# spilled, 44 us for the kernel), and the row-norm kernel reads a row of at most 4096 once.
# Round 168: both kernels' masks end at a 16-byte unit's end (round 167: the fused kernel's store
# addresses aligned but its mask not, so its stores went 2 bytes at a time in a 16-byte layout).
# Round 169: the fused kernel combines its row block's partials in one load (round 168: a loop,
# 2.4 us), behind the new fuse_norm knob; then the GPU tests of the row norm (tests/test_gemm.py).
# Outcome (bench/results/probe-gemm-norm-h100.json, runs/gpu-tests-gemm-norm-h100-round169.txt):
# fused 28.6-28.7 us, two kernels 25.5, eager 24.4, compile 31.9; 8192x4096->4096 407.6 vs
# eager 409.0; 4 GPU tests passed. fuse_norm stays off.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round169
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout "${LIMIT_S:-540}" python3 bench/probe_gemm_norm.py --out "$OUT" > "$OUT/probe-gemm-norm.txt" 2>&1
echo "exit $?"
grep -E " us |verify|Error" "$OUT/probe-gemm-norm.txt" | head -60
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py -k "on_the_gpu and layer_norm" \
    > "$OUT/gpu-tests-gemm-norm.txt" 2>&1
echo "pytest exit $?"
tail -5 "$OUT/gpu-tests-gemm-norm.txt"
exit 0
