#!/usr/bin/env bash
# GPU round 105: the composed table again (bench/compose.py, 3 trials per task, --profile), now
# under the discard flush and with today's norm launcher (16-byte rows at 1000 and 3000 elements:
# linear + LayerNorm's 1000x3000 rows, LayerNorm + GELU's 4099x1000).
# Outcome: every convolution + tail row beats eager (1.27-2.29x); linear + LayerNorm 1000x1024->3000
# 0.992x eager (0.29x in round 71; its LayerNorm kernel 5.0 us against eager's 7.8), gelu(linear)
# 4096x4096->14336 1.029x; silu(linear) at 16 rows 0.893x (21.7 us of GEMM against cuBLAS's 16.8).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round105
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 575 python3 bench/compose.py --trials 3 --budget 35 --profile --out /tmp/c105 2>&1 \
    | grep -v -i -E "warn|token auth" | tail -26
cp /tmp/c105/compose-h100.json "$OUT/compose-h100.json"
exit 0
