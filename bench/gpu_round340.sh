#!/usr/bin/env bash
# GPU round 340 (H200; written and run 2026-11-28, at commit 3e8cec4: the knobs it times were
# reverted after it, so the script runs only there): the warp-specialized Gluon kernel's new knobs on #4's
# open bar. In round 337 the pingpong form took bias+GELU at 8192x8192x4096 in 0.803 ms by graph
# replays, 1.093x eager, where 1.10x asked for 0.798; its ring depth and tile order were fixed at
# the H100's best (4 stages, groups of 8). First the GPU test of the knobs (partial tiles, both
# forms), then `bench/gemm.py --configs` on that case with the pingpong form at 4 and 5 stages and
# the cooperative at 3, each in groups of 8, 4 and 16 tile rows (9 configs,
# bench/gemm-candidates-ws-h200.json), beside cuBLAS and eager: graph replays, then the default
# timer with what time is left.
#     device run, no carry:  bash bench/gpu_round340.sh
# Outcome (95 s): the 3 GPU tests of the knobs passed (runs/gpu-tests-h200-round340.txt). The
# H100's pick stayed the best: pingpong at 4 stages in groups of 8, 0.816 ms, 1.071x eager by graph
# replays (1.070x by the default timer); 5 stages 1.038x (1.052x), groups of 4 or 16 1.001-1.032x
# (1.004-1.057x); the cooperative form 0.947x, 0.969x and 0.998x eager in groups of 8, 4 and 16
# (0.946-0.999x). Eager took 0.874 and 0.885 ms. No knob moved the bar, so they were reverted
# (runs/gemm-configs-h200{-graphs,}-round340-ws.json).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round340
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm_ws.py \
    -k other_depths > "$OUT/pytest.txt" 2>&1
echo "pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "passed|failed|^FAILED|^E +" "$OUT/pytest.txt" | cut -c1-300 | tail -8
case=linear_bias_gelu_8192x8192x4096
show() {
    python3 - "$1" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*.json"):
    for row in json.load(open(f))["rows"]:
        eager = row.get("eager_ms")
        print(row["case"], "cublas", row.get("cublas_ms"), "eager", eager)
        for i, e in enumerate(row["configs"]):
            c = e["config"]
            ms = e.get("ms")
            vs = f"{eager / ms:.3f}x eager" if ms and eager else e.get("error", "untimed")
            print(f"  cfg{i} coop={c['ws_coop']} stages={c['ws_stages']} group={c['ws_group_m']}"
                  f" {ms} ms {vs}")
PY
}
for timer in --graphs ""; do
    name=${timer:+graphs}; name=${name:-default}
    left=$(( 560 - ($(date +%s) - start) ))
    [ $left -lt 60 ] && break
    mkdir -p /tmp/g340/$name
    timeout $left python3 bench/gemm.py --configs --cases $case $timer \
        --candidates bench/gemm-candidates-ws-h200.json --out /tmp/g340/$name 2>&1 \
        | grep -v -i warn | tail -2
    show /tmp/g340/$name
    cp /tmp/g340/$name/*.json "$OUT/gemm-configs-$name.json" 2>/dev/null
    echo "$name after $(( $(date +%s) - start )) s"
done
exit 0
