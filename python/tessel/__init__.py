"""tessel: tensor-core GEMM and implicit-GEMM convolution from a layout algebra.

    import torch, tessel
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    d = tessel.gemm(a, b)                      # a @ b, float16, on torch's current stream
    y = tessel.conv2d(x, w, bias, stride=2, padding=1, activation="relu")   # channels_last

Importing needs no GPU; calling a kernel without one raises tessel.TesselError.
"""

from ._functional import TesselError, conv2d, conv2d_input_grad, conv2d_weight_grad, gemm, gemm_plan
from ._tessel import device_count

try:  # the PyTorch operators (torch.ops.tessel.*) and modules, where torch is installed
    import torch as _torch  # noqa: F401
except ImportError:
    pass
else:
    from . import nn, ops  # noqa: F401

__version__ = "0.1.0"
__all__ = ["TesselError", "gemm", "conv2d", "conv2d_input_grad", "conv2d_weight_grad", "gemm_plan", "device_count"]
