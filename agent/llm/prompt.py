"""The prompts, as Jinja2 templates (agent/llm/prompts/), and the facts that fill them: the task,
the plan, the target GPU, the candidate contract, the forbidden patterns, the current best kernel
with its verdict, examples from the zoo, and every earlier round's verdicts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from verifier.exploits import EXPLOITS

PROMPTS = Path(__file__).resolve().parent / "prompts"
MAX_EXAMPLE_CHARS = 12_000
# Dense datasheet peaks (TFLOP/s) by device-name fragment: what "peak rate" means in the prompt.
PEAK_TFLOPS = {
    "h200": {"float32": 67.0, "bfloat16": 989.0, "float16": 989.0},
    "h100 pcie": {"float32": 51.0, "bfloat16": 756.0, "float16": 756.0},
    "h100": {"float32": 67.0, "bfloat16": 989.0, "float16": 989.0},
    "a100": {"float32": 19.5, "bfloat16": 312.0, "float16": 312.0},
}
_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(PROMPTS)), undefined=jinja2.StrictUndefined,
    trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, autoescape=False,
)


@dataclass
class PromptFacts:
    """Everything a round's prompt says that does not change between rounds."""

    task: Any
    dtype: str
    mode: str
    plan: Any | None  # None: the op matches no template family, the LLM works from the task alone
    plan_problem: str | None = None
    target: dict[str, Any] = field(default_factory=dict)
    examples: list[dict[str, str]] = field(default_factory=list)
    samples: int = 1
    rounds: int = 1

    @property
    def op(self) -> str:
        if self.plan is not None:
            return self.plan.op
        return self.task.op or self.task.name


def describe_target(mode: str, dtype: str, copy_gbps: float | None = None) -> dict[str, Any]:
    """The target GPU (name, SMs, memory, measured copy bandwidth, datasheet peaks), or the
    interpreter."""
    if mode != "gpu":
        return {"name": "Triton interpreter (CPU), correctness only",
                "lines": ["Kernels run in Triton's CPU interpreter (TRITON_INTERPRET=1): they are "
                          "checked for correctness, never timed. Write for a modern NVIDIA GPU "
                          "anyway; keep to what the interpreter supports (tl.load/tl.store with "
                          "masks, tl.arange, reductions, tl.range loops)."]}
    import torch

    from verifier.timing import peak_bandwidth

    props = torch.cuda.get_device_properties(0)
    major, minor = torch.cuda.get_device_capability(0)
    lines = [f"{props.multi_processor_count} SMs, compute capability {major}.{minor} "
             f"(sm_{major}{minor}), {props.total_memory / 2**30:.0f} GiB of memory"]
    l2 = getattr(props, "L2_cache_size", None)
    if l2:
        lines.append(f"L2 cache {l2 / 2**20:.0f} MiB")
    smem = getattr(props, "shared_memory_per_block_optin", None)
    if smem:
        lines.append(f"shared memory per block (opt-in) {smem // 1024} KiB")
    if copy_gbps:
        lines.append(f"measured device-to-device copy bandwidth {copy_gbps:.0f} GB/s (the "
                     "verifier's roofline fraction is achieved GB/s over this)")
        peak = peak_bandwidth(props.name, copy_gbps * 1e9) / 1e9
        lines.append(f"peak memory bandwidth {peak:.0f} GB/s (datasheet; a time implying more is "
                     "rejected as impossible)")
    else:
        lines.append("copy bandwidth not measured yet (the verifier measures it with the first "
                     "timed candidate)")
    name = props.name.lower()
    for fragment, peaks in PEAK_TFLOPS.items():
        if fragment in name:
            lines.append(f"peak compute {peaks[dtype]:.0f} TFLOP/s dense in {dtype} "
                         "(datasheet)")
            break
    return {"name": props.name, "lines": lines}


def zoo_examples(op: str, dtype: str) -> list[dict[str, str]]:
    """The newest zoo kernel for the op (its dtype first), else one of another op, as an example."""
    from kernel_zoo import store

    chosen = None
    try:
        chosen = store.find_entry(op)
    except store.ZooError:
        for entry in store.iter_entries():
            if not isinstance(entry, store.ZooError):
                chosen = entry  # another op's kernel still shows a verified module's shape
    if chosen is None:
        return []
    configs = sorted(chosen.manifest["configs"], key=lambda c: c["dtype"] != dtype)
    config = configs[0]
    try:
        text = store.read_entry_file(chosen.path, chosen.manifest, config["file"]).decode()
    except store.ZooError:
        return []
    if len(text) > MAX_EXAMPLE_CHARS:
        text = text[:MAX_EXAMPLE_CHARS] + "\n# ... (cut)\n"
    verdict = config.get("verdict") or {}
    speed = ""
    if verdict.get("speedup_vs_eager"):
        speed = (f"; on {config.get('device')}: {verdict['speedup_vs_eager']:.2f}x eager, "
                 f"{verdict.get('speedup_vs_compile') or 0:.2f}x torch.compile")
    title = (f"zoo entry {chosen.op} {chosen.version} ({config['arch']}, {config['dtype']}, "
             f"template {config['template']}{speed})")
    return [{"title": title, "source": text}]


def contract(op: str) -> dict[str, Any]:
    from verifier import guards

    return {
        "launcher": f"launch_{op}",
        "allowed_imports": sorted(i for i in guards.ALLOWED_IMPORTS if i != "__future__"),
        "allowed_torch_calls": sorted(guards.ALLOWED_TORCH_CALLS),
        "exploits": EXPLOITS,
    }


def render_messages(facts: PromptFacts, round_index: int, best: dict[str, Any] | None,
                    history: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The chat messages of one round: a system message (the contract, the answer formats) and a
    user message (the task, the target, the best so far, the examples, the feedback)."""
    from verifier.tolerance import tolerance_for

    task = facts.task
    shared = {"op": facts.op, "contract": contract(facts.op), "facts": facts,
              "library_calls": _library_calls(facts.task)}
    system = _ENV.get_template("system.jinja").render(**shared)
    user = _ENV.get_template("round.jinja").render(
        **shared, task=task, dtype=facts.dtype, mode=facts.mode,
        shapes=task.shapes_for(facts.mode == "interpreter"), gpu_shapes=task.shapes,
        tolerance=tolerance_for(facts.dtype, task.tolerances.get(facts.dtype)),
        plan=facts.plan, plan_problem=facts.plan_problem, target=facts.target,
        examples=facts.examples, best=best, history=history, round_index=round_index,
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _library_calls(task) -> list[str]:
    """The library calls (a convolution) the task's reference makes, which a candidate may make."""
    from verifier.capture import allowed_library_calls

    return sorted(".".join(path) for path in allowed_library_calls(task))
