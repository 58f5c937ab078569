#!/usr/bin/env bash
# GPU round 138 (H100): (1) argmax over 1000-wide rows (0.96x torch.compile in round 135, 9.9
# against 9.5 us): the reduce template's packed_keys now reduces an argmax tile with two 32-bit
# integer reductions (the max over order-preserving keys, then the least index whose key is it;
# a REDUX each per warp) where it took one 64-bit max over the index packed below the key. The
# served cols_le_1024 params rendered so compete with the stored file. (2) The skinny GEMM
# (128x4096x4096) with deeper pipelines by graph replays: cuBLAS's kernel keeps 64x64 tiles about
# 13 deep (round 134's profile); the template's stages now go to 12.
# Outcome (runs/tune-buckets-h100-round138-argmax.json, runs/gemm-configs-h100-skinny-deep-graphs-
# round138.json): 5 reduce GPU tests passed. The served params with the two-key reduction took
# 8.80 us against the stored file's 9.22; one row of 1024 to a program (one warp, 32 elements a
# thread, packed keys) 8.72, torch.compile 9.1: argmax 1.8.0. Skinny GEMM: cuBLAS 18.1 us;
# 128x32x128 five deep through tensor descriptors 18.2 (pointers 19.1), 64x64 tiles 9-12 deep
# 19.7-20.8, 64x32 tiles 26.8-27.3.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 90 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_reduce.py 2>&1 \
    | grep -E "FAILED|passed|failed" | tail -3
before=$(ls kernel_zoo/entries/argmax | sort -V | tail -1)
timeout 200 python3 bench/tune_buckets.py --ops argmax --dtypes bfloat16 --graphs \
    --samples 0 --jobs 14 --buckets cols_le_1024 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote|promot"
after=$(ls kernel_zoo/entries/argmax | sort -V | tail -1)
[ "$after" != "$before" ] && tar czf "$OUT/entries.tgz" -C kernel_zoo entries/argmax
timeout 150 python3 bench/gemm.py --configs --graphs --cases skinny_128x4096x4096 \
    --candidates bench/gemm-skinny-deep-candidates.json --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -3
python3 - "$OUT" <<'PY'
import json, sys, glob
for f in glob.glob(sys.argv[1] + "/gemm-configs-*.json"):
    for row in json.load(open(f))["rows"]:
        print(row["case"], "cublas", round(row.get("cublas_ms", 0) * 1e3, 1), "us")
        for e in row["configs"]:
            c = e["config"]
            print(" ", c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"], c["num_warps"], c["num_stages"],
                  c["SPLIT_K"], c["use_tma"], round(e.get("ms", 0) * 1e3, 1), e.get("problems"),
                  e.get("error", "")[:80])
PY
exit 0
