#!/usr/bin/env bash
# GPU round 325 (H100): issue #4's fused bias+GELU case (bench/gemm.py, 8192x8192x4096, bfloat16)
# with the cooperative warp-specialized kernel (bench/gemm-configs-ws-coop.json: linear_bias_gelu
# 1.9.0's bfloat16 params, ws_coop on) beside the pingpong one (bench/gemm-ws-configs.json, round
# 248), each by graph replays and by the default timer, alternating, cuBLAS, eager and
# torch.compile timed in each run.
# Outcome (2026-11-25): the two forms level, 661.1 and 661.7 TFLOP/s by graph replays (0.832 and
# 0.831 ms), 656.7 and 653.9 by the default timer; against eager 1.017x and 1.048x (graphs),
# 1.011x and 1.037x (default), eager's time moving between runs (0.846-0.872 ms) more than the
# kernels'; cuBLAS's bare GEMM 0.769-0.775 ms. runs/gemm-h100{,-graphs}-round325-ws-{coop,ping}.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round325
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
for timer in --graphs ""; do
    for form in coop ping; do
        cfg=bench/gemm-configs-ws-coop.json
        [ "$form" = ping ] && cfg=bench/gemm-ws-configs.json
        name=${timer:+graphs}; name=${name:-default}
        mkdir -p "/tmp/g325-$form-$name"
        timeout 130 python3 bench/gemm.py --config-json "$cfg" $timer \
            --cases linear_bias_gelu_8192x8192x4096 --out "/tmp/g325-$form-$name" 2>&1 \
            | grep -v -i warn | tail -3
        for f in /tmp/g325-$form-$name/*.json; do cp "$f" "$OUT/$form-$name-$(basename "$f")"; done
        echo "$form $name: after $(( $(date +%s) - start )) s"
    done
done
exit 0
