#!/usr/bin/env bash
# GPU round 379 (H200, 2026-11-29): the row-split GPU tests with their new `row_lag` rows
# (softmax and log-softmax: 4-way, and 16-way with split_maxnreg 80; RMSNorm, LayerNorm and
# add + RMSNorm the same), every GPU shape and dtype of the tasks through the verifier, two
# processes side by side. Outputs in one tarball.
#     device run, no carry:  bash bench/gpu_round379.sh
# Outcome (ran 2026-11-29 03:02, 95 s): test_templates_search 2 passed, test_norm 3 passed.
#   runs/gpu-tests-h200-round379/.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round379
export PYTHONPATH=$PWD
mkdir -p /tmp/r379
for t in tests/test_templates_search.py tests/test_norm.py; do
    name=$(basename $t .py)
    (timeout 175 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
        "$t::test_row_split_is_correct_on_the_gpu" > /tmp/r379/pytest-$name.txt 2>&1
     echo "$name: rc $? $(tail -1 /tmp/r379/pytest-$name.txt)") &
done
wait
grep -hE "^(FAILED|E  )" /tmp/r379/pytest-*.txt | head -20
tar czf "$OUT/round379.tgz" -C /tmp r379
exit 0
