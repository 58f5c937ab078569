"""Issue #5's coverage table: for each task file, its plan and whether the planned kernel is
correct, written as bench/results/coverage-<mode>.json and a Markdown table (stdout).

For each task: `kzoo analyze`'s plan (groups and their families, library calls), then the
plan's starting config (the first trial `kzoo optimize` runs) verified at every dtype the task
declares, in Triton's interpreter without a GPU (the task's cpu_shapes) or on the GPU.

    python bench/coverage.py [--tasks a,b] [--out bench/results]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", help="comma-separated task names (default: every task)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()
    from verifier.worker import detect_mode

    mode = detect_mode()
    if mode == "interpreter":
        import os

        os.environ["TRITON_INTERPRET"] = "1"
    import tasks
    from agent.analyze import analyze_file
    from agent.plan import plan
    from verifier.core import Verifier
    from verifier.environment import environment

    names = args.tasks.split(",") if args.tasks else sorted(
        p.stem for p in (ROOT / "tasks").glob("*.py") if p.stem not in ("__init__", "loader"))
    verifier = Verifier(mode, Path(tempfile.mkdtemp()))
    rows = []
    for name in names:
        path = ROOT / "tasks" / f"{name}.py"
        analysis = analyze_file(str(path))
        task = tasks.load(path)
        found = plan(task)
        template = found.template_object()
        source = template.render(template.default_for(found.shape_bucket), **found.context)
        results = {}
        for dtype in task.dtypes:
            started = time.monotonic()
            verdict = verifier.verify(task, source, dtype, time=False)
            results[dtype] = {"correct": verdict.accepted, "reasons": verdict.reasons[:2],
                              "seconds": round(time.monotonic() - started, 2)}
        rows.append({"task": name, "covered": analysis["covered"],
                     "groups": [f"{g['family']}({', '.join(g['nodes'])})"
                                for g in analysis["groups"]],
                     "library_calls": [lib["node"] for lib in analysis["library_calls"]],
                     "template": template.name, "results": results})
        summary = ", ".join(f"{d} {r['correct']}" for d, r in results.items())
        print(f"{name}: {summary}", file=sys.stderr, flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"coverage-{mode}.json"
    path.write_text(json.dumps({"mode": mode, "environment": environment(),
                                "date": time.strftime("%Y-%m-%d"), "rows": rows},
                               indent=2, default=str) + "\n")
    print("| task | plan: fusion groups (family(nodes)) | library calls | correct (" + mode + ") |")
    print("| --- | --- | --- | --- |")
    for r in rows:
        ok = ", ".join(f"{d}: {'yes' if v['correct'] else 'NO'}" for d, v in r["results"].items())
        print(f"| `{r['task']}` | {'; '.join(r['groups'])} | {', '.join(r['library_calls']) or '-'}"
              f" | {ok} |")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
