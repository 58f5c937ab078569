#!/usr/bin/env bash
# GPU round 164 (H100): `kzoo zoo verify --newest` of every shipped op on the GPU, one pytest test
# an op (tests/test_zoo_cli.py; every entry at once ran past round 163's 560 s). The ops named in
# $OPS_K (a pytest -k expression; all when empty), verbose, so a time-out keeps each finished
# test's line.
# Outcome (runs/zoo-verify-h100-round164/): two calls, OPS_K the first and the second half of the ops:
# all 15 ops' newest entries correct at every GPU shape of their tasks (387 and 420 s).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round164
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout "${LIMIT_S:-540}" python3 -m pytest -v -p no:cacheprovider -m gpu tests/test_zoo_cli.py \
    ${OPS_K:+-k "$OPS_K"} --durations=0 > "$OUT/zoo-verify-newest.txt" 2>&1
echo "exit $?"
grep -E "PASSED|FAILED|ERROR|passed|failed|[0-9.]+s call" "$OUT/zoo-verify-newest.txt" | head -40
exit 0
