#!/usr/bin/env bash
# GPU round 85: the GPU tests beyond the contract and CUDA C++ suites, under the discard flush and
# with round 82's entries shipped (zoo, CLI, reduce, LLM feedback, pipeline, launch cache,
# pointwise, cross-entropy, attention, GEMM, verify, verifier).
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 560 python3 -m pytest -v -p no:cacheprovider -m gpu tests/test_zoo.py tests/test_zoo_cli.py \
    tests/test_reduce.py tests/test_llm.py tests/test_pipeline.py tests/test_launch_cache.py \
    tests/test_pointwise.py tests/test_cross_entropy.py tests/test_attention.py tests/test_gemm.py \
    tests/test_gpu.py tests/test_verifier.py 2>&1 \
    | grep -E "PASSED|FAILED|ERROR|passed|failed|Error|assert" | tail -70
exit 0
