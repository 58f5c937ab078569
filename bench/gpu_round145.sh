#!/usr/bin/env bash
# GPU round 145 (H100): cross-entropy's buckets swept again with the flat spans that fit their
# registers (round 144: 1024-wide tiles of 4 warps, 8 an SM, took 1024x32000 in 34.2 us against
# the served 38.5; 2048-wide tiles of 4 warps, 4 an SM, 4099x50257 in 153.1 against 160.4), and
# the row path's mean kernel now loading each step's losses beside its targets instead of after.
# Outcome (runs/tune-buckets-h100-round145-cross-entropy.json): 2 GPU tests passed. rows_gt_1024
# stays (served 337.5/149.5 us; today's render of its params, with the mean kernel's loads side by
# side, 336.6/147.6; the best flat span 369.0/153.0). rows_le_1024 promoted as cross_entropy
# 1.5.0: 2048-wide tiles of 4 warps, three deep, 31.8/15.9 against 32.6/16.6 us.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_cross_entropy.py 2>&1 \
    | grep -E "FAILED|passed|failed|Error" | tail -5
before=$(ls kernel_zoo/entries/cross_entropy | sort -V | tail -1)
timeout 420 python3 bench/tune_buckets.py --ops cross_entropy --dtypes bfloat16 --graphs \
    --samples 0 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote|promot"
after=$(ls kernel_zoo/entries/cross_entropy | sort -V | tail -1)
if [ "$after" != "$before" ]; then
    tar czf "$OUT/entries.tgz" -C kernel_zoo entries/cross_entropy
fi
python3 - "$OUT" <<'PY'
import glob, json, sys
for path in glob.glob(sys.argv[1] + "/tune-buckets-*.json"):
    for result in json.load(open(path)).get("results", []):
        print([s["shape"] for s in result["shapes"]])
        rows = sorted((r for r in result["configs"] if all(r["ms"])),
                      key=lambda r: sum(r["ms"][:2]))
        for r in rows[:14]:
            p = r["params"]
            print(" ".join(f"{t * 1e3:7.1f}" for t in r["ms"]), "us |", r["serves"],
                  {k: p[k] for k in ("block", "warps", "num_stages", "flat_per_sm",
                                     "split_per_sm", "final_block")})
PY
exit 0
