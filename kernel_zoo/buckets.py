"""Shape buckets: which of an op's tuned configs serves a tensor of a given shape.

The best launch settings of a kernel change with the problem's size (a 1000-wide softmax row wants
many rows per program, a 128256-wide one a looped kernel), so a zoo entry may hold one config per
(arch, dtype, shape bucket). A bucket is a named range of one size of the op's input; "any" is the
bucket of a config tuned over all shapes at once.

Dispatch (`pick`): the tensor's own bucket when the entry has it; else "any"; else, for an op whose
scheme borrows, the nearest bucket the entry has, by `distance` (ties go to the wider bucket: its
kernel was tuned for the longer rows, the path where a poor setting costs most). The norms and the
plain reductions do not borrow: their entries hold a config only for the buckets where the tuned
kernel beat the PyTorch reference at every shape and reached at least 0.95x torch.compile
(`bench/tune_buckets.py`), so a bucket without one runs the reference rather than a kernel
measured slower there.

Bucket names become parts of file names, so they are plain words (`cols_le_4096`), never `<=`.
The bounds are part of the manifest schema: a name means the same range in every entry, so
changing an op's bounds means a new schema version.

Standard library only: `kernel_zoo.store` validates bucket names with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

ANY = "any"
# Ops that reduce over a dim serve a call over a dim other than the last with another kernel (a
# strided one), so such calls have a bucket of their own.
INNER_DIM = "inner_dim"
DIM_OPS = frozenset({"softmax", "log_softmax", "sum", "mean", "amax", "amin", "argmax"})


@dataclass(frozen=True)
class BucketScheme:
    """Buckets of one size of an op's first input: `axis` of its shape, named `size_name`.

    `bounds` are ascending inclusive upper bounds; bucket i holds sizes in
    (bounds[i-1], bounds[i]], and one more open bucket holds everything above the last bound.
    `borrow`: whether a bucket with no config of its own (and no "any") takes the nearest one's.
    """

    size_name: str
    axis: int
    bounds: tuple[int, ...]
    borrow: bool = True

    def __post_init__(self) -> None:
        if not self.bounds or list(self.bounds) != sorted(set(self.bounds)):
            raise ValueError(f"bounds must be non-empty and strictly ascending: {self.bounds}")
        closed = tuple(f"{self.size_name}_le_{bound}" for bound in self.bounds)
        # built once: dispatch asks for a bucket on every op call
        object.__setattr__(self, "_names", (*closed, f"{self.size_name}_gt_{self.bounds[-1]}"))

    @property
    def names(self) -> tuple[str, ...]:
        """Every bucket, narrowest first."""
        return self._names  # type: ignore[attr-defined]

    def bucket_of_size(self, size: int) -> str:
        names = self._names  # type: ignore[attr-defined]
        for i, bound in enumerate(self.bounds):
            if size <= bound:
                return names[i]
        return names[-1]

    def bucket_of_shape(self, shape: Sequence[int]) -> str:
        # a 0-d tensor has one element along every axis that matters
        size = shape[self.axis] if shape else 1
        return self.bucket_of_size(int(size))

    def distance(self, a: str, b: str) -> int:
        """How many bucket boundaries lie between two buckets of this scheme (0: the same)."""
        return abs(self.names.index(a) - self.names.index(b))


# Powers of two because the kernels round a row up to a power-of-two block, and that block (rows
# per program, registers per thread, one pass or a loop) is what a tuned setting depends on.
_COLS = BucketScheme(size_name="cols", axis=-1, bounds=(1024, 4096, 16384, 65536))
# A GEMM's best tile depends on its output's rows: M <= 128 (a decode batch against a weight)
# wants short tiles (in CTA clusters), a large M big tiles; the rows of `a` (axis -2) decide. No
# borrowing: a module tuned at M <= 128 runs a large M with whatever tile its search left for
# calls past 128 rows (matmul 1.0.0's: 64x32), far behind cuBLAS, which a bucket without a config
# runs instead (torch.matmul).
_ROWS = BucketScheme(size_name="rows", axis=-2, bounds=(128,), borrow=False)
# The same widths for the norms and the plain reductions, without borrowing: at some widths the
# PyTorch reference (or torch.compile's kernel) is faster than any tuned config, and there the zoo
# has no config, so the call runs the reference.
_COLS_OWN = BucketScheme(size_name="cols", axis=-1, bounds=_COLS.bounds, borrow=False)
# Cross-entropy by its logits' rows: a few hundred rows of a long vocabulary split each row over
# several programs, thousands do not, and the row kernel's best tile differs with how many
# programs fit on the GPU at once (GPU round 132: 2048-wide tiles of 4 warps took 4096x128256 and
# 4099x50257 in 343 and 155 us against the served config's 352 and 162, and 1024x32000 and
# 64x128256 in 33.2 and 17.7 against 32.4 and 16.4). A bucket without a config takes "any".
_CE_ROWS = BucketScheme(size_name="rows", axis=-2, bounds=(1024,))
# The gated units (SwiGLU, GeGLU) by their rows' width, which at the tasks' shapes tells the odd
# mid-sized call (4099x3001, flat tiles across row ends) from the LLM widths (GPU round 147: GeGLU
# in 1024-element tiles of 4 warps took 8192x16384 and 4096x10240 in 260.1 and 81.5 us against
# the served 2048-element tiles' 263.4 and 83.6, but 4099x3001 in 26.8 against 25.9). A decode
# step's 16 rows fall with the wide rows (round 161: there the 1024-element tiles lost, 5.6
# against 5.1 us). A bucket without a config takes "any".
_GLU_COLS = BucketScheme(size_name="cols", axis=-1, bounds=(4096,))
SCHEMES: dict[str, BucketScheme] = {
    "softmax": _COLS, "log_softmax": _COLS, "matmul": _ROWS, "cross_entropy": _CE_ROWS,
    "swiglu": _GLU_COLS, "geglu": _GLU_COLS,
    **{op: _COLS_OWN for op in ("rms_norm", "layer_norm", "add_rms_norm",
                                "sum", "mean", "amax", "amin", "argmax")},
}


def scheme(op: str) -> BucketScheme | None:
    """The op's bucket scheme; None for an op whose configs are all "any"."""
    return SCHEMES.get(op)


def bucket_names(op: str) -> tuple[str, ...]:
    """Every shape_bucket a manifest config of `op` may carry: "any", the scheme's, then
    "inner_dim" for an op that reduces over a dim."""
    found = scheme(op)
    names = (ANY,) if found is None else (ANY, *found.names)
    return (*names, INNER_DIM) if op in DIM_OPS else names


def bucket_of(op: str, shape: Sequence[int], dim: int | None = None) -> str:
    """The bucket a tensor of `shape` (the op's first input) falls in; "any" without a scheme.
    `dim`, for an op that reduces over one: a dim followed by more elements is "inner_dim"."""
    if dim is not None and op in DIM_OPS and len(shape) > 1:
        trailing = 1
        for size in shape[dim % len(shape) + 1:]:
            trailing *= int(size)
        if trailing > 1:
            return INNER_DIM
    found = scheme(op)
    return ANY if found is None else found.bucket_of_shape(shape)


def pick(op: str, wanted: str, present: Iterable[str]) -> str | None:
    """The bucket, among `present`, whose config should serve a tensor in bucket `wanted`.

    The exact bucket first; then "any", a config tuned across every shape of its task, which
    serves an unseen bucket better than one tuned for another bucket; then, if the op's scheme
    borrows, the nearest bucket. `wanted` == "any" (the shape is unknown) takes the "any" config,
    else the widest bucket there is, which copes with every size. None when nothing fits.
    """
    have = set(present)
    if wanted in have:
        return wanted
    if ANY in have:
        return ANY
    found = scheme(op)
    if found is not None and not found.borrow and wanted != ANY:
        return None  # this bucket was never given a config: the reference serves it
    ranked = [name for name in (found.names if found else ()) if name in have]
    if wanted == INNER_DIM or (not ranked and INNER_DIM in have):
        # every kernel of such an op takes any dim: the widest-tuned config, else the other kind
        return ranked[-1] if ranked else (INNER_DIM if INNER_DIM in have else None)
    if wanted != ANY and found is not None and wanted in found.names and ranked:
        # min over (distance, -position): the nearest, and of two equally near the wider
        return min(
            ranked, key=lambda name: (found.distance(wanted, name), -found.names.index(name))
        )
    if ANY in have:
        return ANY
    return ranked[-1] if ranked else None
