#!/usr/bin/env bash
# GPU round 115 (prepared, not yet run): the shipped softmax 1.4.0 and log_softmax 1.3.0 kernels
# predate `_unit`, so at 4099x1000 and 4096x4097 they load and store 2 bytes at a time (an offline
# sm_90 compile of the shipped files shows 32 scalar loads and stores per row tile there; round 101
# measured 1.03-1.08x from re-rendering). `kzoo sweep` re-verifies both entries, continues their
# studies warm-started from the entries' params (so the first trial is today's render of the same
# config) and promotes a winner at least 1.02x better than the entry into kernel_zoo/entries.
# Outcome: (not yet run)
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round115
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 560 python3 -m agent sweep --ops softmax,log_softmax --zoo kernel_zoo/entries \
    --trials-per-op 8 --time-budget 480 --report "$OUT/sweep" 2>&1 | grep -v -i warn | tail -25
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/softmax entries/log_softmax
exit 0
