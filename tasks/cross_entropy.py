"""Cross-entropy forward with mean reduction and ignore_index, KernelBench style: Model(ignore_index).

Vocabularies of LLMs: 128256 (Llama 3) over 4096 rows (the large shape, 1 GB of bfloat16 logits)
and over 64 rows (few rows: the vocabulary must be split to fill the GPU), 32000 (Llama 2) and an
odd 50257 (GPT-2) over an odd 4099 rows. One target in 16 is ignore_index; ignored rows need not be
read, so the byte floor counts only the rows that count.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, ignore_index: int = -100):
        super().__init__()
        self.ignore_index = ignore_index

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(logits, target, ignore_index=self.ignore_index)


batch_size = 4096
vocab_size = 128256
ignore_index = -100
logit_scale = 4.0


def _ignored(batch_size):
    return (batch_size + 15) // 16


def get_inputs():
    logits = torch.randn(batch_size, vocab_size) * logit_scale
    target = torch.randint(0, vocab_size, (batch_size,))
    target[torch.randperm(batch_size)[: _ignored(batch_size)]] = ignore_index
    return [logits, target]


def get_init_inputs():
    return [ignore_index]


KZOO = {
    "op": "cross_entropy",
    "shapes": [
        {"batch_size": 4096, "vocab_size": 128256},
        {"batch_size": 1024, "vocab_size": 32000},
        {"batch_size": 4099, "vocab_size": 50257},
        {"batch_size": 64, "vocab_size": 128256},
    ],
    # Triton's interpreter: rows split across programs (few rows), a misaligned odd vocabulary
    # over enough rows to run unsplit, and a row wider than any tile.
    "cpu_shapes": [
        {"batch_size": 5, "vocab_size": 1000},
        {"batch_size": 3, "vocab_size": 20001},
        {"batch_size": 17, "vocab_size": 4097},
    ],
    "dtypes": ["float32", "bfloat16", "float16"],
    "bytes": lambda batch_size, vocab_size, itemsize: (
        (batch_size - _ignored(batch_size)) * vocab_size * itemsize + batch_size * 8 + itemsize
    ),
    "flops": lambda batch_size, vocab_size: 4 * batch_size * vocab_size,
}
