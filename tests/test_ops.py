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
