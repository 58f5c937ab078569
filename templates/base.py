"""What every template declares: its parameter space as data, constraints, byte count, and rendering."""

from __future__ import annotations

import dataclasses
import json
import keyword
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import jinja2

_HERE = Path(__file__).resolve().parent
_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(_HERE)),
    undefined=jinja2.StrictUndefined,  # a missing variable fails the render, loudly
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    autoescape=False,
    extensions=["jinja2.ext.do"],
)


def _plain(part: str) -> bool:
    return part.isidentifier() and not keyword.iskeyword(part)


# A Model parameter's dotted state_dict path ("norm.weight") is mirrored on ModelNew with the same
# path, so load_state_dict hands the candidate the reference's values. A part that is no name, the
# index of an nn.Sequential, nn.ModuleList or nn.ParameterList ("body.0.weight"), is a key of a
# ModuleDict (a ParameterDict where the parameter itself is the indexed part): plain subscripts,
# where setattr and getattr would be dynamic attribute access, which the guards refuse.


def attr_ref(path: str, root: str = "self") -> str:
    """Python for what ModelNew holds at dotted `path`: `self.norm.weight`,
    `self.body["0"].weight`."""
    out = root
    for part in path.split("."):
        out = f"{out}.{part}" if _plain(part) else f'{out}["{part}"]'
    return out


def attr_set(path: str, value: str, root: str = "self") -> str:
    """A statement binding `value` at dotted `path` under `root` (see attr_ref)."""
    return f"{attr_ref(path, root)} = {value}"


def owner_module(owner: str, paths) -> str:
    """The container ModelNew declares at `owner`, a proper prefix of some of the dotted `paths`:
    a plain Module, or, when an indexed part sits right under it, a ModuleDict (a ParameterDict
    when that part is a parameter itself)."""
    depth = len(owner.split("."))
    paths = set(paths)
    indexed = {p.split(".")[depth] for p in paths if p.startswith(owner + ".")}
    indexed = [child for child in indexed if not _plain(child)]
    if not indexed:
        return "torch.nn.Module()"
    leaf = any(f"{owner}.{child}" in paths for child in indexed)
    return "torch.nn.ParameterDict()" if leaf else "torch.nn.ModuleDict()"


_ENV.globals.update(attr_ref=attr_ref, attr_set=attr_set, owner_module=owner_module)


class InvalidConfig(ValueError):
    """A config outside the template's space or breaking one of its constraints."""


class _NoLegacy:
    def __repr__(self) -> str:
        return "NO_LEGACY"


NO_LEGACY = _NoLegacy()


@dataclass(frozen=True)
class Param:
    """One tunable: a name and its ordered choices.

    `legacy` is for a tunable added after configs were stored (zoo entries, studies): the choice
    that renders what those configs rendered before it existed. Params without the name still
    name a config, with `legacy` filled in.
    """

    name: str
    choices: tuple
    legacy: Any = NO_LEGACY


@dataclass(frozen=True)
class Template:
    name: str
    family: str
    jinja_file: str
    config_type: type
    space: tuple[Param, ...]
    default: Any
    constraints: Callable[[Any], list[str]]
    bytes_moved: Callable[..., int]
    launcher: str
    doc: str = ""
    # (shape bucket, config) pairs: where a search for a plan in that bucket starts instead of
    # `default` (a skinny GEMM's split tiles, say)
    bucket_defaults: tuple = ()
    # configs a fresh search tries right after `default` (not after a bucket's own default): a
    # second tile family that measured faster at some shapes (the GEMM's one-program-per-tile
    # kernel at odd row lengths)
    seeds: tuple = ()
    # CUDA C++: its candidates build with nvcc and run only on a GPU (Triton's interpreter runs
    # Triton alone)
    needs_gpu: bool = False

    def default_for(self, bucket: str) -> Any:
        """The config a search for a plan in `bucket` starts from."""
        return dict(self.bucket_defaults).get(bucket, self.default)

    def starts_for(self, bucket: str) -> list[Any]:
        """The configs a fresh search for a plan in `bucket` tries first, in order."""
        first = self.default_for(bucket)
        seeds = [cfg for cfg in self.seeds if cfg != first] if first == self.default else []
        return [first, *seeds]

    def config(self, params: dict[str, Any]) -> Any:
        """Build (and check membership of) a config from a params dict (one stored before a
        tunable with a `legacy` choice existed gets that choice)."""
        names = {p.name for p in self.space}
        params = {**{p.name: p.legacy for p in self.space
                     if p.name not in params and p.legacy is not NO_LEGACY}, **params}
        if set(params) != names:
            raise InvalidConfig(
                f"template {self.name}: params {sorted(params)} do not match the space {sorted(names)}"
            )
        for p in self.space:
            if params[p.name] not in p.choices:
                raise InvalidConfig(
                    f"template {self.name}: {p.name}={params[p.name]!r} not in {list(p.choices)}"
                )
        return self.config_type(**params)

    def draw(self, rng: random.Random) -> Any:
        """A config with each parameter drawn uniformly from its choices (constraints unchecked:
        `violations` says whether it is valid)."""
        return self.config({p.name: rng.choice(p.choices) for p in self.space})

    def violations(self, cfg: Any) -> list[str]:
        return list(self.constraints(cfg))

    def render(self, cfg: Any, **context: Any) -> str:
        """Render the Candidate module source for one config; refuses invalid configs."""
        problems = self.violations(cfg)
        if problems:
            raise InvalidConfig(f"template {self.name}: " + "; ".join(problems))
        params = dataclasses.asdict(cfg)
        # `params` is left to the context: it names the Model parameters ModelNew mirrors.
        return _ENV.get_template(self.jinja_file).render(
            cfg=cfg, params_json=json.dumps(params, sort_keys=True), params_repr=repr(params),
            **context,
        )


def warps_for(elems: int, elems_per_thread: int) -> int:
    """Warps a tile of `elems` takes at `elems_per_thread`, as a launcher picks them (1 to 32)."""
    return max(1, min(elems // (32 * elems_per_thread), 32))


def params_of(cfg: Any) -> dict[str, Any]:
    return dataclasses.asdict(cfg)
