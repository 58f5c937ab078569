#!/usr/bin/env bash
# GPU round 105: the composed table again (bench/compose.py, 3 trials per task, --profile), now
# under the discard flush and with today's norm launcher (16-byte rows at 1000 and 3000 elements:
# linear + LayerNorm's 1000x3000 rows, LayerNorm + GELU's 4099x1000).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round105
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 575 python3 bench/compose.py --trials 3 --budget 35 --profile --out /tmp/c105 2>&1 \
    | grep -v -i -E "warn|token auth" | tail -26
cp /tmp/c105/compose-h100.json "$OUT/compose-h100.json"
exit 0
