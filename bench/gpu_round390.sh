#!/usr/bin/env bash
# GPU round 390 (H200; written 2026-11-29 after the session's device time was spent, NOT YET RUN):
# the GPU tests that need Ray (test_compose's Python API on the GPU and test_pipeline's GPU
# test), which recent rounds could not run for want of Ray on the device. Ray does not fit the carry beside the
# tree in one call: two calls on one held machine (bench/gpu_lib.sh, split_bundle_*), the second
# right after the first, within the machine's 30 s hold:
#     device run 1, carry [".gpu-ray"]:     bash bench/gpu_round390.sh stage
#     device run 2, carry [".gpu-wheels"]:  bash bench/gpu_round390.sh
# (.gpu-ray and .gpu-wheels are built once by bench/slim_gpu_bundle.sh; see gpu_lib.sh.)
# Outcome: not yet run.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round390
. bench/gpu_lib.sh
if [ "${1:-}" = stage ]; then
    split_bundle_stage_ray
    exit $?
fi
split_bundle_install || exit 1
mkdir -p /tmp/r390
timeout 540 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short \
    tests/test_compose.py tests/test_pipeline.py \
    > /tmp/r390/pytest-ray-gpu.txt 2>&1
echo "ray GPU tests: rc $? $(tail -1 /tmp/r390/pytest-ray-gpu.txt)"
grep -hE "^(FAILED|E  )" /tmp/r390/pytest-ray-gpu.txt | head -20
tar czf "$OUT/round390.tgz" -C /tmp r390
exit 0
