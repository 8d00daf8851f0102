"""tessel's kernels as PyTorch operators: torch.ops.tessel.gemm and torch.ops.tessel.conv2d.

Registered with torch.library (with torch.ops.tessel.conv2d_input_grad and conv2d_weight_grad,
which conv2d's backward runs), so that autograd differentiates them (gemm's backward runs on
gemm, conv2d's on the input and weight gradients), torch.compile traces them through their fake
(meta) implementations, and CUDA graphs capture them (they allocate through torch and run on
its current stream). Imported by `import tessel` when torch is installed.

    y = torch.ops.tessel.gemm(a, b, None, bias, 1.0, 0.0, "relu")
    y = torch.ops.tessel.conv2d(x, w, bias, [1, 1], [1, 1], [1, 1], 1, "none")

Gradients flow through activation "none" and "relu"; a fused "gelu" has no backward (its input
is not kept): use activation "none" and torch's gelu when training.
"""

from __future__ import annotations

from typing import List, Optional

import torch

from . import _functional as F

_ACTIVATIONS = ("none", "relu", "gelu")


def _act(activation: str) -> Optional[str]:
    if activation not in _ACTIVATIONS:
        raise ValueError(f"tessel: activation must be one of {_ACTIVATIONS}, not {activation!r}")
    return None if activation == "none" else activation


def matrix(t: torch.Tensor) -> torch.Tensor:
    """t, or a packed copy when its last two dimensions are not a row- or column-major matrix
    with a leading dimension (an expanded gradient such as sum()'s has strides (0, 0)): what
    tessel.gemm can address."""
    rows, cols = t.shape[-2:]
    rs, cs = t.stride(-2), t.stride(-1)
    if (cs == 1 or cols == 1) and rs >= max(cols, 1) or (rs == 1 or rows == 1) and cs >= max(rows, 1):
        return t
    return t.contiguous()


def _gemm_shape(a: torch.Tensor, b: torch.Tensor) -> List[int]:
    if a.dim() not in (2, 3) or b.dim() not in (2, 3):
        raise ValueError("tessel.gemm: a and b must be 2-d or 3-d (batched)")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"tessel.gemm: a is {tuple(a.shape)} and b {tuple(b.shape)}: K differs")
    m, n = a.shape[-2], b.shape[-1]
    if a.dim() == 2 and b.dim() == 2:
        return [m, n]
    batch = max(a.shape[0] if a.dim() == 3 else 1, b.shape[0] if b.dim() == 3 else 1)
    return [batch, m, n]


@torch.library.custom_op("tessel::gemm", mutates_args=())
def gemm(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor], bias: Optional[torch.Tensor], alpha: float,
         beta: float, activation: str, out_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    """act(alpha * a @ b + beta * c + bias) (tessel.gemm, as an operator)."""
    return F.gemm(a, b, c=c, bias=bias, alpha=alpha, beta=beta, activation=_act(activation), out_dtype=out_dtype)


@gemm.register_fake
def _(a, b, c, bias, alpha, beta, activation, out_dtype=None):
    _act(activation)
    return a.new_empty(_gemm_shape(a, b), dtype=out_dtype if out_dtype is not None else a.dtype)


def _gemm_setup(ctx, inputs, output):
    a, b, c, bias, alpha, beta, activation, _ = inputs
    ctx.save_for_backward(a, b, output if activation == "relu" else None)
    ctx.alpha, ctx.beta, ctx.activation = alpha, beta, activation
    ctx.has_c, ctx.has_bias = c is not None, bias is not None
    ctx.c_dtype = c.dtype if c is not None else None
    ctx.bias_dtype = bias.dtype if bias is not None else None


def _sum_to(g: torch.Tensor, shape) -> torch.Tensor:
    """g summed over the batch dimension a broadcast operand did not have."""
    return g.sum(0) if g.dim() == 3 and len(shape) == 2 else g.sum(0, keepdim=True) if (
        g.dim() == 3 and shape[0] == 1 and g.shape[0] != 1) else g


def _gemm_backward(ctx, grad):
    a, b, out = ctx.saved_tensors
    if ctx.activation == "gelu":
        raise NotImplementedError("tessel.gemm: no backward through a fused GELU; use activation 'none' and "
                                  "torch's gelu")
    g = grad if out is None else grad * (out > 0)
    ga = gb = gc = gbias = None
    gi = matrix(g.to(a.dtype))  # tessel multiplies f16 or bf16
    if ctx.needs_input_grad[0]:  # alpha * g @ b^T
        bt = b.transpose(-1, -2)
        ga = _sum_to(gemm(gi, bt, None, None, ctx.alpha, 0.0, "none", a.dtype), a.shape)
    if ctx.needs_input_grad[1]:  # alpha * a^T @ g
        if b.dim() == 2 and gi.dim() == 3:  # shared b: sum over batches as one product
            gb = gemm(a.reshape(-1, a.shape[-1]).t(), gi.reshape(-1, gi.shape[-1]), None, None, ctx.alpha, 0.0,
                      "none", b.dtype)
        else:
            gb = _sum_to(gemm(a.transpose(-1, -2), gi, None, None, ctx.alpha, 0.0, "none", b.dtype), b.shape)
    if ctx.has_c and ctx.needs_input_grad[2]:
        gc = (ctx.beta * g).to(ctx.c_dtype)
    if ctx.has_bias and ctx.needs_input_grad[3]:
        gbias = g.reshape(-1, g.shape[-1]).float().sum(0).to(ctx.bias_dtype)
    return ga, gb, gc, gbias, None, None, None, None


gemm.register_autograd(_gemm_backward, setup_context=_gemm_setup)


def _conv_out_shape(x, w, stride, padding, dilation):
    n, _, h, wd = x.shape
    k, _, r, s = w.shape
    p = (h + 2 * padding[0] - dilation[0] * (r - 1) - 1) // stride[0] + 1
    q = (wd + 2 * padding[1] - dilation[1] * (s - 1) - 1) // stride[1] + 1
    return [n, k, p, q]


@torch.library.custom_op("tessel::conv2d", mutates_args=())
def conv2d(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor], stride: List[int],
           padding: List[int], dilation: List[int], groups: int, activation: str) -> torch.Tensor:
    """act(conv2d(x, weight) + bias) on channels_last tensors (tessel.conv2d, as an operator)."""
    return F.conv2d(x, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups,
                    activation=_act(activation))


@conv2d.register_fake
def _(x, weight, bias, stride, padding, dilation, groups, activation):
    _act(activation)
    return x.new_empty(_conv_out_shape(x, weight, stride, padding, dilation)).contiguous(
        memory_format=torch.channels_last)


@torch.library.custom_op("tessel::conv2d_input_grad", mutates_args=())
def conv2d_input_grad(input_shape: List[int], weight: torch.Tensor, grad_output: torch.Tensor, stride: List[int],
                      padding: List[int], dilation: List[int], groups: int) -> torch.Tensor:
    """conv2d's gradient with respect to its input (tessel.conv2d_input_grad, as an operator)."""
    return F.conv2d_input_grad(input_shape, weight, grad_output, tuple(stride), tuple(padding), tuple(dilation),
                               groups)


@conv2d_input_grad.register_fake
def _(input_shape, weight, grad_output, stride, padding, dilation, groups):
    return grad_output.new_empty(list(input_shape)).contiguous(memory_format=torch.channels_last)


@torch.library.custom_op("tessel::conv2d_weight_grad", mutates_args=())
def conv2d_weight_grad(x: torch.Tensor, weight_shape: List[int], grad_output: torch.Tensor, stride: List[int],
                       padding: List[int], dilation: List[int], groups: int) -> torch.Tensor:
    """conv2d's gradient with respect to its weight (tessel.conv2d_weight_grad, as an operator)."""
    return F.conv2d_weight_grad(x, weight_shape, grad_output, tuple(stride), tuple(padding), tuple(dilation), groups)


@conv2d_weight_grad.register_fake
def _(x, weight_shape, grad_output, stride, padding, dilation, groups):
    return grad_output.new_empty(list(weight_shape)).contiguous(memory_format=torch.channels_last)


def _conv_setup(ctx, inputs, output):
    x, weight, bias, stride, padding, dilation, groups, activation = inputs
    ctx.save_for_backward(x, weight, output if activation == "relu" else None)
    ctx.conv = (list(stride), list(padding), list(dilation), groups)
    ctx.activation, ctx.has_bias = activation, bias is not None
    ctx.bias_dtype = bias.dtype if bias is not None else None


def _conv_backward(ctx, grad):
    x, weight, out = ctx.saved_tensors
    if ctx.activation == "gelu":
        raise NotImplementedError("tessel.conv2d: no backward through a fused GELU; use activation 'none' and "
                                  "torch's gelu")
    g = grad if out is None else grad * (out > 0)
    g = g.to(x.dtype).contiguous(memory_format=torch.channels_last)
    gx = gw = gbias = None
    if ctx.needs_input_grad[0]:
        gx = conv2d_input_grad(list(x.shape), weight, g, *ctx.conv)
    if ctx.needs_input_grad[1]:
        gw = conv2d_weight_grad(x, list(weight.shape), g, *ctx.conv)
    if ctx.has_bias and ctx.needs_input_grad[2]:
        gbias = (grad if out is None else grad * (out > 0)).float().sum((0, 2, 3)).to(ctx.bias_dtype)
    return gx, gw, gbias, None, None, None, None, None


conv2d.register_autograd(_conv_backward, setup_context=_conv_setup)
