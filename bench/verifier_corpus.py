"""Run the adversarial corpus (tests/adversarial) through the verifier on this machine's device and
record every verdict: bench/results/verifier-<device>.json.

On a GPU the honest controls are also timed against eager PyTorch and torch.compile (same process),
so the record shows the verifier accepting real kernels at full checking strength.

    python bench/verifier_corpus.py [--out bench/results]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()

    import tasks
    from test_adversarial import FILES, expectation
    from verifier.core import Verifier
    from verifier.environment import device_label, environment
    from verifier.worker import detect_mode

    mode = detect_mode()
    verifier = Verifier(mode, Path("/tmp/kzoo-corpus"))
    rows, ok = [], 0
    for path in FILES:
        expected, classes, task_path = expectation(path)
        started = time.monotonic()
        verdict = verifier.verify(tasks.load(task_path), path.read_text(), "float32")
        if expected == "accept":
            passed = verdict.accepted
        else:
            passed = not verdict.accepted and bool(set(verdict.exploits) & classes)
        ok += passed
        rows.append({
            "file": path.name, "task": task_path.stem, "expected": expected,
            "expected_classes": sorted(classes), "accepted": verdict.accepted,
            "exploits": verdict.exploits, "reasons": verdict.reasons[:3], "as_expected": passed,
            "speedup_vs_eager": verdict.speedup_vs_eager,
            "speedup_vs_compile": verdict.speedup_vs_compile, "ms": verdict.ms,
            "seconds": round(time.monotonic() - started, 2),
        })
        print(f"{'ok ' if passed else 'BAD'} {path.stem:26s} {expected:6s} "
              f"{','.join(verdict.exploits) or 'accepted'}", flush=True)
    result = {"benchmark": "verifier-corpus", "mode": mode, "environment": environment(),
              "dtype": "float32", "as_expected": ok, "total": len(rows), "rows": rows}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"verifier-{device_label()}.json"
    target.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{ok}/{len(rows)} verdicts as expected ({mode}); wrote {target}")
    sys.exit(0 if ok == len(rows) else 1)


if __name__ == "__main__":
    main()
