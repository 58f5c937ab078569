#!/usr/bin/env bash
# GPU round 286 (H100): after the skinny companions' wider tiles (SKINNY_WIDE 64x128, SKINNY_LARGE
# 128x128: the smallest tile that fits one wave, rounds 284-285): (1) test_gemm's GPU tests of the
# skinny tiles, the pair, split-K and the descriptor path; (2) the four linear entries' winners
# re-rendered with them (`kzoo optimize --start @params --trials 1`, promoting into
# kernel_zoo/entries where the re-timed winner beats the best baseline).
# Outcome (2026-11-25): 9 passed (the three skinny tiles in both layouts among them). Promoted
# linear_bias_gelu 1.4.0 (bfloat16, 1.465x the best baseline) and 1.5.0 (float16, 1.487x),
# linear_bias_silu 1.4.0 (bfloat16, 1.092x) and 1.5.0 (float16, 1.112x): the same params again,
# with the wider skinny companions. bench/results/runs/optimize-linear-bias-*-h100-round286.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round286
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py \
    -k "skinny or cluster or split or descriptor" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
for job in "linear_bias_gelu bfloat16" "linear_bias_gelu float16" "linear_bias_silu bfloat16" \
           "linear_bias_silu float16"; do
    set -- $job
    python3 - "$1" "$2" > "/tmp/start-$1-$2.json" <<'PY'
import json, sys
from kernel_zoo import store
entry = store.newest_entries(sys.argv[1])[0]
[cfg] = [c for c in entry.manifest["configs"] if c["dtype"] == sys.argv[2]]
print(json.dumps(cfg["params"]))
PY
    timeout 100 python3 -c "from agent.cli import main; raise SystemExit(main())" optimize \
        tasks/$1.py --dtype $2 --trials 1 --start "@/tmp/start-$1-$2.json" \
        --zoo kernel_zoo/entries --json "$OUT/$1-$2.json" > "$OUT/$1-$2.log" 2>&1
    echo "optimize $1 $2 rc $?"
    grep -v -i "warn\|logging.cc\|SIGTERM\|^    @\|^PC:" "$OUT/$1-$2.log" | tail -4 | cut -c1-300
done
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/linear_bias_gelu entries/linear_bias_silu
exit 0
