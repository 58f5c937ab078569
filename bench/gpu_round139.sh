#!/usr/bin/env bash
# GPU round 139 (H100): (1) the skinny GEMM (128x4096x4096) around round 138's best, 128x32x128
# five deep through tensor descriptors (18.2 us against cuBLAS's 18.1, by graph replays): depth,
# K step, warps, wider tiles, descriptors or pointers; the 128x32x128 descriptor config twice, to
# read the run's noise. (2) The memory-bound table again, with argmax 1.8.0.
# Outcome (runs/gemm-configs-h100-skinny-tma-graphs-round139.json, bench/results/memory-bound-h100-
# graphs.json): cuBLAS 17.5 us; 128x32x128 five deep through descriptors 18.0 both times (0.97x),
# 128x64x64 nine deep through descriptors 18.4, 128x32x64 eight or nine deep 18.5, four deep 19.7,
# 256-wide K steps 34-35. The table: 1.231x torch.compile; every argmax shape at or above it (1.06x
# at 4099x1000); 13 of 75 shapes behind, all within 2.4% (round 135: 10; SwiGLU's three and mean
# at 4099x1000 read 0.99x here, 1.00-1.01x there); cross-entropy 4099x50257 0.85 of copy.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 python3 bench/gemm.py --configs --graphs --cases skinny_128x4096x4096 \
    --candidates bench/gemm-skinny-tma-candidates.json --out "$OUT" 2>&1 \
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
timeout 320 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
grep -A3 "large_below\|geomean_vs_compile\"" "$OUT/memory-bound-graphs.txt" | head -14
grep -E "^(argmax|cross_entropy)" "$OUT/memory-bound-graphs.txt"
exit 0
