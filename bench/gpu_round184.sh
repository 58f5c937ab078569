#!/usr/bin/env bash
# GPU round 184 (H100): the verifier now times with host_ahead (round 183: the default timer read
# 24-123 us for one 24 us call as its host time grew, host_ahead 23.9-24.5 and graph replays
# 23.1-24.4) and checks for work off the timed stream against events taken in its own wall-clock
# loop. Its GPU tests (tests/test_gpu.py: the shipped softmax through `kzoo verify`, a slow host's
# candidate accepted and timed by its kernel, the timer tests), then linear + LayerNorm's
# 16-trial composed search (bench/compose.py --profile), whose 1000x1024->3000 verdict went
# 1.066x -> 0.738x eager between rounds 181 and 182 with the same code.
# Outcome (runs/gpu-tests-verifier-h100-round184.txt,
# runs/compose-h100-round184-linear-layer-norm.json): tests/test_gpu.py's 14 tests passed;
# linear + LayerNorm 1.022x eager at 8192x4096->4096 and 1.056x at 1000x1024->3000.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round184
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT/lln"
timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py \
    > "$OUT/gpu-tests-verifier.txt" 2>&1
echo "pytest exit $?"
tail -3 "$OUT/gpu-tests-verifier.txt"
timeout 250 python3 bench/compose.py --tasks linear_layer_norm --trials 16 --budget 200 --profile \
    --out "$OUT/lln" 2>&1 | grep -v -i warn | tail -6
exit 0
