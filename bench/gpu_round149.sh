#!/usr/bin/env bash
# GPU round 149 (H100): how torch.compile launches GeGLU and SwiGLU (grid, block, registers from a
# profiler trace) at 8192x16384 and at 16 rows, where GeGLU's zoo kernel read 0.93x compile in
# round 148's table (5.8 against 5.4 us).
# Outcome (runs/probe-inductor-glu-h100-round149.json): at 16x16384 compile and the zoo both
# launch 256 programs of 128 threads (GeGLU): 1.57 and 1.60 us of kernel, 6.0 and 6.0 us a replay.
# At 8192x16384 compile launches 131072 programs, the zoo 65536.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 bench/probe_inductor_glu.py --out "$OUT" 2>&1 | grep -v -i warn \
    | grep -v "^ *tmp\|^ *x[0-9a-z]* = "
exit 0
