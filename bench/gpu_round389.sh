#!/usr/bin/env bash
# GPU round 389 (H200; written 2026-11-29 after the session's device time was spent, run 2026-11-29):
# the GPU tests of `body_tile` (reduce: every op at every task shape and dtype; the norms' and
# softmax's align_edges tests, whose tiles now include a body_tile config), two processes.
#     device run, no carry:  bash bench/gpu_round389.sh
# Outcome (2026-11-29): 15 passed (reduce and softmax 12, norms 3),
# bench/results/runs/gpu-tests-h200-round389/.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round389
export PYTHONPATH=$PWD
mkdir -p /tmp/r389
(timeout 500 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
    "tests/test_reduce.py::test_tile_reduction_knob_is_correct_at_the_gpu_shapes" \
    "tests/test_templates_search.py::test_align_edges_is_correct_on_the_gpu" \
    > /tmp/r389/pytest-reduce-softmax.txt 2>&1
 echo "reduce, softmax: rc $? $(tail -1 /tmp/r389/pytest-reduce-softmax.txt)") &
(timeout 500 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
    "tests/test_norm.py::test_align_edges_is_correct_on_the_gpu" \
    > /tmp/r389/pytest-norm.txt 2>&1
 echo "norms: rc $? $(tail -1 /tmp/r389/pytest-norm.txt)") &
wait
grep -hE "^(FAILED|E  )" /tmp/r389/pytest-*.txt | head -20
tar czf "$OUT/round389.tgz" -C /tmp r389
exit 0
