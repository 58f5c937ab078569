#!/usr/bin/env bash
# GPU round 409 (H200; written 2026-11-29 after the session's device time was spent; run 2026-11-29):
# gpu_round408.sh's `row_lag` sweeps of the 65536-wide rows for float32 LayerNorm and RMSNorm
# (float32 add + RMSNorm was swept with it in round 378), then the three norms' float32 rows.
#     device run, no carry:  bash bench/gpu_round409.sh
# Outcome (2026-11-29, 123 s): see bench/gpu_round408.sh.
exec bash bench/gpu_round408.sh float32
