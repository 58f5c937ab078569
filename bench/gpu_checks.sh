#!/usr/bin/env bash
# On the single-GPU machine: the gpu-marked tests, the adversarial corpus, and `kzoo zoo verify` of
# the shipped zoo; logs and JSON land in bench/results/ (and $OUT when set).
set -uo pipefail
out=${OUT:-/tmp/kzoo-out}
mkdir -p "$out" bench/results/runs
dev=$(python3 -c "from verifier.environment import device_label; print(device_label())")
# tests/test_zoo_cli.py checks every shipped op's newest entry: about 13 minutes on an H100
OUT="$out" PER_FILE_S=${PER_FILE_S:-900} bash bench/gpu_tests.sh 2>&1 \
    | tee bench/results/runs/gpu-tests-$dev.txt
python3 bench/verifier_corpus.py 2>&1 | tail -30
KZOO_HOME=$(mktemp -d) python3 -m agent zoo verify --zoo kernel_zoo/entries --json \
    > bench/results/zoo-verify-$dev.json; echo "zoo verify exit $?"
cp bench/results/verifier-$dev.json bench/results/zoo-verify-$dev.json bench/results/runs/gpu-tests-$dev.txt "$out/"
