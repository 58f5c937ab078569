"""A sweep's report: report.md, a self-contained report.html (plots embedded) and PNG plots.

The report is built from the sweep's summary (`agent.sweep`) as a list of blocks (headings,
paragraphs, lists, tables, images) rendered twice, to Markdown and to HTML, so the two always
say the same. Plots use matplotlib's Agg backend; where nothing was timed (Triton's interpreter)
a plot is a panel saying so, still a real PNG.
"""

from __future__ import annotations

import base64
import datetime
import html
import os
import tempfile
from pathlib import Path
from typing import Any

PLOTS = {
    "speedup": ("speedup.png", "Speedup of each zoo kernel over eager PyTorch and torch.compile"),
    "roofline": ("roofline.png", "Every timed kernel and shape against the measured copy "
                                 "bandwidth"),
    "history": ("history.png", "Speedup over the best baseline across past sweeps"),
}
Block = tuple


def _write_atomically(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide the report from other readers
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _num(value: Any, spec: str = ".2f", suffix: str = "") -> str:
    return format(value, spec) + suffix if isinstance(value, (int, float)) else "-"


def _no_timings(summary: dict[str, Any]) -> str:
    if summary["mode"] == "interpreter":
        return "no timings in interpreter mode (correctness only)"
    return "no timed results in this sweep"


# ---------------------------------------------------------------------------------------------
# plots


def _figure():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt, *plt.subplots(figsize=(8, 4.5), dpi=100)


def _save(plt, fig, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path.with_suffix(".tmp.png"), format="png")
    plt.close(fig)
    os.replace(path.with_suffix(".tmp.png"), path)


def _panel(ax, title: str, message: str) -> None:
    ax.set_title(title)
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=12, transform=ax.transAxes)


def _timed_units(summary: dict[str, Any]) -> list[dict[str, Any]]:
    return [u for u in summary["units"]
            if u.get("verify") and isinstance((u["verify"].get("verdict") or {}).get("ms"),
                                              (int, float))]


def plot_speedup(summary: dict[str, Any], path: Path) -> None:
    plt, fig, ax = _figure()
    title = "Speedup per op: now (bars) and recorded in the manifest (markers)"
    timed = _timed_units(summary)
    units = [u for u in summary["units"]
             if u in timed or isinstance(u["recorded"].get("speedup_vs_eager"), (int, float))]
    if not units:
        _panel(ax, title, _no_timings(summary))
        _save(plt, fig, path)
        return
    xs = list(range(len(units)))
    width = 0.38
    for offset, (key, name, color) in zip(
        (-width / 2, width / 2),
        (("speedup_vs_eager", "vs eager", "tab:blue"),
         ("speedup_vs_compile", "vs torch.compile", "tab:orange")),
    ):
        now = [((u.get("verify") or {}).get("verdict") or {}).get(key) for u in units]
        if any(isinstance(v, (int, float)) for v in now):
            ax.bar([x + offset for x in xs], [v or 0.0 for v in now], width,
                   label=f"{name} (now)", color=color)
        recorded = [(x + offset, u["recorded"].get(key)) for x, u in zip(xs, units)
                    if isinstance(u["recorded"].get(key), (int, float))]
        if recorded:
            ax.scatter([p[0] for p in recorded], [p[1] for p in recorded], marker="D",
                       color=color, edgecolors="black", zorder=3, s=28,
                       label=f"{name} (recorded)")
    if not timed:
        ax.text(0.5, 0.95, _no_timings(summary) + ": recorded values only", ha="center",
                va="top", transform=ax.transAxes, fontsize=10, color="darkred")
    ax.axhline(1.0, color="gray", linewidth=1)
    threshold = summary["settings"]["regression_threshold"]
    ax.axhline(threshold, color="red", linestyle="--", linewidth=1,
               label=f"regression threshold {threshold:g}x")
    ax.set_xticks(xs)
    ax.set_xticklabels([u["id"] for u in units], rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("speedup (geometric mean over shapes)")
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="lower right")
    _save(plt, fig, path)


def plot_roofline(summary: dict[str, Any], path: Path) -> None:
    plt, fig, ax = _figure()
    copy = summary["ceilings"].get("copy_gbps")
    title = "Roofline: achieved GFLOP/s against the measured copy bandwidth"
    points = []
    for unit in _timed_units(summary):
        for row in unit["verify"]["verdict"].get("shapes") or []:
            ms, gbps, flops = row.get("ms"), row.get("gbps"), row.get("flops")
            if not all(isinstance(v, (int, float)) and v > 0 for v in (ms, gbps, flops)):
                continue
            moved = gbps * ms * 1e6  # GB/s x ms -> bytes
            points.append((unit["id"], flops / moved, flops / (ms * 1e-3) / 1e9))
    if not points or not isinstance(copy, (int, float)):
        _panel(ax, title, _no_timings(summary) if not _timed_units(summary)
               else "no FLOP counts (KZOO['flops']) for the timed kernels")
        _save(plt, fig, path)
        return
    low = min(p[1] for p in points) / 4
    high = max(p[1] for p in points) * 4
    ax.plot([low, high], [copy * low, copy * high], color="black",
            label=f"copy bandwidth {copy:.0f} GB/s (measured)")
    for label in sorted({p[0] for p in points}):
        mine = [p for p in points if p[0] == label]
        ax.scatter([p[1] for p in mine], [p[2] for p in mine], label=label, s=24, zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    from matplotlib.ticker import NullFormatter

    ax.xaxis.set_minor_formatter(NullFormatter())  # labels on every minor tick overlap
    ax.set_xlabel("arithmetic intensity (FLOP / byte moved)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title(title + "\n(one point per shape; compute ceiling not measured)", fontsize=10)
    ax.legend(fontsize=7)
    _save(plt, fig, path)


def _when(text: str | None) -> datetime.datetime | None:
    try:
        return datetime.datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


def plot_history(summary: dict[str, Any], history: list[dict[str, Any]], path: Path) -> None:
    plt, fig, ax = _figure()
    title = "Speedup over the best baseline across sweeps"
    series: dict[str, list[tuple[datetime.datetime, float]]] = {}
    for record in history:
        when, value = _when(record.get("date")), record.get("speedup_vs_best_baseline")
        if when is not None and isinstance(value, (int, float)):
            series.setdefault(record["unit"], []).append((when, value))
    if not series:
        _panel(ax, title, _no_timings(summary) if summary["mode"] == "interpreter"
               else "no timed sweeps in the history yet")
        _save(plt, fig, path)
        return
    for unit in sorted(series):
        points = sorted(series[unit])
        line, = ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=unit)
        recorded = [u for u in summary["units"] if u["id"] == unit]
        if recorded:
            when = _when(recorded[0]["recorded_environment"].get("date"))
            value = recorded[0]["recorded"].get("speedup_vs_best_baseline")
            if when is not None and isinstance(value, (int, float)):
                ax.scatter([when], [value], marker="D", facecolors="none",
                           edgecolors=line.get_color(), s=40, zorder=3)
    ax.axhline(1.0, color="gray", linewidth=1)
    ax.set_ylabel("speedup over the best baseline")
    ax.set_title(title + " (hollow: recorded at promotion)", fontsize=10)
    ax.legend(fontsize=8)
    fig.autofmt_xdate()
    _save(plt, fig, path)


# ---------------------------------------------------------------------------------------------
# content


def _check_cell(unit: dict[str, Any]) -> str:
    verify = unit.get("verify")
    if not verify:
        return "not run yet"
    status = verify["status"]
    if status == "correct":
        return "correct" + (" (new arch)" if unit.get("new_arch") else "")
    if status == "wrong":
        verdict = verify.get("verdict") or {}
        return f"WRONG at {verdict.get('stage')}"
    if status == "skipped":
        return f"skipped: {verify.get('reason')}"
    return status.upper() if status == "integrity" else f"error: {verify.get('reason')}"


def _speed_cell(unit: dict[str, Any], key: str) -> str:
    fresh = ((unit.get("verify") or {}).get("verdict") or {}).get(key)
    recorded = unit["recorded"].get(key)
    return f"{_num(fresh, '.2f', 'x')} ({_num(recorded, '.2f', 'x')})"


def _tune_cell(unit: dict[str, Any]) -> str:
    tune = unit.get("tune")
    if not tune:
        return "not run yet"
    if tune["status"] not in ("done", "partial"):
        return f"{tune['status']}: {tune.get('reason')}"
    text = f"{tune['trials_before']} -> {tune['trials']} trials"
    if tune["status"] == "partial":
        text += f" of {tune['target']} (stopped by the time budget)"
    for promoted in tune.get("promotions") or []:
        text += f", promoted {promoted['version']}"
    return text


def _env_cell(unit: dict[str, Any]) -> str:
    changes = (unit.get("verify") or {}).get("environment_changes") or {}
    return ", ".join(f"{k}: {v['recorded']} -> {v['now']}" for k, v in changes.items()) or "same"


def build_blocks(summary: dict[str, Any], plots: dict[str, str]) -> list[Block]:
    blocks: list[Block] = [
        ("h1", f"kzoo sweep: {summary['device']} ({summary['mode']}), {summary['created']}")
    ]
    units = summary["units"]
    verified = [u for u in units if u.get("verify")]
    skipped = sum(1 for u in verified if u["verify"]["status"] == "skipped")
    counts = (f"{len(units)} unit(s), {len(verified) - skipped} re-verified"
              + (f", {skipped} skipped (a kernel that needs a GPU)" if skipped else "")
              + f"; {len(summary['regressions'])} regression(s), "
              f"{len(summary['failures'])} failure(s), {len(summary['promotions'])} "
              f"promotion(s); exit code {summary['exit_code']}")
    status = {0: "Clean", 1: "FAILURES", 3: "REGRESSIONS"}.get(summary["exit_code"], "?")
    if status == "Clean" and not summary["complete"]:
        status = "Incomplete, clean so far"  # a unit not run yet is not a clean one
    blocks.append(("p", f"**{status}**: {counts}."))
    if not summary["complete"]:
        blocks.append(("p", f"Incomplete: {summary['incomplete_reason']}. Run the same command "
                            "again to finish; finished steps are not repeated."))
    if summary["mode"] == "interpreter":
        blocks.append(("p", "No GPU: kernels were re-verified in Triton's interpreter for "
                            "correctness only; timings are unavailable, so only the integrity "
                            "and correctness rules apply."))
    env = summary["environment"]
    blocks += [
        ("h2", "Environment"),
        ("table", ["field", "this sweep"],
         [[k, str(env.get(k))] for k in ("gpu", "arch", "driver", "cuda", "torch", "triton",
                                         "python", "date")]),
        ("p", "Measured copy bandwidth: "
              + _num(summary["ceilings"].get("copy_gbps"), ".0f", " GB/s")),
        ("h2", "Units"),
        ("p", "Speedups are geometric means over the task's shapes, measured now with the "
              "baselines in the same run; the manifest's recorded value in parentheses."),
        ("table",
         ["unit", "entry", "check", "vs eager", "vs torch.compile", "of copy BW",
          "environment vs recorded", "tune"],
         [[u["id"], f"{u['version']} ({u['layer']})", _check_cell(u),
           _speed_cell(u, "speedup_vs_eager"), _speed_cell(u, "speedup_vs_compile"),
           _num(((u.get("verify") or {}).get("verdict") or {}).get("roofline_fraction"),
                ".0%"),
           _env_cell(u), _tune_cell(u)] for u in summary["units"]]),
        ("h2", "Regressions"),
    ]
    items = []
    for r in summary["regressions"]:
        text = f"{r['unit']} ({r['version']}): [{r['kind']}] {r['message']}"
        for shape in r.get("shapes") or []:
            text += (f"; {shape['shape']}: {shape['now']:.2f}x now, {shape['recorded']:.2f}x "
                     "recorded")
        items.append(text)
    blocks.append(("ul", items) if items else ("p", "None."))
    blocks.append(("h2", "Failures"))
    failures = [f"{f.get('unit') or f.get('op') or 'sweep'}: {f['message']}"
                for f in summary["failures"]]
    blocks.append(("ul", failures) if failures else ("p", "None."))
    blocks.append(("h2", "Promotions"))
    promotions = []
    for p in summary["promotions"]:
        best = p.get("best") or {}
        promotions.append(
            f"{p['unit']}: {p['op']} {p['version']} at {p['path']} "
            f"({_num(best.get('speedup_vs_eager'), '.2f', 'x')} eager, "
            f"{_num(best.get('speedup_vs_compile'), '.2f', 'x')} torch.compile)")
    blocks.append(("ul", promotions) if promotions else ("p", "None."))
    blocks.append(("h2", "Plots"))
    for key, name in plots.items():
        blocks.append(("img", name, PLOTS[key][1]))
    s = summary["settings"]
    blocks += [
        ("h2", "Rule and settings"),
        ("p", f"A regression is a kernel file that fails its sha256 (integrity), a kernel the "
              f"verifier now rejects (wrong), a fresh speedup over eager or torch.compile below "
              f"{s['regression_threshold']:g}x (slower-than-baseline), or a fresh speedup over a "
              f"baseline below {s['regression_threshold']:g} of the one recorded in the manifest "
              f"(speedup-dropped). Promotion needs {s['min_improvement']:g}x the entry's fresh "
              "speedup over the best baseline."),
        ("table", ["setting", "value"], [[k, str(v)] for k, v in s.items()]),
    ]
    return blocks


# ---------------------------------------------------------------------------------------------
# rendering


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(blocks: list[Block]) -> str:
    out = []
    for block in blocks:
        kind = block[0]
        if kind == "h1":
            out.append(f"# {block[1]}")
        elif kind == "h2":
            out.append(f"## {block[1]}")
        elif kind == "p":
            out.append(block[1])
        elif kind == "ul":
            out.append("\n".join(f"- {item}" for item in block[1]))
        elif kind == "table":
            head, rows = block[1], block[2]
            lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
            lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
            out.append("\n".join(lines))
        elif kind == "img":
            out.append(f"![{block[2]}]({block[1]})")
    return "\n\n".join(out) + "\n"


def _inline(text: str) -> str:
    """Escape, then the one Markdown emphasis the blocks use: **bold**."""
    parts = html.escape(text).split("**")
    return "".join(f"<b>{p}</b>" if i % 2 else p for i, p in enumerate(parts))


def render_html(blocks: list[Block], folder: Path) -> str:
    title = next((b[1] for b in blocks if b[0] == "h1"), "kzoo sweep")
    body = []
    for block in blocks:
        kind = block[0]
        if kind in ("h1", "h2"):
            body.append(f"<{kind}>{html.escape(block[1])}</{kind}>")
        elif kind == "p":
            body.append(f"<p>{_inline(block[1])}</p>")
        elif kind == "ul":
            body.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in block[1]) + "</ul>")
        elif kind == "table":
            head = "".join(f"<th>{html.escape(h)}</th>" for h in block[1])
            rows = "".join(
                "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                for row in block[2])
            body.append(f"<table><tr>{head}</tr>{rows}</table>")
        elif kind == "img":
            data = base64.b64encode((folder / block[1]).read_bytes()).decode("ascii")
            body.append(f'<figure><img alt="{html.escape(block[2])}" '
                        f'src="data:image/png;base64,{data}"><figcaption>'
                        f"{html.escape(block[2])}</figcaption></figure>")
    style = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;font-size:0.9em}"
             "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}"
             "img{max-width:100%}")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
            f"{html.escape(title)}</title><style>{style}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def write_report(summary: dict[str, Any], history: list[dict[str, Any]],
                 folder: Path) -> dict[str, Any]:
    """Write the plots, report.md and report.html into `folder`; returns their file names.
    (summary.json is written by the caller, with these names in it.)"""
    folder.mkdir(parents=True, exist_ok=True)
    plot_speedup(summary, folder / PLOTS["speedup"][0])
    plot_roofline(summary, folder / PLOTS["roofline"][0])
    plot_history(summary, history, folder / PLOTS["history"][0])
    plots = {key: name for key, (name, _) in PLOTS.items()}
    blocks = build_blocks(summary, plots)
    _write_atomically(folder / "report.md", render_markdown(blocks).encode())
    _write_atomically(folder / "report.html", render_html(blocks, folder).encode())
    return {"report_md": "report.md", "report_html": "report.html",
            "summary": "summary.json", "plots": plots}
