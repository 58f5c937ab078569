#!/usr/bin/env bash
# GPU round 452 (H200; 2026-11-30), no carry.
# Calls 1-15: a Hopper GEMM with the bias + erf-GELU epilogue in CUDA C++ (cuda_gemm_source.py,
# bench/probe_cuda_gemm.py): warp-specialized wgmma on 128-row tiles, clusters of 1 and 2 CTAs
# (the weight tile multicast to both), each variant checked at three shapes, then timed at
# 8192x8192x4096 beside eager, cuBLAS's bare GEMM and bias GEMM, and the zoo's served kernel.
# Each call ran the probe's VARIANTS of that moment (they are in each call's JSON, with their
# params); the source grew options as the calls went (store, release_early, bn, bias_early,
# act_in_consumers, erf_fit, direct_store, epilogue_sleep_ns, bk, bias_smem).
#     device run:  PART=cuda_gemm bash bench/gpu_round452.sh
# Outcome (15 calls, about 1250 s of device time; runs/probe-cuda-gemm-h200-round452/callN.json):
# call 1 at 0.72x eager (the cross-CTA arrive's MEMBAR.ALL.GPU every K step); call 2, fixed,
# 1.02x, multicast no gain; call 3, the main loop alone 1.27-1.30x (the epilogue is 20% of the
# time), stores through TMA no gain; call 4, the epilogue handed to the producer warpgroup's idle
# warps 1.08x with 3 stages; call 5, half the hand-off tile with 4 stages 0.94x; call 6, 128x192
# tiles with 4 stages and the full hand-off 1.094-1.103x; call 7, each tile's bias read before its
# loop 1.117-1.121x eager (1.009-1.013x cuBLAS's bare GEMM), the zoo's served kernel 1.055-1.057x;
# calls 8-13 on other machines: that form 1.092-1.097x, the GELU in the consumers 0.92-0.97x, the
# epilogue warps storing directly 1.07x, sleeping polls no change, 128x256x32 tiles in 6 stages
# 1.34-1.36x with nothing stored but 0.99x with the handoff; call 14, the bias staged in shared
# memory by the epilogue warps, 1.116-1.120x; call 15 the same 1.115-1.121x (clusters of 1: 1.10x).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round452
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
R=/tmp/r452
mkdir -p $R
case "${PART:-cuda_gemm}" in
cuda_gemm)
    timeout 560 python3 bench/probe_cuda_gemm.py $R > $R/cuda-gemm.log 2>&1
    echo "cuda_gemm: rc $? after $(( $(date +%s) - start )) s"
    grep -v -i warn $R/cuda-gemm.log | tail -30
    cp $R/probe-cuda-gemm-h200.json $R/cuda-gemm.log "$OUT/" 2>/dev/null
    ;;
esac
