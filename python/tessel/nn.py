"""Drop-in modules on tessel's operators (tessel.ops), and replace() to swap them into a model.

    model = torchvision.models.resnet50().cuda().half().to(memory_format=torch.channels_last)
    report = tessel.nn.replace(model)      # nn.Linear / nn.Conv2d -> tessel.nn.Linear / Conv2d
    print(report)                          # what was swapped, and why the rest was not

The modules keep nn.Linear's and nn.Conv2d's parameters and state_dict. Their forward runs
tessel when the input is a float16 or bfloat16 CUDA tensor of the parameters' dtype, and torch
otherwise (a CPU model, float32): tessel covers what it supports and leaves the rest to torch.
"""

from __future__ import annotations

from typing import List

import torch
from torch import nn
from torch.nn import functional as TF

from . import ops

_DTYPES = (torch.float16, torch.bfloat16)


def _runs_on_tessel(x: torch.Tensor, weight: torch.Tensor) -> bool:
    return x.is_cuda and x.dtype in _DTYPES and weight.dtype == x.dtype


class Linear(nn.Linear):
    """nn.Linear on tessel's GEMM: y = x @ weight^T + bias, any leading dimensions."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not _runs_on_tessel(x, self.weight) or (self.bias is not None and self.bias.dtype != x.dtype):
            return TF.linear(x, self.weight, self.bias)
        lead = x.shape[:-1]
        y = ops.gemm(ops.matrix(x.reshape(-1, x.shape[-1])), ops.matrix(self.weight).t(), None, self.bias, 1.0, 0.0,
                     "none")
        return y.reshape(*lead, self.out_features)


class Conv2d(nn.Conv2d):
    """nn.Conv2d on tessel's implicit GEMM (zero padding; the result is channels_last)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (self.padding_mode != "zeros" or isinstance(self.padding, str) or x.dim() != 4 or
                not _runs_on_tessel(x, self.weight) or (self.bias is not None and self.bias.dtype != x.dtype)):
            return super().forward(x)
        cl = torch.channels_last
        return ops.conv2d(x.contiguous(memory_format=cl), self.weight.contiguous(memory_format=cl), self.bias,
                          list(self.stride), list(self.padding), list(self.dilation), self.groups, "none")


def _unsupported(m: nn.Module) -> str:
    """Why tessel leaves module m to torch ('' when it takes it)."""
    if isinstance(m, nn.Conv2d):
        if m.padding_mode != "zeros":
            return f"padding_mode {m.padding_mode!r} (tessel pads with zeros)"
        if isinstance(m.padding, str):
            return f"padding={m.padding!r} (tessel takes explicit padding)"
        if isinstance(m, nn.LazyConv2d):
            return "a lazy module"
    if isinstance(m, nn.Linear) and isinstance(m, nn.LazyLinear):
        return "a lazy module"
    return ""


def replace(model: nn.Module) -> List[str]:
    """Swaps model's nn.Linear and nn.Conv2d modules (in place) for tessel.nn.Linear and
    tessel.nn.Conv2d where tessel supports their configuration; returns one line per module
    saying what happened."""
    report: List[str] = []
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            path = f"{name}.{child_name}" if name else child_name
            if type(child) not in (nn.Linear, nn.Conv2d):
                continue
            why = _unsupported(child)
            if why:
                report.append(f"{path}: kept ({type(child).__name__}: {why})")
                continue
            child.__class__ = Linear if isinstance(child, nn.Linear) else Conv2d
            report.append(f"{path}: tessel.nn.{child.__class__.__name__}")
    return report


__all__ = ["Linear", "Conv2d", "replace"]
