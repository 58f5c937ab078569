#!/usr/bin/env bash
# GPU round 279 (H100): `kzoo zoo verify <op> --newest` for attention_relpos (1.4.0, round 278)
# and attention_softcap (test_zoo_cli).
# Outcome (2026-11-25): 2 passed (zoo verify attention_relpos 1.4.0 and attention_softcap).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 400 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_zoo_cli.py \
    -k "attention" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
exit 0
