#!/usr/bin/env bash
# GPU round 86: round 85's LLM GPU test failed (and the run then ran out of time): that test alone
# with its traceback, after the flush's capture went thread-local with a direct-launch fallback.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 400 python3 -m pytest -x -p no:cacheprovider -m gpu tests/test_llm.py --tb=short -q 2>&1 \
    | grep -v -i "warn" | tail -60
exit 0
