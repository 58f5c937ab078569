#!/usr/bin/env bash
# GPU round 249 (H100): why round 248's two gelu_tanh cases of tests/test_gemm_ws.py failed (the
# assertion's numbers), then the composed gelu(linear) row (bench/compose.py, `kzoo optimize` on
# the task, 3 trials: DEFAULT, DEFAULT with its companions and ws_pingpong, TILED), with the
# optuna/ray bundle less openai (which the run does not import), to stay in the carry limit.
# Outcome (2026-11-24, runs/compose-h100-round249-linear-bias-gelu.json): the composed search
# picked DEFAULT with its companions and ws_pingpong (score 1.458 against DEFAULT's 1.332, TILED's
# 1.428); the verifier's re-timing (host_ahead) had it at 0.992x eager at 8192x4096->8192,
# 1.005x at 4096x4096->14336, 3.22x at 4099x1000->3073 (the tiled companion). Profiler kernel
# times: _ws_kernel 802 and 709 us against eager's 707 + 95 and 696 + 97. Host time a call 161-247
# us against eager's 49-78.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round249
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_gemm_ws.py -k gelu_tanh \
    --tb=line 2>&1 | grep -E "assert|Error|passed|failed" | head -8
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu-bundle/*.whl \
    && tar xJf .gpu-bundle/ray-slim.tar.xz -C /tmp/site
export PYTHONPATH=/tmp/site:$PWD
python3 -c "import optuna, ray; print('optuna', optuna.__version__, 'ray', ray.__version__)"
mkdir -p /tmp/compose249
timeout 420 python3 bench/compose.py --tasks linear_bias_gelu --trials 3 --profile \
    --out /tmp/compose249 2>&1 | grep -v -i warn | tail -25
echo "compose: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
cp /tmp/compose249/*.json "$OUT/" 2>/dev/null
exit 0
