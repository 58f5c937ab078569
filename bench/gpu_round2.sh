#!/usr/bin/env bash
# GPU round 2: the gpu-marked tests (the contract's defaults in float32 and float16 at every GPU
# shape, the zoo's dispatch, the LLM loopback flow, the CUDA C++ corpus), then the pipeline bench.
set -uo pipefail
export KZOO_HOME=/tmp/kz2 PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
KZOO_LLM_RESULT=$OUT/llm-loopback.json timeout "${TEST_S:-420}" python3 -m pytest -m gpu -q -p no:cacheprovider \
    --timeout 240 -k "not test_cuda_templates_are_correct_on_gpu and not test_default_is_correct_at_the_gpu_shapes" \
    tests 2>&1 | tee "$OUT/gpu-tests.txt" | grep -v "^\s*$" | tail -25
if [ -f bench/pipeline.py ]; then
    timeout "${PIPE_S:-150}" python3 bench/pipeline.py ${PIPE_ARGS:-} --out "$OUT" 2>&1 | tail -15
fi
ls "$OUT"
