#!/usr/bin/env bash
# GPU round 274 (H100): `kzoo optimize` for tasks/linear_bias_silu.py (4x2048x4096->4096 and a
# decode step, 1x16x4096->4096), bfloat16, and round 273's tasks/linear_bias_gelu.py in float16,
# promoting into kernel_zoo/entries.
# Outcome (2026-11-25): promoted linear_bias_silu 1.0.0 (bfloat16, 1.093x the best baseline: 0.993x
# eager at 4x2048, 1.26x at 16 rows) and linear_bias_gelu 1.1.0 (float16, 1.482x: 1.006x and 1.018x
# eager at the large shapes, 3.20x at 4099x1000->3073).
# bench/results/runs/optimize-linear-bias-*-round274.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round274
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for job in "linear_bias_silu bfloat16" "linear_bias_gelu float16"; do
    set -- $job
    timeout 270 python3 -c "from agent.cli import main; raise SystemExit(main())" optimize \
        tasks/$1.py --dtype $2 --trials 6 --time-budget 120 \
        --zoo kernel_zoo/entries --json "$OUT/$1-$2.json" > "$OUT/$1-$2.log" 2>&1
    echo "optimize $1 $2 rc $?"
    grep -v -i "warn\|logging.cc\|SIGTERM\|^    @\|^PC:" "$OUT/$1-$2.log" | tail -5 | cut -c1-300
done
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/linear_bias_gelu $(ls -d kernel_zoo/entries/linear_bias_silu 2>/dev/null | sed 's|kernel_zoo/||')
exit 0
