#!/usr/bin/env bash
# GPU round 336 (H200; written 2026-11-28, run 2026-11-28): the pointwise template's two knobs of that day, on GeGLU, whose rows round 332's H200
# table left furthest from the bars among the gated units: 16x16384 at 0.92-0.97x torch.compile
# in every dtype, and the 16-bit large shapes at 0.82-0.88 of the copy bandwidth (torch.compile's
# kernel there too: an instruction-issue bound, not a byte bound).
#   - gelu_erf_fit: erf-GELU from erfc's Chebyshev fit, 12% fewer SASS instructions in the
#     bfloat16 kernel (bench/results/compile-pointwise-sm90-bf16.json);
#   - small_per_thread: a decode step's small call spread over more threads than the bucket's
#     large-shape tiles give, so one config serves both (bucket cols_gt_4096).
# First the GPU tests of the pointwise template (the new geglu-with-the-fit test among them),
# then bench/tune_buckets.py on GeGLU's cols_gt_4096 in the three dtypes with only those knobs'
# variants and the served configs, winners promoted, then GeGLU's table rows.
#     device run, carry [".gpu-slim"]:  bash bench/gpu_round336.sh
# Outcome (192 s): 8 GPU pointwise tests passed. Promoted geglu 1.18.0 (bfloat16), 1.19.0
# (float16), 1.20.0 (float32), every one with gelu_erf_fit on and small_per_thread 2-4
# (bench/results/runs/tune-buckets-h200-round336/). Table (memory-bound-h200-graphs-geglu-round336.json,
# copy 4253 GB/s): 16-bit large rows 0.92-0.96 of copy (round 332: 0.82-0.88) and 1.09-1.12x
# torch.compile; 16x16384 1.00x (bf16, f16) and 1.02x (f32), round 332: 0.92-0.97x.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round336
. bench/gpu_lib.sh
slim_bundle_install
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_pointwise.py > "$OUT/pytest.txt" 2>&1
echo "pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "passed|failed|^FAILED|^E +" "$OUT/pytest.txt" | cut -c1-300 | tail -12
entries_snapshot
mkdir -p /tmp/tune336 /tmp/tables336
for dtype in bfloat16 float16 float32; do
    tune_op 110 geglu $dtype /tmp/tune336 --buckets cols_gt_4096 --knobs gelu_erf_fit,small_per_thread \
        --samples 4 --jobs 14
    entries_pack_new; tar czf "$OUT/tune-buckets.tgz" -C /tmp tune336
done
left=$(( 570 - ($(date +%s) - start) ))
timeout $left python3 bench/memory_bound.py --graphs --dtypes bfloat16,float16,float32 --ops geglu \
    --out /tmp/tables336 2>&1 | grep -v -i warn | grep -E "GB/s|geomean|wrote" | head -16
echo "table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables336
exit 0
