#!/usr/bin/env bash
# GPU round 393 (H200; written 2026-11-29 after the session's device time was spent, run in the next session):
# `edges_persist` (the norm template's align_edges kernel on a persistent grid of a multiple of
# the vector width programs, whose rows then share one shift, so each program reads the weight
# and bias once, where the body_tile kernel reads them at every row's shift in scalar loads: 64 a
# row for a 16-bit LayerNorm tile of 32 values a thread, beside 4 vector loads of x;
# compile-norm-align-edges-persist-sm90-bf16.json). First its GPU test (test_norm's align_edges
# test, whose configs now include edges_persist at 2 and 8 programs an SM), then sweeps with
# `--knobs edges_persist` (the served configs against 24 variants: 2, 4, 8 programs an SM,
# 4096- and 8192-element tiles, 16 or 32 values a thread, the row loop 1 or 2 deep) of the
# 16-bit `cols_le_16384` buckets of LayerNorm (4096x4097 at 0.45-0.46 of copy after round 391)
# and RMSNorm (0.67-0.68), then those ops' 16-bit rows. gpu_round394.sh does float32 and add +
# RMSNorm.
#     device run, no carry:  bash bench/gpu_round393.sh
# Outcome (2026-11-29, 344 s): the GPU test passed (3 tests); edges_persist won all four
# buckets by 3-6% at 4096x4097 (layer_norm 1.27.0-1.28.0, rms_norm 1.37.0-1.38.0); tables 0.47
# of copy (LayerNorm) and 0.70 (RMSNorm). bench/RESULTS.md, "Rounds 393-397".
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round393
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/r393/tune /tmp/r393/tests
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
    "tests/test_norm.py::test_align_edges_is_correct_on_the_gpu" \
    > /tmp/r393/tests/pytest-norm.txt 2>&1
rc=$?
echo "norm align_edges GPU tests: rc $rc $(tail -1 /tmp/r393/tests/pytest-norm.txt)"
if [ $rc -ne 0 ]; then
    grep -E "^(FAILED|E  )" /tmp/r393/tests/pytest-norm.txt | head -20
    tar czf "$OUT/round393.tgz" -C /tmp r393
    exit 0
fi
entries_snapshot
tune_pairs 400 110 /tmp/r393/tune \
    "layer_norm:bfloat16 rms_norm:bfloat16 layer_norm:float16 rms_norm:float16" \
    --buckets cols_le_16384 --knobs edges_persist --samples 0 --jobs 14
entries_pack_new
table_rows 570 /tmp/r393 layer_norm,rms_norm bfloat16,float16
tar czf "$OUT/round393.tgz" -C /tmp r393
exit 0
