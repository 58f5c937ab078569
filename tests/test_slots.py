"""kernel_zoo.slots, the trusted side of the norm template's `epoch_slots`: what the verifier's
guards let a candidate use of it (epoch_words, called where it is named, and nothing else), and
what it hands out off the GPU (words zeroed for the call, after a counter word)."""

import dataclasses
from pathlib import Path

import pytest
import torch

import tasks
from agent.plan import plan
from kernel_zoo import slots
from verifier import guards

ROOT = Path(__file__).resolve().parents[1]
WRAPPER = '''import torch
{imports}

{body}


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x
'''
REJECTED = [
    ("bare_import", "import kernel_zoo.slots", "", "forbidden-import"),
    ("private_buffers", "from kernel_zoo import slots", "b = slots._BUFFERS", "forbidden-api"),
    ("other_name", "from kernel_zoo import slots", "t = slots.torch", "forbidden-api"),
    ("call_as_value", "from kernel_zoo import slots", "f = slots.epoch_words", "forbidden-api"),
    ("module_as_value", "from kernel_zoo import slots", "s = slots", "forbidden-api"),
    ("import_other", "from kernel_zoo.slots import torch", "", "forbidden-import"),
    ("store", "from kernel_zoo import store", "", "forbidden-import"),
    ("stream_still", "from kernel_zoo import slots",
     "def f(device):\n    return torch.cuda.current_stream(device)", "side-stream"),
]


@pytest.mark.parametrize("imports,body,exploit", [r[1:] for r in REJECTED],
                         ids=[r[0] for r in REJECTED])
def test_guards_keep_candidates_to_epoch_words(imports, body, exploit):
    findings = guards.check_source(WRAPPER.format(imports=imports, body=body))
    assert exploit in {f.exploit for f in findings}, findings


def test_guards_allow_epoch_words_called_where_named():
    for imports, call in (("from kernel_zoo import slots", "slots.epoch_words"),
                          ("import kernel_zoo.slots as ws", "ws.epoch_words"),
                          ("from kernel_zoo.slots import epoch_words", "epoch_words")):
        body = f"def words(n, device):\n    return {call}(n, device)"
        source = WRAPPER.format(imports=imports, body=body)
        assert guards.check_source(source) == [], (imports, guards.check_source(source))


@pytest.mark.parametrize("name", ["rms_norm", "add_rms_norm"])
def test_epoch_slots_renders_pass_the_guards(name):
    found = plan(tasks.load(ROOT / "tasks" / f"{name}.py"))
    norm = found.template_object()
    for lag in (False, True):
        for tag, call in (("ticket", "slots.epoch_words(n_rows * ROW_SPLIT, device)"),
                          ("own", 'slots.epoch_words(n_rows * ROW_SPLIT, device, tag="own")')):
            cfg = dataclasses.replace(norm.default, single_pass_max=32768, row_split=32,
                                      row_ahead=True, row_lag=lag, epoch_slots=True,
                                      slot_tag=tag)
            source = norm.render(cfg, **found.context)
            assert call in source
            assert guards.check_source(source) == []


def test_epoch_words_off_the_gpu_are_zeroed_for_the_call():
    for device in (torch.device("cpu"), torch.device("meta")):
        first = slots.epoch_words(40, device)
        assert first.shape == (40,) and first.dtype == torch.int64
        assert first.storage_offset() == 1  # the counter word before the slots
        if device.type == "cpu":
            assert not first.any()
            first.fill_(7)
            assert not slots.epoch_words(40, device).any()  # none kept across calls
    assert not slots._BUFFERS and not slots._SPARES
    with pytest.raises(ValueError, match="at least 1"):
        slots.epoch_words(0, torch.device("cpu"))
    with pytest.raises(ValueError, match="tag must be one of"):
        slots.epoch_words(4, torch.device("cpu"), tag="counter")
