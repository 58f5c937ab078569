#!/usr/bin/env bash
# GPU round 50: tail recipes launch a repeated call through the compiled kernel's own launcher.
# The tail tests and the conv tasks' contract rows compiled on the GPU; the launch probe (host
# time, direct against Triton's JIT); conv_bn_relu, the one composed conv task round 49 left
# behind eager (host-bound at its small shape), searched and timed again.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 120 python3 -m pytest -q -x -p no:cacheprovider tests/test_tail.py 2>&1 | grep -E "passed|failed|FAILED|Error" | head -20
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_contract.py -m gpu -k "conv" 2>&1 | grep -E "passed|failed|FAILED|Error" | head -20
timeout 120 python3 bench/probe_tail_launch.py 2>&1 | grep -v -i -E "warn|token auth" | tail -8
cp bench/results/probe-tail-launch-h100.json "$OUT/" 2>/dev/null
mkdir -p /tmp/c50
timeout 150 python3 bench/compose.py --tasks conv_bn_relu --trials 3 --budget 45 --profile --out /tmp/c50 2>&1 \
    | grep -v -i -E "warn|token auth" | tail -5
cp /tmp/c50/compose-h100.json "$OUT/compose-h100-round50.json"
