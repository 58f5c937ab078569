#!/usr/bin/env bash
# GPU round 207 (H100): the gpu-marked tests of the zoo, the memory-bound families' contract
# suite and the templates this stop touched, on the zoo rounds 200-205 promoted into and with
# kernel_zoo.store.promote_many in place of promote.
# Outcome (stop 34, 2026-11-24): cut off at 540 s after 22 tests (the per-op `kzoo zoo verify`
# tests take 30-60 s each), one failed: test_kzoo_verify_times_the_shipped_kernel_against_baselines
# gave `kzoo verify` the kernel's path inside the entry folder, where schema 2 keeps none (fixed:
# store.entry_file_path); the other 21 (test_gpu.py, test_zoo.py's, the zoo verify of add_rms_norm,
# amax, amin) passed. Round 208 runs the rest.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round207
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 540 python3 -m pytest -q -p no:cacheprovider -m gpu --durations=8 tests/test_gpu.py \
    tests/test_zoo.py tests/test_zoo_cli.py tests/test_reduce.py tests/test_pointwise.py \
    tests/test_cross_entropy.py tests/test_contract.py 2>&1 | grep -v -i warn | tail -24
echo "pytest: exit ${PIPESTATUS[0]}"
exit 0
