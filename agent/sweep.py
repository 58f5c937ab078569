"""Nightly sweeps: re-check every zoo entry on this device and software, re-tune it, report.

A sweep is a plan of units, one per (op, arch, dtype, shape bucket) that dispatch would serve from
the zoo, and two steps per unit:

- **verify**: the entry's kernel file is checked against its sha256, then re-run by the verifier
  against `tasks/<task>.py` on a Ray verifier actor; on a GPU it is timed beside eager PyTorch and
  torch.compile measured in the same run (`refresh_baselines`), at the task's shapes its manifest
  recorded when the unit is one shape bucket's (`bucket_shapes`: dispatch sends that kernel no
  others, and its config was tuned and promoted on those alone). The result is compared with the
  verdict and environment its manifest recorded (`regressions_of`, `environment_changes`).
- **tune**: the unit's Optuna study (the one `kzoo optimize` uses) continues for `trials_per_op`
  more trials, its first trial being the entry's own params (warm start); on a GPU a winner whose
  re-timed speedup over the best baseline beats the entry's fresh one by `min_improvement` is
  promoted as a new version.

Every finished step is written to the state file (`<report>/sweep-state.json`, temp file + rename)
with the plan, so a sweep killed at any point and started again with the same `--report` skips what
is done; a tune step interrupted half-way resumes its study towards the trial count it recorded
before starting. The plan is fixed when the sweep starts: versions promoted during the sweep are
not swept again by it.

Regression rule (also in README.md), with threshold t (default 0.9):
- `integrity`: a kernel file no longer matches its manifest's sha256;
- `wrong`: the verifier now rejects the kernel (a wrong value, a crash, a timeout, a guard);
- `slower-than-baseline`: its fresh geometric-mean speedup over eager PyTorch, or over
  torch.compile, is below t (more than 1 - t slower than that baseline);
- `speedup-dropped`: a fresh speedup over a baseline divided by the one its manifest recorded is
  below t (the kernel lost ground against the baselines since it was verified), where both were
  timed the same way (a verdict's `timer`; a different timer is reported as an environment
  change, `timer`, since it moves the baselines' times at host-bound shapes by itself).
Timing rules apply only where both verdicts were timed (never in Triton's interpreter).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import fcntl
import json
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.jsonout import strict
from kernel_zoo import _home, store

STATE_FILE = "sweep-state.json"
LOCK_FILE = ".sweep.lock"
STATE_SCHEMA = 1
ENVIRONMENT_FIELDS = ("gpu", "driver", "cuda", "torch", "triton")
BASELINES = (("speedup_vs_eager", "eager"), ("speedup_vs_compile", "torch.compile"))
MIN_TUNE_SECONDS = 5.0
EXIT_CLEAN, EXIT_FAILED, EXIT_USAGE, EXIT_REGRESSED = 0, 1, 2, 3


class SweepInterrupted(Exception):
    """A sweep stopped by Ctrl-C: `result` is its summary and report as far as it got."""

    def __init__(self, result: SweepResult) -> None:
        super().__init__("interrupted")
        self.result = result


class SweepUsageError(Exception):
    """The sweep cannot start as asked (unknown op, a report folder of another sweep, ...)."""


@dataclass
class SweepOptions:
    ops: list[str] | None = None  # None: every op of the zoo
    time_budget: float | None = None
    trials_per_op: int = 8
    storage: str | None = None
    zoo: str | None = None  # that zoo folder only (and promote there); default: user over shipped
    address: str | None = None
    report: str | None = None
    history: str | None = None
    workers: int | None = None
    timeout_s: float = 600.0
    seed: int | None = None
    regression_threshold: float = 0.9
    min_improvement: float = 1.02
    fresh: bool = False
    quiet: bool = False
    local_gpus: int | None = None  # GPU resources to declare to a local Ray instance (tests)


@dataclass
class SweepResult:
    summary: dict[str, Any]
    report_dir: Path
    files: dict[str, str] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return int(self.summary["exit_code"])


# ---------------------------------------------------------------------------------------------
# the regression rule and environment comparison (pure functions over verdict data)


def _ptxas_release(environment: dict[str, Any]) -> str | None:
    """The release of the ptxas that assembled the kernels (None where the record predates
    GPU round 365, which began recording it); its path differs from machine to machine."""
    ptxas = environment.get("ptxas")
    return ptxas.get("version") if isinstance(ptxas, dict) else None


def environment_changes(recorded: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """{field: {"recorded", "now"}} for each of gpu, driver, cuda, torch, triton that differs,
    and ptxas (by release) where the current environment names one."""
    changes = {
        name: {"recorded": recorded.get(name), "now": current.get(name)}
        for name in ENVIRONMENT_FIELDS
        if recorded.get(name) != current.get(name)
    }
    now = _ptxas_release(current)
    if now is not None and _ptxas_release(recorded) != now:
        changes["ptxas"] = {"recorded": _ptxas_release(recorded), "now": now}
    return changes


def _timed(verdict: dict[str, Any] | None) -> bool:
    return bool(verdict) and isinstance(verdict.get("ms"), (int, float))


def _timer(verdict: dict[str, Any]) -> str:
    """How a verdict's times were taken: its `timer`, "default" for one from before it was kept
    (the verifier counted host time past the L2 flush until GPU round 184)."""
    return verdict.get("timer") or "default"


def timer_change(recorded: dict[str, Any], fresh: dict[str, Any]) -> dict[str, Any]:
    """{"timer": {"recorded", "now"}} where two timed verdicts were timed differently, else {}."""
    if not (_timed(recorded) and _timed(fresh)) or _timer(recorded) == _timer(fresh):
        return {}
    return {"timer": {"recorded": _timer(recorded), "now": _timer(fresh)}}


def _shape_key(shape: Any) -> str:
    return json.dumps(shape, sort_keys=True)


def bucket_shapes(unit: dict[str, Any], task_shapes) -> tuple[list | None, str | None]:
    """The task shapes (on a GPU) at which to re-verify a unit, and a note when it is not plain.

    A unit of the "any" bucket: None, the task's every shape. A shape bucket's kernel: the task
    shapes its manifest's verdict recorded, the shapes of that bucket. If the task no longer has
    any of them: None again (every shape), with a note saying so."""
    from kernel_zoo.buckets import ANY

    if unit["bucket"] == ANY:
        return None, None
    recorded = {_shape_key(row.get("shape")) for row in unit["recorded"].get("shapes") or []}
    mine = [shape for shape in task_shapes if _shape_key(shape) in recorded]
    if not mine:
        return None, (f"none of the shapes {unit['id']}'s manifest recorded is in the task now; "
                      "checked at every shape of the task")
    return mine, None


# A winner may be this much slower than the entry at one shape (the timer's run-to-run spread)
# and still replace it; more, and a better geometric mean does not promote it (GPU round 115: a
# bucket's new config 1.33x and 1.12x faster at two shapes was 0.69x at a third).
SHAPE_SLACK = 1.05


def unit_template(plan, unit: dict[str, Any]):
    """The template a unit's kernel is re-tuned with: the entry's own where the plan still offers
    it (a CUDA C++ alternative, gemm_cuda, stays CUDA and warm-starts from its params), else the
    plan's first."""
    wanted = unit.get("template")
    offered = (plan.template, *plan.alternatives)
    return plan.template_object(wanted if wanted in offered else None)


def shape_limits(fresh: dict[str, Any]) -> dict[str, float]:
    """Per shape (sorted JSON), the most ms a winner may take: the entry's fresh time x slack."""
    return {_shape_key(row.get("shape")): row["ms"] * SHAPE_SLACK
            for row in fresh.get("shapes") or [] if row.get("ms")}


def _shape_speedups(verdict: dict[str, Any], baseline_field: str) -> dict[str, float]:
    out = {}
    for row in verdict.get("shapes") or []:
        base, ms = row.get(baseline_field), row.get("ms")
        if isinstance(base, (int, float)) and isinstance(ms, (int, float)) and ms > 0:
            out[_shape_key(row.get("shape"))] = base / ms
    return out


def timing_regressions(
    recorded: dict[str, Any], fresh: dict[str, Any], threshold: float
) -> list[dict[str, Any]]:
    """The timing part of the rule: `slower-than-baseline` and `speedup-dropped` findings of a
    fresh verdict against the one a manifest recorded. Empty when the fresh one is not timed."""
    if not _timed(fresh):
        return []
    found = []
    for key, baseline in BASELINES:
        now = fresh.get(key)
        if not isinstance(now, (int, float)):
            continue
        if now < threshold:
            found.append({
                "kind": "slower-than-baseline", "baseline": baseline, "speedup": now,
                "threshold": threshold,
                "message": f"{now:.2f}x {baseline}: slower than {baseline} past the threshold "
                           f"{threshold:g}x",
            })
        before = recorded.get(key) if _timed(recorded) and not timer_change(recorded, fresh) \
            else None
        if isinstance(before, (int, float)) and before > 0 and now / before < threshold:
            field_name = "eager_ms" if baseline == "eager" else "compile_ms"
            old_shapes = _shape_speedups(recorded, field_name)
            shapes = [
                {"shape": json.loads(key_), "recorded": old_shapes[key_], "now": value,
                 "ratio": value / old_shapes[key_]}
                for key_, value in _shape_speedups(fresh, field_name).items()
                if key_ in old_shapes and value / old_shapes[key_] < threshold
            ]
            found.append({
                "kind": "speedup-dropped", "baseline": baseline, "recorded": before,
                "speedup": now, "ratio": now / before, "threshold": threshold, "shapes": shapes,
                "message": f"{now:.2f}x {baseline}, recorded {before:.2f}x: "
                           f"{now / before:.2f} of the recorded speedup (threshold {threshold:g})",
            })
    return found


def regressions_of(unit: dict[str, Any], verify: dict[str, Any] | None,
                   threshold: float) -> list[dict[str, Any]]:
    """Every regression a unit's verify step found (see the module docstring for the rule)."""
    if not verify:
        return []
    status = verify["status"]
    if status == "integrity":
        return [{"kind": "integrity", "message": verify["reason"]}]
    if status == "wrong":
        verdict = verify.get("verdict") or {}
        reasons = "; ".join(verdict.get("reasons") or []) or "no reason given"
        return [{"kind": "wrong",
                 "message": f"rejected at {verdict.get('stage')}: {reasons}"[:600]}]
    if status != "correct":
        return []
    return timing_regressions(unit["recorded"], verify.get("verdict") or {}, threshold)


# ---------------------------------------------------------------------------------------------
# state on disk


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def write_json_atomically(path: Path, payload: Any) -> None:
    """Write `payload` to a temp file beside `path`, fsync it, and rename it over `path`: a
    reader (or a restarted sweep) sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(payload, handle, indent=1, default=str)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a report is meant to be read
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


class SweepState:
    """The plan and every finished step of one sweep, persisted after each change."""

    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        self.path = path
        self.data = data

    @classmethod
    def load(cls, path: Path) -> SweepState | None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as err:  # ValueError: not JSON, or not UTF-8
            raise SweepUsageError(
                f"{path}: cannot read the sweep state ({err}); remove it or pass --fresh"
            ) from None
        if not isinstance(data, dict) or data.get("schema") != STATE_SCHEMA:
            raise SweepUsageError(f"{path}: not a sweep state this kzoo reads; pass --fresh")
        return cls(path, data)

    def save(self) -> None:
        write_json_atomically(self.path, self.data)

    @property
    def units(self) -> list[dict[str, Any]]:
        return self.data["units"]

    def step(self, unit: dict[str, Any], name: str) -> dict[str, Any] | None:
        return self.data["steps"].get(f"{unit['id']}#{name}")

    def finish(self, unit: dict[str, Any], name: str, result: dict[str, Any]) -> None:
        self.data["steps"][f"{unit['id']}#{name}"] = {
            **result, "finished": _now(), "pid": os.getpid()
        }
        self.save()

    @property
    def complete(self) -> bool:
        return all(self.step(u, s) for u in self.units for s in ("verify", "tune"))


@contextlib.contextmanager
def _exclusive(report_dir: Path) -> Iterator[None]:
    """One sweep per report folder at a time; the lock dies with its process (even SIGKILL)."""
    report_dir.mkdir(parents=True, exist_ok=True)
    with open(report_dir / LOCK_FILE, "a+") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SweepUsageError(
                f"another sweep is running with report folder {report_dir}; wait for it to "
                "finish or pass another --report"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


# ---------------------------------------------------------------------------------------------
# planning


def _zoo_dirs(opts: SweepOptions) -> list[Path] | None:
    if opts.zoo is None:
        return None
    zoo = Path(opts.zoo).expanduser()
    if not zoo.is_dir():
        raise SweepUsageError(f"no such zoo folder: {zoo} (--zoo)")
    return [zoo.resolve()]


def _zoo_ops(zoo_dirs: list[Path] | None) -> list[str]:
    """Every op with a version folder, its manifests unread: an op whose entry cannot be read is
    planned, and its ZooError becomes the sweep's failure (not a clean sweep of nothing)."""
    return store.op_names(zoo_dirs)


def selected_ops(opts: SweepOptions) -> list[str]:
    """The ops to sweep: --ops (each must have entries in the zoo), else every op there."""
    known = _zoo_ops(_zoo_dirs(opts))
    if opts.ops is None:
        return known
    unknown = [op for op in opts.ops if op not in known]
    if unknown:
        raise SweepUsageError(
            f"no zoo entries for op(s) {', '.join(unknown)}; ops there: "
            + (", ".join(known) or "none") + " (--ops)"
        )
    return sorted(set(opts.ops))


def _served_configs(op: str, zoo_dirs: list[Path] | None):
    """(entry, config) for every config dispatch would use: per (arch, dtype), the first layer
    whose newest version has it shadows the layers below."""
    claimed: set[tuple[str, str]] = set()
    for entry in store.newest_entries(op, zoo_dirs):
        here = set()
        for config in entry.manifest["configs"]:
            pair = (config["arch"], config["dtype"])
            if pair not in claimed:
                here.add(pair)
                yield entry, config
        claimed |= here


def plan_units(ops: list[str], zoo_dirs: list[Path] | None, mode: str,
               arch: str | None, gpu: str | None = None
               ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The units of a sweep on this device, and the failures found while planning.

    On a GPU: each (dtype, bucket) of this GPU's arch, from the config dispatch serves this GPU
    model `gpu` (its own where the bucket has one, else the one promoted last); a (dtype, bucket)
    that only other archs have becomes a unit for this arch seeded from one of them (`new_arch`),
    so a new GPU gets tuned too. In the interpreter: every (arch, dtype, bucket) (correctness
    only, which does not depend on the arch)."""
    units, failures = [], []
    for op in ops:
        try:
            served = list(_served_configs(op, zoo_dirs))
        except store.ZooError as err:
            failures.append({"op": op, "message": f"cannot read {op}'s entries: {err}"})
            continue
        chosen: dict[tuple[str, ...], tuple[Any, dict, bool]] = {}
        for entry, config in served:
            target = config["arch"] if mode != "gpu" else arch
            # in the interpreter every config is a unit, each GPU model's of a bucket too
            key = (target, config["dtype"], config["shape_bucket"]) + (
                () if mode == "gpu" else (config["device"],))
            native = mode != "gpu" or config["arch"] == arch
            if mode == "gpu" and config is not store.device_configs(
                    entry.manifest, config["arch"], config["dtype"], gpu)[config["shape_bucket"]]:
                continue  # another GPU model's config, which dispatch does not serve here
            held = chosen.get(key)
            if held is None or (native and not held[2]):  # a native config over a borrowed one
                chosen[key] = (entry, config, native)
        triples = [key[:3] for key in chosen]
        for key, (entry, config, native) in sorted(chosen.items()):
            target, dtype, bucket = key[:3]
            shared = triples.count(key[:3]) > 1  # two GPU models' configs of one bucket
            units.append({
                "id": f"{op}/{target}/{dtype}/{bucket}"
                      + (f"/{store.device_slug(config['device'])}" if shared else ""),
                "op": op, "dtype": dtype, "bucket": bucket, "arch": config["arch"],
                "target_arch": target, "new_arch": not native,
                "version": entry.version, "layer": entry.layer, "entry": str(entry.path),
                "file": config["file"], "template": config["template"],
                "params": config["params"], "task": config["task"],
                "recorded": config["verdict"], "recorded_environment": config["environment"],
            })
    return units, failures


# ---------------------------------------------------------------------------------------------
# the sweep


class _Sweep:
    """One run of a sweep: this device, this run's time budget, its Ray instance and output."""

    def __init__(self, opts: SweepOptions) -> None:
        from verifier.environment import device_arch, device_label, environment
        from verifier.worker import detect_mode

        self.opts = opts
        self.mode = detect_mode()
        self.device = device_label()
        self.arch = device_arch()
        self.environment = environment()
        self.started = time.monotonic()
        self.tune_count = "1/1"  # the tune step under way, of those this run has to do
        self.zoo_dirs = _zoo_dirs(opts)
        self.report_dir = Path(
            opts.report or _home.kzoo_home() / "sweeps"
            / f"{datetime.date.today().isoformat()}-{self.device}"
        ).expanduser().resolve()
        self.history_path = Path(
            opts.history or _home.kzoo_home() / "sweeps" / "history.jsonl"
        ).expanduser().resolve()
        self.storage = opts.storage
        self.ray_started = False
        self.incomplete_reason: str | None = None
        self.run_failures: list[dict[str, Any]] = []  # not in the state: a rerun tries again

    # -- output

    def say(self, message: str) -> None:
        if not self.opts.quiet:
            import sys

            print(f"kzoo sweep: {message}", file=sys.stderr, flush=True)

    # -- budget

    def _deadline(self) -> float | None:
        budget = self.opts.time_budget
        if budget is None:
            return None
        return budget - min(60.0, 0.1 * budget)  # kept for the last verdicts and the report

    def seconds_left(self) -> float | None:
        deadline = self._deadline()
        return None if deadline is None else deadline - (time.monotonic() - self.started)

    def over_budget(self) -> bool:
        left = self.seconds_left()
        return left is not None and left <= 0

    # -- plan

    def settings(self, ops: list[str]) -> dict[str, Any]:
        return {
            "ops": ops, "zoo": None if self.zoo_dirs is None else str(self.zoo_dirs[0]),
            "trials_per_op": self.opts.trials_per_op, "storage": self.storage,
            "device": self.device, "mode": self.mode, "arch": self.arch,
        }

    def open_state(self) -> SweepState:
        import search

        self.storage = self.opts.storage or search.default_storage()
        search.connect_storage(self.storage)  # a bad URL fails now, not after the checks
        ops = selected_ops(self.opts)
        path = self.report_dir / STATE_FILE
        state = None if self.opts.fresh else SweepState.load(path)
        settings = self.settings(ops)
        if state is not None and state.data["settings"] != settings:
            differ = sorted(k for k in settings if state.data["settings"].get(k) != settings[k])
            raise SweepUsageError(
                f"{self.report_dir} holds a sweep with other settings ({', '.join(differ)}); "
                "pass another --report, or --fresh to start that one over"
            )
        if state is None:
            units, failures = plan_units(ops, self.zoo_dirs, self.mode, self.arch,
                                         self.environment.get("gpu"))
            started = _now()
            state = SweepState(path, {
                "schema": STATE_SCHEMA,
                "sweep_id": f"{started}-{self.device}",
                "created": started,
                "settings": settings,
                "environment": self.environment,
                "units": units,
                "plan_failures": failures,
                "steps": {},
                "tune_targets": {},
                "runs": [],
                "history_written": False,
            })
        state.data["runs"].append({"pid": os.getpid(), "started": _now(),
                                   "environment": self.environment})
        state.save()
        return state

    # -- ray

    def init_ray(self) -> dict[str, Any]:
        import ray

        from agent.cluster import init_ray

        self.ray_started = self.ray_started or not ray.is_initialized()
        workers = self.opts.workers or 1
        return init_ray(self.opts.address, self.mode, workers, self.opts.local_gpus)

    def shutdown(self) -> None:
        if self.ray_started:
            import ray

            ray.shutdown()

    # -- verify step

    def _prepare(self, unit: dict[str, Any]):
        """(request, partial result) for a unit's kernel, or a final result when it cannot run."""
        from agent.zoo_task import TaskFileError, config_task
        from verifier.worker import VerifyRequest

        entry_dir = Path(unit["entry"])
        try:
            manifest = store.read_manifest(entry_dir)
            source = store.read_entry_file(entry_dir, manifest, unit["file"])
        except store.ZooIntegrityError as err:
            return None, {"status": "integrity", "reason": str(err), "verdict": None}
        except store.ZooError as err:
            return None, {"status": "error", "reason": str(err), "verdict": None}
        try:
            task = config_task(unit)
        except TaskFileError as err:
            return None, {"status": "error", "reason": str(err), "verdict": None}
        try:
            text = source.decode("utf-8")
        except UnicodeDecodeError as err:
            return None, {"status": "error", "verdict": None,
                          "reason": f"the kernel file is not UTF-8 text: {err}"}
        shapes, note = self._bucket_shapes(unit, task)
        request = VerifyRequest(str(task.path), task.source, text, unit["dtype"],
                                time=self.mode == "gpu", refresh_baselines=True,
                                shapes=None if shapes is None else tuple(shapes))
        base = {"task_warning": task.warning, "task_path": str(task.path)}
        if note:
            base["shapes_note"] = note
        return request, base

    def _bucket_shapes(self, unit: dict[str, Any], task_file) -> tuple[list | None, str | None]:
        if self.mode != "gpu":
            return None, None
        import tasks

        task = tasks.load_source(task_file.source, task_file.path)
        return bucket_shapes(unit, task.shapes)

    def _verify_result(self, unit: dict[str, Any], base: dict[str, Any],
                       verdict: dict[str, Any] | None) -> dict[str, Any]:
        result = {
            "task_warning": None, "reason": None, **base,
            "environment_changes": environment_changes(unit["recorded_environment"],
                                                       self.environment),
        }
        if verdict is not None:
            from verifier.verdict import NEEDS_A_GPU, Verdict, needs_a_gpu

            summary = Verdict.from_dict(verdict).summary()
            result.update(status="correct" if summary["accepted"] else "wrong", verdict=summary)
            if needs_a_gpu(summary):  # never run, so not found wrong
                result.update(status="skipped", reason=NEEDS_A_GPU)
            result["environment_changes"].update(timer_change(unit["recorded"], summary))
        return result

    def _report_verify(self, unit: dict[str, Any], result: dict[str, Any], index: str) -> None:
        status = result["status"]
        line = f"[verify {index}] {unit['id']} ({unit['version']}, {unit['layer']}): {status}"
        verdict = result.get("verdict") or {}
        if status == "correct" and _timed(verdict):
            recorded = unit["recorded"]
            line += (f", {verdict['speedup_vs_eager']:.2f}x eager (recorded "
                     f"{recorded.get('speedup_vs_eager') or 0:.2f}x), "
                     f"{verdict['speedup_vs_compile']:.2f}x torch.compile (recorded "
                     f"{recorded.get('speedup_vs_compile') or 0:.2f}x)")
        elif status == "correct":
            line += f" ({self.mode}: correctness only, not timed)"
        elif result.get("reason"):
            line += f": {result['reason']}"
        elif verdict.get("reasons"):
            line += f": {verdict['reasons'][0]}"
        if result.get("shapes_note"):
            line += f"; {result['shapes_note']}"
        changed = result.get("environment_changes") or {}
        if changed:
            line += "; environment changed: " + ", ".join(
                f"{k} {v['recorded']} -> {v['now']}" for k, v in changed.items())
        self.say(line)

    def verify_all(self, state: SweepState) -> None:
        from agent.cluster import VerifierPool

        todo = [u for u in state.units if state.step(u, "verify") is None]
        if not todo:
            return
        total = len(state.units)
        done = total - len(todo)
        ray_info = self.init_ray()
        default = max(1, ray_info["gpus"]) if self.mode == "gpu" else 2
        workers = min(self.opts.workers or default, len(todo))
        pool = VerifierPool(workers, self.mode, str(_home.kzoo_home() / "candidates"),
                            self.opts.timeout_s, gpus_per_actor=1 if ray_info["gpus"] else 0)
        try:
            queue = list(todo)
            while queue or pool.inflight:
                while queue and pool.free_slots and not self.over_budget():
                    unit = queue.pop(0)
                    request, base = self._prepare(unit)
                    if request is None:
                        result = self._verify_result(unit, base, None)
                        state.finish(unit, "verify", result)
                        done += 1
                        self._report_verify(unit, result, f"{done}/{total}")
                        continue
                    pool.submit(pool.free_slots[0], request, _VerifyJob(unit, base))
                if queue and self.over_budget() and not pool.inflight:
                    self.incomplete_reason = "the time budget ran out during the verify steps"
                    return
                for job, verdict in pool.collect(wait_s=1.0):
                    result = self._verify_result(job.unit, job.base, verdict)
                    state.finish(job.unit, "verify", result)
                    done += 1
                    self._report_verify(job.unit, result, f"{done}/{total}")
        finally:
            pool.shutdown()

    # -- tune step

    def _warm_start(self, template, params: dict[str, Any]) -> dict[str, Any] | None:
        """The entry's params when they are still a point of the template's space."""
        from templates import InvalidConfig

        try:
            cfg = template.config(params)
        except (InvalidConfig, TypeError, ValueError):
            return None
        return dataclasses.asdict(cfg)  # with any tunable added since the entry, at its legacy

    def tune(self, state: SweepState, unit: dict[str, Any], seconds: float | None) -> None:
        import search
        import tasks
        from agent.errors import OptimizeError, PlanError
        from agent.loop import OptimizeOptions, optimize
        from agent.plan import plan as make_plan
        from agent.zoo_task import TaskFileError, config_task

        verify = state.step(unit, "verify") or {}
        try:
            task_file = config_task(unit)
        except TaskFileError as err:
            state.finish(unit, "tune", {"status": "error", "reason": str(err)})
            return
        try:
            task = tasks.load(task_file.path)
            found = make_plan(task)
            template = unit_template(found, unit)
        except (tasks.TaskError, PlanError, KeyError) as err:
            state.finish(unit, "tune", {"status": "error", "reason": str(err)})
            return
        # a shape bucket's kernel is searched at its bucket's shapes, in a study of its own
        bucket = None if unit["bucket"] == store.ANY_SHAPE else unit["bucket"]
        shapes, note = self._bucket_shapes(unit, task_file) if bucket else (None, None)
        if note and shapes is None:  # its bucket's shapes are gone from the task
            state.finish(unit, "tune", {"status": "skipped", "reason": (
                f"none of the shapes {unit['id']}'s manifest recorded is in the task now, so "
                "there is nothing to tune its bucket's kernel at")})
            return
        name = search.study_name(task.name, task.sha256, template.name, unit["dtype"], self.device,
                                 space=template.space, bucket=bucket)
        target = state.data["tune_targets"].get(unit["id"])
        if target is None:
            study = search.open_study(name, self.storage)
            before = search.count_completed(study)
            target = {"study": name, "before": before, "trials": before + self.opts.trials_per_op}
            state.data["tune_targets"][unit["id"]] = target
            state.save()  # a restart continues towards the same count, never past it
        warm = self._warm_start(template, unit["params"])
        fresh = verify.get("verdict") or {}
        bar = None
        if verify.get("status") == "correct" and _timed(fresh):
            bar = (fresh.get("speedup_vs_best_baseline") or 0.0) * self.opts.min_improvement
        if target.get("promotions"):
            # an interrupted run of this step promoted already: only a better kernel goes in
            best_so_far = max(p["speedup_vs_best_baseline"] or 0.0 for p in target["promotions"])
            bar = max(bar or 0.0, best_so_far * self.opts.min_improvement)
        self.say(f"[tune {self.tune_count}] {unit['id']}: study {name!r} from "
                 f"{target['before']} to {target['trials']} trials"
                 + ("" if seconds is None else f" within {seconds:.0f} s")
                 + ("" if warm else "; the entry's params are not in the template's space now, "
                    "so no warm start"))
        zoo = str(self.zoo_dirs[0]) if self.zoo_dirs else None
        options = OptimizeOptions(
            task=str(task_file.path), trials=target["trials"], time_budget=seconds,
            dtype=unit["dtype"], workers=self.opts.workers, address=self.opts.address,
            storage=self.storage, zoo=zoo, promote=True, timeout_s=self.opts.timeout_s,
            seed=self.opts.seed, quiet=self.opts.quiet, local_gpus=self.opts.local_gpus,
            warm_start_params=warm, promote_min_speedup=bar, bucket=bucket,
            template=template.name if template.name in found.alternatives else None,
            promote_max_ms=shape_limits(fresh) if bar is not None else None,
            shapes=None if shapes is None else tuple(shapes),
        )
        try:
            result = optimize(options).payload
        except OptimizeError as err:
            state.finish(unit, "tune", {"status": "error", "reason": str(err), "study": name})
            return
        if result["promoted"]:
            target.setdefault("promotions", []).append({
                **result["promoted"], "best": result["best"],
                "speedup_vs_best_baseline": speedup_over_best_baseline(result["best"]),
            })
        outcome = {
            "status": "done", "study": name, "storage": self.storage,
            "trials_before": target["before"], "target": target["trials"],
            "trials": result["trials"], "new_trials": result["new_trials"],
            "warm_start": warm is not None, "promote_bar": bar, "best": result["best"],
            "promotions": target.get("promotions", []), "mode": result["mode"],
            "throughput": result.get("throughput"),
        }
        promoted = "; ".join(f"promoted {p['op']} {p['version']}"
                             for p in outcome["promotions"]) or "nothing promoted"
        if result["trials"] < target["trials"]:
            self.incomplete_reason = "the time budget ran out during a tune step"
            target["partial"] = {**outcome, "status": "partial"}
            state.save()
            self.say(f"[tune {self.tune_count}] {unit['id']}: stopped at {result['trials']} of "
                     f"{target['trials']} trials (time budget; run the same command again to "
                     f"finish); {promoted}")
            return
        state.finish(unit, "tune", outcome)
        self.say(f"[tune {self.tune_count}] {unit['id']}: {result['trials']} trials; {promoted}")

    def tune_all(self, state: SweepState) -> None:
        todo = [u for u in state.units if state.step(u, "tune") is None]
        for index, unit in enumerate(todo):
            skip = None
            verify = state.step(unit, "verify") or {}
            if self.opts.trials_per_op == 0:
                skip = "--trials-per-op 0: re-verification only"
            elif verify.get("status") == "error":
                skip = "its verify step could not run"
            elif verify.get("status") == "skipped":
                skip = "its kernel could not run here: " + verify["reason"]
            if skip:
                state.finish(unit, "tune", {"status": "skipped", "reason": skip})
                continue
            left = self.seconds_left()
            seconds = None if left is None else left / (len(todo) - index)
            if seconds is not None and seconds < MIN_TUNE_SECONDS:
                self.incomplete_reason = "the time budget ran out before every tune step ran"
                return
            self.init_ray()
            self.tune_count = f"{index + 1}/{len(todo)}"  # as the verify steps' lines count
            self.tune(state, unit, seconds)

    # -- summary, history, report

    def summary(self, state: SweepState) -> dict[str, Any]:
        threshold = self.opts.regression_threshold
        units, regressions, failures, promotions = [], [], [], []
        failures += state.data["plan_failures"] + self.run_failures
        flops = _FlopCounter()
        for unit in state.units:
            verify, tune = state.step(unit, "verify"), state.step(unit, "tune")
            if tune is None:  # a tune step stopped by the time budget shows how far it got
                tune = (state.data["tune_targets"].get(unit["id"]) or {}).get("partial")
            found = regressions_of(unit, verify, threshold)
            regressions += [{"unit": unit["id"], "version": unit["version"], **r} for r in found]
            for name, step in (("verify", verify), ("tune", tune)):
                if step and step.get("status") == "error":
                    failures.append({"unit": unit["id"], "step": name, "message": step["reason"]})
            promotions += [{"unit": unit["id"], **p} for p in (tune or {}).get("promotions", [])]
            fresh = (verify or {}).get("verdict")
            if fresh and _timed(fresh):
                flops.annotate(unit, fresh)
            units.append({
                **{k: unit[k] for k in ("id", "op", "dtype", "bucket", "arch", "target_arch",
                                        "new_arch", "version", "layer", "template", "params",
                                        "task")},
                "recorded": _brief_verdict(unit["recorded"]),
                "recorded_environment": unit["recorded_environment"],
                "verify": verify, "tune": tune, "regressions": found,
            })
        complete = state.complete
        if failures:
            code = EXIT_FAILED
        elif regressions:
            code = EXIT_REGRESSED
        else:
            code = EXIT_CLEAN
        copy = [u["verify"]["verdict"].get("copy_gbps") for u in units
                if u["verify"] and u["verify"].get("verdict")]
        copy = [c for c in copy if isinstance(c, (int, float))]
        return {
            "schema": 1,
            "sweep_id": state.data["sweep_id"],
            "created": state.data["created"],
            "updated": _now(),
            "complete": complete,
            "incomplete_reason": None if complete else (
                self.incomplete_reason or "not every step has run"),
            "device": self.device,
            "mode": self.mode,
            "arch": self.arch,
            "environment": self.environment,
            "settings": {**state.data["settings"],
                         "regression_threshold": threshold,
                         "min_improvement": self.opts.min_improvement,
                         "time_budget": self.opts.time_budget},
            "ceilings": {"copy_gbps": max(copy) if copy else None},
            "units": units,
            "regressions": regressions,
            "failures": failures,
            "promotions": promotions,
            "throughput": sweep_throughput(units),
            "runs": state.data["runs"],
            "run_elapsed_s": round(time.monotonic() - self.started, 1),
            "report_dir": str(self.report_dir),
            "history": str(self.history_path),
            "exit_code": code,
        }

    def history(self, state: SweepState, summary: dict[str, Any]) -> list[dict[str, Any]]:
        """Past sweeps' records plus this one's; this one is appended once, when complete."""
        records = read_history(self.history_path)
        mine = history_records(summary)
        if summary["complete"] and not state.data["history_written"]:
            append_history(self.history_path, mine)
            state.data["history_written"] = True
            state.save()
        seen = {(r["sweep_id"], r["unit"]) for r in records}
        return records + [r for r in mine if (r["sweep_id"], r["unit"]) not in seen]


def sweep_throughput(units: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The tune steps' verifier throughput, summed over units: candidates verified per
    worker-minute (per GPU-minute on a GPU, one worker per GPU) and the workers' idle fraction."""
    runs = [(u.get("tune") or {}).get("throughput") for u in units]
    runs = [t for t in runs if t and t.get("wall_s")]
    if not runs:
        return None
    verified = sum(t["verified"] for t in runs)
    worker_s = sum(t["wall_s"] * t["actors"] for t in runs)
    busy_s = sum(t["wall_s"] * t["actors"] * (1 - t["idle_fraction"]) for t in runs)
    return {
        "verified": verified, "worker_seconds": round(worker_s, 1),
        "candidates_per_worker_minute": round(verified * 60 / worker_s, 3) if worker_s else None,
        "idle_fraction": round(1 - busy_s / worker_s, 3) if worker_s else None,
    }


@dataclass
class _VerifyJob:
    unit: dict[str, Any]
    base: dict[str, Any]
    timeout_reason: str | None = None  # set by the pool when the verification overruns


class _FlopCounter:
    """Adds each timed shape's FLOPs (the task's KZOO['flops']) for the roofline chart."""

    def __init__(self) -> None:
        self._tasks: dict[str, Any] = {}

    def annotate(self, unit: dict[str, Any], verdict: dict[str, Any]) -> None:
        import tasks
        from agent.zoo_task import TaskFileError, config_task

        name = unit["task"]["name"]
        if name not in self._tasks:
            try:
                self._tasks[name] = tasks.load(config_task(unit).path)
            except (TaskFileError, tasks.TaskError):
                self._tasks[name] = None
        task = self._tasks[name]
        if task is None:
            return
        import torch

        itemsize = getattr(torch, unit["dtype"]).itemsize
        for row in verdict.get("shapes") or []:
            try:
                task.apply_shape(row["shape"])
                row["flops"] = task.formula_value("flops", itemsize)
            except (tasks.TaskError, TypeError, KeyError):
                row["flops"] = None


def speedup_over_best_baseline(best: dict[str, Any] | None) -> float | None:
    """Geometric mean over shapes of min(eager, compile) / kernel time, from a result's shapes
    (what `Verdict.speedup_vs_best_baseline` is, for the summaries optimize returns)."""
    import math

    ratios = []
    for row in (best or {}).get("shapes") or []:
        bases = [row.get(k) for k in ("eager_ms", "compile_ms")]
        bases = [b for b in bases if isinstance(b, (int, float)) and b > 0]
        if not bases or not isinstance(row.get("ms"), (int, float)) or row["ms"] <= 0:
            return None
        ratios.append(min(bases) / row["ms"])
    return math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None


def _brief_verdict(verdict: dict[str, Any]) -> dict[str, Any]:
    keep = ("accepted", "mode", "ms", "speedup_vs_eager", "speedup_vs_compile",
            "speedup_vs_best_baseline", "roofline_fraction", "copy_gbps", "shapes")
    return {k: verdict.get(k) for k in keep}


# ---------------------------------------------------------------------------------------------
# history: one JSON line per unit per finished sweep


HISTORY_FIELDS = ("ms", "speedup_vs_eager", "speedup_vs_compile", "speedup_vs_best_baseline",
                  "roofline_fraction")


def history_records(summary: dict[str, Any]) -> list[dict[str, Any]]:
    records = []
    for unit in summary["units"]:
        verify = unit.get("verify") or {}
        verdict = verify.get("verdict") or {}
        promotions = (unit.get("tune") or {}).get("promotions") or []
        records.append({
            "sweep_id": summary["sweep_id"], "date": summary["created"],
            "device": summary["device"], "mode": summary["mode"],
            "gpu": summary["environment"].get("gpu"), "unit": unit["id"], "op": unit["op"],
            "dtype": unit["dtype"], "bucket": unit["bucket"], "version": unit["version"],
            "status": verify.get("status"),
            **{k: verdict.get(k) for k in HISTORY_FIELDS},
            "recorded_speedup_vs_best_baseline":
                unit["recorded"].get("speedup_vs_best_baseline"),
            "promoted_versions": [p["version"] for p in promotions],
        })
    return records


def read_history(path: Path) -> list[dict[str, Any]]:
    """Every record of the history file; a torn last line (a crash mid-append) is skipped, and a
    record written twice for one sweep and unit is kept once."""
    try:
        # a byte that is not UTF-8 spoils its line only (which then is not JSON, and skipped)
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []
    records: dict[tuple[str, str], dict[str, Any]] = {}
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and "sweep_id" in record and "unit" in record:
            records[(record["sweep_id"], record["unit"])] = record
    return list(records.values())


def append_history(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r, default=str) + "\n" for r in records).encode()
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data  # after a torn last line (a crash mid-append): not glued to it
        os.write(fd, data)  # one write: concurrent sweeps never interleave inside a line
        os.fsync(fd)
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------------------------


def run_sweep(opts: SweepOptions) -> SweepResult:
    """Plan (or resume) a sweep, run its unfinished steps, and write its report; SweepInterrupted
    (with the report as far as it got) where a Ctrl-C stopped it."""
    from agent.errors import ClusterError, OptimizeInterrupted
    from agent.report import write_report

    if not 0 < opts.regression_threshold <= 1:
        raise SweepUsageError(
            f"--regression-threshold must be in (0, 1], got {opts.regression_threshold}")
    if opts.min_improvement < 1:
        raise SweepUsageError(f"--min-improvement must be at least 1, got {opts.min_improvement}")
    selected_ops(opts)  # a wrong --ops or --zoo fails before torch and Ray are loaded
    sweep = _Sweep(opts)
    with _exclusive(sweep.report_dir):
        state = sweep.open_state()
        finished = len(state.data["steps"])
        total = 2 * len(state.units)
        sweep.say(f"{len(state.units)} unit(s) on {sweep.device} ({sweep.mode}); report and state "
                  f"in {sweep.report_dir}"
                  + ("; already complete, rewriting its report" if state.complete else
                     f"; resuming: {finished} of {total} step(s) already done" if finished else ""))
        interrupted = None
        try:
            sweep.verify_all(state)
            if not sweep.incomplete_reason:
                sweep.tune_all(state)
        except ClusterError as err:
            sweep.run_failures.append({"message": f"Ray: {err}"})
            sweep.incomplete_reason = "Ray failed; run the same command again to resume"
        except (KeyboardInterrupt, OptimizeInterrupted) as stop:
            # a Ctrl-C (or a SIGTERM, agent.cluster): the steps done are in the state file
            # already; the report and summary say how far it got, and the caller exits 130
            interrupted = stop
            sweep.incomplete_reason = "interrupted; run the same command again to go on"
        finally:
            sweep.shutdown()
        summary = sweep.summary(state)
        history = sweep.history(state, summary)
        files = write_report(summary, history, sweep.report_dir)
        summary["files"] = files
        # strict JSON, as --json writes it (jq stops on Python's Infinity); the state file keeps
        # its floats, being read back by a resumed sweep
        write_json_atomically(sweep.report_dir / "summary.json", strict(summary))
    result = SweepResult(summary, sweep.report_dir, files)
    if interrupted is not None:
        raise SweepInterrupted(result) from interrupted
    return result
