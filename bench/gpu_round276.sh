#!/usr/bin/env bash
# GPU round 276 (H100): `kzoo optimize` for tasks/linear_bias_silu.py in float16 and
# tasks/linear_bias_gelu.py in float32 (IEEE, no TF32), promoting into kernel_zoo/entries where a
# winner beats the best baseline.
# Outcome (2026-11-25): promoted linear_bias_silu 1.1.0 (float16, 1.118x the best baseline: 1.032x
# eager at 4x2048, 1.24x at 16 rows); float32 GELU hit the 270 s limit before its trials ended
# (nothing promoted). bench/results/runs/optimize-linear-bias-silu-float16-h100-round276.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round276
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for job in "linear_bias_silu float16" "linear_bias_gelu float32"; do
    set -- $job
    timeout 270 python3 -c "from agent.cli import main; raise SystemExit(main())" optimize \
        tasks/$1.py --dtype $2 --trials 6 --time-budget 120 \
        --zoo kernel_zoo/entries --json "$OUT/$1-$2.json" > "$OUT/$1-$2.log" 2>&1
    echo "optimize $1 $2 rc $?"
    grep -v -i "warn\|logging.cc\|SIGTERM\|^    @\|^PC:" "$OUT/$1-$2.log" | tail -5 | cut -c1-300
done
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/linear_bias_gelu $(ls -d kernel_zoo/entries/linear_bias_silu 2>/dev/null | sed 's|kernel_zoo/||')
exit 0
