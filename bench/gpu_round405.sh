#!/usr/bin/env bash
# GPU round 405 (H200; written 2026-11-29 after the session's device time was spent):
# gpu_round404.sh's sweeps in float16. Run after round 404, with its entries in the tree
# (extract its entries.tgz and commit first: the float16 sweeps start from the bfloat16 configs
# it promotes).
#     device run, no carry:  bash bench/gpu_round405.sh
# Outcome (run 2026-11-29, 318 s): softmax 1.34.0-1.36.0 (256x128256 57.6 -> 48.0 us, 1024x32768
# 45.6 -> 43.3, 64x128x4096 over dim 1 54.1 -> 40.8) and log_softmax 1.35.0-1.36.0 (48.3 -> 42.1,
# 45.9 -> 42.1); log-softmax's inner_dim kept.
exec bash bench/gpu_round404.sh float16
