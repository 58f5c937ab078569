#!/usr/bin/env bash
# GPU round 159 (H100): the skinny GEMM 128x4096x4096 as CTA clusters (num_ctas 2 and 4) against
# SKINNY_DEFAULT's tile loop and cuBLAS (bench/probe_skinny_clusters.py, graph replays): does a
# cluster read A once for its CTAs?
# Outcome (bench/results/probe-skinny-clusters-h100.json): SKINNY_DEFAULT's bare loop 17.86 us
# against cuBLAS's 17.95; 2-CTA clusters at 64-column tiles 18.8-19.1; 4-CTA clusters wrong.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 bench/probe_skinny_clusters.py --out "$OUT" 2>&1 | grep -v -i warn | tail -20
exit 0
