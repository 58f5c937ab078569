#!/usr/bin/env bash
# GPU round 346 (H200; written and run 2026-11-28 at commit 644da49, whose ws_tail was reverted
# after round 347): round 344's ws_tail test again, the tail kernel's K steps now 256 four deep
# (64 three deep in round 344: its 64 programs, each with 512 KB of x and W to read, kept 8-24 KB
# in flight and took about the tile's time they were to save: 1.052-1.059x eager against
# 1.066-1.070x without the tail). The same A/B runs of bias+GELU 8192x8192x4096 and, where the
# tail wins both graph runs, the re-render of linear_bias_gelu with it (Ray: two calls on one
# held machine); the GPU tests only the tail's and the row norm's.
#     device run 1, carry [".gpu-ray"]:     bash bench/gpu_round346.sh stage
#     device run 2, carry [".gpu-wheels"]:  bash bench/gpu_round346.sh
# Outcome (112 s; the 8 GPU tests passed): without the tail 0.816/0.812/0.820 ms (1.084x/1.090x/
# 1.083x eager), with it 0.839/0.828/0.840 (1.054x/1.069x/1.057x); eager 0.884-0.888 ms. Nothing
# re-rendered (runs/gemm-configs-h200{-graphs,,-graphs2}-round346-ws-tail.json).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round346
. bench/gpu_lib.sh
if [ "${1:-}" = stage ]; then
    split_bundle_stage_ray
    exit $?
fi
split_bundle_install || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 220 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm_ws.py \
    -k "tail or layer_norm" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "passed|failed|^FAILED|^E +" "$OUT/pytest.txt" | cut -c1-300 | tail -8
case=linear_bias_gelu_8192x8192x4096
show() {
    python3 - "$1" <<'PY'
import json, sys
row = json.load(open(sys.argv[1]))["rows"][0]
eager = row["eager_ms"]
print(row["case"], "cublas", round(row["cublas_ms"], 4), "eager", round(eager, 4))
for e in row["configs"]:
    ms = e.get("ms")
    vs = f"{eager / ms:.3f}x eager" if ms else e.get("error", "untimed")
    print(f"  ws_tail={e['config'].get('ws_tail')} {ms} ms {vs}")
PY
}
runs=()
for name in graphs default graphs2; do
    timer=--graphs; [ $name = default ] && timer=""
    mkdir -p /tmp/g346/$name
    timeout 120 python3 bench/gemm.py --configs --cases $case $timer \
        --candidates bench/gemm-candidates-ws-tail.json --out /tmp/g346/$name 2>&1 \
        | grep -v -i warn | tail -1
    f=$(ls /tmp/g346/$name/*.json 2>/dev/null | head -1)
    [ -n "$f" ] && show "$f" && cp "$f" "$OUT/gemm-configs-$name.json"
    echo "$name after $(( $(date +%s) - start )) s"
done
faster=$(python3 - "$OUT" <<'PY'
import json, sys
wins = []
for name in ("graphs", "graphs2"):
    try:
        row = json.load(open(f"{sys.argv[1]}/gemm-configs-{name}.json"))["rows"][0]
        plain, tail = (e.get("ms") for e in row["configs"])
        wins.append(bool(plain and tail and tail < plain))
    except (OSError, ValueError, KeyError):
        wins.append(False)
print("yes" if all(wins) else "no")
PY
)
echo "ws_tail faster in both graph runs: $faster"
if [ "$faster" = yes ]; then
    entries_snapshot
    mkdir -p "$OUT/rerender"
    OUT="$OUT/rerender" KNOBS='{"ws_tail": true}' bash bench/rerender_entries.sh \
        "linear_bias_gelu bfloat16" "linear_bias_gelu float16"
    entries_pack_new
fi
echo "after $(( $(date +%s) - start )) s"
exit 0
