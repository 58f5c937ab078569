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
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round453
. bench/gpu_lib.sh
split_bundle_install || exit 1  # PYTHONPATH: .gpu-site, then the tree
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=/tmp/r453  # tarred into $OUT/round453.tgz at the end (a run returns at most 8 files)
mkdir -p $R

# `kzoo optimize --template gemm_cuda` for DTYPE, TRIALS trials from the template's default, within
# SECONDS (no new trial asked for in its last 100), promoting into the shipped zoo; its JSON and
# log into $R.
# Usage: search DTYPE TRIALS SECONDS
search() {
    timeout "$3" python3 -c "from agent.cli import main; raise SystemExit(main())" optimize \
        tasks/linear_bias_gelu.py --template gemm_cuda --dtype "$1" --trials "$2" \
        --time-budget $(( $3 - 100 )) \
        --zoo kernel_zoo/entries --json "$R/optimize-gemm-cuda-$1.json" \
        > "$R/optimize-gemm-cuda-$1.log" 2>&1
    echo "optimize $1: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i "warn\|logging.cc\|SIGTERM\|^    @\|^PC:" "$R/optimize-gemm-cuda-$1.log" | tail -14 \
        | cut -c1-240
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
    search bfloat16 5 $left
    entries_pack_new
    ;;
f16)
    entries_snapshot
    search float16 4 330
    entries_pack_new
    zoo_verify_ops 560 $R linear_bias_gelu
    ;;
esac
tar czf "$OUT/round453.tgz" -C /tmp r453
exit 0
