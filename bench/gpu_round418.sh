#!/usr/bin/env bash
# GPU round 418 (H200; 2026-11-29): the two float32 mean rows behind `torch.compile` by more than
# 1% in the standing (4096x4097, `cols_le_16384`, 0.987x; 32x4096x1024 over dim 1, `inner_dim`,
# 0.988x). Round 399 swept `inner_dim` in full and kept its config; `cols_le_16384` in float32
# serves a config no sweep on the H200 has looked around. `tune_buckets.py --local` around each
# bucket's served config, then mean's float32 rows. Sized to what the session had left (444 s).
#     device run, no carry:  BUDGET=400 bash bench/gpu_round418.sh
# Outcome (2026-11-29, BUDGET=390, 71 s): both buckets kept their served configs (88 sources;
# 19.5 us at 4096x4097 against `torch.compile`'s 19.4 in the sweep, 121.9 over dim 1 against
# 126.0). In the table, the same kernels: 4096x4097 0.99x, over dim 1 1.033x
# (`memory-bound-h200-graphs-float32-mean-local-round418.json`).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round418
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
budget=${BUDGET:-400}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r418/tune
tune_pairs 60 $(( budget / 2 )) /tmp/r418/tune "mean:float32" --buckets cols_le_16384,inner_dim \
    --samples 0 --jobs 14 --local
entries_pack_new
table_rows "$budget" /tmp/r418 mean float32
grep -E "x1024|4097" /tmp/r418/table/stdout.txt | head -8
tar czf "$OUT/round418.tgz" -C /tmp r418
exit 0
