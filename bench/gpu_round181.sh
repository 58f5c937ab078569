#!/usr/bin/env bash
# GPU round 181 (H100): after the row norm went in place over the GEMM's output, a recorded
# descriptor launch skipped TensorDescriptor's checks and the recorded norm took y as it is:
# (1) the GPU tests of the row norm and the descriptor recipes; (2) the host time of a composed
# linear + LayerNorm call, today's render against the render of 4380cbf (before-round181/, not
# committed: the same two configs rendered there) and eager, interleaved; (3) the composed
# search at the task's two GPU shapes, as in round 178.
# Outcome (runs/gpu-tests-gemm-norm-h100-round181.txt, bench/results/probe-host-parts-h100.json,
# runs/compose-h100-round181-linear-layer-norm.json): 6 GPU tests passed; host time a call,
# interleaved, 63.8 -> 46.8 us with descriptors and 50.2 -> 40.1 with pointers (eager 39.3-39.8);
# the composed search 1.066x eager at 1000x1024->3000 (23.9 us against 25.5; the winner's host
# 46.9 us a call against eager's 50.3) and 1.012x at 8192x4096->4096.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round181
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py \
    -k "layer_norm or descriptor or tma_path" > "$OUT/gpu-tests-gemm-norm.txt" 2>&1
echo "pytest exit $?"
tail -2 "$OUT/gpu-tests-gemm-norm.txt"
timeout 150 python3 bench/probe_host_parts.py --before before-round181 2>&1 | tail -32
cp bench/results/probe-host-parts-*.json "$OUT/" 2>/dev/null
timeout 200 python3 bench/compose.py --tasks linear_layer_norm --trials 16 --budget 200 --profile \
    --out "$OUT" 2>&1 | grep -v -i warn | tail -4
exit 0
