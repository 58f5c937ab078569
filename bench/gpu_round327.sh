#!/usr/bin/env bash
# GPU round 327 (H100): the GPU tests (`-m gpu`) that round 326's timeout left unrun, on today's
# code (after 30ef99f: a Linear + row norm call hands its ws signature to ws_call and _norm_rows):
# test_gemm_ws (its cooperative and row-norm tests), test_compose, the attention, norm, reduce,
# pointwise and cross-entropy tests, the contract suite's GPU rows, the CUDA C++ tests, the zoo
# CLI's and the rest; 8 pytest-xdist workers (carried in .gpu-slim/pylib), since compiling is most
# of a GPU test's time. test_gpu and test_gemm passed in round 326; test_llm needs openai, which
# the slim bundle leaves out. Verbose output goes to $OUT as it runs (a timeout keeps what ran).
# Outcome (2026-11-25): 61 passed, 125 failed, nearly all for want of GPU memory: 8 workers' test
# processes and their verifier workers (24-29 GB each among them) filled the 80 GB. One failure
# was the code's: sigmoid_cumsum's composed kernel in float16, wrong values at 26368 of 512000
# elements of 128x4000 with eager's own relative L2 error (PyTorch's 16-bit cumsum on CUDA;
# bench/probe_cumsum_fp16.py, round 328). The per-test list: runs/gpu-tests-h100-round327.txt.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round327
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mapfile -t files < <(grep -l "mark.gpu" tests/test_*.py | sort \
    | grep -v -E "test_gpu.py|test_gemm.py|test_llm.py")
timeout 540 python3 -m pytest -v -p no:cacheprovider -n 8 --dist loadgroup -m gpu "${files[@]}" \
    > "$OUT/pytest.txt" 2>&1
echo "pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "PASSED|FAILED|ERROR|SKIPPED" "$OUT/pytest.txt" | sed 's/.*\(PASSED\|FAILED\|ERROR\|SKIPPED\).*/\1/' \
    | sort | uniq -c
grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/pytest.txt" | tail -25
exit 0
