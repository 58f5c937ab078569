#!/usr/bin/env bash
# GPU round 242 (H100): why round 241's Gluon GEMM faulted at 1000x1024->3000 (512^3 was right):
# one launch per process, by shape and program count, the failing ones under compute-sanitizer.
# Outcome (2026-11-24): right where each program had one tile (512^3; 1024^3 on 132 programs;
# 1000x1024->3000 on 192), "unspecified launch failure" wherever a program had two or more
# (1024^3 on 4 and 32 programs, 1000x1024->3000 on 96 and 132). compute-sanitizer: "Unknown
# Error" at the producer's mbarrier expect (line 117), threads 320-321. Cause: consumer 1's first
# stage is k_tiles stages ahead in the ring, and a parity wait cannot tell lap L from lap L-2, so
# it took tile 0's stage for its own and released it twice; the producer then armed a stage's
# barrier twice in one phase. Fixed with a turn barrier between the consumers' main loops.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null
for c in 512,512,512 1024,1024,1024,132 1024,1024,1024,4 1024,1024,1024,32 1000,1024,3000,192 \
         1000,1024,3000,96 1024,1024,3072,132 256,256,256,1; do
    timeout 60 python3 bench/probe_gluon_gemm.py --case $c 2>&1 | grep -E "^case|Error|error" \
        | head -3
done
san=$(which compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -n "$san" ]; then
    timeout 120 $san --tool memcheck python3 bench/probe_gluon_gemm.py --case 1024,1024,1024,4 \
        2>&1 | grep -v -i warn | head -40
fi
exit 0
