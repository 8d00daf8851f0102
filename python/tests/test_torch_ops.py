"""tessel's PyTorch operators and modules: fake implementations (no GPU needed), autograd
against torch's in float64, torch.compile, CUDA graphs, and tessel.nn.replace."""

import pytest

torch = pytest.importorskip("torch")

import tessel  # noqa: E402
from tessel import nn as tnn  # noqa: E402

HAS_CUDA = torch.cuda.is_available() and tessel.device_count() > 0
needs_gpu = pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")
cl = torch.channels_last


# ---- no GPU needed: shapes through the fake (meta) implementations -------------------------------


def test_fake_gemm_gives_the_result_shape_and_dtype():
    a = torch.empty(3, 64, 32, device="meta", dtype=torch.float16)
    b = torch.empty(32, 48, device="meta", dtype=torch.float16)
    y = torch.ops.tessel.gemm(a, b, None, None, 1.0, 0.0, "relu", torch.float32)
    assert y.shape == (3, 64, 48) and y.dtype == torch.float32 and y.device.type == "meta"
    with pytest.raises(ValueError, match="K differs"):
        torch.ops.tessel.gemm(a, a, None, None, 1.0, 0.0, "none")
    with pytest.raises(ValueError, match="activation"):
        torch.ops.tessel.gemm(a, b, None, None, 1.0, 0.0, "tanh")


def test_fake_conv2d_gives_the_output_shape():
    x = torch.empty(2, 16, 17, 13, device="meta", dtype=torch.float16)
    w = torch.empty(32, 16, 3, 3, device="meta", dtype=torch.float16)
    y = torch.ops.tessel.conv2d(x, w, None, [2, 2], [1, 1], [1, 1], 1, "none")
    assert y.shape == (2, 32, 9, 7)
    assert y.is_contiguous(memory_format=cl)


def test_modules_fall_back_to_torch_off_the_gpu():
    lin = tnn.Linear(8, 4)
    x = torch.randn(2, 8)
    assert torch.equal(lin(x), torch.nn.functional.linear(x, lin.weight, lin.bias))
    conv = tnn.Conv2d(3, 4, 3, padding=1)
    x = torch.randn(1, 3, 5, 5)
    assert torch.equal(conv(x), torch.nn.functional.conv2d(x, conv.weight, conv.bias, padding=1))


def test_replace_swaps_what_tessel_supports_and_names_the_rest():
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.Conv2d(8, 8, 3, padding=1, padding_mode="reflect"),
                                torch.nn.Conv2d(8, 8, 3, padding="same"), torch.nn.Flatten(),
                                torch.nn.Linear(8 * 4 * 4, 10))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    report = tnn.replace(model)
    assert type(model[0]) is tnn.Conv2d and type(model[5]) is tnn.Linear
    assert type(model[2]) is torch.nn.Conv2d and type(model[3]) is torch.nn.Conv2d
    assert "0: tessel.nn.Conv2d" in report and "5: tessel.nn.Linear" in report
    assert any(line.startswith("2: kept") and "reflect" in line for line in report)
    assert any(line.startswith("3: kept") and "same" in line for line in report)
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


# ---- on the GPU ---------------------------------------------------------------------------------


def _close(got, want, what, rtol=2e-2, atol=2e-2):
    err = (got.double() - want).abs()
    tol = atol + rtol * want.abs()
    assert bool((err <= tol).all()), f"{what}: worst excess {float((err - tol).max()):.3g}"


@needs_gpu
@pytest.mark.parametrize("activation", ["none", "relu"])
@pytest.mark.parametrize("batched", [False, True])
def test_gemm_autograd_against_float64(activation, batched):
    torch.manual_seed(4)
    shape_a = (2, 48, 64) if batched else (48, 64)
    a = torch.randn(shape_a, device="cuda", dtype=torch.float16, requires_grad=True)
    b = (torch.randn(64, 40, device="cuda", dtype=torch.float16) / 8).requires_grad_()  # shared by batches
    bias = torch.randn(40, device="cuda", dtype=torch.float32, requires_grad=True)
    c = torch.randn(*shape_a[:-1], 40, device="cuda", dtype=torch.float32, requires_grad=True)
    y = torch.ops.tessel.gemm(a, b, c, bias, 0.5, 2.0, activation, torch.float32)
    g = torch.randn_like(y)
    y.backward(g)
    a64, b64, bias64, c64 = (t.detach().double().requires_grad_() for t in (a, b, bias, c))
    y64 = 0.5 * (a64 @ b64) + 2.0 * c64 + bias64
    if activation == "relu":
        y64 = torch.relu(y64)
    y64.backward(g.double())
    _close(y, y64.detach(), "y")
    _close(a.grad, a64.grad, "grad a")
    _close(b.grad, b64.grad, "grad b", atol=0.2)  # summed over 96 rows in f16
    _close(c.grad, c64.grad, "grad c")
    _close(bias.grad, bias64.grad, "grad bias", atol=0.2)


@needs_gpu
def test_gemm_opcheck():
    a = torch.randn(32, 64, device="cuda", dtype=torch.float16, requires_grad=True)
    b = torch.randn(64, 16, device="cuda", dtype=torch.float16, requires_grad=True)
    torch.library.opcheck(torch.ops.tessel.gemm, (a, b, None, None, 1.0, 0.0, "none", None))


@needs_gpu
def test_conv2d_opcheck():
    x = torch.randn(2, 16, 8, 8, device="cuda", dtype=torch.float16).to(memory_format=cl).requires_grad_()
    w = torch.randn(16, 16, 3, 3, device="cuda", dtype=torch.float16).to(memory_format=cl).requires_grad_()
    torch.library.opcheck(torch.ops.tessel.conv2d, (x, w, None, [1, 1], [1, 1], [1, 1], 1, "none"))


@needs_gpu
@pytest.mark.parametrize("stride,padding,groups", [(1, 1, 1), (2, 1, 1), (1, 1, 4)])
def test_conv2d_autograd_against_float64(stride, padding, groups):
    torch.manual_seed(5)
    x = torch.randn(2, 32, 11, 11, device="cuda", dtype=torch.float16).to(memory_format=cl).requires_grad_()
    w = (torch.randn(48, 32 // groups, 3, 3, device="cuda", dtype=torch.float16) / 8).to(memory_format=cl)
    w.requires_grad_()
    bias = torch.randn(48, device="cuda", dtype=torch.float16, requires_grad=True)
    y = torch.ops.tessel.conv2d(x, w, bias, [stride] * 2, [padding] * 2, [1, 1], groups, "relu")
    g = torch.randn_like(y)
    y.backward(g)
    x64, w64, b64 = (t.detach().double().requires_grad_() for t in (x, w, bias))
    y64 = torch.relu(torch.nn.functional.conv2d(x64, w64, b64, stride, padding, 1, groups))
    y64.backward(g.double())
    _close(y, y64.detach(), "y")
    _close(x.grad, x64.grad, "grad x")
    _close(w.grad, w64.grad, "grad w", atol=0.3)
    _close(bias.grad, b64.grad, "grad bias", atol=0.5)


@needs_gpu
def test_torch_compile_of_a_small_model_and_its_backward():
    torch.manual_seed(6)
    model = torch.nn.Sequential(torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
                                torch.nn.Flatten(), torch.nn.Linear(32, 10)).cuda().half().to(memory_format=cl)
    expected_state = {k: v.clone() for k, v in model.state_dict().items()}
    report = tnn.replace(model)
    assert len(report) == 2 and all("tessel.nn" in line for line in report)
    x = torch.randn(4, 16, 12, 12, device="cuda", dtype=torch.float16).to(memory_format=cl)
    compiled = torch.compile(model, backend="aot_eager", fullgraph=True)
    y = compiled(x)
    y.float().sum().backward()
    ref_model = torch.nn.Sequential(torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(),
                                    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                                    torch.nn.Linear(32, 10)).cuda().double()
    ref_model.load_state_dict({k: v.double() for k, v in expected_state.items()})
    _close(y, ref_model(x.double()).detach(), "compiled model")
    assert model[0].weight.grad is not None and model[4].weight.grad is not None


@needs_gpu
def test_ops_in_a_cuda_graph():
    a = torch.randn(128, 64, device="cuda", dtype=torch.float16)
    b = torch.randn(64, 96, device="cuda", dtype=torch.float16)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        torch.ops.tessel.gemm(a, b, None, None, 1.0, 0.0, "none")
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            y = torch.ops.tessel.gemm(a, b, None, None, 1.0, 0.0, "none")
    a.copy_(torch.randn_like(a))
    g.replay()
    torch.cuda.synchronize()
    _close(y, a.double() @ b.double(), "graph replay with new inputs")
