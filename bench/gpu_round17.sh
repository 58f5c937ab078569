#!/usr/bin/env bash
# GPU round 17: the new skinny default (128x64x64, 9 stages) through the verifier at
# matmul_skinny's GPU shapes, with the other GEMM GPU tests. Results go to $OUT. (A first try
# also selected the contract tests with -k "tma", which matches every softmax task, and ran out
# of time after 26 passes.) Second try: float32 failed there, its loop rendered with the config's
# 9 stages (OutOfResources); the loops now take the launch's stages (fp32_stages()). Then the
# float32 descriptor probe again, under the same fix.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_gemm.py \
    -k "skinny or split_k or hopper" 2>&1 | tee "$OUT/gpu-tests-round17b.txt" | tail -3
timeout 60 python3 bench/probe_fp32_tma.py 2>&1 | grep -v -i warn | tee "$OUT/probe-fp32-tma.txt"
