#!/usr/bin/env bash
# GPU round 323 (H100): (1) the float16 entries of linear_bias_relu, _gelu_tanh, _sigmoid, _tanh
# and _silu re-rendered with ws_coop on (as round 322's bfloat16 ones), promoted where they beat
# the entry; (2) the newest linear_bias_* entries (rounds 320, 322 and this) through
# `kzoo zoo verify --newest` and tests/test_gpu.py's ops.linear dispatch test (every activation,
# both 16-bit dtypes, odd, decode, skinny and 3-D shapes).
# Needs round 322's promoted entries in kernel_zoo/entries (committed before this round).
# Outcome (2026-11-25): relu, gelu_tanh, sigmoid, tanh 1.3.0 and silu 1.9.0 promoted (float16:
# 1.065-1.128x eager at 4x2048x4096->4096); zoo verify --newest all good for the six ops; the
# dispatch test 12 passed (runs/gpu-tests-h100-ops-linear-round323.txt).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round323
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/rr323
for op in linear_bias_relu linear_bias_gelu_tanh linear_bias_sigmoid linear_bias_tanh \
        linear_bias_silu; do
    KNOBS='{"ws_coop": true}' OUT=/tmp/rr323 bash bench/rerender_entries.sh "$op float16"
    tar czf "$OUT/entries.tgz" -C kernel_zoo entries/linear_bias_relu entries/linear_bias_gelu_tanh \
        entries/linear_bias_sigmoid entries/linear_bias_tanh entries/linear_bias_silu
    tar czf "$OUT/rerender.tgz" -C /tmp rr323
    echo "after $(( $(date +%s) - start )) s"
done
for op in linear_bias_gelu linear_bias_silu linear_bias_relu linear_bias_gelu_tanh \
        linear_bias_sigmoid linear_bias_tanh; do
    timeout 60 python3 -c "from agent.cli import main; raise SystemExit(main())" zoo verify "$op" \
        --newest --zoo kernel_zoo/entries > /tmp/rr323/verify-$op.txt 2>&1
    echo "zoo verify $op rc $?: $(grep -v -i 'warn\|token' /tmp/rr323/verify-$op.txt | tail -1 | cut -c1-200)"
done
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py \
    -k test_ops_linear_runs_the_shipped_entry > "$OUT/pytest.txt" 2>&1
echo "pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
tar czf "$OUT/rerender.tgz" -C /tmp rr323
exit 0
