#!/usr/bin/env bash
# GPU round 183 (H100), written in stop 31 and not run yet (its device time was spent): the
# timer's opt-in host_ahead mode, checked (tests/test_gpu.py's host-ahead test) and then measured
# against the default timer and graph replays at linear + LayerNorm 1000x1024->3000, eager and
# composed, with 0-150 us of host time added (bench/probe_timer_host.py). The question for the
# verifier: does its default timer count host time at this shape, and by how much a machine's
# host speed moves a verdict.
# Outcome (run in stop 32; bench/results/probe-timer-host-h100.json,
# runs/gpu-tests-timer-h100-round183.txt): both timer tests passed. With 0-150 us of host time
# added (55-200 us a call), the default timer read 24.0-122.8 us for the composed call with
# descriptors, 24.3-104.4 with pointers and 25.4-189.3 for eager, jumping about with the host;
# host_ahead 23.9-24.1, 24.4-24.5 and 25.7-25.9; graph replays 23.1, 24.3-24.4 and 24.5-24.6.
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
