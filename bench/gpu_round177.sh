#!/usr/bin/env bash
# GPU round 177 (H100): the row-norm kernel of a two-kernel call as a programmatic dependent
# launch (`_pdl`: launch_pdl, its programs wait in gdc_wait; the GEMM's programs release it after
# their main loop, gdc_launch_dependents), so that its launch and its programs' start overlap the
# GEMM (which leaves 36 of 132 SMs idle at 1000x1024->3000). The row norm's GPU tests, then
# bench/probe_gemm_norm.py (round 173: the two kernels 24.85 us against eager's 24.64), the host
# time (bench/host_overhead.py --composed) and linear + LayerNorm composed (bench/compose.py, 16
# trials; round 176: 0.994x eager at 1000x1024->3000, 1.022x at 8192x4096->4096).
# Outcome (runs/probe-gemm-norm-h100-round177.json, bench/results/host-overhead-h100-composed.json,
# runs/compose-h100-round177-linear-layer-norm.json, runs/gpu-tests-gemm-norm-h100-round177.txt):
# 4 GPU tests passed; the two kernels 24.13 us against eager's 24.54 (graph replays; the GEMM
# 15.3 us, the row norm 8.0 from its early start); the verifier's timer 23.7-24.2 us against
# eager's 24.7-25.3 (host 56-66 us a call). The probe's fused cells of the three configs with a
# two-kernel twin ran two kernels (their module had recorded the twin's norm recipe; the probe now
# loads the twin apart). The composed search's winner, DEFAULT without companions (descriptors,
# host 106 us), timed 1.02x in the search and 0.388x re-timed (64.9 us against 25.2): host-bound.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round177
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout 170 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py -k "layer_norm" \
    > "$OUT/gpu-tests-gemm-norm.txt" 2>&1
echo "pytest exit $?"
tail -2 "$OUT/gpu-tests-gemm-norm.txt"
timeout 150 python3 bench/probe_gemm_norm.py --out "$OUT" > "$OUT/probe-gemm-norm.txt" 2>&1
echo "norm exit $?"
grep -E "1000x1024x3000 .*(eager|unfused|compile|gemm/)|8192x4096x4096 (eager|seed0)|verify|Error" "$OUT/probe-gemm-norm.txt" | head -30
grep -A8 '"tiled_128x256x64_s3/unfused"' "$OUT/probe-gemm-norm.txt" | head -9
timeout 80 python3 bench/host_overhead.py --composed > "$OUT/host-overhead.txt" 2>&1
echo "host exit $?"
cp bench/results/host-overhead-*-composed.json "$OUT/" 2>/dev/null
grep "host us/call" "$OUT/host-overhead.txt"
timeout 170 python3 bench/compose.py --tasks linear_layer_norm --trials 16 --budget 200 --profile \
    --out "$OUT" 2>&1 | grep -v -i warn | tail -4
exit 0
