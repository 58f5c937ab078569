#!/usr/bin/env bash
# GPU round 342 (H200; written 2026-11-28, run 2026-11-28 19:02 UTC): the norm template's loop_const_cols (a looped row's width a compile-time constant where it
# is whole blocks: unrolled, unmasked loops, as round 341's probe kernel that took RMSNorm
# 16384x8192 bfloat16 in torch.compile's 124.4 us, where the hinted template loop took 126.6).
# First the norm template's GPU tests (the knob among them), then rms_norm re-tuned with only the
# knob's variants in bfloat16 and float16 (cols_le_16384, cols_le_4096) and float32
# (cols_le_16384, where the looped kernel already serves 16384x8192 at 0.99x), then RMSNorm's
# table rows in the three dtypes (to fold into bench/memory_bound_standing.py's standing).
#     device run, no carry:  bash bench/gpu_round342.sh
# Outcome (226 s): the 6 norm GPU tests passed. loop_const_cols promoted rms_norm 1.28.0-1.31.0
# (bfloat16 and float16, cols_le_16384 and cols_le_4096); float32's cols_le_16384 kept its config.
# RMSNorm 16384x8192 went from 0.967x/0.964x torch.compile (round 338's table) to 1.00x/1.00x in
# bfloat16/float16; float32 0.99x (memory-bound-h200-graphs-rms-norm-round342.json: all 15 rows
# 0.99-1.34x, the run's geomean 1.114x).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round342
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_norm.py > "$OUT/pytest.txt" 2>&1
echo "pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "passed|failed|^FAILED|^E +" "$OUT/pytest.txt" | cut -c1-300 | tail -8
entries_snapshot
mkdir -p /tmp/tune342 /tmp/tables342
for job in "bfloat16 cols_le_4096,cols_le_16384" "float16 cols_le_4096,cols_le_16384" \
           "float32 cols_le_16384"; do
    set -- $job
    tune_op 80 rms_norm $1 /tmp/tune342 --buckets $2 --knobs loop_const_cols --samples 0 --jobs 14
    entries_pack_new; tar czf "$OUT/tune-buckets.tgz" -C /tmp tune342
done
left=$(( 560 - ($(date +%s) - start) )); [ $left -lt 30 ] && left=1
timeout $left python3 bench/memory_bound.py --graphs --dtypes bfloat16,float16,float32 \
    --ops rms_norm --out /tmp/tables342 2>&1 | grep -v -i warn | grep -E "GB/s|geomean|wrote"
echo "table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables342
exit 0
