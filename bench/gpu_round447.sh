#!/usr/bin/env bash
# GPU round 447 (H200; 2026-11-30): (1) the CPU routing tests that round 446 pinned to the
# interpreter's 4 SMs (`_sm_count`), run on a GPU host, where they compile and run every
# companion kernel for real; (2) bench/probe_gluon_cluster.py: which cuBLAS kernels serve the
# bias+GELU bar's 8192x8192x4096, and whether the device's Triton can express a cluster's
# multicast TMA load in Gluon.
#     device run, no carry:  bash bench/gpu_round447.sh
# Outcome (a first call gave the tests 300 s, which their compiles overran with no output; then
# 493 s and 12 s, the probe's first run failing on its own call of L2Flusher, fixed): the 4
# routing tests passed on the H200 in 470 s (runs/gpu-tests-h200-round447/). The probe
# (runs/probe-gluon-cluster-h200-round447.json): Triton 3.6's Gluon has no multicast TMA load
# (`async_copy_global_to_shared(tensor_desc, coord, barrier, result, pred)`, no `async_load`) and
# no remote mbarrier arrive (`arrive(mbarrier, count, pred)`); layouts take a `cga_layout`. The
# CPU machine's Triton 3.9 has both (`async_load(..., multicast)`, `arrive(..., from_cta)`).
# cuBLAS's bare GEMM there is nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_TNT, eager's bias GEMM
# nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT: cooperative kernels in 1x2 clusters.
set -uo pipefail
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 480 python3 -u -m pytest -q -x -p no:cacheprovider --durations=10 tests/test_gemm.py \
    -k "skinny_companion or odd_companion or one_wave_of_the_persistent" \
    > $OUT/pytest-gemm-routing.txt 2>&1
echo "routing tests: rc $? $(tail -1 $OUT/pytest-gemm-routing.txt)"
timeout 300 python3 bench/probe_gluon_cluster.py $OUT > $OUT/probe.log 2>&1
echo "probe: rc $?"
