"""Modules for kernel_zoo.optimize's tests: importable, so the verifier's workers unpickle them."""

import torch
import torch.nn as nn


class ConvTail(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.shift = nn.Parameter(torch.randn(4, 1, 1))

    def forward(self, x):
        return torch.sigmoid(self.conv(x) + self.shift).mean(dim=(2, 3))
