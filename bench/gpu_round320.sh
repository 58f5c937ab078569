#!/usr/bin/env bash
# GPU round 320 (H100): the gemm template's new ws_coop knob (the cooperative warp-specialized
# kernel of bench/probe_gluon_coop.py, rounds 313-319, with ws_pingpong's epilogues): (1)
# test_gemm_ws's GPU test of it, every activation in both 16-bit dtypes, partial tiles, a 3-D x;
# (2) the linear_bias_gelu (bfloat16, float16) and linear_bias_silu (bfloat16) entries re-rendered
# with ws_coop on (`kzoo optimize --start @params --trials 1`, promoting where the re-timed
# winner beats the best baseline).
# Outcome (2026-11-25): 14 passed (every activation, both dtypes, the cooperative form). Promoted
# linear_bias_gelu 1.8.0 (bfloat16: 1.039x and 1.023x eager at 8192x4096->8192 and
# 4096x4096->14336 by the verifier's timer, where round 301's ws_pingpong entry took 1.008x and
# 0.989x; 4099x1000->3073 3.22x, its calls refused by ws_plan), 1.9.0 (float16: 1.040x, 1.054x)
# and linear_bias_silu 1.8.0 (bfloat16: 1.094x at 4x2048x4096->4096, 1.236x at 16 rows).
# runs/optimize-linear-bias-*-h100-round320.json, runs/gpu-tests-h100-ws-coop-round320.txt.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round320
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm_ws.py -k coop \
    > "$OUT/pytest.txt" 2>&1
echo "pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
KNOBS='{"ws_coop": true}' bash bench/rerender_entries.sh "linear_bias_gelu bfloat16" \
    "linear_bias_gelu float16" "linear_bias_silu bfloat16"
echo "after $(( $(date +%s) - start )) s"
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/linear_bias_gelu entries/linear_bias_silu
exit 0
