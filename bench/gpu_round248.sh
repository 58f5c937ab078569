#!/usr/bin/env bash
# GPU round 248 (H100): the gemm template's ws_pingpong path (templates/_gemm_ws.jinja, the Gluon
# kernel of bench/probe_gluon_gemm.py as a knob): tests/test_gemm_ws.py on the GPU, then
# bench/gemm.py's fused bias+GELU case (8192x8192x4096) with ws_pingpong, by graph replays with
# torch.compile max-autotune beside it, and by the default timer.
# Outcome (2026-11-24): tests 30 passed, 2 failed: the gelu_tanh cases, by a bug in the test
# (F.gelu(y, "tanh"): approximate is keyword-only; fixed, round 250). bench/gemm.py with
# ws_pingpong (runs/gemm-h100-graphs-round248-ws.json, runs/gemm-h100-round248-ws.json):
# 657.3 TFLOP/s by graph replays, 1.054x eager, 1.095x torch.compile, 1.127x max-autotune,
# 0.945x cuBLAS; by the default timer 1.044x eager, 1.081x compile.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round248
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/test_gemm_ws.py 2>&1 | tail -6
echo "tests: after $(( $(date +%s) - start )) s"
mkdir -p /tmp/gemm248
timeout 330 python3 bench/gemm.py --config-json bench/gemm-ws-configs.json \
    --cases linear_bias_gelu_8192x8192x4096 --graphs --max-autotune \
    --max-autotune-cases linear_bias_gelu_8192x8192x4096 --out /tmp/gemm248 2>&1 \
    | grep -v -i warn | tail -12
echo "graphs: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
timeout 120 python3 bench/gemm.py --config-json bench/gemm-ws-configs.json \
    --cases linear_bias_gelu_8192x8192x4096 --out /tmp/gemm248 2>&1 | grep -v -i warn | tail -8
echo "default timer: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
cp /tmp/gemm248/*.json "$OUT/" 2>/dev/null
exit 0
