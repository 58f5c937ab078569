#!/usr/bin/env bash
# GPU round 407 (H200; written 2026-11-29 after the session's device time was spent; run 2026-11-29):
# bench/probe_inner_block.py over the 16-bit rows over dim 1 at 32x1000x1024 (0.52-0.55 of copy
# after the sweeps of rounds 404-405, which kept their configs): the served kernel holds 16
# columns (32-byte runs) as float32, half a float32 tile's bytes for the same registers
# (bench/compile_softmax_columns.py); its rewrites with 32 columns hold what float32's 16 do.
# Then `kzoo zoo verify --newest` for log_softmax (1.36.0: rounds 404-405 promoted six configs,
# and round 406 ran out of device time before its verify finished; softmax 1.36.0 passed in
# 266 s) and cross_entropy in what is left.
#     device run, no carry:  bash bench/gpu_round407.sh
# Outcome (2026-11-29, 310 s): no variant beat the served 16-bit kernel (55.8-59.2 us); 32 columns
# uncapped 57.3-61.1, capped to 64 registers spilling, 74.9-93.3 (probe-inner-block-h200-{bfloat16,
# float16}.json). zoo verify passed: log_softmax 1.36.0 (200 s), cross_entropy (74 s).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round407
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/r407
for dtype in bfloat16 float16; do  # round 403's float32 probe took 11 s
    timeout 120 python3 bench/probe_inner_block.py --dtype $dtype \
        > /tmp/r407/probe-inner-block-$dtype.txt 2>&1
    echo "inner-block probe $dtype: rc $? after $(( $(date +%s) - start )) s"
    grep -v "^wrote" /tmp/r407/probe-inner-block-$dtype.txt
done
cp bench/results/probe-inner-block-*-*16.json /tmp/r407/ 2>/dev/null
zoo_verify_ops 570 /tmp/r407 log_softmax cross_entropy
tar czf "$OUT/round407.tgz" -C /tmp r407
exit 0
