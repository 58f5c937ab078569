#!/usr/bin/env bash
# GPU round 338 (H200; written and run 2026-11-28): what rounds 336-337 left on the H200.
#   1. The norm template's new loop_full_from knob (full 8192- or 4096-wide rows through the
#      looped kernel, torch.compile's RMSNorm form per probe-inductor-norm-h200.json): its GPU
#      test, then rms_norm re-tuned with only its variants in cols_le_16384 (16384x8192, 0.965-0.970x
#      torch.compile in every dtype) and, in float32, cols_le_4096 (8192x4096 0.984x).
#   2. SwiGLU re-tuned on the H200 in cols_gt_4096 (0.97-0.99x at 4096x11008 and 8192x14336 in
#      round 332) with the pointwise knobs that moved GeGLU in round 336 and GeGLU's new configs
#      (--siblings).
#   3. The matmul skinny 16x8192x8192 case (0.984-0.990x cuBLAS in round 337): 11 configs
#      around the shipped one (deeper pipelines, narrower N, split-K) as graph replays.
#   4. rms_norm and swiglu table rows, three dtypes.
# No Ray or Optuna needed (bench/tune_buckets.py promotes through kernel_zoo.store), and none
# carried: the tree (45 MiB on disk) and .gpu-slim (22 MiB) no longer fit the 64 MiB carry.
#     device run, no carry:  bash bench/gpu_round338.sh
# Outcome (293 s): the 3 GPU tests of loop_full_from passed. rms_norm: bfloat16 and float16 kept
# their one-pass configs (16384x8192: the best looped config 134.0 and 130.2 us, the served 129.9
# and 130.0, torch.compile 124.9 and 124.8); float32 promoted 1.22.0, the looped kernel at
# 16384x8192 (16 warps, 2048-element blocks: 254.8 us against the one pass's 260.1 and
# torch.compile's 250.8), 0.97x -> 0.99x. SwiGLU promoted 1.9.0-1.11.0 (cols_gt_4096): its large
# rows 0.97-0.99x -> 1.00x torch.compile. Skinny 16x8192x8192: none of the 11 configs reached
# cuBLAS (34.6 us; the best, 4 stages, 35.3: 0.980x). runs/tune-buckets-h200-round338/,
# memory-bound-h200-graphs-rms-norm-swiglu-round338.json, runs/gemm-configs-h200-graphs-round338-skinny16.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round338
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 90 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_norm.py -k loop_full \
    > "$OUT/pytest.txt" 2>&1
echo "pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "passed|failed|^FAILED|^E +" "$OUT/pytest.txt" | cut -c1-300 | tail -8
entries_snapshot
mkdir -p /tmp/tune338 /tmp/tables338 /tmp/gemm338
for dtype in bfloat16 float16 float32; do
    buckets=cols_le_16384
    [ $dtype = float32 ] && buckets=cols_le_4096,cols_le_16384
    tune_op 75 rms_norm $dtype /tmp/tune338 --buckets $buckets --knobs loop_full_from \
        --samples 2 --jobs 14
    entries_pack_new; tar czf "$OUT/tune-buckets.tgz" -C /tmp tune338
done
for dtype in bfloat16 float16 float32; do
    tune_op 75 swiglu $dtype /tmp/tune338 --buckets cols_gt_4096 --siblings \
        --knobs small_per_thread,min_per_thread --samples 2 --jobs 14
    entries_pack_new; tar czf "$OUT/tune-buckets.tgz" -C /tmp tune338
done
timeout 60 python3 bench/gemm.py --configs --cases skinny_16x8192x8192 --graphs \
    --candidates bench/gemm-candidates-skinny16-h200.json --out /tmp/gemm338 2>&1 \
    | grep -v -i warn | tail -4
python3 - <<'PY'
import glob, json
for f in glob.glob("/tmp/gemm338/*.json"):
    for row in json.load(open(f))["rows"]:
        print(row["case"], "cublas", row.get("cublas_ms"))
        for i, e in enumerate(row["configs"]):
            c = e["config"]
            print(f"  cfg{i} {e.get('ms', e.get('error', 'untimed'))} "
                  f"{ {k: c[k] for k in ('BLOCK_N', 'BLOCK_K', 'num_warps', 'num_stages', 'SPLIT_K')} }")
PY
cp /tmp/gemm338/*.json "$OUT/" 2>/dev/null
echo "gemm after $(( $(date +%s) - start )) s"
left=$(( 575 - ($(date +%s) - start) )); [ $left -lt 30 ] && left=1
timeout $left python3 bench/memory_bound.py --graphs --dtypes bfloat16,float16,float32 \
    --ops rms_norm,swiglu --out /tmp/tables338 2>&1 | grep -v -i warn \
    | grep -E "GB/s|geomean|wrote" | head -30
echo "table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables338
exit 0
