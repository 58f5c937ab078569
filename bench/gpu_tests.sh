#!/usr/bin/env bash
# The gpu-marked tests, file by file, on the GPU machine: each file under its own time limit
# (PER_FILE_S, default 300 s), its whole output kept in $OUT/gpu-tests/<file>.txt (or
# /tmp/kzoo-out), one summary line per file printed as it ends. With arguments, only those test
# files: the suite can be split over several device calls. GPU round 154 ran the whole suite as
# one pytest call under one limit, which ran out before the summary and left nothing.
#
#   bash bench/gpu_tests.sh                       # every test file with a gpu-marked test
#   bash bench/gpu_tests.sh tests/test_zoo.py     # one file
set -uo pipefail
out=${OUT:-/tmp/kzoo-out}/gpu-tests
mkdir -p "$out"
limit=${PER_FILE_S:-300}
if [ "$#" -gt 0 ]; then
    files=("$@")
else
    mapfile -t files < <(grep -l "mark.gpu" tests/test_*.py | sort)
fi
status=0
for f in "${files[@]}"; do
    name=$(basename "$f" .py)
    start=$(date +%s)
    timeout "$limit" python3 -m pytest -q -p no:cacheprovider -m gpu "$f" > "$out/$name.txt" 2>&1
    rc=$?
    # pytest's exit 5 (nothing selected) is no failure here: a file may hold no gpu test today
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ]; then status=1; fi
    summary=$(grep -E " in [0-9.]+s" "$out/$name.txt" | tail -1)
    [ "$rc" -eq 124 ] && summary="timed out after $limit s"
    echo "$name: exit $rc, $(( $(date +%s) - start )) s: ${summary:-no summary}"
done
exit "$status"
