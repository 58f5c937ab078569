#!/usr/bin/env bash
# GPU round 271 (H100): DECODE_WIDE (a decode call whose DECODE_DEFAULT tiles would take more
# than one wave runs 16x64x256 descriptor tiles): test_gemm's GPU tests, then round 270's
# `kzoo optimize tasks/matmul_skinny.py` again (a fresh study home), bfloat16 and float16,
# promoting into kernel_zoo/entries.
# Outcome (2026-11-25): test_gemm's GPU tests 11 passed. Promoted matmul 1.0.0 (bfloat16, 1.020x
# the best baseline over the task's shapes on re-timing) and 1.1.0 (float16, 1.021x); one trial
# (the cluster tile with EPILOGUE_SPLIT=2) did not build under Triton 3.6, now a constraint.
# bench/results/runs/optimize-matmul-skinny-*-h100-round271.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round271
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py \
    > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
for dt in bfloat16 float16; do
    timeout 150 python3 -c "from agent.cli import main; raise SystemExit(main())" optimize \
        tasks/matmul_skinny.py --dtype $dt --trials 8 --time-budget 90 \
        --zoo kernel_zoo/entries --json "$OUT/skinny-$dt.json" > "$OUT/skinny-$dt.log" 2>&1
    echo "optimize $dt rc $?"
    grep -v -i "warn\|logging.cc\|SIGTERM\|^    @\|^PC:" "$OUT/skinny-$dt.log" | tail -14 | cut -c1-240
done
ls kernel_zoo/entries/matmul 2>/dev/null && tar czf "$OUT/entries.tgz" -C kernel_zoo entries/matmul
exit 0
