"""The Python package: what needs no GPU runs everywhere (import, argument errors); the rest
skips visibly without torch and a CUDA device, and on one compares every function with torch
in float64."""

import math

import numpy as np
import pytest

import tessel

try:
    import torch
except ImportError:
    torch = None

HAS_CUDA = torch is not None and torch.cuda.is_available() and tessel.device_count() > 0
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
needs_gpu = pytest.mark.skipif(not HAS_CUDA, reason="needs torch with a CUDA device")


# ---- no GPU needed ----------------------------------------------------------------------------


def test_import_and_device_count():
    assert isinstance(tessel.device_count(), int)
    assert tessel.device_count() >= 0
    assert issubclass(tessel.TesselError, RuntimeError)


def test_cpu_arrays_are_refused_with_a_reason():
    a = np.zeros((8, 16), np.float16)
    b = np.zeros((16, 8), np.float16)
    out = np.zeros((8, 8), np.float32)
    with pytest.raises(tessel.TesselError, match="not on a CUDA device"):
        tessel.gemm(a, b, out=out)


def test_dtypes_tessel_does_not_take():
    with pytest.raises(tessel.TesselError, match="a has a dtype tessel does not take"):
        tessel.gemm(np.zeros((8, 16), np.float64), np.zeros((16, 8), np.float64), out=np.zeros((8, 8), np.float32))
    with pytest.raises(tessel.TesselError, match="a and b must have the same dtype"):
        tessel.gemm(np.zeros((8, 16), np.float16), np.zeros((16, 8), np.float32), out=np.zeros((8, 8), np.float32))


def test_shapes_that_do_not_multiply():
    with pytest.raises(ValueError, match="K"):
        tessel.gemm(np.zeros((8, 16), np.float16), np.zeros((15, 8), np.float16), out=np.zeros((8, 8), np.float32))
    with pytest.raises(ValueError, match="2-d or 3-d"):
        tessel.gemm(np.zeros(16, np.float16), np.zeros((16, 8), np.float16))
    with pytest.raises(ValueError, match="out is"):
        tessel.gemm(np.zeros((8, 16), np.float16), np.zeros((16, 8), np.float16), out=np.zeros((8, 9), np.float32))


def test_a_layout_without_a_leading_dimension():
    a = np.zeros((8, 16, 2), np.float16)[:, :, 0]  # strides (32, 2): neither dimension has unit stride
    with pytest.raises(tessel.TesselError, match="row- or column-major"):
        tessel.gemm(a, np.zeros((16, 8), np.float16), out=np.zeros((8, 8), np.float32))


def test_unknown_activation():
    with pytest.raises(tessel.TesselError, match="activation"):
        tessel.gemm(np.zeros((8, 16), np.float16), np.zeros((16, 8), np.float16), out=np.zeros((8, 8), np.float32),
                    activation="tanh")


def test_arrays_it_cannot_allocate_for():
    with pytest.raises(TypeError, match="pass out="):
        tessel.gemm(np.zeros((8, 16), np.float16), np.zeros((16, 8), np.float16))


@needs_torch
def test_torch_cpu_tensors_are_refused():
    a = torch.zeros(8, 16, dtype=torch.float16)
    with pytest.raises(tessel.TesselError, match="not on a CUDA device"):
        tessel.gemm(a, torch.zeros(16, 8, dtype=torch.float16))
    x = torch.zeros(1, 8, 5, 5, dtype=torch.float16).to(memory_format=torch.channels_last)
    w = torch.zeros(8, 8, 3, 3, dtype=torch.float16).to(memory_format=torch.channels_last)
    with pytest.raises(tessel.TesselError, match="not on a CUDA device"):
        tessel.conv2d(x, w, padding=1)


@needs_torch
def test_conv_arguments():
    x = torch.zeros(1, 8, 5, 5, dtype=torch.float16).to(memory_format=torch.channels_last)
    w = torch.zeros(8, 8, 3, 3, dtype=torch.float16).to(memory_format=torch.channels_last)
    with pytest.raises(ValueError, match="does not fit"):
        tessel.conv2d(x, torch.zeros(8, 8, 7, 7, dtype=torch.float16).to(memory_format=torch.channels_last))
    with pytest.raises(ValueError, match="stride"):
        tessel.conv2d(x, w, stride=(1, 2, 3))
    with pytest.raises(tessel.TesselError, match="channels-last"):
        tessel.conv2d(x.contiguous(), w)  # NCHW memory


# ---- on the GPU -----------------------------------------------------------------------------


def _reference_gemm(a, b, c, bias, alpha, beta, activation):
    r = alpha * (a.double() @ b.double())
    if c is not None and beta != 0:
        r = r + beta * c.double()
    if bias is not None:
        r = r + bias.double()
    if activation == "relu":
        r = torch.relu(r)
    elif activation == "gelu":
        r = 0.5 * r * (1 + torch.tanh(math.sqrt(2 / math.pi) * (r + 0.044715 * r**3)))
    return r


def _check(out, ref, scale, what):
    """|out - ref| within fp32 accumulation of fp16 products plus the output's rounding."""
    unit = {torch.float32: 2.0**-20, torch.float16: 2.0**-10, torch.bfloat16: 2.0**-7}[out.dtype]
    tol = 1e-3 * scale + unit * ref.abs() + 1e-6
    err = (out.double() - ref).abs()
    bad = err > tol
    assert not bool(bad.any()), f"{what}: {int(bad.sum())} elements off, worst {float((err - tol).max()):.3g}"


@needs_gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("out_dtype", [None, "float32"])
@pytest.mark.parametrize("a_t,b_t", [(False, False), (True, False), (False, True), (True, True)])
def test_gemm_against_float64(dtype, out_dtype, a_t, b_t):
    torch.manual_seed(1)
    dt = getattr(torch, dtype)
    m, n, k = 131, 72, 200
    a = torch.randn(k, m, device="cuda", dtype=dt).t() if a_t else torch.randn(m, k, device="cuda", dtype=dt)
    b = torch.randn(n, k, device="cuda", dtype=dt).t() if b_t else torch.randn(k, n, device="cuda", dtype=dt)
    od = getattr(torch, out_dtype) if out_dtype else dt
    out = tessel.gemm(a, b, out_dtype=od)
    torch.cuda.synchronize()
    assert out.dtype == od and out.shape == (m, n)
    _check(out, _reference_gemm(a, b, None, None, 1.0, 0.0, None), a.abs().double() @ b.abs().double(), "gemm")


@needs_gpu
def test_gemm_on_slices_without_a_copy():
    torch.manual_seed(7)
    big = torch.randn(300, 400, device="cuda", dtype=torch.float16)
    a = big[13:113, 8:208]  # (100, 200), leading dimension 400
    b = big[100:300, 200:264].t().t()  # (200, 64) row-major slice
    bt = big[50:114, 0:200].t()  # (200, 64) column-major, leading dimension 400
    for bb in (b, bt):
        out = tessel.gemm(a, bb, out_dtype=torch.float32)
        torch.cuda.synchronize()
        _check(out, _reference_gemm(a, bb, None, None, 1.0, 0.0, None), a.abs().double() @ bb.abs().double(), "slice")
    out = torch.zeros(100, 128, device="cuda", dtype=torch.float32)[:, 32:96]  # out a slice too
    tessel.gemm(a, b, out=out)
    torch.cuda.synchronize()
    _check(out, _reference_gemm(a, b, None, None, 1.0, 0.0, None), a.abs().double() @ b.abs().double(), "out slice")


@needs_gpu
@pytest.mark.parametrize("activation", [None, "relu", "gelu"])
def test_gemm_epilogue_and_batches(activation):
    torch.manual_seed(2)
    bt, m, n, k = 3, 64, 40, 96
    a = torch.randn(bt, m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)  # shared by every batch
    c = torch.randn(bt, m, n, device="cuda", dtype=torch.float32)
    bias = torch.randn(n, device="cuda", dtype=torch.float32)
    out = tessel.gemm(a, b, c=c, bias=bias, alpha=0.5, beta=-1.5, activation=activation, out_dtype=torch.float32)
    torch.cuda.synchronize()
    ref = _reference_gemm(a, b, c, bias, 0.5, -1.5, activation)
    _check(out, ref, 0.5 * (a.abs().double() @ b.abs().double()) + 1.5 * c.abs().double(), "batched gemm")
    # C aliasing out: out += a @ b
    d = c.clone()
    tessel.gemm(a, b, c=d, beta=1.0, out=d)
    torch.cuda.synchronize()
    _check(d, _reference_gemm(a, b, c, None, 1.0, 1.0, None), a.abs().double() @ b.abs().double(), "c is out")


@needs_gpu
def test_gemm_runs_on_the_current_stream_and_in_a_cuda_graph():
    a = torch.randn(256, 128, device="cuda", dtype=torch.float16)
    b = torch.randn(128, 256, device="cuda", dtype=torch.float16)
    out = torch.empty(256, 256, device="cuda", dtype=torch.float16)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        tessel.gemm(a, b, out=out)  # warm-up (plans, workspaces) outside the capture
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            tessel.gemm(a, b, out=out)
    out.zero_()
    g.replay()
    torch.cuda.synchronize()
    _check(out, _reference_gemm(a, b, None, None, 1.0, 0.0, None), a.abs().double() @ b.abs().double(), "graph")


@needs_gpu
def test_gemm_plan_names_the_kernel():
    a = torch.randn(1024, 1024, device="cuda", dtype=torch.float16)
    plan = tessel.gemm_plan(a, a)
    assert plan["kernel"] in ("sm90_tma_warp_specialized", "sm80_multistage")
    assert plan["config"]


def _conv_ref(x, w, bias, stride, padding, dilation, groups):
    return torch.nn.functional.conv2d(x.double(), w.double(), None if bias is None else bias.double(), stride,
                                      padding, dilation, groups)


@needs_gpu
@pytest.mark.parametrize(
    "n,c,h,w,k,r,stride,padding,dilation,groups",
    [(2, 64, 14, 14, 64, 3, 1, 1, 1, 1), (3, 32, 17, 13, 48, 3, 2, 1, 1, 1), (2, 3, 32, 32, 16, 7, 2, 3, 1, 1),
     (2, 64, 9, 9, 64, 3, 1, 2, 2, 4), (1, 16, 10, 10, 16, 3, 1, 1, 1, 16)])
def test_conv2d_directions_against_float64(n, c, h, w, k, r, stride, padding, dilation, groups):
    torch.manual_seed(3)
    cl = torch.channels_last
    x = torch.randn(n, c, h, w, device="cuda", dtype=torch.float16).to(memory_format=cl)
    wt = torch.randn(k, c // groups, r, r, device="cuda", dtype=torch.float16).to(memory_format=cl)
    bias = torch.randn(k, device="cuda", dtype=torch.float32)
    y = tessel.conv2d(x, wt, bias, stride, padding, dilation, groups, activation="relu", out_dtype=torch.float32)
    torch.cuda.synchronize()
    ref = torch.relu(_conv_ref(x, wt, bias, stride, padding, dilation, groups))
    scale = _conv_ref(x.abs(), wt.abs(), bias.abs(), stride, padding, dilation, groups)
    assert y.is_contiguous(memory_format=cl)
    _check(y, ref, scale, "fprop")

    dy = torch.randn(ref.shape, device="cuda", dtype=torch.float16).to(memory_format=cl)
    dx = tessel.conv2d_input_grad(x.shape, wt, dy, stride, padding, dilation, groups, out_dtype=torch.float32)
    dw = tessel.conv2d_weight_grad(x, wt.shape, dy, stride, padding, dilation, groups, out_dtype=torch.float32)
    torch.cuda.synchronize()
    ref_dx = torch.nn.grad.conv2d_input(x.shape, wt.double(), dy.double(), stride, padding, dilation, groups)
    ref_dw = torch.nn.grad.conv2d_weight(x.double(), wt.shape, dy.double(), stride, padding, dilation, groups)
    _check(dx, ref_dx, torch.nn.grad.conv2d_input(x.shape, wt.abs().double(), dy.abs().double(), stride, padding,
                                                  dilation, groups), "dgrad")
    _check(dw, ref_dw, torch.nn.grad.conv2d_weight(x.abs().double(), wt.shape, dy.abs().double(), stride, padding,
                                                   dilation, groups), "wgrad")


@needs_gpu
def test_conv2d_residual_and_bf16():
    cl = torch.channels_last
    x = torch.randn(2, 32, 8, 8, device="cuda", dtype=torch.bfloat16).to(memory_format=cl)
    wt = torch.randn(32, 32, 1, 1, device="cuda", dtype=torch.bfloat16).to(memory_format=cl)
    res = torch.randn(2, 32, 8, 8, device="cuda", dtype=torch.bfloat16).to(memory_format=cl)
    y = tessel.conv2d(x, wt, residual=res, alpha=2.0, beta=0.5)
    torch.cuda.synchronize()
    assert y.dtype == torch.bfloat16
    ref = 2.0 * _conv_ref(x, wt, None, 1, 0, 1, 1) + 0.5 * res.double()
    _check(y, ref, 2.0 * _conv_ref(x.abs(), wt.abs(), None, 1, 0, 1, 1) + 0.5 * res.abs().double(), "residual")


@needs_gpu
def test_dlpack_from_cupy():
    cupy = pytest.importorskip("cupy")
    a = cupy.random.standard_normal((96, 64), dtype=cupy.float32).astype(cupy.float16)
    b = cupy.random.standard_normal((64, 80), dtype=cupy.float32).astype(cupy.float16)
    out = tessel.gemm(a, b, out_dtype=cupy.float32)
    cupy.cuda.get_current_stream().synchronize()
    assert isinstance(out, cupy.ndarray) and out.shape == (96, 80)
    ta, tb = torch.from_dlpack(a), torch.from_dlpack(b)
    _check(torch.from_dlpack(out), _reference_gemm(ta, tb, None, None, 1.0, 0.0, None),
           ta.abs().double() @ tb.abs().double(), "cupy")


@needs_gpu
def test_gpu_errors_name_the_problem():
    a = torch.randn(8, 16, device="cuda", dtype=torch.float16)
    with pytest.raises(tessel.TesselError, match="bias must be"):
        tessel.gemm(a, a.t().contiguous(), bias=torch.zeros(3, device="cuda", dtype=torch.float16))
    x = torch.randn(1, 8, 6, 6, device="cuda", dtype=torch.float16)  # NCHW memory
    w = torch.randn(8, 8, 3, 3, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
    with pytest.raises(tessel.TesselError, match="channels-last"):
        tessel.conv2d(x, w)
