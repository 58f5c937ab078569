#!/usr/bin/env bash
# GPU round 110: linear + LayerNorm at 1000x1024->3000 is at parity with eager (0.992x, round 105):
# its GEMM runs TILED's 128x256 tiles (96 tiles for 132 SMs) in 16.1 us against cuBLAS's 12.5
# (128x200 tiles). Smaller tiles that two programs per SM can hold, split-K and longer K steps
# (bench/gemm-small-tiles-candidates.json), timed at gelu(linear) 1000x1024->3000 beside cuBLAS and
# eager (bench/gemm.py --configs), each checked against float64 first.
# Outcome: TILED 25.8 us, the best 128x128x64 (8 warps, 3 stages) 24.1, cuBLAS's bare GEMM 16.1;
# split-K and longer K steps slower (runs/gemm-configs-h100-small-tiles-round110.json). TILED kept.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 bench/gemm.py --configs --cases linear_bias_gelu_1000x3000x1024 \
    --candidates bench/gemm-small-tiles-candidates.json 2>&1 | grep -v -i warn | tail -6
cp bench/results/gemm-configs-*.json "$OUT/"
python3 -c "
import json, glob
d = json.load(open(glob.glob('bench/results/gemm-configs-*.json')[0]))
for r in d['rows']:
    print('cublas', r.get('cublas_ms'), 'eager', r.get('eager_ms'))
    for i, c in enumerate(r['configs']):
        k = c['config']
        print(i, c.get('ms'), k['BLOCK_M'], k['BLOCK_N'], k['BLOCK_K'], k['num_warps'], k['num_stages'],
              k['SPLIT_K'], k['gelu_erf_fit'], c.get('correctness', {}).get('ok'), c.get('error'))
"
exit 0
