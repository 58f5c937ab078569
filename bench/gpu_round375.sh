#!/usr/bin/env bash
# GPU round 375 (H200, 2026-11-29): bench/probe_cluster_softmax.py, a float32 softmax whose row is
# split over a thread-block cluster, its slices bulk-copied into shared memory rows ahead and the
# partial (max, sum) pairs exchanged through distributed shared memory (CUDA C++; round 374's
# Triton TMA probe lost: 106.6 against the served 81.1 us at 256x128256). Then, side by side, the
# GPU tests the earlier rounds did not reach: test_contract's last 15 tasks (mlp_swiglu ..
# triplet_margin_loss; the first 46 passed in round 374), test_zoo_cli, the row-split GPU tests
# with their `ahead_depth` 2 rows (test_norm, test_templates_search). test_compose's GPU test
# needs Ray, whose bundle no longer fits one call's carry beside the tree (bench/gpu_lib.sh).
# Everything comes back in one tarball.
#     device run, no carry:  bash bench/gpu_round375.sh
# Outcome (ran 2026-11-29 01:53, 450 s): every cluster variant correct and slower than the served
#   kernel: 95.7 us at best against 81.6 at 256x128256 float32 (15 clusters of 8 fit), 82.0
#   against 70.9 at 1024x32768 (runs/probe-cluster-softmax-h200-round375.json). test_contract's
#   last 15 tasks passed (all 61 over rounds 374-375); the row-split tests 4 passed and
#   add_rms_norm's failed for GPU memory (five processes shared the GPU), then passed alone in a
#   call of its own; test_zoo_cli passed 3 of its 22 ops in the time left.
#   runs/gpu-tests-h200-round375/.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round375
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/r375
timeout 200 python3 bench/probe_cluster_softmax.py --out /tmp/r375 2>&1 | grep -v -i warn | tail -24
echo "probe done after $(( $(date +%s) - start )) s"
left=$(( 450 - ($(date +%s) - start) ))
contract() { for t in "$@"; do printf 'tests/test_contract.py::test_task_default_is_correct_on_the_gpu[%s] ' "$t"; done; }
queue() {  # queue NAME ARGS...: one pytest process, its output in /tmp/r375/pytest-NAME.txt
    local name=$1; shift
    timeout $left python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short "$@" \
        > "/tmp/r375/pytest-$name.txt" 2>&1
    echo "$name: rc $? $(tail -1 /tmp/r375/pytest-$name.txt)"
}
queue contract-a $(contract mlp_swiglu mse_loss residual_chain rms_norm sdpa) &
queue contract-b $(contract sdpa_causal sdpa_gqa selu sigmoid_cumsum softmax) &
queue contract-c $(contract softmax_dim1 softmax_matmul sum swiglu triplet_margin_loss) &
queue zoo_cli tests/test_zoo_cli.py &
queue row_split "tests/test_norm.py::test_row_split_is_correct_on_the_gpu" \
    "tests/test_templates_search.py::test_row_split_is_correct_on_the_gpu" &
wait
grep -hE "^(FAILED|ERROR)" /tmp/r375/pytest-*.txt | head -20
tar czf "$OUT/round375.tgz" -C /tmp r375
exit 0
