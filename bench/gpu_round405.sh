#!/usr/bin/env bash
# GPU round 405 (H200; written 2026-11-29 after the session's device time was spent, NOT YET RUN):
# gpu_round404.sh's sweeps in float16. Run after round 404, with its entries in the tree
# (extract its entries.tgz and commit first: the float16 sweeps start from the bfloat16 configs
# it promotes).
#     device run, no carry:  bash bench/gpu_round405.sh
# Outcome: not yet run.
exec bash bench/gpu_round404.sh float16
