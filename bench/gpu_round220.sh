#!/usr/bin/env bash
# GPU round 220 (H100): softmax's new `row_ahead` (each program publishes its next row's
# partials as slot words before it writes this row; no counter) and the barrier now one helper
# (`_arrive_and_wait`, _model.jinja) in the softmax, norm and GEMM row-norm kernels. The GPU tests
# of the softmax split (now with row_ahead at 4, 16 and 32), then the float32 `cols_gt_65536`
# buckets of softmax and log-softmax against only the row_ahead variants (`--knobs row_ahead`),
# then the norm split's and the GEMM row-norm's GPU tests.
# Outcome (2026-11-24; runs/tune-buckets-h100-round220/): the norm split's and the GEMM row-norm's
# GPU tests passed (7) with the shared barrier helper; softmax's failed on its row_ahead configs
# only, and no bucket was promoted: the verifier rejected the launcher's `torch.full` (the slots'
# empty mark; now zeros, the word stored complemented). The sweep (CUDA graphs, 256x128256
# float32): row_ahead row_split 16 at 32 elements a thread 95.9 us against the served 106.0
# (softmax); log-softmax's row_split 32 at 32 a thread 93.1 against 101.0; row_split 4 208 us,
# row_split 8 97-101, 16 and 32 at 8 a thread 120-129.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round220
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_templates_search.py \
    -k row_split 2>&1 | tail -15 | tee "$OUT/tests-softmax.log"
echo "tests softmax: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
mkdir -p /tmp/tune220
for op in softmax log_softmax; do
    tune_op 75 $op float32 /tmp/tune220 --buckets cols_gt_65536 --samples 0 --jobs 14 \
        --knobs row_ahead
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune220
entries_pack_new
left=$(( 580 - ($(date +%s) - start) ))
timeout $left python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_norm.py \
    tests/test_gemm.py -k "row_split or layer_norm" 2>&1 | tail -15 | tee "$OUT/tests-norm.log"
echo "tests norm, gemm: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
exit 0
