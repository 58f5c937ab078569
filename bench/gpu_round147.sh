#!/usr/bin/env bash
# GPU round 147 (H100): GeGLU's and SwiGLU's buckets with torch.compile's own launch shape
# (round 146: Inductor writes 1024-element blocks of 4 warps, a program each, int32 offsets; the
# zoo's sweeps never timed a 1024-element block for either op).
# Outcome (runs/tune-buckets-h100-round147-{geglu,swiglu}.json): GeGLU with 1024-element blocks
# of 4 warps 260.1/81.5/26.8/5.6 us against the served 263.4/83.6/25.9/5.5 (compile
# 259.7/81.2/33.3/5.2): kept the served config (slower at 4099x3001). swiglu 1.2.0 promoted:
# 2048-element blocks of 4 warps, 228.2/86.5/32.0/4.6 against 228.5/87.3/31.6/5.1.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for op in geglu swiglu; do
    before=$(ls kernel_zoo/entries/$op | sort -V | tail -1)
    timeout 250 python3 bench/tune_buckets.py --ops $op --dtypes bfloat16 --graphs \
        --samples 0 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
        | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote|promot"
    after=$(ls kernel_zoo/entries/$op | sort -V | tail -1)
    if [ "$after" != "$before" ]; then
        tar czf "$OUT/entries-$op.tgz" -C kernel_zoo entries/$op
    fi
done
python3 - "$OUT" <<'PY'
import glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/tune-buckets-*.json")):
    for result in json.load(open(path)).get("results", []):
        print(result["op"], [s["shape"] for s in result["shapes"]],
              [round(s["compile_ms"] * 1e3, 1) for s in result["shapes"]])
        rows = sorted((r for r in result["configs"] if all(r["ms"])), key=lambda r: r["ms"][0])
        for r in rows[:8]:
            p = r["params"]
            print(" ".join(f"{t * 1e3:7.1f}" for t in r["ms"]), "us |", r["serves"],
                  {k: p[k] for k in ("block", "num_warps", "num_stages", "programs_per_sm",
                                     "tiling")})
PY
exit 0
