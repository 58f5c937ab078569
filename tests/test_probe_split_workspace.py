"""bench/probe_split_workspace.py without a GPU: the stand-ins it gives a served file's `torch`
hand out the timer's buffer (`no fill`) or zero torch.empty's words with its Triton kernel
(`triton fill`, here in Triton's interpreter), so the GPU run times the launcher it means to."""

import pytest
import torch

import bench_scripts


@pytest.fixture(scope="module")
def probe():
    return bench_scripts.load("probe_split_workspace")


def test_no_fill_hands_out_views_of_the_timers_buffer(probe):
    buffer = torch.zeros(64, dtype=torch.int64)
    stand_in = probe._Torch(buffer)
    words = stand_in.zeros(40, dtype=torch.int64, device="cpu")
    assert words.data_ptr() == buffer.data_ptr() and words.numel() == 40
    assert stand_in.empty is torch.empty  # everything else is torch's
    with pytest.raises(AssertionError):
        stand_in.zeros(65, dtype=torch.int64, device="cpu")  # more than the buffer holds


def test_triton_fill_zeroes_every_word(probe, monkeypatch):
    if torch.cuda.is_available():
        pytest.skip("the interpreter's path (CPU tensors)")
    real = torch.empty
    # torch.empty's words all -1, so a word the kernel missed shows
    monkeypatch.setattr(torch, "empty", lambda *a, **k: real(*a, **k).fill_(-1))
    for n in (1, 1000, 1024, 3000):  # a partial block, whole blocks, several
        words = probe._TritonZeros().zeros(n, dtype=torch.int64, device="cpu")
        assert words.numel() == n and not words.any()
