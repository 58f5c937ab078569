#!/usr/bin/env bash
# GPU round 344 (H200; written and run 2026-11-28 at commit 644da49: the ws_tail knob it times was
# reverted after round 347, so the script runs only there): ws_tail on #4's open bar, bias+GELU at 8192x8192x4096
# against eager (1.10x asked; pingpong 1.071-1.093x by graph replays in rounds 337 and 340). The
# pingpong kernel's 128x128 tiles there are 4096, 31 rounds of the 132 SMs and 4 tiles over: 4 SMs
# run a 32nd round, a whole tile's time (about 3% of the call) while the rest wait. ws_tail runs
# those 4 tiles as 64 blocks of 32x32 after the kernel instead. First the GPU tests (the tail on
# this GPU's SM count, both forms; the row-norm path's recorded launches; the pingpong GELU cases),
# then `bench/gemm.py --configs` on that case with the H200's served pingpong params without and
# with ws_tail (bench/gemm-candidates-ws-tail.json), graph replays, the default timer, graph replays
# again; where the tail is the faster in both graph runs, linear_bias_gelu is re-rendered with it
# through kzoo optimize (bench/rerender_entries.sh), which needs Ray: two calls on one held machine,
#     device run 1, carry [".gpu-ray"]:     bash bench/gpu_round344.sh stage
#     device run 2, carry [".gpu-wheels"]:  bash bench/gpu_round344.sh
# Outcome (155 s): the 8 GPU tests passed (the tail at 132 SMs in both forms, the row norm's
# recorded launches, the pingpong GELU cases). bias+GELU 8192x8192x4096, graphs/default/graphs:
# without the tail 0.844/0.837/0.833 ms (1.066x/1.070x/1.070x eager), with it 0.850/0.846/0.848
# (1.058x/1.059x/1.052x); eager 0.892-0.899 ms. Nothing re-rendered
# (runs/gemm-configs-h200{-graphs,,-graphs2}-round344-ws-tail.json).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round344
. bench/gpu_lib.sh
if [ "${1:-}" = stage ]; then
    split_bundle_stage_ray
    exit $?
fi
split_bundle_install || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 220 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm_ws.py \
    -k "tail or layer_norm or (is_right_on_hopper and gelu-)" > "$OUT/pytest.txt" 2>&1
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
    mkdir -p /tmp/g344/$name
    timeout 120 python3 bench/gemm.py --configs --cases $case $timer \
        --candidates bench/gemm-candidates-ws-tail.json --out /tmp/g344/$name 2>&1 \
        | grep -v -i warn | tail -1
    f=$(ls /tmp/g344/$name/*.json 2>/dev/null | head -1)
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
