"""`kzoo zoo ...`: inspect, check and move kernel-zoo entries from the command line.

    kzoo zoo list                      every version of every op
    kzoo zoo show OP [--version V]     one entry's manifest, readable
    kzoo zoo diff OP V1 V2             what changed between two versions
    kzoo zoo verify [OP] [--version V] sha256 of every file, then correctness on this device
    kzoo zoo export OP --out FILE      one version as a single JSON bundle (kernel_zoo.bundle);
                                       --out - writes it to stdout
    kzoo zoo import FILE               a bundle into the user zoo, hashes checked first; FILE -
                                       reads it from stdin
    kzoo zoo migrate                   schema-1 and -2 entries of one zoo folder to schema 3
                                       (compressed blobs)

Every command takes `--json` (the result as JSON on stdout) and `--zoo DIR` (that zoo folder only,
instead of the user zoo layered over the shipped one; for import and migrate, the zoo to change).

Exit codes: 0 success; 1 a file whose sha256 does not match, a kernel found wrong on this device,
or an import refused because that version exists with other content; 2 a usage error (unknown op
or version, no such zoo folder, a file that is not a bundle). Errors are one line on stderr; with
--json, kzoo's main() also prints them as {"error", "exit_code", "command"} on stdout.

`agent/cli.py` calls `add_zoo_parser(subparsers)` while building its parser and hands
`args.command == "zoo"` to `run_zoo(args)`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from agent import zoo_task
from agent.argtypes import positive_float, positive_int
from agent.jsonout import say_error, write_json
from kernel_zoo import _home, bundle, store
from verifier.verdict import NEEDS_A_GPU, needs_a_gpu

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
# configs last: the one column whose width varies by entry, so it never pads the others out
_COLUMNS = ("op", "version", "layer", "created", "configs")
_VERDICT_SUMMARY = (
    "accepted", "stage", "mode", "dtype", "ms", "speedup_vs_eager", "speedup_vs_compile",
    "roofline_fraction",
)


# ---------------------------------------------------------------------------------------------
# parser


def add_zoo_parser(subparsers: Any) -> None:
    """Add the `zoo` command and its subcommands to the main parser's subparsers."""
    zoo = subparsers.add_parser(
        "zoo",
        help="inspect, verify, export, import and migrate kernel-zoo entries",
        description="Work with the kernel zoo: the user zoo ($KZOO_HOME/zoo) layered over the "
        "shipped one. Exit 0 on success, 1 on a hash or correctness failure, 2 on a usage error.",
    )
    commands = zoo.add_subparsers(dest="zoo_command", metavar="COMMAND", required=True)

    def command(name: str, help_text: str, description: str, zoo_help: str) -> Any:
        parser = commands.add_parser(name, help=help_text, description=description)
        parser.add_argument("--json", action="store_true",
                            help="print the result, or the error that ended the command, as JSON")
        parser.add_argument("--zoo", type=Path, metavar="DIR", help=zoo_help)
        return parser

    only = "use only this zoo folder (layer 'custom') instead of the user and shipped zoos"
    command(
        "list", "list every version of every op",
        "List zoo entries: the user zoo ($KZOO_HOME/zoo), then the shipped zoo.", only,
    )
    show = command(
        "show", "show one entry's manifest",
        "Show the newest version of OP (or --version): its configs, params, verdicts with "
        "timings and speedups, environment and file hashes.", only,
    )
    show.add_argument("op", metavar="OP")
    show.add_argument("--version", metavar="V", help="this version instead of the newest")
    diff = command(
        "diff", "compare two versions of an op",
        "Show what differs between versions V1 and V2 of OP: configs added or removed, and for "
        "the others params, verdict, environment, task and file hashes.", only,
    )
    diff.add_argument("op", metavar="OP")
    diff.add_argument("old", metavar="V1")
    diff.add_argument("new", metavar="V2")
    verify = command(
        "verify", "check hashes, then re-run correctness on this device",
        "For every entry (or OP's): check every file against its sha256, then run each config's "
        "kernel against its task (tasks/<name>.py) with the verifier on this device: the GPU, "
        "or Triton's interpreter at the task's small CPU shapes. Exit 1 names each failure.",
        only,
    )
    verify.add_argument("op", metavar="OP", nargs="?", help="only this op's entries")
    verify.add_argument("--version", metavar="V", help="only this version (needs OP)")
    verify.add_argument("--newest", action="store_true",
                        help="only each op's newest version in each zoo layer: what "
                        "kernel_zoo.ops serves (older versions were checked when promoted)")
    verify.add_argument("--dtype", metavar="D", choices=("float32", "bfloat16", "float16"),
                        help="only the configs of this dtype (float32, bfloat16 or float16); files "
                        "are all hashed")
    verify.add_argument("--bucket", metavar="B",
                        help="only the configs of this shape bucket (cols_le_1024, any, ...)")
    verify.add_argument(
        "--timeout", type=positive_float, default=600.0, metavar="SECONDS",
        help="limit per kernel check before its process is killed (default 600)",
    )
    verify.add_argument(
        "--workers", type=positive_int, default=1, metavar="N",
        help="check up to N kernels at once, each in its own process (default 1); the report "
        "keeps entry order, with a line as each check ends",
    )
    export = command(
        "export", "write one version as a single bundle file",
        "Write one version of OP (the newest unless --version) to FILE as a JSON bundle holding "
        "its manifest and sources; every file's sha256 is checked first.", only,
    )
    export.add_argument("op", metavar="OP")
    export.add_argument("--out", type=Path, metavar="FILE", required=True,
                        help="bundle to write; - writes it to stdout (the report goes to stderr; "
                        "not with --json)")
    export.add_argument("--version", metavar="V", help="this version instead of the newest")
    importing = command(
        "import", "add a bundle to a zoo",
        "Check every file of the bundle FILE against its sha256 and add the entry, under its own "
        "version, to the user zoo (or --zoo DIR). The same version with other content is "
        "refused (exit 1); the identical entry is a no-op.",
        "the zoo folder to add to (default $KZOO_HOME/zoo); created if missing",
    )
    importing.add_argument("file", type=Path, metavar="FILE",
                           help="bundle to add; - reads it from stdin")
    command(
        "migrate", "store a zoo's schema-1 and -2 entries as schema 3 (compressed blobs)",
        "Convert every schema-1 and schema-2 entry of one zoo folder, in place, to schema 3: "
        "each file is checked against its sha256, written once per op, xz-compressed, as "
        "<op>/blobs/<sha256>.py.xz (named by the source's sha256), the manifest is replaced by "
        "the same one with \"schema\": 3, and then a schema-1 entry's own copies are deleted; "
        "once every entry of an op is schema 3, its plain schema-2 blobs <sha256>.py are "
        "deleted, each once its compressed twin checks out. Only storage changes (configs, "
        "hashes, versions stay); an entry stays loadable throughout. A missing or modified file "
        "stops it (exit 1) with that entry untouched. Running it again finishes an interrupted "
        "run, and otherwise changes nothing.",
        "the zoo folder to convert (default $KZOO_HOME/zoo); the shipped zoo is "
        "kernel_zoo/entries",
    )


# ---------------------------------------------------------------------------------------------
# shared helpers


class _UsageError(Exception):
    """Flags that cannot go together (exit 2, one line on stderr)."""


def _zoo_dirs(args: argparse.Namespace) -> list[Path] | None:
    if args.zoo is None:
        return None
    zoo = args.zoo.expanduser()
    if not zoo.is_dir():
        raise store.ZooError(f"no such zoo folder: {zoo}")
    return [zoo]


def _searched(args: argparse.Namespace) -> str:
    if args.zoo is not None:
        return str(args.zoo.expanduser().resolve())
    return f"{_home.user_zoo()} or {_home.SHIPPED_ZOO}"


def _layer(args: argparse.Namespace, entry: store.Entry) -> str:
    # an explicit folder is always reported as "custom", even the user or shipped one
    return "custom" if args.zoo is not None else entry.layer


def _entry_summary(args: argparse.Namespace, entry: store.Entry) -> dict[str, Any]:
    return {
        "op": entry.op,
        "version": entry.version,
        "layer": _layer(args, entry),
        "zoo": str(entry.zoo),
        "path": str(entry.path),
    }


def _label(config: dict[str, Any]) -> str:
    return f"{config['arch']}/{config['dtype']}/{config['shape_bucket']}"


def _shared_labels(configs: list[dict[str, Any]]) -> set[str]:
    """The labels two GPU models' configs share (a bucket tuned on both)."""
    plain = [_label(config) for config in configs]
    return {label for label in plain if plain.count(label) > 1}


def _labels(configs: list[dict[str, Any]], shared: set[str] | None = None
            ) -> dict[str, dict[str, Any]]:
    """Each config by its label, the GPU model appended ("@NVIDIA H200") where the label is in
    `shared` (default: `_shared_labels(configs)`)."""
    shared = _shared_labels(configs) if shared is None else shared
    return {_label(config) + (f" @{config['device']}" if _label(config) in shared else ""): config
            for config in configs}


def _print_json(payload: Any) -> None:
    write_json("-", payload)  # noted as written: an error after it adds no error object


def _number(value: Any, spec: str) -> str:
    return format(value, spec) if isinstance(value, (int, float)) else "-"


def _shape_label(shape: Any) -> str:
    if isinstance(shape, dict):
        return " ".join(f"{key}={value}" for key, value in shape.items())
    return str(shape)


# ---------------------------------------------------------------------------------------------
# list


def _format_configs(configs: list[dict[str, Any]]) -> str:
    labels = []
    for config in configs:
        label = f"{config['arch']}/{config['dtype']}"
        if config["shape_bucket"] != store.ANY_SHAPE:
            label += f"/{config['shape_bucket']}"
        if label not in labels:  # a bucket tuned on two GPU models is one bucket here
            labels.append(label)
    return " ".join(labels)


def _table(entries: list[dict[str, Any]]) -> str:
    rows = [
        [
            entry["op"],
            entry["version"],
            entry["layer"],
            entry["created"],
            _format_configs(entry["configs"]),
        ]
        for entry in entries
    ]
    widths = [
        max(len(str(cell)) for cell in column) for column in zip(_COLUMNS, *rows, strict=True)
    ]
    lines = [
        "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [list(_COLUMNS), *rows]
    ]
    return "\n".join(lines)


def _list(args: argparse.Namespace) -> int:
    zoo_dirs = _zoo_dirs(args)
    entries = store.list_entries(zoo_dirs)
    if zoo_dirs is not None:
        entries = [{**entry, "layer": "custom"} for entry in entries]
    if args.json:
        _print_json(entries)
    elif not entries:
        print(f"no zoo entries in {_searched(args)}")
    else:
        print(_table(entries))
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# show


def _verdict_lines(verdict: dict[str, Any]) -> list[str]:
    status = "accepted" if verdict.get("accepted") else "NOT accepted"
    where = ", ".join(str(verdict[key]) for key in ("mode", "dtype") if verdict.get(key))
    head = f"verdict      {status}" + (f" ({where})" if where else "")
    shapes = verdict.get("shapes") or []
    if isinstance(verdict.get("ms"), (int, float)):
        head += f": {verdict['ms']:.4f} ms over {len(shapes)} shape(s)"
    parts = []
    for key, name in (("speedup_vs_eager", "eager"), ("speedup_vs_compile", "torch.compile")):
        if isinstance(verdict.get(key), (int, float)):
            parts.append(f"{verdict[key]:.2f}x {name}")
    if isinstance(verdict.get("roofline_fraction"), (int, float)):
        copy = verdict.get("copy_gbps")
        of = f" ({copy:.0f} GB/s)" if isinstance(copy, (int, float)) else ""
        parts.append(f"{verdict['roofline_fraction']:.0%} of copy bandwidth{of}")
    if parts:
        head += ", " + ", ".join(parts)
    lines = [head]
    for shape in shapes if isinstance(shapes, list) else []:
        if not isinstance(shape, dict):
            continue
        line = f"  {_shape_label(shape.get('shape'))}: "
        line += "correct" if shape.get("correct") else "WRONG"
        if isinstance(shape.get("ms"), (int, float)):
            line += (
                f", {shape['ms']:.4f} ms (eager {_number(shape.get('eager_ms'), '.4f')}, "
                f"compile {_number(shape.get('compile_ms'), '.4f')}), "
                f"{_number(shape.get('gbps'), '.0f')} GB/s"
            )
        lines.append(line)
    return lines


def _show_text(args: argparse.Namespace, entry: store.Entry) -> str:
    manifest = entry.manifest
    lines = [
        f"{entry.op} {entry.version} ({_layer(args, entry)}) {entry.path}",
        f"created      {manifest['created']}",
        "files",
    ]
    width = max(len(name) for name in manifest["files"])
    for name, digest in manifest["files"].items():
        lines.append(f"  {name.ljust(width)}  sha256 {digest}")
    for config in manifest["configs"]:
        # JSON spelling of values (true, not True): what the manifest holds
        params = " ".join(f"{key}={json.dumps(value)}" for key, value in config["params"].items())
        environment = " ".join(
            f"{key}={value}" for key, value in config["environment"].items()
        )
        lines += [
            f"config {_label(config)} -> {config['file']}",
            f"  template     {config['template']}",
            f"  params       {params or '-'}",
            f"  task         {config['task']['name']} (sha256 {config['task']['sha256']})",
            f"  device       {config['device']}",
        ]
        lines += ["  " + line for line in _verdict_lines(config["verdict"])]
        lines.append(f"  environment  {environment}")
    return "\n".join(lines)


def _show(args: argparse.Namespace) -> int:
    entry = store.find_entry(args.op, args.version, _zoo_dirs(args))
    if args.json:
        _print_json({**_entry_summary(args, entry), "manifest": entry.manifest})
    else:
        print(_show_text(args, entry))
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# diff

_MISSING = object()


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested dicts to {"a.b": leaf}; a verdict's per-shape list is keyed by its shape, so two
    versions' rows for the same shape line up even if their order differs."""
    if isinstance(value, dict) and value:
        items = [(str(key), item) for key, item in value.items()]
        joiner = "."
    elif (
        isinstance(value, list)
        and value
        and all(isinstance(item, dict) and isinstance(item.get("shape"), dict) for item in value)
    ):
        items = [
            (
                f"[{_shape_label(item['shape'])}]",
                {key: field for key, field in item.items() if key != "shape"},
            )
            for item in value
        ]
        joiner = ""
    else:
        return {prefix: value}
    flat: dict[str, Any] = {}
    for key, item in items:
        flat.update(_flatten(item, f"{prefix}{joiner}{key}" if prefix else key))
    return flat


def _changes(old: Any, new: Any) -> dict[str, dict[str, Any]]:
    old_flat, new_flat = _flatten(old), _flatten(new)
    changes = {}
    for key in list(old_flat) + [key for key in new_flat if key not in old_flat]:
        before, after = old_flat.get(key, _MISSING), new_flat.get(key, _MISSING)
        if before != after:
            changes[key] = {
                "old": None if before is _MISSING else before,
                "new": None if after is _MISSING else after,
            }
    return changes


def _config_diff(
    old: dict[str, Any], new: dict[str, Any], old_files: dict[str, str], new_files: dict[str, str]
) -> dict[str, Any]:
    diff: dict[str, Any] = {}
    for field in ("template", "device"):
        if old[field] != new[field]:
            diff[field] = {"old": old[field], "new": new[field]}
    for field in ("params", "task", "verdict", "environment"):
        changes = _changes(old[field], new[field])
        if changes:
            diff[field] = changes
    old_file = {"name": old["file"], "sha256": old_files[old["file"]]}
    new_file = {"name": new["file"], "sha256": new_files[new["file"]]}
    if old_file != new_file:
        diff["file"] = {"old": old_file, "new": new_file}
    return diff


def diff_entries(old: store.Entry, new: store.Entry) -> dict[str, Any]:
    """What differs between two entries of one op, as data (the `kzoo zoo diff --json` body)."""
    old_manifest, new_manifest = old.manifest, new.manifest
    # configs matched by label, and by GPU model too where either entry holds two models'
    # configs of a label (elsewhere a model's config replaced by another's is a change)
    shared = _shared_labels(old_manifest["configs"]) | _shared_labels(new_manifest["configs"])
    old_configs = _labels(old_manifest["configs"], shared)
    new_configs = _labels(new_manifest["configs"], shared)
    changed, unchanged = {}, []
    for label in old_configs.keys() & new_configs.keys():
        diff = _config_diff(
            old_configs[label], new_configs[label], old_manifest["files"], new_manifest["files"]
        )
        if diff:
            changed[label] = diff
        else:
            unchanged.append(label)
    old_files, new_files = old_manifest["files"], new_manifest["files"]
    return {
        "configs": {
            "added": sorted(new_configs.keys() - old_configs.keys()),
            "removed": sorted(old_configs.keys() - new_configs.keys()),
            "changed": dict(sorted(changed.items())),
            "unchanged": sorted(unchanged),
        },
        "files": {
            "added": {n: new_files[n] for n in sorted(new_files.keys() - old_files.keys())},
            "removed": {n: old_files[n] for n in sorted(old_files.keys() - new_files.keys())},
            "changed": {
                n: {"old": old_files[n], "new": new_files[n]}
                for n in sorted(old_files.keys() & new_files.keys())
                if old_files[n] != new_files[n]
            },
        },
    }


def _diff_text(args: argparse.Namespace, old: store.Entry, new: store.Entry, diff: dict) -> str:
    lines = [
        f"{old.op} {old.version} ({_layer(args, old)}) -> {new.version} ({_layer(args, new)})"
    ]
    files = diff["files"]
    if any(files.values()):
        lines.append("files")
        lines += [f"  + {name}  {sha}" for name, sha in files["added"].items()]
        lines += [f"  - {name}  {sha}" for name, sha in files["removed"].items()]
        lines += [
            f"  ~ {name}  {change['old']} -> {change['new']}"
            for name, change in files["changed"].items()
        ]
    configs = diff["configs"]
    lines += [f"config {label}: added" for label in configs["added"]]
    lines += [f"config {label}: removed" for label in configs["removed"]]
    for label, changes in configs["changed"].items():
        lines.append(f"config {label}: changed")
        for field, change in changes.items():
            if field == "file":
                old_file, new_file = change["old"], change["new"]
                lines.append(
                    f"  file: {old_file['name']} {old_file['sha256'][:12]} -> "
                    f"{new_file['name']} {new_file['sha256'][:12]}"
                )
            elif field in ("template", "device"):
                lines.append(f"  {field}: {change['old']} -> {change['new']}")
            else:
                for key, values in change.items():
                    lines.append(f"  {field}.{key}: {values['old']} -> {values['new']}")
    lines += [f"config {label}: unchanged" for label in configs["unchanged"]]
    return "\n".join(lines)


def _diff(args: argparse.Namespace) -> int:
    zoo_dirs = _zoo_dirs(args)
    old = store.find_entry(args.op, args.old, zoo_dirs)
    new = store.find_entry(args.op, args.new, zoo_dirs)
    diff = diff_entries(old, new)
    if args.json:
        _print_json(
            {"op": args.op, "old": _entry_summary(args, old), "new": _entry_summary(args, new),
             **diff}
        )
    else:
        print(_diff_text(args, old, new, diff))
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# verify


class _Verifier:
    """Runs each distinct (task, kernel source, dtype) once per command: a file carried
    unchanged into later versions is byte-identical (its sha256 says so), so its verdict is too."""

    def __init__(self, timeout_s: float) -> None:
        # the verifier pulls in torch; only this command needs it
        from verifier.worker import detect_mode

        self.mode = detect_mode()
        self.timeout_s = timeout_s
        self.tasks_dir = zoo_task.tasks_dir()
        self.cache_dir = _home.kzoo_home() / "candidates"
        self._done: dict[tuple[str, str, str], tuple[dict[str, Any], str]] = {}
        # what _resolve found for a (task, dtype, kernel bytes): with --workers, run_ahead and
        # then check ask it for the same config, and each read would open the task file again
        self._resolved: dict[tuple[str, str, str, str], tuple] = {}

    def _resolve(
        self, config: dict[str, Any], source: bytes
    ) -> tuple[dict[str, Any], Any, str | None, tuple[str, str, str] | None]:
        """The config's task, its source text and the key its verdict is kept under; or, where
        the task or the source cannot be read, the error result (and None for the rest). Asked
        again for the same task (name and recorded sha256), dtype and bytes, the same answer (the
        result a fresh dict)."""
        digest = store.sha256_bytes(source)
        seen = (config["task"]["name"], config["task"]["sha256"], config["dtype"], digest)
        if seen not in self._resolved:
            self._resolved[seen] = self._read(config, source, digest)
        result, *rest = self._resolved[seen]
        return (dict(result), *rest)

    def _read(
        self, config: dict[str, Any], source: bytes, digest: str
    ) -> tuple[dict[str, Any], Any, str | None, tuple[str, str, str] | None]:
        result: dict[str, Any] = {"status": "error", "task_path": None, "task_warning": None}
        try:
            task = zoo_task.config_task(config, self.tasks_dir)
        except zoo_task.TaskFileError as err:
            path = None if err.path is None else str(err.path)
            return {**result, "task_path": path, "reason": str(err)}, None, None, None
        result.update(task_path=str(task.path), task_warning=task.warning)
        try:
            source_text = source.decode("utf-8")
        except UnicodeDecodeError as err:
            return ({**result, "reason": f"the kernel file is not UTF-8 text: {err}"}, task, None,
                    None)
        return result, task, source_text, (task.sha256, digest, config["dtype"])

    def _start(self, task: Any, source_text: str, dtype: str) -> Any:
        from verifier.worker import VerifyProcess, VerifyRequest

        request = VerifyRequest(str(task.path), task.source, source_text, dtype, time=False)
        return VerifyProcess(request, self.mode, str(self.cache_dir), self.timeout_s)

    def run_ahead(
        self, checks: list[tuple[str, dict[str, Any], bytes]], workers: int, report: TextIO
    ) -> None:
        """Verify the distinct kernels of `checks` (label, config, source), up to `workers` at
        once, each in its own process, printing a line as each ends; `check` then answers them
        from what was kept. Those whose task or source cannot be read are left to `check`. On
        an interruption the processes still running are killed."""
        import time
        from multiprocessing.connection import wait

        todo: dict[tuple[str, str, str], tuple[str, Any, str, str]] = {}
        for label, config, source in checks:
            _, task, source_text, key = self._resolve(config, source)
            if key is not None and key not in self._done and key not in todo:
                todo[key] = (label, task, source_text, config["dtype"])
        if not todo:
            return
        print(f"  running {len(todo)} distinct kernel(s), {workers} at a time", file=report,
              flush=True)
        waiting, running, ended = list(todo), {}, 0
        try:
            while waiting or running:
                while waiting and len(running) < workers:
                    key = waiting.pop(0)
                    running[key] = self._start(*todo[key][1:])
                soonest = min(proc.deadline for proc in running.values())
                ready = wait([proc.conn for proc in running.values()],
                             timeout=max(0.0, soonest - time.monotonic()))
                for key, proc in list(running.items()):
                    if proc.conn in ready or time.monotonic() >= proc.deadline:
                        verdict = running.pop(key).verdict()  # answered, died or out of time
                        self._done[key] = (verdict, todo[key][0])
                        ended += 1
                        status = ("correct" if verdict.get("accepted") else
                                  "skipped (needs a GPU)" if needs_a_gpu(verdict) else "WRONG")
                        print(f"  [{ended}/{len(todo)}] {todo[key][0]}: {status}", file=report,
                              flush=True)
        finally:
            for proc in running.values():
                proc.close()

    def check(
        self, label: str, config: dict[str, Any], source: bytes, report: TextIO
    ) -> dict[str, Any]:
        """One config's result: status "correct", "wrong", "error" or "skipped" (a CUDA C++ kernel
        with no GPU to run it on), with what was found."""
        result, task, source_text, key = self._resolve(config, source)
        if task is not None and task.warning:
            print(f"    warning: {task.warning}", file=report, flush=True)
        if key is None:
            return result
        if key in self._done:
            verdict, first = self._done[key]
            if first != label:
                result["same_as"] = first
        else:
            verdict = self._start(task, source_text, config["dtype"]).verdict()
            self._done[key] = (verdict, label)
        if needs_a_gpu(verdict):  # never run, so not found wrong
            return {**result, "status": "skipped", "reason": NEEDS_A_GPU, "verdict": verdict}
        status = "correct" if verdict.get("accepted") else "wrong"
        return {**result, "status": status, "verdict": verdict}


def _verify_entry(
    args: argparse.Namespace, entry: store.Entry, checker: _Verifier, report: TextIO
) -> tuple[dict[str, Any], list[str]]:
    failures: list[str] = []
    name = f"{entry.op} {entry.version} ({_layer(args, entry)})"
    print(f"{name} {entry.path}", file=report, flush=True)
    checks = store.check_files(entry.path, entry.manifest)
    intact = {check["name"] for check in checks if check["ok"]}
    for check in checks:
        if check["ok"]:
            print(f"  file {check['name']}: sha256 ok", file=report, flush=True)
            continue
        if check["actual"] is None:
            # "missing", "cannot be read (...)", or why a compressed blob is not one
            error = check["error"].removeprefix("is ")
            problem = f"{check['path']}: {error} (manifest sha256 {check['sha256']})"
        else:
            problem = (
                f"{check['path']}: sha256 {check['actual']} does not match the manifest's "
                f"{check['sha256']}"
            )
        print(f"  file {check['name']}: FAILED: {problem}", file=report, flush=True)
        failures.append(f"{name}: {problem}")
    selected = {label: config for label, config in _labels(entry.manifest["configs"]).items()
                if _selected(args, config)}
    sources: dict[str, bytes | store.ZooIntegrityError] = {}
    for label, config in selected.items():
        if config["file"] in intact:
            try:
                # re-read and re-hash: what runs is exactly what was checked
                sources[label] = store.read_entry_file(entry.path, entry.manifest, config["file"])
            except store.ZooIntegrityError as err:
                sources[label] = err
    if getattr(args, "workers", 1) > 1:
        checker.run_ahead([(f"{name} {label}", selected[label], source)
                           for label, source in sources.items() if isinstance(source, bytes)],
                          args.workers, report)
    configs = []
    for label, config in selected.items():
        where = f"{name} {label}"
        if config["file"] not in intact:
            result: dict[str, Any] = {
                "status": "skipped", "reason": f"its file {config['file']} failed the hash check"
            }
            print(f"  {label}: not run ({result['reason']})", file=report, flush=True)
        else:
            source = sources[label]
            if isinstance(source, store.ZooIntegrityError):
                result = {"status": "error", "reason": str(source)}
            else:
                result = checker.check(where, config, source, report)
            print(f"  {label}: {_config_status(result, checker.mode)}", file=report, flush=True)
            if result["status"] not in ("correct", "skipped"):
                status = _config_status(result, checker.mode)
                path = store.entry_file_path(entry.path, entry.manifest, config["file"])
                failures.append(f"{where} ({path}): {status}")
        configs.append({"arch": config["arch"], "dtype": config["dtype"],
                        "shape_bucket": config["shape_bucket"], "file": config["file"], **result})
    ok = not failures
    return {**_entry_summary(args, entry), "ok": ok, "files": checks, "configs": configs}, failures


def _selected(args: argparse.Namespace, config: dict[str, Any]) -> bool:
    """Whether --dtype and --bucket (each optional) let `config` be run."""
    return (getattr(args, "dtype", None) in (None, config["dtype"])
            and getattr(args, "bucket", None) in (None, config["shape_bucket"]))


def _config_status(result: dict[str, Any], mode: str) -> str:
    status = result["status"]
    if status == "error":
        return f"ERROR: {result['reason']}"
    if status == "skipped":
        return f"not run ({result['reason']})"
    verdict = result["verdict"]
    if status == "correct":
        shapes = len(verdict.get("shapes") or [])
        same = f"; same source and task as {result['same_as']}" if result.get("same_as") else ""
        return f"correct ({mode}, {shapes} shape(s){same})"
    reasons = "; ".join(verdict.get("reasons") or []) or "no reason given"
    return f"WRONG at {verdict.get('stage')}: {reasons}"


def _newest_only(entries: list) -> list:
    """Of each op, per zoo layer, the newest version (broken manifests kept: they are reported)."""
    newest: dict[tuple, Any] = {}
    for entry in entries:
        if isinstance(entry, store.ZooError):
            continue
        key = (entry.op, entry.zoo)
        held = newest.get(key)
        if held is None or store.parse_version(entry.version) > store.parse_version(held.version):
            newest[key] = entry
    return [e for e in entries if isinstance(e, store.ZooError) or newest[(e.op, e.zoo)] is e]


def _verify(args: argparse.Namespace) -> int:
    zoo_dirs = _zoo_dirs(args)
    if args.version is not None and args.op is None:
        raise store.ZooError("--version needs OP")
    if args.version is not None and args.newest:
        raise store.ZooError("--version and --newest name different entries: give one")
    report = sys.stderr if args.json else sys.stdout
    entries = list(store.iter_entries(zoo_dirs, op=args.op, version=args.version))
    if args.newest:
        entries = _newest_only(entries)
    if not entries and args.op is not None:
        # raises the usage error that names the ops and versions there are
        store.find_entry(args.op, args.version, zoo_dirs)
    if (args.dtype or args.bucket) and not any(
            _selected(args, config) for entry in entries if not isinstance(entry, store.ZooError)
            for config in entry.manifest["configs"]):
        there = sorted({f"{c['dtype']}/{c['shape_bucket']}" for entry in entries
                        if not isinstance(entry, store.ZooError)
                        for c in entry.manifest["configs"]})
        raise store.ZooError(
            "no config matches "
            + " ".join(f"--{flag} {value}" for flag, value in (("dtype", args.dtype),
                                                               ("bucket", args.bucket)) if value)
            + "; "
            f"these entries hold dtype/bucket {', '.join(there) or 'nothing'}")
    if not entries:
        if args.json:
            _print_json({"mode": None, "ok": True, "entries": []})
        else:
            print(f"no zoo entries in {_searched(args)}")
        return EXIT_OK
    checker = _Verifier(args.timeout)
    print(f"checking on this device: {checker.mode}", file=report, flush=True)
    results, failures = [], []
    for entry in entries:
        if isinstance(entry, store.ZooError):
            print(f"FAILED: {entry}", file=report, flush=True)
            results.append({"ok": False, "error": str(entry)})
            failures.append(str(entry))
            continue
        result, entry_failures = _verify_entry(args, entry, checker, report)
        results.append(result)
        failures += entry_failures
    if args.json:
        _print_json({"mode": checker.mode, "ok": not failures, "entries": results})
    n_configs = sum(len(result.get("configs", [])) for result in results)
    if failures:
        print(f"kzoo: {len(failures)} failure(s):", file=sys.stderr)
        for failure in failures:
            print(f"  {failure}", file=sys.stderr)
        return EXIT_FAILED
    skipped = sum(1 for result in results for config in result.get("configs", [])
                  if config.get("status") == "skipped" and config.get("reason") == NEEDS_A_GPU)
    kernels = ("every kernel correct" if not skipped else
               f"every kernel run correct; {skipped} not run (CUDA C++, which needs a GPU)")
    print(
        f"all good: {len(results)} entr{'y' if len(results) == 1 else 'ies'}, {n_configs} "
        f"config(s), every file intact and {kernels} ({checker.mode})",
        file=report,
    )
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# export, import


STDIO = "-"  # as a file argument: stdout for export's --out, stdin for import's FILE


def _export(args: argparse.Namespace) -> int:
    to_stdout = str(args.out) == STDIO
    if to_stdout and args.json:
        raise _UsageError("zoo export: --out - writes the bundle to stdout, where --json would "
                          "print the summary too; give --out a file, or leave out --json")
    entry = store.find_entry(args.op, args.version, _zoo_dirs(args))
    if to_stdout:
        summary = _export_to_stdout(entry)
    else:
        summary = bundle.export_entry(entry, args.out)
    if args.json:
        _print_json({**_entry_summary(args, entry), **summary})
    else:
        print(
            f"exported {entry.op} {entry.version} ({_layer(args, entry)}) -> "
            f"{'stdout' if to_stdout else summary['out']} "
            f"({len(summary['files'])} file(s), sha256 checked)",
            file=sys.stderr if to_stdout else sys.stdout,  # stdout holds the bundle
        )
    return EXIT_OK


def _export_to_stdout(entry: store.Entry) -> dict[str, Any]:
    """The bundle's bytes on stdout: written whole by bundle.export_entry to a scratch file
    first, so a failed hash check leaves stdout empty rather than half a bundle."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="kzoo-export-") as folder:
        scratch = Path(folder) / "bundle.json"
        summary = bundle.export_entry(entry, scratch)
        data = scratch.read_bytes()
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return {**summary, "out": STDIO}


def _import_from_stdin(zoo: Path) -> dict[str, str]:
    """import_bundle on the bytes piped in, its errors naming <stdin> rather than the scratch file
    they were read back from."""
    import tempfile

    if sys.stdin is None or sys.stdin.isatty():
        raise _UsageError("zoo import -: reads the bundle from stdin, which is a terminal; pipe "
                          "one in (kzoo zoo export OP --out - | kzoo zoo import -) or name a file")
    data = sys.stdin.buffer.read()
    with tempfile.TemporaryDirectory(prefix="kzoo-import-") as folder:
        scratch = Path(folder) / "bundle.json"
        scratch.write_bytes(data)
        try:
            return bundle.import_bundle(scratch, zoo)
        except store.ZooError as err:
            raise type(err)(str(err).replace(str(scratch), "<stdin>")) from None


def _import(args: argparse.Namespace) -> int:
    zoo = args.zoo.expanduser() if args.zoo is not None else _home.user_zoo()
    if str(args.file) == STDIO:
        result = _import_from_stdin(zoo)
    else:
        result = bundle.import_bundle(args.file, zoo)
    shadowed = _shadowed(zoo, result["op"], result["version"])
    if args.json:
        _print_json({**result, "zoo": str(zoo.resolve()), "shadows": shadowed})
        return EXIT_OK
    if result["status"] == "identical":
        print(f"{result['op']} {result['version']} is already at {result['path']}, identical")
    else:
        print(f"imported {result['op']} {result['version']} -> {result['path']}")
    for below in shadowed:
        print(f"note: for {', '.join(below['pairs'])}, dispatch now serves this "
              f"{result['version']} instead of the {below['layer']} zoo's newer "
              f"{result['op']} {below['version']} ({zoo} comes first)", file=sys.stderr)
    return EXIT_OK


def _shadowed(zoo: Path, op: str, version: str) -> list[dict[str, Any]]:
    """The newer versions of `op` in the layers under `zoo` that an import of `version` into it
    hides from dispatch, with the arch/dtype pairs it takes over: an older version imported into
    the user zoo is served before a newer shipped one (layers are consulted user first)."""
    try:
        layers = store.newest_entries(op)  # the default layers: user over shipped
    except store.ZooError:
        return []  # a broken entry there: `kzoo zoo list` names it; the import itself is done
    here = [e for e in layers if e.zoo == zoo.resolve()]
    if not here or here[0].version != version:
        return []  # not a default layer, or a newer version there serves anyway
    pairs = {(c["arch"], c["dtype"]) for c in here[0].manifest["configs"]}
    shadowed = []
    for entry in layers[layers.index(here[0]) + 1:]:
        if store.parse_version(entry.version) <= store.parse_version(version):
            continue
        hidden = sorted(pairs & {(c["arch"], c["dtype"]) for c in entry.manifest["configs"]})
        if hidden:
            shadowed.append({"layer": entry.layer, "version": entry.version,
                             "pairs": [f"{arch}/{dtype}" for arch, dtype in hidden]})
    return shadowed


# ---------------------------------------------------------------------------------------------
# migrate


def _migrate(args: argparse.Namespace) -> int:
    zoo = args.zoo.expanduser() if args.zoo is not None else _home.user_zoo()
    summary = store.migrate(zoo)
    if args.json:
        _print_json(summary)
    elif not summary["migrated"]:
        left = [f"{summary[key]} {what}" for key, what in (
            ("files_removed", "file(s)"), ("blobs_removed", "plain blob(s)")) if summary[key]]
        debris = (f" (removed {summary['debris_removed']} temp file(s) or folder(s) a killed "
                  "writer left)" if summary["debris_removed"] else "")
        print(f"nothing to migrate: all {summary['entries']} entries in {summary['zoo']} are "
              f"schema {store.SCHEMA}"
              + (f" (removed {' and '.join(left)} an interrupted migration left)" if left
                 else "") + debris)
    else:
        print(f"migrated {len(summary['migrated'])} of {summary['entries']} entries in "
              f"{summary['zoo']} to schema {store.SCHEMA}: wrote {summary['blobs_written']} "
              f"blob(s), removed {summary['files_removed']} kernel file(s) and "
              f"{summary['blobs_removed']} plain blob(s)"
              + (f" and {summary['debris_removed']} temp file(s) or folder(s) a killed writer "
                 "left" if summary["debris_removed"] else ""))
    return EXIT_OK


_COMMANDS = {
    "list": _list,
    "show": _show,
    "diff": _diff,
    "verify": _verify,
    "export": _export,
    "import": _import,
    "migrate": _migrate,
}


def run_zoo(args: argparse.Namespace) -> int:
    """Run a parsed `kzoo zoo ...` command and return its exit code; errors go to stderr as one
    line: 1 for a hash mismatch or a refused import, 2 for any other zoo or file error."""
    try:
        handler = _COMMANDS.get(args.zoo_command)
        if handler is None:
            raise store.ZooError(f"unknown zoo command: {args.zoo_command}")
        return handler(args)
    except _UsageError as err:
        say_error(str(err))
        return EXIT_USAGE
    except (store.ZooIntegrityError, store.ZooConflictError) as err:
        say_error(str(err))
        return EXIT_FAILED
    except store.ZooError as err:
        say_error(str(err))
        return EXIT_USAGE
    except BrokenPipeError:  # `kzoo zoo list | head`: the reader left, which is no error here
        raise
    except OSError as err:  # an unwritable --out or zoo folder, a full disk
        # name the file the user gave, not the scratch file beside it that failed first
        where = err.filename
        if args.zoo_command == "export":
            where = "stdout" if str(args.out) == STDIO else args.out
        what = err.strerror or str(err)
        say_error(f"cannot write {where}: {what}" if where else what)
        return EXIT_USAGE
