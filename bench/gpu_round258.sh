#!/usr/bin/env bash
# GPU round 258 (H100): the ws path's GPU tests again (round 257's ALiBi failure was the test's:
# its float64 reference took the slopes of 2 heads for a 16-head call), then `kzoo optimize
# tasks/attention_relpos.py` in bfloat16 and float16 (3 trials from the template's new DEFAULT,
# which takes the ws path at the task's 4x16x4096x128 shape), promoted into kernel_zoo/entries
# when faster than eager and torch.compile; the entries come back as entries.tgz.
# Outcome (2026-11-25): the GPU tests 6 passed (181 s, a cold machine's compiles); each dtype's
# 3 trials ran in 131 s (bfloat16's best 4.64x the best baseline), but the winner's re-timing in
# a fresh process had not ended at the 170 s limit: nothing promoted (round 259 again).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round258
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu --durations=10 \
    tests/test_attention_ws.py > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -20
for dt in bfloat16 float16; do
    timeout 170 python3 -c "from agent.cli import main; raise SystemExit(main())" optimize \
        tasks/attention_relpos.py --dtype $dt --trials 3 --time-budget 100 \
        --zoo kernel_zoo/entries --json "$OUT/relpos-$dt.json" > "$OUT/relpos-$dt.log" 2>&1
    echo "optimize $dt rc $?"
    grep -v -i warn "$OUT/relpos-$dt.log" | tail -8
done
ls kernel_zoo/entries/attention_relpos
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/attention_relpos
exit 0
