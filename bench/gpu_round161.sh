#!/usr/bin/env bash
# GPU round 161 (H100): SwiGLU and GeGLU per bucket of their rows' width (cols_le_4096,
# cols_gt_4096; new scheme) beside their served `any` configs: round 147 had GeGLU's 1024-element
# tiles of 4 warps faster at its two large shapes and slower at 4099x3001. A promoted entry is
# checked by `kzoo zoo verify` at every GPU shape of its task.
# Outcome (runs/tune-buckets-h100-round161-geglu.json, -swiglu.json, runs/zoo-verify-h100-round161/):
# geglu 1.4.0 (cols_le_4096: the served tiles with stream_hint, 4099x3001 24.5 us against 26.0),
# correct at every GPU shape; cols_gt_4096 kept (1024-element tiles 260.1/81.5 against
# 263.6/83.6 but 5.6 against 5.1 us at 16 rows); swiglu unchanged.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round161
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for op in geglu swiglu; do
    before=$(ls kernel_zoo/entries/$op | sort -V | tail -1)
    timeout 170 python3 bench/tune_buckets.py --ops $op --dtypes bfloat16 --graphs \
        --samples 0 --jobs 14 --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
        | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote|promot"
    after=$(ls kernel_zoo/entries/$op | sort -V | tail -1)
    if [ "$after" != "$before" ]; then
        tar czf "$OUT/entries-$op.tgz" -C kernel_zoo entries/$op
        timeout 60 python3 -m agent zoo verify $op --version "$after" --dtype bfloat16 --json \
            > "$OUT/zoo-verify-$op.json" 2> "$OUT/zoo-verify-$op.log"
        echo "verify $op $after: exit $?"; grep -v -i warn "$OUT/zoo-verify-$op.log" | tail -3
    fi
done
python3 - "$OUT" <<'PY'
import glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/tune-buckets-*.json")):
    for result in json.load(open(path)).get("results", []):
        print(result["op"], [(s["shape"], s["bucket"], round(s["compile_ms"] * 1e3, 1))
                             for s in result["shapes"]])
        rows = sorted((r for r in result["configs"] if all(r["ms"])), key=lambda r: r["ms"][0])
        for r in rows[:8]:
            p = r["params"]
            print(" ".join(f"{t * 1e3:7.1f}" for t in r["ms"]), "us |", r["serves"],
                  {k: p.get(k) for k in ("block", "num_warps", "stream_hint", "tiling")})
PY
exit 0
