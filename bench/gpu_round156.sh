#!/usr/bin/env bash
# GPU round 156 (H100): the column argmax (inner_dim) with 2048-element tiles of 4 warps split
# where programs are few (round 155: 93.2 us at 32x4096x1024 unsplit against the served 98.0);
# `kzoo zoo verify` of cross_entropy 1.8.0 (round 155's vector_max configs) and of any argmax
# entry promoted here at every GPU shape of their tasks; then the memory-bound table.
# Outcome (runs/tune-buckets-h100-round156-argmax.json, runs/zoo-verify-h100-round156/,
# bench/results/memory-bound-h100-graphs.json): 2048-element tiles of 4 warps (split_per_sm 2) took
# 93.2/54.6/24.3 us against the served 98.1/55.0/24.3: argmax 1.9.0 (inner_dim). cross_entropy
# 1.8.0 and argmax 1.9.0 correct at every GPU shape. Table: every large shape at 90% of the copy
# bandwidth or more (4099x50257 cross-entropy 0.92, the column argmax 0.95), geomean 1.235x
# torch.compile, 11 of 75 shapes behind it (eight within 1.1%, GeGLU 0.975-0.986x).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round156
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
before=$(ls kernel_zoo/entries/argmax | sort -V | tail -1)
timeout 140 python3 bench/tune_buckets.py --ops argmax --dtypes bfloat16 --graphs \
    --samples 0 --jobs 14 --buckets inner_dim --zoo kernel_zoo/entries --out "$OUT" 2>&1 \
    | grep -v -i warn | grep -v "^  [0-9]* of" | grep -E "bfloat16 |wrote|promot"
after=$(ls kernel_zoo/entries/argmax | sort -V | tail -1)
python3 - "$OUT" <<'PY'
import glob, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/tune-buckets-*.json")):
    for result in json.load(open(path)).get("results", []):
        rows = sorted((r for r in result["configs"] if all(r["ms"])), key=lambda r: r["ms"][0])
        for r in rows[:8]:
            p = r["params"]
            keys = ("col_block_inner", "col_tile_elems", "col_warps", "split_per_sm", "num_stages")
            print(" ".join(f"{t * 1e3:7.1f}" for t in r["ms"]), "us |", r["serves"],
                  {k: p.get(k) for k in keys})
PY
timeout 70 python3 -m agent zoo verify cross_entropy --version 1.8.0 --dtype bfloat16 --json \
    > "$OUT/zoo-verify-cross-entropy.json" 2> "$OUT/zoo-verify-cross-entropy.log"
echo "verify cross_entropy 1.8.0: exit $?"; grep -v -i warn "$OUT/zoo-verify-cross-entropy.log" | tail -4
if [ "$after" != "$before" ]; then
    tar czf "$OUT/entries-argmax.tgz" -C kernel_zoo entries/argmax
    timeout 60 python3 -m agent zoo verify argmax --version "$after" --dtype bfloat16 \
        --bucket inner_dim --json > "$OUT/zoo-verify-argmax.json" 2> "$OUT/zoo-verify-argmax.log"
    echo "verify argmax $after: exit $?"; grep -v -i warn "$OUT/zoo-verify-argmax.log" | tail -2
fi
timeout 270 python3 bench/memory_bound.py --dtypes bfloat16 --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn > "$OUT/memory-bound-graphs.txt"
grep -A3 "large_below\|geomean_vs_compile\"" "$OUT/memory-bound-graphs.txt" | head -12
grep -E "^(cross_entropy|argmax)" "$OUT/memory-bound-graphs.txt"
exit 0
