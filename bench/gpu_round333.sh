#!/usr/bin/env bash
# GPU round 333 (H200): the first GPU run after the verifier learned to follow rebindings, refuse
# kernel bodies that escape Triton, and watch threads, callable grids and pre-run hooks started by
# a call (d2a0ce1 and the commits before it, all written without a GPU). The adversarial corpus
# (29 exploits and the honest controls) through the verifier on the GPU, then the GPU tests those
# changes can break: the verifier's own, the CUDA corpus, the timer and wall-clock checks, the
# pipeline and compose tests, and contract rows of each kind of kernel the zoo ships (Triton
# rows, the Gluon warp-specialized GEMM epilogues, attention, split-row softmax, cross-entropy).
#     device run, carry [".gpu-slim"]:  bash bench/gpu_round333.sh
# Outcome (2026-11-28, H200): the corpus 34/34 verdicts as expected (verifier-h200.json, 46 s);
# the 17 verifier, CUDA-corpus, timer, pipeline and compose tests passed (233 s); the 13 contract
# rows passed (263 s). runs/gpu-tests-h200-round333/.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round333
. bench/gpu_lib.sh
slim_bundle_install
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 170 python3 bench/verifier_corpus.py --out "$OUT" 2>&1 | grep -v -i warn | tail -45
echo "corpus exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
left=$(( 570 - ($(date +%s) - start) ))
timeout $left python3 -m pytest -v -p no:cacheprovider -m gpu --durations=12 \
    tests/test_verifier.py tests/test_pipeline.py tests/test_compose.py \
    "tests/test_cuda.py::test_cuda_corpus_on_gpu" \
    tests/test_gpu.py -k "not ops_softmax and not ops_linear and not ops_matmul" \
    > "$OUT/pytest.txt" 2>&1
echo "pytest 1 rc $? after $(( $(date +%s) - start )) s"
left=$(( 575 - ($(date +%s) - start) ))
timeout $left python3 -m pytest -v -p no:cacheprovider -m gpu --durations=12 tests/test_contract.py \
    -k "linear_bias_gelu] or attention_relpos or softmax] or rms_norm or cross_entropy or matmul_skinny or swiglu or argmax or log_softmax_dim1 or sdpa_causal" \
    > "$OUT/pytest-contract.txt" 2>&1
echo "pytest 2 rc $? after $(( $(date +%s) - start )) s"
for f in "$OUT"/pytest*.txt; do
    grep -E "\] (PASSED|FAILED|ERROR|SKIPPED)|(PASSED|FAILED|ERROR|SKIPPED) +\[" "$f" | grep -oE "(PASSED|FAILED|ERROR|SKIPPED)" | sort | uniq -c
    grep -E "^(FAILED|ERROR)|passed|failed|^E +" "$f" | cut -c1-300 | tail -20
done
exit 0
