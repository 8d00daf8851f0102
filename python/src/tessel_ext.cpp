// tessel._tessel: the Python extension (nanobind). It takes any array that speaks DLPack (torch
// tensors, CuPy and JAX arrays), checks that it lies on a CUDA device with a layout tessel can
// address, fills the runtime's arguments (tessel/runtime/gemm.hpp, conv2d.hpp) and calls them
// on the given stream. Allocation and shapes of results are python/tessel/_functional.py's
// job; every problem the runtime finds comes back as tessel.TesselError with its message.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

namespace nb = nanobind;

namespace {

struct TesselError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Array = nb::ndarray<nb::ro>;  // any dtype, shape, device: checked below

[[noreturn]] void fail(std::string const& where, std::string const& what) { throw TesselError(where + ": " + what); }

void check(std::string const& where, tessel::Status const& s) {
  if (!s) fail(where, std::string(tessel::status_code_name(s.code())) + ": " + s.message());
}

tessel::DataType data_type(std::string const& where, std::string const& name, Array const& a) {
  const nb::dlpack::dtype t = a.dtype();
  if (t.code == std::uint8_t(nb::dlpack::dtype_code::Float) && t.bits == 16 && t.lanes == 1) return tessel::DataType::kF16;
  if (t.code == std::uint8_t(nb::dlpack::dtype_code::Bfloat) && t.bits == 16 && t.lanes == 1) return tessel::DataType::kBF16;
  if (t.code == std::uint8_t(nb::dlpack::dtype_code::Float) && t.bits == 32 && t.lanes == 1) return tessel::DataType::kF32;
  fail(where, name + " has a dtype tessel does not take (float16, bfloat16, or float32 for outputs)");
}

// The CUDA device every array lies on; an array elsewhere (the CPU) is an error that says so.
int device_of(std::string const& where, std::string const& name, Array const& a, int device) {
  if (a.device_type() != nb::device::cuda::value) {
    fail(where, name + " is not on a CUDA device (tessel runs on the GPU: move it there, e.g. with .cuda())");
  }
  if (device >= 0 && a.device_id() != device) {
    fail(where, name + " is on CUDA device " + std::to_string(a.device_id()) + ", the others on device " +
                    std::to_string(device));
  }
  return a.device_id();
}

// The device of the call for the duration of the call.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    if (device != previous_ && cudaSetDevice(device) != cudaSuccess) {
      cudaGetLastError();
      throw TesselError("tessel: cannot use CUDA device " + std::to_string(device));
    }
  }
  ~DeviceGuard() {
    if (previous_ >= 0) cudaSetDevice(previous_);
  }

 private:
  int previous_ = -1;
};

// One matrix of a (possibly batched) operand, as the GEMM API describes it: (..., rows, cols)
// with unit stride along rows or along columns and a leading dimension.
struct MatrixView {
  const void* ptr;
  tessel::MatrixLayout layout;
  std::int64_t ld, batch_stride;
};

MatrixView matrix_view(std::string const& where, std::string const& name, Array const& a, int batch) {
  const std::size_t nd = a.ndim();
  if (nd != 2 && nd != 3) fail(where, name + " must be 2-d or 3-d (batched), not " + std::to_string(nd) + "-d");
  const std::int64_t rows = a.shape(nd - 2), cols = a.shape(nd - 1);
  const std::int64_t rs = a.stride(nd - 2), cs = a.stride(nd - 1);  // in elements
  MatrixView v{a.data(), tessel::MatrixLayout::kRowMajor, 0, 0};
  if ((cs == 1 || cols == 1) && rs >= std::max<std::int64_t>(cols, 1)) {
    v.layout = tessel::MatrixLayout::kRowMajor, v.ld = rs;
  } else if ((rs == 1 || rows == 1) && cs >= std::max<std::int64_t>(rows, 1)) {
    v.layout = tessel::MatrixLayout::kColumnMajor, v.ld = cs;
  } else if (rows <= 1 && cols <= 1) {
    v.ld = 1;
  } else {
    fail(where, name + " has strides (" + std::to_string(rs) + ", " + std::to_string(cs) +
                    ") over its last two dimensions: tessel needs one of them 1 and the other at least "
                    "the extent it steps over (a row- or column-major matrix with a leading dimension); "
                    "call .contiguous() first");
  }
  if (v.ld < 1) v.ld = 1;
  if (nd == 3) {
    if (a.shape(0) != batch && a.shape(0) != 1) {
      fail(where, name + " has " + std::to_string(a.shape(0)) + " batches, the call " + std::to_string(batch));
    }
    v.batch_stride = a.shape(0) == 1 ? 0 : a.stride(0);
    if (v.batch_stride < 0) fail(where, name + " has a negative batch stride");
  }
  return v;
}

tessel::Activation activation(std::string const& where, std::optional<std::string> const& name) {
  if (!name || *name == "none") return tessel::Activation::kNone;
  if (*name == "relu") return tessel::Activation::kReLU;
  if (*name == "gelu") return tessel::Activation::kGELU;
  fail(where, "activation must be None, \"relu\" or \"gelu\" (tanh approximation), not \"" + *name + "\"");
}

int int_of(std::string const& where, std::string const& what, std::int64_t v) {
  if (v < 0 || v > 0x7fffffff) fail(where, what + " = " + std::to_string(v) + " is out of tessel's range [0, 2^31)");
  return int(v);
}

// d = act(alpha a b + beta c + bias): a (..., M, K), b (..., K, N), d and c (..., M, N).
void gemm(Array a, Array b, Array d, std::optional<Array> c, std::optional<Array> bias, float alpha, float beta,
          std::optional<std::string> act, std::uintptr_t stream) {
  const std::string where = "tessel.gemm";
  const std::size_t nd = d.ndim();
  if (nd != 2 && nd != 3) fail(where, "out must be 2-d or 3-d");
  if (a.ndim() != 2 && a.ndim() != 3) fail(where, "a must be 2-d or 3-d");
  if (b.ndim() != 2 && b.ndim() != 3) fail(where, "b must be 2-d or 3-d");
  tessel::GemmArguments args;
  args.batch = nd == 3 ? int_of(where, "the batch", d.shape(0)) : 1;
  args.m = int_of(where, "M", d.shape(nd - 2)), args.n = int_of(where, "N", d.shape(nd - 1));
  args.k = int_of(where, "K", a.shape(a.ndim() - 1));
  if (a.ndim() < 2 || b.ndim() < 2 || a.shape(a.ndim() - 2) != std::size_t(args.m) ||
      b.shape(b.ndim() - 1) != std::size_t(args.n) || b.shape(b.ndim() - 2) != std::size_t(args.k)) {
    fail(where, "shapes do not multiply: a (..., M, K), b (..., K, N), out (..., M, N)");
  }
  args.input_type = data_type(where, "a", a);
  if (data_type(where, "b", b) != args.input_type) fail(where, "a and b must have the same dtype");
  args.output_type = data_type(where, "out", d);
  const MatrixView va = matrix_view(where, "a", a, args.batch), vb = matrix_view(where, "b", b, args.batch);
  const MatrixView vd = matrix_view(where, "out", d, args.batch);
  if (nd == 3 && vd.batch_stride == 0 && args.batch > 1) fail(where, "out's batches must not overlap");
  args.a = va.ptr, args.a_layout = va.layout, args.lda = va.ld, args.a_batch_stride = va.batch_stride;
  args.b = vb.ptr, args.b_layout = vb.layout, args.ldb = vb.ld, args.b_batch_stride = vb.batch_stride;
  args.d = const_cast<void*>(vd.ptr), args.d_layout = vd.layout, args.ldd = vd.ld, args.d_batch_stride = vd.batch_stride;
  if (c) {
    if (c->ndim() != nd || c->shape(nd - 2) != d.shape(nd - 2) || c->shape(nd - 1) != d.shape(nd - 1)) {
      fail(where, "c must have out's shape");
    }
    if (data_type(where, "c", *c) != args.output_type) fail(where, "c must have out's dtype");
    const MatrixView vc = matrix_view(where, "c", *c, args.batch);
    if (vc.layout != vd.layout && args.m > 1 && args.n > 1) fail(where, "c must have out's layout (row- or column-major)");
    args.c = vc.ptr, args.ldc = vc.ld, args.c_batch_stride = vc.batch_stride;
  }
  if (bias) {
    if (bias->ndim() != 1 || bias->shape(0) != std::size_t(args.n) || (args.n > 1 && bias->stride(0) != 1)) {
      fail(where, "bias must be a contiguous 1-d array of N values");
    }
    if (data_type(where, "bias", *bias) != args.output_type) fail(where, "bias must have out's dtype");
    args.bias = bias->data();
  }
  args.alpha = alpha, args.beta = beta, args.activation = activation(where, act);
  const int device = device_of(where, "a", a, -1);
  device_of(where, "b", b, device), device_of(where, "out", d, device);
  if (c) device_of(where, "c", *c, device);
  if (bias) device_of(where, "bias", *bias, device);
  DeviceGuard guard(device);
  check(where, tessel::gemm(args, reinterpret_cast<cudaStream_t>(stream)));
}

// A packed 4-d array in the order the runtime reads it (NHWC, KRSC).
const void* packed4(std::string const& where, std::string const& name, Array const& a) {
  if (a.ndim() != 4) fail(where, name + " must be 4-d");
  std::int64_t expected = 1;
  for (int i = 3; i >= 0; --i) {
    if (a.shape(i) != 1 && a.stride(i) != expected) {
      fail(where, name + " is not packed in channels-last order (NHWC, or KRSC for filters): call "
                         ".contiguous(memory_format=torch.channels_last) first");
    }
    expected *= std::int64_t(a.shape(i));
  }
  return a.data();
}

struct ConvShape {
  int stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups;
};

tessel::Conv2dProblem problem(std::string const& where, int n, int h, int w, int c, Array const& filters,
                              ConvShape const& s) {
  tessel::Conv2dProblem p;
  p.n = n, p.h = h, p.w = w, p.c = c;
  p.k = int_of(where, "K", filters.shape(0)), p.r = int_of(where, "R", filters.shape(1));
  p.s = int_of(where, "S", filters.shape(2));
  p.pad_h = s.pad_h, p.pad_w = s.pad_w, p.stride_h = s.stride_h, p.stride_w = s.stride_w;
  p.dilation_h = s.dilation_h, p.dilation_w = s.dilation_w, p.groups = s.groups;
  return p;
}

// y (N,P,Q,K) = act(alpha conv(x (N,H,W,C), w (K,R,S,C/G)) + beta residual + bias).
void conv2d_fprop(Array x, Array w, Array y, std::optional<Array> residual, std::optional<Array> bias, ConvShape s,
                  float alpha, float beta, std::optional<std::string> act, std::uintptr_t stream) {
  const std::string where = "tessel.conv2d";
  tessel::Conv2dArguments args;
  args.x = packed4(where, "x", x), args.w = packed4(where, "weight", w), args.y = const_cast<void*>(packed4(where, "out", y));
  args.problem = problem(where, int_of(where, "N", x.shape(0)), int_of(where, "H", x.shape(1)),
                         int_of(where, "W", x.shape(2)), int_of(where, "C", x.shape(3)), w, s);
  if (std::int64_t(w.shape(3)) * s.groups != std::int64_t(x.shape(3))) {
    fail(where, "weight has " + std::to_string(w.shape(3)) + " input channels per group; x has " +
                    std::to_string(x.shape(3)) + " channels in " + std::to_string(s.groups) + " groups");
  }
  if (y.shape(0) != x.shape(0) || int(y.shape(1)) != args.problem.p() || int(y.shape(2)) != args.problem.q() ||
      y.shape(3) != w.shape(0)) {
    fail(where, "out must be (N, P, Q, K) = (" + std::to_string(x.shape(0)) + ", " + std::to_string(args.problem.p()) +
                    ", " + std::to_string(args.problem.q()) + ", " + std::to_string(w.shape(0)) + ")");
  }
  args.input_type = data_type(where, "x", x);
  if (data_type(where, "weight", w) != args.input_type) fail(where, "x and weight must have the same dtype");
  args.output_type = data_type(where, "out", y);
  if (residual) {
    if (data_type(where, "residual", *residual) != args.output_type) fail(where, "residual must have out's dtype");
    args.residual = packed4(where, "residual", *residual);
    for (int i = 0; i < 4; ++i) {
      if (residual->shape(i) != y.shape(i)) fail(where, "residual must have out's shape");
    }
  }
  if (bias) {
    if (bias->ndim() != 1 || bias->shape(0) != w.shape(0) || (w.shape(0) > 1 && bias->stride(0) != 1)) {
      fail(where, "bias must be a contiguous 1-d array of K values");
    }
    if (data_type(where, "bias", *bias) != args.output_type) fail(where, "bias must have out's dtype");
    args.bias = bias->data();
  }
  args.alpha = alpha, args.beta = beta, args.activation = activation(where, act);
  const int device = device_of(where, "x", x, -1);
  device_of(where, "weight", w, device), device_of(where, "out", y, device);
  if (residual) device_of(where, "residual", *residual, device);
  if (bias) device_of(where, "bias", *bias, device);
  DeviceGuard guard(device);
  check(where, tessel::conv2d_fprop(args, reinterpret_cast<cudaStream_t>(stream)));
}

// dx (N,H,W,C) = dgrad(dy (N,P,Q,K), w (K,R,S,C/G)).
void conv2d_dgrad(Array dy, Array w, Array dx, ConvShape s, std::uintptr_t stream) {
  const std::string where = "tessel.conv2d_input_grad";
  tessel::Conv2dDgradArguments args;
  args.dy = packed4(where, "grad_output", dy), args.w = packed4(where, "weight", w);
  args.dx = const_cast<void*>(packed4(where, "out", dx));
  args.problem = problem(where, int_of(where, "N", dx.shape(0)), int_of(where, "H", dx.shape(1)),
                         int_of(where, "W", dx.shape(2)), int_of(where, "C", dx.shape(3)), w, s);
  if (dy.shape(0) != dx.shape(0) || int(dy.shape(1)) != args.problem.p() || int(dy.shape(2)) != args.problem.q() ||
      dy.shape(3) != w.shape(0) || std::int64_t(w.shape(3)) * s.groups != std::int64_t(dx.shape(3))) {
    fail(where, "grad_output, weight and the input shape do not belong to one convolution");
  }
  args.input_type = data_type(where, "grad_output", dy);
  if (data_type(where, "weight", w) != args.input_type) fail(where, "grad_output and weight must have the same dtype");
  args.output_type = data_type(where, "out", dx);
  const int device = device_of(where, "grad_output", dy, -1);
  device_of(where, "weight", w, device), device_of(where, "out", dx, device);
  DeviceGuard guard(device);
  check(where, tessel::conv2d_dgrad(args, reinterpret_cast<cudaStream_t>(stream)));
}

// dw (K,R,S,C/G) = wgrad(dy (N,P,Q,K), x (N,H,W,C)).
void conv2d_wgrad(Array dy, Array x, Array dw, ConvShape s, std::uintptr_t stream) {
  const std::string where = "tessel.conv2d_weight_grad";
  tessel::Conv2dWgradArguments args;
  args.dy = packed4(where, "grad_output", dy), args.x = packed4(where, "x", x);
  args.dw = const_cast<void*>(packed4(where, "out", dw));
  args.problem = problem(where, int_of(where, "N", x.shape(0)), int_of(where, "H", x.shape(1)),
                         int_of(where, "W", x.shape(2)), int_of(where, "C", x.shape(3)), dw, s);
  if (dy.shape(0) != x.shape(0) || int(dy.shape(1)) != args.problem.p() || int(dy.shape(2)) != args.problem.q() ||
      dy.shape(3) != dw.shape(0) || std::int64_t(dw.shape(3)) * s.groups != std::int64_t(x.shape(3))) {
    fail(where, "grad_output, x and the weight shape do not belong to one convolution");
  }
  args.input_type = data_type(where, "grad_output", dy);
  if (data_type(where, "x", x) != args.input_type) fail(where, "grad_output and x must have the same dtype");
  args.output_type = data_type(where, "out", dw);
  const int device = device_of(where, "grad_output", dy, -1);
  device_of(where, "x", x, device), device_of(where, "out", dw, device);
  DeviceGuard guard(device);
  check(where, tessel::conv2d_wgrad(args, reinterpret_cast<cudaStream_t>(stream)));
}

// What gemm would run: the plan's fields, for arrays described like gemm's.
nb::dict gemm_plan(Array a, Array b, Array d) {
  const std::string where = "tessel.gemm_plan";
  const std::size_t nd = d.ndim();
  if (nd != 2 && nd != 3) fail(where, "out must be 2-d or 3-d");
  if (a.ndim() != 2 && a.ndim() != 3) fail(where, "a must be 2-d or 3-d");
  if (b.ndim() != 2 && b.ndim() != 3) fail(where, "b must be 2-d or 3-d");
  tessel::GemmArguments args;
  args.batch = nd == 3 ? int_of(where, "the batch", d.shape(0)) : 1;
  args.m = int_of(where, "M", d.shape(nd - 2)), args.n = int_of(where, "N", d.shape(nd - 1));
  args.k = int_of(where, "K", a.shape(a.ndim() - 1));
  args.input_type = data_type(where, "a", a), args.output_type = data_type(where, "out", d);
  const MatrixView va = matrix_view(where, "a", a, args.batch), vb = matrix_view(where, "b", b, args.batch);
  const MatrixView vd = matrix_view(where, "out", d, args.batch);
  args.a = va.ptr, args.a_layout = va.layout, args.lda = va.ld, args.a_batch_stride = va.batch_stride;
  args.b = vb.ptr, args.b_layout = vb.layout, args.ldb = vb.ld, args.b_batch_stride = vb.batch_stride;
  args.d = const_cast<void*>(vd.ptr), args.d_layout = vd.layout, args.ldd = vd.ld, args.d_batch_stride = vd.batch_stride;
  tessel::GemmPlan p;
  check(where, tessel::plan(args, &p));
  nb::dict out;
  out["config"] = p.config, out["variant"] = p.variant, out["access"] = p.access, out["kernel"] = p.kernel;
  out["schedule"] = p.schedule, out["split_k"] = p.split_k, out["swapped"] = p.swapped;
  return out;
}

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

}  // namespace

NB_MODULE(_tessel, m) {
  m.doc() = "tessel's kernels on DLPack arrays (python/tessel/_functional.py wraps them for torch)";
  nb::exception<TesselError>(m, "TesselError", PyExc_RuntimeError);
  nb::class_<ConvShape>(m, "ConvShape")
      .def(nb::init<int, int, int, int, int, int, int>(), nb::arg("stride_h"), nb::arg("stride_w"),
           nb::arg("pad_h"), nb::arg("pad_w"), nb::arg("dilation_h"), nb::arg("dilation_w"), nb::arg("groups"));
  m.def("gemm", &gemm, nb::arg("a"), nb::arg("b"), nb::arg("out"), nb::arg("c").none(), nb::arg("bias").none(),
        nb::arg("alpha"), nb::arg("beta"), nb::arg("activation").none(), nb::arg("stream"));
  m.def("conv2d_fprop", &conv2d_fprop, nb::arg("x"), nb::arg("weight"), nb::arg("out"), nb::arg("residual").none(),
        nb::arg("bias").none(), nb::arg("shape"), nb::arg("alpha"), nb::arg("beta"), nb::arg("activation").none(),
        nb::arg("stream"));
  m.def("conv2d_dgrad", &conv2d_dgrad, nb::arg("grad_output"), nb::arg("weight"), nb::arg("out"), nb::arg("shape"),
        nb::arg("stream"));
  m.def("conv2d_wgrad", &conv2d_wgrad, nb::arg("grad_output"), nb::arg("x"), nb::arg("out"), nb::arg("shape"),
        nb::arg("stream"));
  m.def("gemm_plan", &gemm_plan, nb::arg("a"), nb::arg("b"), nb::arg("out"));
  m.def("device_count", &device_count, "CUDA devices the runtime sees (0 without a GPU or driver)");
}
