#!/usr/bin/env bash
# GPU round 307 (H100): zoo entries for ops.linear's other activations, which had none (ReLU,
# GELU's tanh approximation, sigmoid, tanh: every such call ran F.linear and the activation
# eagerly). Each new task (tasks/linear_bias_<act>.py: linear_bias_silu's shapes) goes through
# `kzoo optimize --trials 1` started from linear_bias_silu's newest params for the dtype (its
# search's winners at the same shapes), promoting where the verified kernel beats the best
# baseline (bench/rerender_entries.sh "OP DTYPE - linear_bias_silu").
# Outcome (2026-11-25): all eight promoted, each 1.0.0 (bfloat16) and 1.1.0 (float16), by the
# promotion's re-timing 1.097-1.129x eager and 1.097-1.115x the best baseline over the task's
# shapes: at 4 x 2048 x 4096 -> 4096 0.986-1.036x eager (392.5-406.8 us against 394.7-415.1),
# at 16 rows 1.20-1.24x (18.3-18.5 against 22.2-22.9). The run's --json files of relu and
# gelu_tanh are runs/optimize-linear-bias-*-h100-round307.json (sigmoid's and tanh's did not
# come back: the device returns a limited count of files; their verdicts are in the manifests).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round307
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
jobs=()
for act in relu gelu_tanh sigmoid tanh; do
    for dtype in bfloat16 float16; do
        jobs+=("linear_bias_$act $dtype - linear_bias_silu")
    done
done
bash bench/rerender_entries.sh "${jobs[@]}"
echo "after $(( $(date +%s) - start )) s"
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/linear_bias_relu entries/linear_bias_gelu_tanh \
    entries/linear_bias_sigmoid entries/linear_bias_tanh
exit 0
