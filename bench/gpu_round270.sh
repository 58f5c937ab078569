#!/usr/bin/env bash
# GPU round 270 (H100): `kzoo optimize tasks/matmul_skinny.py` (16x8192x8192, 128x4096x4096,
# 1x4096x4096), bfloat16: the skinny bucket's search now starts from the cluster tile
# (SKINNY_DEFAULT), then SKINNY_LINEAR; a winner faster than the best baseline is promoted into
# kernel_zoo/entries (no matmul entry ships yet).
# Outcome (2026-11-25): 8 trials, none promoted: best 0.978x the best baseline over the task's
# shapes (skinny_rows=128: the cluster companion 17.2 us at 128 rows against eager's 17.7, the
# decode companion 16.6 against 16.9 at 1 row but 54.6 against 48.6 at 16x8192x8192); the
# cluster tile alone 0.727x, SKINNY_LINEAR alone 0.567x (their 16- and 1-row calls). Result:
# bench/results/runs/optimize-matmul-skinny-h100-round270.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round270
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 420 python3 -c "from agent.cli import main; raise SystemExit(main())" optimize \
    tasks/matmul_skinny.py --dtype bfloat16 --trials 8 --time-budget 200 \
    --zoo kernel_zoo/entries --json "$OUT/skinny-bfloat16.json" > "$OUT/skinny-bfloat16.log" 2>&1
echo "optimize rc $?"
grep -v -i "warn\|logging.cc\|SIGTERM\|^    @\|^PC:" "$OUT/skinny-bfloat16.log" | tail -30
ls kernel_zoo/entries/matmul 2>/dev/null && tar czf "$OUT/entries.tgz" -C kernel_zoo entries/matmul
exit 0
