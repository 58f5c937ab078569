#!/usr/bin/env bash
# GPU round 385 (H200, 2026-11-29): `kzoo zoo verify --newest` for the ops rounds 383-384 promoted
# (amax 1.18.0, amin 1.19.0, mean 1.14.0), one op a test call, in the device time left.
#     device run, no carry:  bash bench/gpu_round385.sh
# Outcome (ran 2026-11-29 04:35-04:41, 322 s): zoo verify passed for amax (95 s), amin (106 s) and
#   mean (107 s). runs/gpu-tests-h200-round385/.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round385
export PYTHONPATH=$PWD
start=$(date +%s)
mkdir -p /tmp/r385
for op in amax amin mean; do
    left=$(( 540 - ($(date +%s) - start) ))
    [ $left -lt 60 ] && break
    timeout $left python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
        "tests/test_zoo_cli.py::test_kzoo_zoo_verify_passes_for_every_shipped_op_on_the_gpu[$op]" \
        > "/tmp/r385/pytest-zoo_cli-$op.txt" 2>&1
    echo "zoo verify $op: rc $? $(tail -1 /tmp/r385/pytest-zoo_cli-$op.txt)"
done
tar czf "$OUT/round385.tgz" -C /tmp r385
exit 0
