#!/usr/bin/env bash
# GPU round 453 (H200; 2026-11-30): optuna and Ray for `kzoo optimize` in two calls on one held
# machine (bench/gpu_lib.sh, split_bundle_*: the tree is 47 MB, too large beside the whole bundle).
# The CUDA C++ Linear as a template (templates/gemm_cuda.py, round 452's handoff kernel with the
# Triton gemm kernels for the calls it leaves): its GPU tests through the verifier, bench/gemm.py's
# bias+GELU case with it (graph replays, eager, cuBLAS, torch.compile and max-autotune in the same
# run), then `kzoo optimize --template gemm_cuda` for bfloat16, promoting into kernel_zoo/entries.
#     call 1, carry [".gpu-ray"]:     . bench/gpu_lib.sh; split_bundle_stage_ray
#     call 2, carry [".gpu-wheels"]:  PART=all bash bench/gpu_round453.sh
# PART=f16: the float16 search and promotion, then `kzoo zoo verify` of linear_bias_gelu.
# PART=variants1 and variants2: the other Linear variants, bfloat16 and float16, 3 trials each,
# then `kzoo zoo verify` of each (in the call that promoted it: each call's tree is this one's).
# PART=final (no carry): the float16 GPU tests, `kzoo zoo verify linear_bias_gelu` of this
# tree, and silu(linear) at 8192 x 4096 -> 4096 by gemm_cuda and the served Triton kernel.
# PART=sweep (carry .gpu-wheels after staging Ray): `kzoo sweep --ops linear_bias_gelu`, 2
# trials a unit, promoting into the user zoo under $KZOO_HOME.
# PART=nvcc (no carry): ops.linear's gelu from the shipped zoo, and as on a machine without nvcc.
# PART=served_bench (no carry): bench/gemm.py's bias+GELU case by the served config, graph
# replays and the default timer, max-autotune in each run (round 453's call 4 ran these two
# commands by hand, with $OUT/b for --out).
# PART=gelu_shapes (no carry): gelu(linear) at three shapes by the served gemm_cuda config and by
# TRITON_PARAMS (the Triton kernel it replaced), each run with its own eager and cuBLAS.
# Outcome (eleven calls, about 1560 s of device time; RESULTS.md "The handoff GEMM served"): the
# header-based kernel correct on the GPU (the GPU tests, both dtypes); gelu(linear) 8192x8192x4096
# by graph replays 1.115-1.119x eager, 1.193-1.198x max-autotune, 1.006-1.009x cuBLAS;
# linear_bias_gelu 1.18.0/1.19.0 promoted (re-timed 1.079x/1.084x eager at that shape, 1.060x/1.053x
# at 4096x4096->14336); zoo verify passed; the variants' promotions (0.96-1.04x eager at
# 8192x4096->4096, silu 0.913-0.962x by graph replays against the served kernel's 1.058x) not kept;
# kzoo sweep re-tuned both H200 units as gemm_cuda, nothing promoted, one baseline caught up
# (torch.compile at 4099x1000->3073 bfloat16: 0.114 ms that run, about 0.38 before).
# Calls: 1 stage Ray, 2 all, 3 f16, 4 served_bench (by hand), 5 stage Ray, 6 variants1,
# 7 variants2, 8 final, 9 gelu_shapes, then 10 stage Ray and 11 sweep (after the sweep change),
# PART=nvcc not run: the session's device time could not start another machine.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round453
. bench/gpu_lib.sh
case "${PART:-all}" in
final|gelu_shapes|served_bench|nvcc) export PYTHONPATH=$PWD ;;
*) split_bundle_install || exit 1 ;;  # PYTHONPATH: .gpu-site, then the tree
esac
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=/tmp/r453  # tarred into $OUT/round453.tgz at the end (a run returns at most 8 files)
mkdir -p $R

# `kzoo optimize --template gemm_cuda` of tasks/TASK.py for DTYPE, TRIALS trials from the
# template's default, within SECONDS (no new trial asked for in its last 100), promoting into the
# shipped zoo; its JSON and log into $R.
# Usage: search TASK DTYPE TRIALS SECONDS
search() {
    timeout "$4" python3 -c "from agent.cli import main; raise SystemExit(main())" optimize \
        "tasks/$1.py" --template gemm_cuda --dtype "$2" --trials "$3" \
        --time-budget $(( $4 - 100 )) \
        --zoo kernel_zoo/entries --json "$R/optimize-gemm-cuda-$1-$2.json" \
        > "$R/optimize-gemm-cuda-$1-$2.log" 2>&1
    echo "optimize $1 $2: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i "warn\|logging.cc\|SIGTERM\|^    @\|^PC:" "$R/optimize-gemm-cuda-$1-$2.log" \
        | grep -E "^ +[0-9]+ +[0-9.]+ +ok|^best|^promoted|not promoted" | cut -c1-240
}

# search each TASK in bfloat16 then float16 (3 trials each) while the call's first 560 s last.
# Usage: search_both TASK...
search_both() {
    local task dtype left
    for task in "$@"; do
        for dtype in bfloat16 float16; do
            left=$(( 560 - ($(date +%s) - start) ))
            if [ $left -lt 150 ]; then
                echo "optimize $task $dtype: not run ($left s left)"
                continue
            fi
            search "$task" $dtype 3 $(( left < 200 ? left : 200 ))
        done
    done
}

case "${PART:-all}" in
all)
    timeout 210 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
        tests/test_cuda.py -k "gemm_cuda and bfloat16" > $R/pytest-gemm-cuda.txt 2>&1
    rc=$?
    echo "pytest gemm_cuda bfloat16: rc $rc after $(( $(date +%s) - start )) s"
    tail -25 $R/pytest-gemm-cuda.txt | cut -c1-300
    python3 - > /tmp/gemm-cuda-cfg.json <<'PY'
import json
from templates import get_template, params_of
t = get_template("gemm_cuda")
print(json.dumps({"linear_bias_gelu_8192x8192x4096": {"template": "gemm_cuda",
                                                       "params": params_of(t.default)}}))
PY
    timeout 200 python3 bench/gemm.py --config-json /tmp/gemm-cuda-cfg.json --graphs \
        --max-autotune --cases linear_bias_gelu_8192x8192x4096 --out $R/bench \
        > $R/bench-gemm-cuda.log 2>&1
    echo "bench gemm_cuda: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/bench-gemm-cuda.log | tail -8 | cut -c1-240
    if [ $rc -ne 0 ]; then
        echo "GPU tests failed: no search"
        exit 0
    fi
    entries_snapshot
    left=$(( 575 - ($(date +%s) - start) ))
    search linear_bias_gelu bfloat16 5 $left
    entries_pack_new
    ;;
f16)
    entries_snapshot
    search linear_bias_gelu float16 4 330
    entries_pack_new
    zoo_verify_ops 560 $R linear_bias_gelu
    ;;
variants1)  # the other Linear variants whose epilogue gemm_cuda covers
    entries_snapshot
    search_both linear_bias_silu linear_bias_gelu_tanh linear_bias_relu
    entries_pack_new
    zoo_verify_ops 575 $R linear_bias_silu linear_bias_gelu_tanh linear_bias_relu
    ;;
variants2)
    entries_snapshot
    search_both linear_bias_sigmoid linear_bias_tanh
    entries_pack_new
    zoo_verify_ops 575 $R linear_bias_sigmoid linear_bias_tanh
    ;;
final)  # no carry: the float16 GPU tests, zoo verify of the tree's linear_bias_gelu (1.19.0),
    # and silu(linear) at 8192 x 4096 -> 4096 by gemm_cuda and by the served Triton config
    timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
        tests/test_cuda.py -k "gemm_cuda and float16" > $R/pytest-gemm-cuda-float16.txt 2>&1
    echo "pytest gemm_cuda float16: rc $? after $(( $(date +%s) - start )) s"
    tail -3 $R/pytest-gemm-cuda-float16.txt | cut -c1-300
    zoo_verify_ops 240 $R linear_bias_gelu
    silu=linear_bias_silu_8192x4096x4096
    for form in cuda_searched cuda_default served; do
        case $form in
        cuda_searched) cfg='{"template": "gemm_cuda", "params": {"bn": 256, "stages": 3,
            "cluster": 1, "group_m": 4, "bias_smem": false}}' ;;
        cuda_default) cfg='{"template": "gemm_cuda", "params": {"bn": 192, "stages": 4,
            "cluster": 2, "group_m": 8, "bias_smem": true}}' ;;
        served) cfg=$(python3 -c "import json; from kernel_zoo import store
e = store.newest_entries('linear_bias_silu')[0]
c = [c for c in e.manifest['configs'] if c['dtype'] == 'bfloat16' and c['device'] == 'NVIDIA H200']
print(json.dumps(c[-1]['params']))") ;;
        esac
        echo "{\"$silu\": $cfg}" > /tmp/silu-$form.json
        timeout 100 python3 bench/gemm.py --config-json /tmp/silu-$form.json --graphs \
            --cases $silu --out $R/silu-$form > $R/silu-$form.log 2>&1
        echo "silu $form: rc $? after $(( $(date +%s) - start )) s"
        grep -v -i warn $R/silu-$form.log | tail -2 | cut -c1-200
    done
    ;;
sweep)  # after split_bundle_stage_ray: `kzoo sweep --ops linear_bias_gelu`, 2 trials a unit,
    # into $KZOO_HOME's user zoo (not the shipped one): the H200's gemm_cuda units re-tuned as such
    timeout 520 python3 -c "from agent.cli import main; raise SystemExit(main())" sweep \
        --ops linear_bias_gelu --trials-per-op 2 --time-budget 420 --report $R/sweep \
        --json $R/sweep.json > $R/sweep.log 2>&1
    echo "sweep: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i "warn\|logging.cc" $R/sweep.log | grep "^\[" | tail -12 | cut -c1-240
    ;;
nvcc)  # no carry: ops.linear's gelu from the shipped zoo, then as without nvcc (the fallback)
    timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short tests/test_zoo.py \
        -k "without_nvcc" > $R/pytest-zoo-nvcc.txt 2>&1
    echo "pytest nvcc fallback: rc $? after $(( $(date +%s) - start )) s"
    tail -3 $R/pytest-zoo-nvcc.txt | cut -c1-300
    ;;
served_bench)  # no carry: the bias+GELU case by the served config (group_m 16), graphs and not
    echo '{"linear_bias_gelu_8192x8192x4096": {"template": "gemm_cuda", "params": {"bn": 192,
        "stages": 4, "cluster": 2, "group_m": 16, "bias_smem": true}}}' > /tmp/c16.json
    for graphs in --graphs ""; do
        timeout 250 python3 bench/gemm.py --config-json /tmp/c16.json $graphs --max-autotune \
            --cases linear_bias_gelu_8192x8192x4096 --out $R/served 2>&1 | grep -v -i warn | tail -3
    done
    ;;
gelu_shapes)  # no carry: gelu(linear) by the served gemm_cuda and the Triton kernel it replaced
    cases=linear_bias_gelu_8192x4096x4096,linear_bias_gelu_2048x4096x4096
    cases=$cases,linear_bias_gelu_4096x14336x4096
    for form in cuda triton; do
        python3 - $form $cases > /tmp/gelu-$form.json <<'PY'
import json, sys
from templates.gemm_cuda import TRITON_PARAMS
cuda = {"template": "gemm_cuda", "params": {"bn": 192, "stages": 4, "cluster": 2,
                                            "group_m": 16, "bias_smem": True}}
cfg = cuda if sys.argv[1] == "cuda" else TRITON_PARAMS
print(json.dumps({case: cfg for case in sys.argv[2].split(",")}))
PY
        timeout 140 python3 bench/gemm.py --config-json /tmp/gelu-$form.json --graphs \
            --cases $cases --out $R/gelu-$form > $R/gelu-$form.log 2>&1
        echo "gelu $form: rc $? after $(( $(date +%s) - start )) s"
        grep -v -i warn $R/gelu-$form.log | grep "^linear_bias" | cut -c1-200
    done
    ;;
esac
tar czf "$OUT/round453.tgz" -C /tmp r453
exit 0
