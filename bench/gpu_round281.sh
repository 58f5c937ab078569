#!/usr/bin/env bash
# GPU round 281 (H100): SKINNY_LINEAR as single-CTA 64x64 tiles grouped by 4 (round 280's
# finding, one shape): (1) test_gemm's GPU tests of the skinny tiles, the companions and the
# descriptor path with it; (2) graph-replay timings of six skinny tiles (128x32 five deep, the
# previous SKINNY_LINEAR; 64x64 by 4 five and six deep, 64x64x64 eight deep; 64x32; the CTA pair)
# at a matmul's and four Linears' skinny shapes (bench/gemm-skinny-linear-candidates.json).
# Outcome (2026-11-25): 12 passed (SKINNY_LINEAR as 64x64 by 4, six deep). By graph replays:
# 128x4096x4096 64x64 by 4 17.0 us, the pair 17.2, 128x32 18.0, cuBLAS 17.9; silu(linear)
# 128x4096->4096 18.3 against 128x32's 19.5 (eager 21.1); 64x4096->4096 18.5 against 29.9 (eager
# 20.6); gelu(linear) 100x1000->3000 12.0 against 13.2 (eager 12.5); 128x4096->14336 61.5
# against 64.4, 128x64 single CTAs 55.1 (eager 51.1). SKINNY_DEFAULT is now the 64x64 tile for
# both layouts, the pair SKINNY_PAIR. runs/gemm-configs-h100-skinny-linear-graphs-round281.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py \
    -k "skinny or cluster or companion or tma or descriptor" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
timeout 270 python3 bench/gemm.py --configs --graphs \
    --cases skinny_128x4096x4096,linear_bias_silu_128x4096x4096,linear_bias_silu_64x4096x4096,linear_bias_gelu_128x14336x4096,linear_bias_gelu_100x3000x1000 \
    --candidates bench/gemm-skinny-linear-candidates.json --out "$OUT" 2>&1 | tail -60
exit 0
