#!/usr/bin/env bash
# GPU round 364 (H200, 2026-11-28): (1) what bench/memory_bound.py's own
# run launches when it reads layer_norm 1.18.0's bfloat16 file at 4096x4097 in 47 us (four
# other harnesses: 68 us; rounds 356-360), layer_norm's newer entries moved away on the device's
# copy only; (2) softmax and log-softmax float32 `cols_le_65536` (1024x32768, 0.89 of copy in
# one 1024-thread program a row) re-tuned with the split-row, row-ahead variants for 32768-wide
# rows (`--knobs single_pass_max`), winners promoted; then both ops' float32 table rows.
#     device run, no carry:  bash bench/gpu_round364.sh
# Outcome (124 s): the table's own run launched layer_norm 1.18.0's kernel with 128 registers a
# thread (44.8 us in the trace) where every other harness saw 180 (runs/memory-bound-h200-graphs-
# bfloat16-layer-norm-launches-round364.json): a different binary, which round 365 traced to the
# ptxas. The 32768-wide split variants lost: 75.6-101 us against the one pass's 71.1-71.4
# (runs/tune-buckets-h200-round364/); nothing promoted. Table rows:
# memory-bound-h200-graphs-float32-softmax-round364.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kzoo-round364
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/hide364 /tmp/launches364
mv kernel_zoo/entries/layer_norm/1.19.0 kernel_zoo/entries/layer_norm/1.2[01].0 /tmp/hide364/
timeout 200 python3 bench/memory_bound.py --graphs --launches --dtypes bfloat16 --ops layer_norm \
    --out /tmp/launches364 2>&1 | grep -v -i warn | grep -E "4097|wrote"
python3 - /tmp/launches364/memory-bound-*-layer_norm-bfloat16-graphs.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    print(r["shape"], round(r["zoo"]["ms"] * 1e3, 1), "us", r.get("zoo_launches"))
PY
tar czf "$OUT/launches.tgz" -C /tmp launches364
mv /tmp/hide364/* kernel_zoo/entries/layer_norm/
echo "launches after $(( $(date +%s) - start )) s"
entries_snapshot
mkdir -p /tmp/tune364 /tmp/tables364
for op in softmax log_softmax; do
    tune_op 100 $op float32 /tmp/tune364 --buckets cols_le_65536 --knobs single_pass_max \
        --samples 0 --jobs 14
    entries_pack_new; tar czf "$OUT/tune-buckets.tgz" -C /tmp tune364
done
left=$(( 570 - ($(date +%s) - start) )); [ $left -lt 30 ] && left=1
timeout $left python3 bench/memory_bound.py --graphs --dtypes float32 --ops softmax,log_softmax \
    --out /tmp/tables364 2>&1 | grep -v -i warn | grep -E "4097|32768|128256|geomean|wrote" | head -12
tar czf "$OUT/tables.tgz" -C /tmp tables364
exit 0
