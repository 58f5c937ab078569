#!/usr/bin/env bash
# GPU round 363 (H200; written 2026-11-28 after the session's device time was spent, NOT YET RUN):
# what bench/memory_bound.py's own run launches when it reads layer_norm 1.18.0's bfloat16 file at
# 4096x4097 in 47 us (four other harnesses: 68 us, grid 1056 x 256 threads, 180 registers; rounds
# 356-360). layer_norm's newer entries moved away on the device's copy only, as in round 359, and
# each row's zoo call profiled after it is timed (--launches).
#     device run, no carry:  bash bench/gpu_round363.sh
# Outcome: not yet run.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round363
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/hide363
mv kernel_zoo/entries/layer_norm/1.19.0 kernel_zoo/entries/layer_norm/1.2[01].0 /tmp/hide363/
timeout 240 python3 bench/memory_bound.py --graphs --launches --dtypes bfloat16 --ops layer_norm \
    --out "$OUT" 2>&1 | grep -v -i warn | grep -E "4097|wrote"
python3 - "$OUT"/memory-bound-*-layer_norm-bfloat16-graphs.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    print(r["shape"], round(r["zoo"]["ms"] * 1e3, 1), "us", r.get("zoo_launches"))
PY
exit 0
