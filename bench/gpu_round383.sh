#!/usr/bin/env bash
# GPU round 383 (H200, 2026-11-29): `kzoo zoo verify --newest` for argmax (1.29.0, the entries
# rounds 381-382 promoted, every GPU shape and dtype through the verifier); then amax and amin
# float32 `cols_le_1024` swept over the row tiles that argmax's winners took (round 381: one
# 1000-wide row a program of 4 warps; `--knobs max_then_index` names those variants, which for
# amax and amin keep their NaN-keeping combine and change only the tile), and their rows of the
# float32 table.
#     device run, no carry:  bash bench/gpu_round383.sh
# Outcome (ran 2026-11-29 04:29-04:33, 249 s): zoo verify argmax passed (163 s). Promoted amax 1.18.0
#   and amin 1.19.0 (float32 cols_le_1024: one 1000-wide row a program of 4 warps, NaN-keeping
#   combine kept; 8.88 and 8.74 us in the sweep against the served 9.25 and 9.02, torch.compile
#   10.02 and 9.79). Table: 4099x1000 amax 1.20x, amin 1.12x torch.compile.
#   runs/tune-buckets-h200-round383/, memory-bound-h200-graphs-float32-amax-amin-round383.json,
#   runs/gpu-tests-h200-round383/; standing 1.290x, 20 rows behind.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round383
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/r383/tune /tmp/r383/table
timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
    "tests/test_zoo_cli.py::test_kzoo_zoo_verify_passes_for_every_shipped_op_on_the_gpu[argmax]" \
    > /tmp/r383/pytest-zoo_cli-argmax.txt 2>&1
echo "zoo verify argmax: rc $? $(tail -1 /tmp/r383/pytest-zoo_cli-argmax.txt)"
entries_snapshot
tune_op 80 amax float32 /tmp/r383/tune --buckets cols_le_1024 --knobs max_then_index \
    --samples 0 --jobs 14
tune_op 80 amin float32 /tmp/r383/tune --buckets cols_le_1024 --knobs max_then_index \
    --samples 0 --jobs 14
entries_pack_new
left=$(( 540 - ($(date +%s) - start) ))
if [ $left -gt 50 ]; then
    timeout $left python3 bench/memory_bound.py --ops amax,amin --dtypes float32 --graphs \
        --out /tmp/r383/table > /tmp/r383/table/stdout.txt 2>&1
    echo "table: rc $? after $(( $(date +%s) - start )) s"
    grep -E "^am" /tmp/r383/table/stdout.txt | head -20
fi
tar czf "$OUT/round383.tgz" -C /tmp r383
exit 0
