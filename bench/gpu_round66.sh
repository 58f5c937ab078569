#!/usr/bin/env bash
# GPU round 66: GEMM configs at a 1000 x 3000 x 1024 output (gelu(linear)), where DEFAULT's
# 128 x 256 tiles give 96 programs for 132 SMs: 128 x 128 tiles (192, two per SM), with
# descriptor and pointer loads, persistent at two per SM, and narrower tiles, beside cuBLAS.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/g66
timeout 200 python3 bench/gemm.py --configs --cases linear_bias_gelu_1000x3000x1024 \
    --candidates bench/gemm-small-candidates.json --out /tmp/g66 2>&1 | tail -3
python3 - <<'PY'
import json
d = json.load(open("/tmp/g66/gemm-configs-h100.json"))
for row in d["rows"]:
    print(row["case"], "cublas us", round(row.get("cublas_ms", 0) * 1e3, 1), "eager us", round(row.get("eager_ms", 0) * 1e3, 1))
    for e in row["configs"]:
        c = e["config"]
        print("  %3d %3d %3d w%d st%d p%d tma%d" % (c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"], c["num_warps"],
              c["num_stages"], c["persistent"], c["use_tma"]), round(e["ms"] * 1e3, 1) if "ms" in e else e.get("error", "-")[:80])
PY
cp /tmp/g66/gemm-configs-h100.json "$OUT/gemm-configs-h100-small-round66.json"
exit 0
