#!/usr/bin/env bash
# GPU round 68: 128 x 4096 x 4096 through descriptor loads again. The sweeps of rounds 13-16 found
# descriptor configs host-bound (the descriptors were built on every call, 40-212 us); launch
# recipes and direct launches have cut that host time since. SKINNY_DEFAULT (pointers, 25.1 us in
# round 60) first, beside cuBLAS.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/g68
timeout 200 python3 bench/gemm.py --configs --cases skinny_128x4096x4096 \
    --candidates bench/skinny-tma-candidates.json --out /tmp/g68 2>&1 | tail -3
python3 - <<'PY'
import json
d = json.load(open("/tmp/g68/gemm-configs-h100.json"))
for row in d["rows"]:
    print(row["case"], "cublas us", round(row.get("cublas_ms", 0) * 1e3, 1))
    for e in row["configs"]:
        c = e["config"]
        print("  %3d %3d %3d w%d st%d tma%d" % (c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"], c["num_warps"],
              c["num_stages"], c["use_tma"]), e.get("tma_path"), round(e["ms"] * 1e3, 1) if "ms" in e else e.get("error", "-")[:80])
PY
cp /tmp/g68/gemm-configs-h100.json "$OUT/gemm-configs-h100-skinny-tma-round68.json"
exit 0
