#!/usr/bin/env bash
# GPU round 141 (H100): the GEMM of linear + LayerNorm's small shape (#5: 1000x1024->3000, one
# wave of 96 128x256 tiles; the composed call 0.992x eager in round 105, its GEMM 16.1 us against
# cuBLAS's 12.5) by graph replays at gelu(linear) 1000x1024->3000: TILED's tiles through pointers
# (what odd_tiled and single_wave_tiled run there) against the same and other tiles through tensor
# descriptors, which gained 4-10% in attention and 7% at the skinny GEMM (rounds 138-139).
# Outcome (runs/gemm-configs-h100-small-tma-graphs-round141.json): cuBLAS's bare GEMM 16.1 us,
# eager (cuBLAS, then GELU) 21.2; TILED's tiles 25.6 through pointers, 25.1 through descriptors;
# 128x128, 256x128 and deeper pipelines 25.2-26.6; K steps of 128 29.2-30.8; the erfc fit without
# a split epilogue 31.5-56.4. Descriptors gain 2% here, not the 6% linear + LayerNorm's GEMM needs
# to pass eager: nothing changed. At this shape the fused bias + erf-GELU costs about 9 us over the
# bare GEMM's time in one wave of programs, where nothing overlaps it.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 bench/gemm.py --configs --graphs --cases linear_bias_gelu_1000x3000x1024 \
    --candidates bench/gemm-small-tma-candidates.json --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -3
python3 - "$OUT" <<'PY'
import json, sys, glob
for f in glob.glob(sys.argv[1] + "/gemm-configs-*.json"):
    for row in json.load(open(f))["rows"]:
        print(row["case"], "cublas", round(row.get("cublas_ms", 0) * 1e3, 1), "eager",
              round(row.get("eager_ms", 0) * 1e3, 1), "us")
        for e in row["configs"]:
            c = e["config"]
            print(" ", c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"], c["num_warps"], c["num_stages"],
                  c["use_tma"], c["gelu_erf_fit"], round(e.get("ms", 0) * 1e3, 1),
                  e.get("tma_path"), e.get("problems"), e.get("error", "")[:80])
PY
exit 0
