#!/usr/bin/env bash
# GPU round 273 (H100): `kzoo optimize tasks/linear_bias_gelu.py` (8192x4096->8192,
# 4096x4096->14336, 4099x1000->3073), bfloat16, promoting into kernel_zoo/entries (no linear
# entry ships yet); the search tries DEFAULT, then DEFAULT with its companions and the
# warp-specialized kernel, then TILED.
# Outcome (2026-11-25): promoted linear_bias_gelu 1.0.0 (bfloat16, "any"): trial 1, DEFAULT with
# its companions and ws_pingpong, 1.465x the best baseline over the task's shapes: 0.986x and
# 0.991x eager at the two large shapes, 3.22x at 4099x1000->3073 (torch.compile 381 us there).
# bench/results/runs/optimize-linear-bias-gelu-bfloat16-h100-round273.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round273
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 500 python3 -c "from agent.cli import main; raise SystemExit(main())" optimize \
    tasks/linear_bias_gelu.py --dtype bfloat16 --trials 6 --time-budget 200 \
    --zoo kernel_zoo/entries --json "$OUT/gelu-bfloat16.json" > "$OUT/gelu-bfloat16.log" 2>&1
echo "optimize rc $?"
grep -v -i "warn\|logging.cc\|SIGTERM\|^    @\|^PC:" "$OUT/gelu-bfloat16.log" | tail -16 | cut -c1-300
ls kernel_zoo/entries/linear_bias_gelu 2>/dev/null && \
    tar czf "$OUT/entries.tgz" -C kernel_zoo entries/linear_bias_gelu
exit 0
