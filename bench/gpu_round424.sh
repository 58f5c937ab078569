#!/usr/bin/env bash
# GPU round 424 (H200; 2026-11-29): the CUDA softmax template's `smem_vecs` (a row too wide for a
# block's registers staged partly in shared memory by cp.async, two blocks of 512 threads an SM
# each holding a whole 32768-wide float32 row) against the served Triton kernels at 1024x32768,
# float32 softmax and log-softmax (0.89 of copy in the standing), then the staged kernel's GPU
# test (the verifier at the tasks' shapes in three dtypes, and odd, shifted rows).
#     device run, no carry:  bash bench/gpu_round424.sh
# Outcome (run twice, 42 and 34 s): correct, and slower than the served Triton kernels. Second
# run, with the template's exponentials as exp2f (`exp_of`): the staged kernels 78.0-82.5 us
# (softmax) and 80.9-82.1 (log-softmax) against the zoo's 71.5 (copy 65.5-66.0); the first run,
# with expf, 83.7-85.5 against 71.0-71.3. The GPU test (the verifier at the tasks' shapes in three
# dtypes, odd and shifted rows) passed both times. runs/probe-softmax-cuda-staged-h200-round424*.json,
# runs/gpu-tests-h200-round424/. The knob and bench/probe_softmax_cuda_staged.py were removed after
# (both at commit a24ff60); exp_of stayed in the template.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round424
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
which nvcc; nvcc --version | tail -2
start=$(date +%s)
mkdir -p "$OUT/round424"
timeout 300 python bench/probe_softmax_cuda_staged.py --out "$OUT/round424" 2>&1 \
    | tee "$OUT/round424/probe.txt" | grep -v "^{" ; echo "probe rc ${PIPESTATUS[0]} at $(( $(date +%s) - start )) s"
timeout 240 python -m pytest -q -p no:cacheprovider -m gpu tests/test_cuda.py -k staged \
    > "$OUT/round424/test_cuda_staged.txt" 2>&1
echo "test rc $? at $(( $(date +%s) - start )) s"; tail -5 "$OUT/round424/test_cuda_staged.txt"
exit 0
