"""Issue #5's coverage table: for each task file, its plan and whether the planned kernel is
correct, written as bench/results/coverage-<interpreter|device>.json and a Markdown table (stdout).

For each task: `kzoo analyze`'s plan (groups and their families, library calls), then the
plan's starting config (the first trial `kzoo optimize` runs) verified at every dtype the task
declares, in Triton's interpreter without a GPU (the task's cpu_shapes) or on the GPU.

    python bench/coverage.py [--tasks a,b] [--out bench/results] [--resume]

--resume keeps the rows of the JSON already at the output path (a run cut short, say): the
tasks named by --tasks are run again, and without --tasks every task it lacks. Each row carries
the date it was verified.
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
    parser.add_argument("--resume", action="store_true",
                        help="keep the rows already in the output JSON (see above)")
    parser.add_argument("--table", action="store_true",
                        help="verify nothing: print the README's table from the coverage JSONs "
                             "in --out, one correctness column per JSON")
    args = parser.parse_args()
    if args.table:
        print_table(Path(args.out))
        return
    from verifier.worker import detect_mode

    mode = detect_mode()
    if mode == "interpreter":
        import os

        os.environ["TRITON_INTERPRET"] = "1"
    import tasks
    from agent.analyze import analyze_file
    from agent.errors import PlanError
    from agent.plan import plan
    from verifier.core import Verifier
    from verifier.environment import device_label, environment

    names = list(dict.fromkeys(args.tasks.split(","))) if args.tasks else sorted(
        p.stem for p in (ROOT / "tasks").glob("*.py") if p.stem not in ("__init__", "loader"))
    verifier = Verifier(mode, Path(tempfile.mkdtemp()))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"coverage-{'interpreter' if mode == 'interpreter' else device_label()}.json"
    env = environment()
    rows = []
    if args.resume and path.exists():
        kept = json.loads(path.read_text())
        if kept.get("environment", {}).get("gpu") != env.get("gpu"):
            raise SystemExit(f"{path} was written on another device; --resume keeps rows of one")
        rows = [{"date": kept["date"], **r} for r in kept["rows"] if r["task"] not in names]
        if not args.tasks:
            names = [n for n in names if n not in {r["task"] for r in rows}]
    for name in names:
        task_path = ROOT / "tasks" / f"{name}.py"
        analysis = analyze_file(str(task_path))
        task = tasks.load(task_path)
        row = {"task": name, "covered": analysis["covered"],
               "groups": [f"{g['family']}({', '.join(g['nodes'])})" for g in analysis["groups"]],
               "library_calls": [lib["node"] for lib in analysis["library_calls"]],
               "template": None, "results": {}, "date": time.strftime("%Y-%m-%d")}
        try:
            found = plan(task)
        except PlanError as exc:  # recorded as not covered (analyze's reason); the run goes on
            row.update(covered=False, reason=analysis["reason"] or str(exc))
        else:
            template = found.template_object()
            source = template.render(template.default_for(found.shape_bucket), **found.context)
            for dtype in task.dtypes:
                started = time.monotonic()
                verdict = verifier.verify(task, source, dtype, time=False)
                row["results"][dtype] = {"correct": verdict.accepted,
                                         "reasons": verdict.reasons[:2],
                                         "seconds": round(time.monotonic() - started, 2)}
            row["template"] = template.name
        rows.append(row)
        rows.sort(key=lambda r: r["task"])
        summary = ", ".join(f"{d} {r['correct']}" for d, r in row["results"].items()) \
            if "reason" not in row else f"not covered: {row['reason']}"
        print(f"{name}: {summary}", file=sys.stderr, flush=True)
        # written after every task, so a run cut short keeps the rows it finished
        path.write_text(json.dumps({"mode": mode, "environment": env,
                                    "date": time.strftime("%Y-%m-%d"), "rows": rows},
                                   indent=2, default=str) + "\n")
    print(f"wrote {path}", file=sys.stderr)
    print_table(out)


def print_table(folder: Path) -> None:
    """One row per task (its plan from the first JSON), one correctness column per JSON:
    the interpreter's first, then each device's."""
    files = sorted(folder.glob("coverage-*.json"), key=lambda f: (f.stem != "coverage-interpreter",
                                                                  f.stem))
    runs = [(f.stem.removeprefix("coverage-").replace("-", " "),
             {r["task"]: r for r in json.loads(f.read_text())["rows"]}) for f in files]
    if not runs:
        raise SystemExit(f"no coverage-*.json in {folder}")
    header = " | ".join(f"correct ({label})" for label, _ in runs)
    print(f"| task | plan: fusion groups (family(nodes)) | library calls | {header} |")
    print("| --- | --- | --- |" + " --- |" * len(runs))
    tasks = sorted({t for _, rows in runs for t in rows})
    for name in tasks:
        first = next(rows[name] for _, rows in runs if name in rows)
        cells = []
        for _, rows in runs:
            r = rows.get(name)
            cells.append("not run" if r is None else "not covered" if not r["covered"] else
                         ", ".join(f"{d}: {'yes' if v['correct'] else 'NO'}"
                                   for d, v in r["results"].items()))
        print(f"| `{name}` | {'; '.join(first['groups'])} | "
              f"{', '.join(first['library_calls']) or '-'} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
