#!/usr/bin/env bash
# GPU round 101: the norm and softmax launchers pass widths and strides divided by `_unit`, so a
# 1000- or 3000-wide bf16 row gets 16-byte loads and stores. The offline PTX test on Triton 3.6,
# then bench/vector_rows.py: today's render against the same render with `_unit` forced to 1,
# eager PyTorch and torch.compile, at 4099x1000, 1000x3000 and 4096x1024 (bfloat16).
# Outcome: 12 passed on Triton 3.6; graph replays 1.19x and 1.45x faster for LayerNorm, 1.21x and
# 1.30x RMSNorm, 1.08x and 1.30x add+RMSNorm, 1.03-1.08x softmax and log-softmax; 1.00x at 1024.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_vector_access.py 2>&1 | tail -4
timeout 420 python3 bench/vector_rows.py --out "$OUT" 2>&1 | grep -v -i warn | tail -20
exit 0
