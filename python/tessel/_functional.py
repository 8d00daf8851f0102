"""tessel's functions on arrays: torch tensors, or any array that speaks DLPack.

The extension (python/src/tessel_ext.cpp) checks devices, dtypes and layouts and runs the kernel
on a stream; this module works out shapes, allocates results and picks the caller's stream:
torch's current stream for torch tensors, CuPy's for CuPy arrays.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

from . import _tessel
from ._tessel import TesselError

IntPair = Union[int, Sequence[int]]


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _is_torch(x: Any) -> bool:
    torch = _torch()
    return torch is not None and isinstance(x, torch.Tensor)


def _is_cupy(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "cupy"


def _stream(x: Any) -> int:
    """The caller's current stream on x's device (0, the default stream, for other arrays)."""
    if _is_torch(x):
        if not x.is_cuda:
            return 0  # the extension reports the CPU tensor
        return _torch().cuda.current_stream(x.device).cuda_stream
    if _is_cupy(x):
        import cupy

        return cupy.cuda.get_current_stream().ptr
    return 0


def _empty(like: Any, shape: Tuple[int, ...], dtype: Any, channels_last: bool = False) -> Any:
    """A result on like's device, of like's kind (torch or CuPy)."""
    if _is_torch(like):
        torch = _torch()
        if channels_last:
            return torch.empty(shape, dtype=dtype, device=like.device, memory_format=torch.channels_last)
        return torch.empty(shape, dtype=dtype, device=like.device)
    if _is_cupy(like):
        import cupy

        with cupy.cuda.Device(like.device.id):
            return cupy.empty(shape, dtype=dtype)
    raise TypeError(
        f"tessel: cannot allocate a result for a {type(like).__name__}: pass out=, or use torch tensors or CuPy arrays"
    )


def _pair(name: str, v: IntPair) -> Tuple[int, int]:
    if isinstance(v, int):
        return v, v
    t = tuple(v)
    if len(t) != 2 or not all(isinstance(i, int) for i in t):
        raise ValueError(f"tessel: {name} must be an int or a pair of ints, not {v!r}")
    return t  # type: ignore[return-value]


def _activation(activation: Optional[str]) -> Optional[str]:
    if activation is None:
        return None
    if not isinstance(activation, str):
        raise TypeError(f"tessel: activation must be None, 'relu' or 'gelu', not {activation!r}")
    return activation.lower()


def gemm(
    a: Any,
    b: Any,
    *,
    c: Any = None,
    bias: Any = None,
    alpha: float = 1.0,
    beta: float = 0.0,
    activation: Optional[str] = None,
    out_dtype: Any = None,
    out: Any = None,
) -> Any:
    """out = act(alpha * a @ b + beta * c + bias).

    a (M, K) or (batch, M, K); b (K, N) or (batch, K, N), a batch of 1 or a 2-d operand being
    shared by every batch; c and out (M, N) or (batch, M, N); bias (N,). Inputs float16 or
    bfloat16 (both the same); out float16, bfloat16 or float32 (default: the inputs' dtype).
    Every operand may be row- or column-major with a leading dimension (transposed views and
    slices work without a copy). c is read only when beta != 0; it may be out itself.
    activation: None, "relu" or "gelu" (tanh approximation). Runs on the caller's current
    stream; raises tessel.TesselError with tessel's message for anything it cannot run.
    """
    for name, x in (("a", a), ("b", b)):
        if not hasattr(x, "shape") or len(x.shape) not in (2, 3):
            raise ValueError(f"tessel.gemm: {name} must be a 2-d or 3-d array (batched)")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"tessel.gemm: a is {tuple(a.shape)} and b {tuple(b.shape)}: their K ({a.shape[-1]} and "
                         f"{b.shape[-2]}) differ")
    batches = {x.shape[0] for x in (a, b) if len(x.shape) == 3} - {1}
    if len(batches) > 1:
        raise ValueError(f"tessel.gemm: a and b have different batch counts {sorted(batches)}")
    batched = len(a.shape) == 3 or len(b.shape) == 3
    batch = batches.pop() if batches else 1
    shape = (batch, a.shape[-2], b.shape[-1]) if batched else (a.shape[-2], b.shape[-1])
    if out is None:
        out = _empty(a, shape, out_dtype if out_dtype is not None else a.dtype)
    elif tuple(out.shape) != shape:
        raise ValueError(f"tessel.gemm: out is {tuple(out.shape)}, the product {shape}")
    _tessel.gemm(a, b, out, c, bias, float(alpha), float(beta), _activation(activation), _stream(a))
    return out


def _conv_shape(stride: IntPair, padding: IntPair, dilation: IntPair, groups: int) -> "_tessel.ConvShape":
    sh, sw = _pair("stride", stride)
    ph, pw = _pair("padding", padding)
    dh, dw = _pair("dilation", dilation)
    if not isinstance(groups, int):
        raise TypeError(f"tessel: groups must be an int, not {groups!r}")
    return _tessel.ConvShape(sh, sw, ph, pw, dh, dw, groups)


def _output_extent(extent: int, pad: int, dilation: int, taps: int, stride: int) -> int:
    if stride < 1:
        raise ValueError(f"tessel.conv2d: stride must be at least 1, not {stride}")
    return (extent + 2 * pad - dilation * (taps - 1) - 1) // stride + 1


def _nhwc(x: Any, name: str, where: str) -> Any:
    """An (N, C, H, W) torch tensor as its (N, H, W, C) view (packed when x is channels_last)."""
    if not _is_torch(x):
        raise TypeError(f"{where}: {name} must be a torch tensor (N, C, H, W) in channels_last memory")
    if x.dim() != 4:
        raise ValueError(f"{where}: {name} must be 4-d (N, C, H, W), not {x.dim()}-d")
    return x.permute(0, 2, 3, 1)


def conv2d(
    x: Any,
    weight: Any,
    bias: Any = None,
    stride: IntPair = 1,
    padding: IntPair = 0,
    dilation: IntPair = 1,
    groups: int = 1,
    *,
    residual: Any = None,
    alpha: float = 1.0,
    beta: float = 0.0,
    activation: Optional[str] = None,
    out_dtype: Any = None,
) -> Any:
    """out = act(alpha * conv2d(x, weight) + beta * residual + bias), as torch.nn.functional.conv2d
    (cross-correlation) with a fused epilogue.

    x (N, C, H, W) and weight (K, C/groups, R, S) torch tensors in channels_last memory, float16
    or bfloat16; bias (K,) and residual (N, K, P, Q) of the output dtype (default: x's). The
    result is channels_last. Raises tessel.TesselError for what tessel cannot run.
    """
    where = "tessel.conv2d"
    xv, wv = _nhwc(x, "x", where), _nhwc(weight, "weight", where)
    s = _conv_shape(stride, padding, dilation, groups)
    n, h, w_, _ = xv.shape
    k, r, s_, _ = wv.shape
    sh, sw = _pair("stride", stride)
    ph, pw = _pair("padding", padding)
    dh, dw = _pair("dilation", dilation)
    p, q = _output_extent(h, ph, dh, r, sh), _output_extent(w_, pw, dw, s_, sw)
    if p < 1 or q < 1:
        raise ValueError(f"{where}: the filter ({r}x{s_}, dilation {dh}x{dw}) does not fit the padded image "
                         f"({h}x{w_}, padding {ph}x{pw})")
    out = _empty(x, (n, k, p, q), out_dtype if out_dtype is not None else x.dtype, channels_last=True)
    rv = _nhwc(residual, "residual", where) if residual is not None else None
    _tessel.conv2d_fprop(xv, wv, out.permute(0, 2, 3, 1), rv, bias, s, float(alpha), float(beta),
                         _activation(activation), _stream(x))
    return out


def conv2d_input_grad(
    input_shape: Sequence[int],
    weight: Any,
    grad_output: Any,
    stride: IntPair = 1,
    padding: IntPair = 0,
    dilation: IntPair = 1,
    groups: int = 1,
    *,
    out_dtype: Any = None,
) -> Any:
    """The gradient of conv2d with respect to x, of shape input_shape (N, C, H, W), channels_last,
    as torch.nn.grad.conv2d_input."""
    where = "tessel.conv2d_input_grad"
    n, c, h, w_ = (int(i) for i in input_shape)
    dyv, wv = _nhwc(grad_output, "grad_output", where), _nhwc(weight, "weight", where)
    out = _empty(grad_output, (n, c, h, w_), out_dtype if out_dtype is not None else grad_output.dtype,
                 channels_last=True)
    _tessel.conv2d_dgrad(dyv, wv, out.permute(0, 2, 3, 1), _conv_shape(stride, padding, dilation, groups),
                         _stream(grad_output))
    return out


def conv2d_weight_grad(
    x: Any,
    weight_shape: Sequence[int],
    grad_output: Any,
    stride: IntPair = 1,
    padding: IntPair = 0,
    dilation: IntPair = 1,
    groups: int = 1,
    *,
    out_dtype: Any = None,
) -> Any:
    """The gradient of conv2d with respect to weight, of shape weight_shape (K, C/groups, R, S),
    channels_last, as torch.nn.grad.conv2d_weight."""
    where = "tessel.conv2d_weight_grad"
    k, cg, r, s_ = (int(i) for i in weight_shape)
    dyv, xv = _nhwc(grad_output, "grad_output", where), _nhwc(x, "x", where)
    out = _empty(grad_output, (k, cg, r, s_), out_dtype if out_dtype is not None else grad_output.dtype,
                 channels_last=True)
    _tessel.conv2d_wgrad(dyv, xv, out.permute(0, 2, 3, 1), _conv_shape(stride, padding, dilation, groups),
                         _stream(grad_output))
    return out


def gemm_plan(a: Any, b: Any, *, out_dtype: Any = None) -> dict:
    """What gemm(a, b) would run: configuration, variant, kernel and schedule (tessel::plan)."""
    batched = len(a.shape) == 3 or len(b.shape) == 3
    shape = ((max(a.shape[0] if len(a.shape) == 3 else 1, b.shape[0] if len(b.shape) == 3 else 1),)
             if batched else ()) + (a.shape[-2], b.shape[-1])
    out = _empty(a, shape, out_dtype if out_dtype is not None else a.dtype)
    return _tessel.gemm_plan(a, b, out)


__all__ = ["TesselError", "gemm", "conv2d", "conv2d_input_grad", "conv2d_weight_grad", "gemm_plan"]
