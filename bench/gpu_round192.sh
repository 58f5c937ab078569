#!/usr/bin/env bash
# GPU round 192 (H100), written in stop 32 and not run yet (its device time was spent): the
# float32 memory-bound rows with every float32 config of rounds 189-191 (round 190's table came
# before round 191's sum, mean, amax and amin), then `kzoo zoo verify --newest --dtype float32` of
# the ops that got float32 configs, each at every GPU shape of its task, while the run has time
# (the rest in a later round; the verifier checked each config at its bucket's shapes when it
# was promoted).
# Outcome (run in stop 33, 2026-11-24): the float32 table, bench/results/
# memory-bound-h100-graphs-float32.json: 75 rows, none wrong, geomean 1.051x torch.compile (1.004x
# in round 190), 29 rows behind it, 5 of 39 large rows under 90% of copy. Verified on the GPU, every
# shape of the task, all accepted: sum, mean, amax, amin, softmax, log_softmax, cross_entropy,
# argmax (runs/zoo-verify-h100-float32-round192-194/ holds the four JSONs that came back: a run
# returns 8 files). Not verified for time: layer_norm, rms_norm, add_rms_norm, geglu, swiglu.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round192
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 240 python3 bench/memory_bound.py --graphs --dtypes float32 --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -25
for op in sum mean amax amin softmax log_softmax cross_entropy argmax layer_norm rms_norm \
          add_rms_norm geglu swiglu; do
    [ $(( $(date +%s) - start )) -gt 480 ] && { echo "not verified for time: $op"; continue; }
    timeout 90 python3 -m agent zoo verify $op --newest --dtype float32 --json \
        > "$OUT/zoo-verify-$op-float32.json" 2> "$OUT/zoo-verify-$op-float32.log"
    echo "verify $op float32: exit $?"
done
exit 0
