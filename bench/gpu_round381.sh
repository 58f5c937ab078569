#!/usr/bin/env bash
# GPU round 381 (H200, 2026-11-29): the reduce template's `max_then_index` (argmax: one
# NaN-keeping float max a tile, then a first-index min over the lanes holding it or a NaN, where
# `packed_keys` takes two integer reductions over order-preserving keys). Float32 argmax at
# 4099x1000 reads 0.944x torch.compile (10.37 against 9.79 us, round 367) while amax over the
# same bytes takes 9.12. Tunes argmax's float32 `cols_le_1024` and `cols_le_16384` buckets and
# bfloat16's `cols_le_1024` with `--knobs max_then_index` (the served configs against their
# max_then_index variants over 12 row tiles), promoting a winner; the knob's GPU test (argmax,
# argmin, every task shape and dtype); argmax's rows of the table.
#     device run, no carry:  bash bench/gpu_round381.sh
# Outcome (ran 2026-11-29 04:21-04:23, 125 s): promoted argmax 1.21.0 (float32 cols_le_1024:
#   max_then_index, one 1000-wide row a program of 4 warps; 8.90 us in the sweep against the
#   served 10.14, torch.compile 9.66), 1.22.0 (float32 cols_le_16384: max_then_index on a
#   4096-element tile; 22.98/64.0 us at 4096x4097/8192x8192 against 23.84/66.5) and 1.23.0
#   (bfloat16 cols_le_1024: 2048-element tiles; 8.19 against 8.96; at the served tile the knob
#   alone took 8.32-8.35). GPU test: 2 passed. Table: float32 4099x1000 1.13x torch.compile (was
#   0.944x), 8192x8192 0.98 of copy. runs/tune-buckets-h200-round381/,
#   memory-bound-h200-graphs-argmax-round381.json. (That GPU test is now
#   test_tile_reduction_knob_is_correct_at_the_gpu_shapes[max_then_index-argmax|argmin].)
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round381
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r381/tune /tmp/r381/table
tune_op 150 argmax float32 /tmp/r381/tune --buckets cols_le_1024,cols_le_16384 \
    --knobs max_then_index --samples 0 --jobs 14
tune_op 100 argmax bfloat16 /tmp/r381/tune --buckets cols_le_1024 --knobs max_then_index \
    --samples 0 --jobs 14
entries_pack_new
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
    "tests/test_reduce.py::test_max_then_index_is_correct_at_the_gpu_shapes" \
    > /tmp/r381/pytest-test_reduce.txt 2>&1
echo "test_reduce: rc $? $(tail -1 /tmp/r381/pytest-test_reduce.txt)"
left=$(( 560 - ($(date +%s) - start) ))
if [ $left -gt 60 ]; then
    timeout $left python3 bench/memory_bound.py --ops argmax --dtypes float32,bfloat16 --graphs \
        --out /tmp/r381/table > /tmp/r381/table/stdout.txt 2>&1
    echo "table: rc $? after $(( $(date +%s) - start )) s"
    grep -E "argmax" /tmp/r381/table/stdout.txt | head -20
fi
tar czf "$OUT/round381.tgz" -C /tmp r381
exit 0
