#!/usr/bin/env bash
# GPU round 178 (H100): bench/probe_gemm_norm.py again with the forced two-kernel twin loaded as
# its own module (round 177's fused cells had taken the twin's norm recipe), with the row norm as
# a programmatic dependent launch (round 177); then linear + LayerNorm composed once more
# (bench/compose.py, 16 trials): round 176 0.994x eager at 1000x1024->3000, round 177 0.388x
# with a host-bound winner.
# Outcome (bench/results/probe-gemm-norm-h100.json, runs/compose-h100-round178-linear-layer-
# norm.json): the two kernels 24.26 us against eager's 24.61, the fused kernel 27.33 (TILED's
# tiles), all 9 verdicts accepted; composed 1.045x eager at 1000x1024->3000 and 1.014x at
# 8192x4096->4096, the same winner as round 177 (DEFAULT without companions), its host 75.5 us a
# call this time against 106 there.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round178
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout 170 python3 bench/probe_gemm_norm.py --out "$OUT" > "$OUT/probe-gemm-norm.txt" 2>&1
echo "norm exit $?"
grep -E " us |verify|Error" "$OUT/probe-gemm-norm.txt" | head -30
timeout 200 python3 bench/compose.py --tasks linear_layer_norm --trials 16 --budget 200 --profile \
    --out "$OUT" 2>&1 | grep -v -i warn | tail -4
exit 0
