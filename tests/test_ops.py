"""kernel_zoo.ops as a user calls it: pinning every op `kzoo zoo list` shows, and plain errors for
arguments of the wrong kind (a numpy array, a list, an int normalized_shape)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import kernel_zoo
from kernel_zoo import _home, ops
from kernel_zoo.store import ZooError

REAL_SHIPPED_ZOO = _home.SHIPPED_ZOO  # read before isolated_zoo points it into tmp_path


@pytest.fixture(autouse=True)
def _isolated(isolated_zoo):
    """Default zoo layers under tmp_path; the shipped entries are read through zoo= only."""


def test_matmul_linear_and_attention_entries_can_be_pinned():
    a, b = torch.randn(4, 32), torch.randn(32, 8)
    pinned = kernel_zoo.load("matmul", zoo=REAL_SHIPPED_ZOO)
    assert pinned.op == "matmul" and pinned.layer == "custom"
    assert torch.equal(pinned(a, b), torch.matmul(a, b))  # on the CPU: the reference

    weight, bias = torch.randn(8, 32), torch.randn(8)
    linear = kernel_zoo.load("linear_bias_gelu", zoo=REAL_SHIPPED_ZOO)
    torch.testing.assert_close(linear(a, weight, bias), F.gelu(F.linear(a, weight, bias)))
    with pytest.raises(TypeError, match="pinned linear_bias_gelu takes a bias .*pin linear_gelu"):
        linear(a, weight)

    q = torch.randn(1, 2, 8, 16)
    softcap = kernel_zoo.load("attention_softcap", zoo=REAL_SHIPPED_ZOO)
    torch.testing.assert_close(softcap(q, q, q, softcap=30.0),
                               ops.attention(q, q, q, score_mod="softcap", softcap=30.0))


def test_load_says_why_it_cannot_pin_attention_and_has_no_entry_for_sdpa():
    with pytest.raises(ZooError) as err:
        kernel_zoo.load("attention", zoo=REAL_SHIPPED_ZOO)
    message = str(err.value)
    assert message.startswith("kernel_zoo.load cannot pin 'attention' (it dispatches to one zoo "
                              "op per score_mod; pin attention_relpos")
    assert "ops it can pin: " in message and "matmul" in message and "no op" not in message
    # pinnable, but the shipped zoo holds no entry: the store says so, naming what there is
    with pytest.raises(ZooError, match="no zoo entry for op 'scaled_dot_product_attention' in "
                                       ".*ops there: .*matmul"):
        kernel_zoo.load("scaled_dot_product_attention", zoo=REAL_SHIPPED_ZOO)


@pytest.mark.parametrize("call, message", [
    (lambda: ops.softmax(np.zeros((2, 3), dtype=np.float32), -1),
     "kernel_zoo.ops.softmax: x must be a torch.Tensor, got numpy.ndarray"),
    (lambda: ops.softmax([1.0, 2.0], -1),
     "kernel_zoo.ops.softmax: x must be a torch.Tensor, got list"),
    (lambda: ops.rms_norm(torch.randn(2, 8), [8], [1.0] * 8),
     "kernel_zoo.ops.rms_norm: weight must be a torch.Tensor or None, got list"),
    (lambda: ops.cross_entropy(torch.randn(2, 3), [0, 1]),
     "kernel_zoo.ops.cross_entropy: target must be a torch.Tensor, got list"),
    (lambda: ops.matmul(torch.randn(2, 8), np.zeros((8, 2))),
     "kernel_zoo.ops.matmul: b must be a torch.Tensor, got numpy.ndarray"),
    (lambda: ops.linear(np.zeros((2, 8), dtype=np.float32), torch.randn(4, 8)),
     "kernel_zoo.ops.linear: x must be a torch.Tensor, got numpy.ndarray"),
    (lambda: ops.linear(torch.randn(2, 8), torch.randn(4, 8), [0.0] * 4, "relu"),
     "kernel_zoo.ops.linear: bias must be a torch.Tensor or None, got list"),
    (lambda: ops.attention(torch.randn(1, 1, 4, 16), torch.randn(1, 1, 4, 16), None,
                           score_mod="softcap"),
     "kernel_zoo.ops.attention: v must be a torch.Tensor, got NoneType"),
])
def test_a_non_tensor_argument_is_a_type_error_naming_the_op_and_argument(call, message):
    with pytest.raises(TypeError) as err:
        call()
    assert str(err.value) == message


@pytest.mark.parametrize("name", ["rms_norm", "layer_norm"])
def test_normalized_shape_is_a_sequence_as_in_torch(name):
    x = torch.randn(2, 8)
    with pytest.raises(TypeError, match=r"normalized_shape"):  # what torch itself does with 8
        getattr(F, name)(x, 8)
    with pytest.raises(TypeError) as err:
        getattr(ops, name)(x, 8)
    assert str(err.value) == (f"kernel_zoo.ops.{name}: normalized_shape must be a tuple or list "
                              f"of ints, as for F.{name}, got int; write (8,)")
    for shape in ((8,), [8], x.shape[-1:]):
        torch.testing.assert_close(getattr(ops, name)(x, shape), getattr(F, name)(x, [8]))


def _compiled_cases() -> list:
    """(name, fn, inputs): each a zoo op where its result's dtype or layout is not its first
    input's, or its arguments are shaped as torch allows and a hand-written fake did not."""
    torch.manual_seed(0)
    q = torch.randn(2, 5, 3, 16).transpose(1, 2)  # (B, H, L, D) as an MHA block views it
    x_t = torch.randn(8, 4).t()
    return [
        ("sum of bool", lambda m: ops.sum(m, 1), (torch.rand(4, 300) > 0.1,)),
        ("sum of int8", lambda m: ops.sum(m, 0), (torch.randint(-100, 100, (300, 4),
                                                                dtype=torch.int8),)),
        ("swiglu float16 * float32", ops.swiglu, (torch.randn(4, 8).half(), torch.randn(4, 8))),
        ("geglu float32 * float16", ops.geglu, (torch.randn(4, 8), torch.randn(4, 8).half())),
        ("sdpa of transposed heads", lambda q, k, v: ops.scaled_dot_product_attention(q, k, v),
         (q, q, q)),
        ("sdpa with v's own head dim", lambda q, k, v: ops.scaled_dot_product_attention(q, k, v),
         (q.contiguous(), q.contiguous(), torch.randn(2, 3, 5, 8))),
        ("add_rms_norm of a transposed x", ops.add_rms_norm, (x_t, torch.randn(4, 8),
                                                               torch.randn(8))),
        ("add_rms_norm broadcasting x", ops.add_rms_norm, (torch.randn(8), torch.randn(4, 8),
                                                           torch.randn(8))),
        ("add_rms_norm float16 + float32", ops.add_rms_norm, (torch.randn(4, 8).half(),
                                                              torch.randn(4, 8), torch.randn(8))),
        ("linear with a 1-d weight", ops.linear, (torch.randn(3, 8), torch.randn(8))),
        ("sum of a permuted x", lambda t: ops.sum(t, 1), (torch.randn(6, 5, 7).permute(2, 0, 1),)),
        ("amax over two dims", lambda t: ops.amax(t, (0, 2)), (torch.randn(3, 4, 5),)),
    ]




def test_each_ops_fake_promises_the_dtype_shape_and_layout_it_returns():
    """What torch.compile plans from, checked by torch.library.opcheck against the real call at
    every case of `_compiled_cases` (on the CPU: PyTorch itself behind each op)."""
    from kernel_zoo import _ops_attention, _ops_gemm

    # each case's custom op and the arguments the public function adds to the case's tensors
    custom = {
        "sum of bool": (ops._reduction_ops["sum"], (1,)),
        "sum of int8": (ops._reduction_ops["sum"], (0,)),
        "swiglu float16 * float32": (ops._swiglu_op, ()),
        "geglu float32 * float16": (ops._geglu_op, ()),
        "sdpa of transposed heads": (_ops_attention._sdpa_op, (False, None)),
        "sdpa with v's own head dim": (_ops_attention._sdpa_op, (False, None)),
        "add_rms_norm of a transposed x": (ops._add_rms_norm_op, (1e-6,)),
        "add_rms_norm broadcasting x": (ops._add_rms_norm_op, (1e-6,)),
        "add_rms_norm float16 + float32": (ops._add_rms_norm_op, (1e-6,)),
        "linear with a 1-d weight": (_ops_gemm._linear_op, ()),
        "sum of a permuted x": (ops._reduction_ops["sum"], (1,)),
        "amax over two dims": None,  # a tuple of dims runs torch.amax, never the custom op
    }
    cases = _compiled_cases()
    assert {name for name, _, _ in cases} == set(custom)
    for name, _, args in cases:
        if custom[name] is None:
            continue
        op, more = custom[name]
        result = torch.library.opcheck(op, (*args, *more), test_utils=("test_faketensor",))
        assert result == {"test_faketensor": "SUCCESS"}, (name, result)


# Inductor on the CPU compiles C++ (~2 s per case here): two cases there, every case on a GPU
_ON_THE_CPU = ("sum of bool", "swiglu float16 * float32")


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_compiled_ops_give_torchs_results_dtypes_and_layouts(device):
    """Under torch.compile (Inductor) the fakes promised the first input's dtype: a sum of bool
    (int64) read back as bool gave [1, 1, 0, 0] for [269, 270, 276, 259], silu(float16) * float32
    read as float16 gave values 100x off; and outputs laid out otherwise than the fake said (an
    SDPA of transposed heads) failed Inductor's stride check. Each case, compiled, now equals the
    same call made eagerly (PyTorch itself on the CPU; on a GPU the zoo's kernels where an entry
    serves the call), in values and dtype."""
    cases = [(name, fn, tuple(a.to(device) for a in args))
             for name, fn, args in _compiled_cases() if device != "cpu" or name in _ON_THE_CPU]

    def every(*inputs):
        outs, at = [], 0
        for _, fn, args in cases:
            out = fn(*inputs[at:at + len(args)])
            at += len(args)
            outs.extend(out if isinstance(out, tuple) else (out,))
        return [o * 1 for o in outs]  # an op after each, planned from the fake's metadata

    flat = [a for _, _, args in cases for a in args]
    compiled = torch.compile(every, fullgraph=True)(*flat)
    with torch.no_grad():
        eager = every(*flat)
    names = [name for name, fn, args in cases
             for _ in range(2 if fn is ops.add_rms_norm else 1)]
    assert len(compiled) == len(eager) == len(names)
    for name, got, want in zip(names, compiled, eager):
        assert got.dtype == want.dtype and got.shape == want.shape, name
        torch.testing.assert_close(got, want, msg=name)


def test_ops_match_torch_eagerly_where_dtypes_promote_and_dims_are_tuples():
    m = torch.rand(4, 300) > 0.1
    assert torch.equal(ops.sum(m, 1), torch.sum(m, 1))
    a, b = torch.randn(4, 8).half(), torch.randn(4, 8)
    torch.testing.assert_close(ops.swiglu(a, b), F.silu(a) * b)
    x = torch.randn(3, 4, 5, requires_grad=True)
    for name in ("sum", "mean", "amax", "amin"):  # needed the schema's one int with grad
        got, want = getattr(ops, name)(x, (0, 2)), getattr(torch, name)(x, (0, 2))
        torch.testing.assert_close(got, want)
        g, = torch.autograd.grad(got.square().sum(), x)
        torch.testing.assert_close(g, torch.autograd.grad(want.square().sum(), x)[0])


def _double(*shape):
    return torch.randn(*shape, dtype=torch.float64, requires_grad=True)


@pytest.mark.parametrize("name, fn, inputs", [
    ("rms_norm", lambda x, w: ops.rms_norm(x, (5,), w), lambda: (_double(3, 5), _double(5))),
    ("layer_norm", lambda x, w, b: ops.layer_norm(x, (5,), w, b),
     lambda: (_double(3, 5), _double(5), _double(5))),
    ("add_rms_norm", lambda x, r, w: ops.add_rms_norm(x, r, w),
     lambda: (_double(3, 5), _double(3, 5), _double(5))),
    ("swiglu", ops.swiglu, lambda: (_double(3, 5), _double(3, 5))),
    ("swiglu of x and 2x + 1", lambda x: ops.swiglu(x, 2 * x + 1), lambda: (_double(3, 5),)),
    ("geglu", ops.geglu, lambda: (_double(3, 5), _double(3, 5))),
    ("cross_entropy", lambda z: ops.cross_entropy(z, torch.tensor([0, 2, 1])),
     lambda: (_double(3, 4),)),
    ("linear", lambda x, w, b: ops.linear(x, w, b, "gelu"),
     lambda: (_double(3, 5), _double(4, 5), _double(4))),
    ("matmul", ops.matmul, lambda: (_double(3, 5), _double(5, 2))),
    ("mean", lambda x: ops.mean(x, 1), lambda: (_double(3, 5),)),
    ("softmax", lambda x: ops.softmax(x, 1), lambda: (_double(3, 5),)),
])
def test_second_derivatives_are_the_references(name, fn, inputs):
    """The backward by recomputation detached the gradient it built: a gradient penalty (its
    derivative, under create_graph=True) came out silently wrong, by 7.4 for rms_norm."""
    torch.manual_seed(0)
    assert torch.autograd.gradgradcheck(fn, inputs()), name


@pytest.mark.parametrize("call, error, message", [
    (lambda: ops.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1, 2]), torch.ones(4)),
     TypeError, "kernel_zoo.ops.cross_entropy: ignore_index (the third argument) must be an int, "
     "got torch.Tensor; class weights (F.cross_entropy's third argument) are not supported here: "
     "call F.cross_entropy for them"),
    (lambda: ops.add_rms_norm(torch.randn(4, 8), torch.randn(4, 8), torch.randn(3)),
     ValueError, "kernel_zoo.ops.add_rms_norm: weight has shape [3]; it must be (8,), the last "
     "dim of x + residual [4, 8]"),
    (lambda: kernel_zoo.load("softmax", 1), TypeError,
     "kernel_zoo.load: version must be a string such as '1.1.0' (`kzoo zoo list` shows them), "
     "got int 1"),
])
def test_a_mistake_torch_would_word_otherwise_is_named(call, error, message):
    """F.cross_entropy's third argument (weight) given here ran into 'argument ignore_index
    (position 5) must be int'; a wrong add_rms_norm weight was blamed on x's shape; a version
    given as a number failed inside a regex."""
    with pytest.raises(error) as err:
        call()
    assert str(err.value) == message


def test_gated_ops_broadcast_as_torch_does():
    a, b = torch.randn(8), torch.randn(4, 8)
    torch.testing.assert_close(ops.swiglu(a, b), F.silu(a) * b)
    torch.testing.assert_close(ops.geglu(b, a), F.gelu(b) * a)
