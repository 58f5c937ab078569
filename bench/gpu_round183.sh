#!/usr/bin/env bash
# GPU round 183 (H100), written in stop 31 and not run yet (its device time was spent): the
# timer's opt-in host_ahead mode, checked (tests/test_gpu.py's host-ahead test) and then measured
# against the default timer and graph replays at linear + LayerNorm 1000x1024->3000, eager and
# composed, with 0-150 us of host time added (bench/probe_timer_host.py). The question for the
# verifier: does its default timer count host time at this shape, and by how much a machine's
# host speed moves a verdict.
# Outcome: not run yet.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round183
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py \
    -k "host_ahead or flush" \
    > "$OUT/gpu-tests-timer.txt" 2>&1
echo "pytest exit $?"
tail -2 "$OUT/gpu-tests-timer.txt"
timeout 300 python3 bench/probe_timer_host.py 2>&1 | tail -20
cp bench/results/probe-timer-host-*.json "$OUT/" 2>/dev/null
exit 0
