// The C API (include/tessel.h) over the C++ runtime: tessel_gemm_args_t <-> GemmArguments,
// tessel_conv2d_*_args_t <-> Conv2d*Arguments, Status -> tessel_status_t plus a message kept
// per thread. No exception crosses into C.
#include <cstring>
#include <exception>
#include <string>

#include "tessel.h"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel {
namespace {

// The C enumerations are the C++ ones, value for value.
static_assert(TESSEL_SUCCESS == int(StatusCode::kSuccess) &&
                  TESSEL_ERROR_INVALID_ARGUMENT == int(StatusCode::kInvalidArgument) &&
                  TESSEL_ERROR_NOT_SUPPORTED == int(StatusCode::kNotSupported) &&
                  TESSEL_ERROR_MISALIGNED == int(StatusCode::kMisaligned) &&
                  TESSEL_ERROR_NO_DEVICE == int(StatusCode::kNoDevice) &&
                  TESSEL_ERROR_CUDA == int(StatusCode::kCudaError) &&
                  TESSEL_ERROR_INTERNAL == int(StatusCode::kInternal),
              "tessel_status_t must match tessel::StatusCode value for value");
static_assert(TESSEL_F16 == int(DataType::kF16) && TESSEL_BF16 == int(DataType::kBF16) &&
                  TESSEL_F32 == int(DataType::kF32),
              "tessel_dtype_t must match tessel::DataType value for value");
static_assert(TESSEL_ROW_MAJOR == int(MatrixLayout::kRowMajor) &&
                  TESSEL_COLUMN_MAJOR == int(MatrixLayout::kColumnMajor),
              "tessel_layout_t must match tessel::MatrixLayout value for value");
static_assert(TESSEL_ACTIVATION_NONE == int(Activation::kNone) &&
                  TESSEL_ACTIVATION_RELU == int(Activation::kReLU) &&
                  TESSEL_ACTIVATION_GELU == int(Activation::kGELU),
              "tessel_activation_t must match tessel::Activation value for value");
static_assert(TESSEL_CONV_CROSS_CORRELATION == int(ConvMode::kCrossCorrelation) &&
                  TESSEL_CONV_CONVOLUTION == int(ConvMode::kConvolution),
              "tessel_conv_mode_t must match tessel::ConvMode value for value");

// The int a C caller stored in an enumeration. Read as bytes: C may store any int there, and
// C++ may assume an unscoped enumeration without a fixed type holds only values in its range.
template <class CEnum>
int enum_value(const CEnum& e) {
  static_assert(sizeof(CEnum) == sizeof(int), "the C enumerations must be int-sized");
  int value = 0;
  std::memcpy(&value, &e, sizeof value);
  return value;
}

thread_local std::string last_error;  // tessel_get_last_error()'s text

// Records the outcome of a call for tessel_get_last_error() and returns its code.
tessel_status_t finish(StatusCode code, const std::string& message) noexcept {
  try {
    last_error = code == StatusCode::kSuccess ? std::string() : message;
  } catch (...) {
    last_error.clear();  // no memory for the message: the code still says what happened
  }
  return static_cast<tessel_status_t>(code);
}

// tessel_gemm_args_t -> GemmArguments, field by field.
GemmArguments to_cpp(const tessel_gemm_args_t& c) {
  GemmArguments g;
  g.m = c.m, g.n = c.n, g.k = c.k, g.batch = c.batch;
  g.input_type = DataType(enum_value(c.input_type));
  g.output_type = DataType(enum_value(c.output_type));
  g.a = c.a, g.a_layout = MatrixLayout(enum_value(c.a_layout));
  g.lda = c.lda, g.a_batch_stride = c.a_batch_stride;
  g.b = c.b, g.b_layout = MatrixLayout(enum_value(c.b_layout));
  g.ldb = c.ldb, g.b_batch_stride = c.b_batch_stride;
  g.c = c.c, g.ldc = c.ldc, g.c_batch_stride = c.c_batch_stride;
  g.d = c.d, g.d_layout = MatrixLayout(enum_value(c.d_layout));
  g.ldd = c.ldd, g.d_batch_stride = c.d_batch_stride;
  g.alpha = c.alpha, g.beta = c.beta;
  g.bias = c.bias, g.activation = Activation(enum_value(c.activation));
  g.config = c.config != nullptr ? c.config : "";
  return g;
}

// GemmArguments -> tessel_gemm_args_t, field by field (config NULL: the heuristic).
tessel_gemm_args_t to_c(const GemmArguments& g) {
  tessel_gemm_args_t c;
  c.m = g.m, c.n = g.n, c.k = g.k, c.batch = g.batch;
  c.input_type = tessel_dtype_t(g.input_type), c.output_type = tessel_dtype_t(g.output_type);
  c.a = g.a, c.a_layout = tessel_layout_t(g.a_layout);
  c.lda = g.lda, c.a_batch_stride = g.a_batch_stride;
  c.b = g.b, c.b_layout = tessel_layout_t(g.b_layout);
  c.ldb = g.ldb, c.b_batch_stride = g.b_batch_stride;
  c.c = g.c, c.ldc = g.ldc, c.c_batch_stride = g.c_batch_stride;
  c.d = g.d, c.d_layout = tessel_layout_t(g.d_layout);
  c.ldd = g.ldd, c.d_batch_stride = g.d_batch_stride;
  c.alpha = g.alpha, c.beta = g.beta;
  c.bias = g.bias, c.activation = tessel_activation_t(g.activation);
  c.config = nullptr;
  return c;
}

// tessel_conv2d_problem_t <-> Conv2dProblem, field by field.
Conv2dProblem to_cpp(const tessel_conv2d_problem_t& c) {
  Conv2dProblem p;
  p.n = c.n, p.h = c.h, p.w = c.w, p.c = c.c, p.k = c.k, p.r = c.r, p.s = c.s;
  p.pad_h = c.pad_h, p.pad_w = c.pad_w, p.stride_h = c.stride_h, p.stride_w = c.stride_w;
  p.dilation_h = c.dilation_h, p.dilation_w = c.dilation_w;
  p.mode = ConvMode(enum_value(c.mode)), p.groups = c.groups;
  return p;
}
tessel_conv2d_problem_t to_c(const Conv2dProblem& p) {
  tessel_conv2d_problem_t c;
  c.n = p.n, c.h = p.h, c.w = p.w, c.c = p.c, c.k = p.k, c.r = p.r, c.s = p.s;
  c.pad_h = p.pad_h, c.pad_w = p.pad_w, c.stride_h = p.stride_h, c.stride_w = p.stride_w;
  c.dilation_h = p.dilation_h, c.dilation_w = p.dilation_w;
  c.mode = tessel_conv_mode_t(p.mode), c.groups = p.groups;
  return c;
}

// The fields the three directions share, under the same names in C and C++: the problem,
// the types, the residual, alpha and beta. C -> C++ and C++ -> C.
template <class CArgs, class CppArgs>
void shared_to_cpp(const CArgs& c, CppArgs& a) {
  a.problem = to_cpp(c.problem);
  a.input_type = DataType(enum_value(c.input_type));
  a.output_type = DataType(enum_value(c.output_type));
  a.residual = c.residual, a.alpha = c.alpha, a.beta = c.beta;
}
template <class CppArgs, class CArgs>
void shared_to_c(const CppArgs& a, CArgs& c) {
  c.problem = to_c(a.problem);
  c.input_type = tessel_dtype_t(a.input_type), c.output_type = tessel_dtype_t(a.output_type);
  c.residual = a.residual, c.alpha = a.alpha, c.beta = a.beta;
}

// tessel_conv2d_fprop_args_t <-> Conv2dArguments: the shared fields, the tensors, the bias and
// the activation.
Conv2dArguments to_cpp(const tessel_conv2d_fprop_args_t& c) {
  Conv2dArguments a;
  shared_to_cpp(c, a);
  a.x = c.x, a.w = c.w, a.y = c.y;
  a.bias = c.bias, a.activation = Activation(enum_value(c.activation));
  return a;
}
tessel_conv2d_fprop_args_t to_c(const Conv2dArguments& a) {
  tessel_conv2d_fprop_args_t c;
  shared_to_c(a, c);
  c.x = a.x, c.w = a.w, c.y = a.y;
  c.bias = a.bias, c.activation = tessel_activation_t(a.activation);
  return c;
}

// tessel_conv2d_dgrad_args_t <-> Conv2dDgradArguments, likewise.
Conv2dDgradArguments to_cpp(const tessel_conv2d_dgrad_args_t& c) {
  Conv2dDgradArguments a;
  shared_to_cpp(c, a);
  a.dy = c.dy, a.w = c.w, a.dx = c.dx;
  a.bias = c.bias, a.activation = Activation(enum_value(c.activation));
  return a;
}
tessel_conv2d_dgrad_args_t to_c(const Conv2dDgradArguments& a) {
  tessel_conv2d_dgrad_args_t c;
  shared_to_c(a, c);
  c.dy = a.dy, c.w = a.w, c.dx = a.dx;
  c.bias = a.bias, c.activation = tessel_activation_t(a.activation);
  return c;
}

// tessel_conv2d_wgrad_args_t <-> Conv2dWgradArguments: the shared fields and the tensors.
Conv2dWgradArguments to_cpp(const tessel_conv2d_wgrad_args_t& c) {
  Conv2dWgradArguments a;
  shared_to_cpp(c, a);
  a.dy = c.dy, a.x = c.x, a.dw = c.dw;
  return a;
}
tessel_conv2d_wgrad_args_t to_c(const Conv2dWgradArguments& a) {
  tessel_conv2d_wgrad_args_t c;
  shared_to_c(a, c);
  c.dy = a.dy, c.x = a.x, c.dw = a.dw;
  return c;
}

// The C name of an argument struct and of the function that initialises it, for the message
// about a NULL args.
struct CArgsNames {
  const char* type;
  const char* init;
};
CArgsNames c_names(const tessel_gemm_args_t*) {
  return {"tessel_gemm_args_t", "tessel_gemm_args_init"};
}
CArgsNames c_names(const tessel_conv2d_fprop_args_t*) {
  return {"tessel_conv2d_fprop_args_t", "tessel_conv2d_fprop_args_init"};
}
CArgsNames c_names(const tessel_conv2d_dgrad_args_t*) {
  return {"tessel_conv2d_dgrad_args_t", "tessel_conv2d_dgrad_args_init"};
}
CArgsNames c_names(const tessel_conv2d_wgrad_args_t*) {
  return {"tessel_conv2d_wgrad_args_t", "tessel_conv2d_wgrad_args_init"};
}

// Runs `call` on the converted arguments of the C function `function`: NULL args, failures
// and exceptions all end as a status and a message.
template <class CArgs, class Call>
tessel_status_t run_guarded(const char* function, const CArgs* args, Call call) noexcept {
  try {
    if (args == nullptr) {
      const CArgsNames names = c_names(args);
      return finish(StatusCode::kInvalidArgument,
                    std::string(function) + ": args is NULL; expected a " + names.type +
                        " filled by " + names.init + "() and then by the caller");
    }
    Status s = call(to_cpp(*args));
    return finish(s.code(), s.message());
  } catch (const std::exception& e) {
    return finish(StatusCode::kInternal, std::string(function) + ": internal error: " + e.what());
  } catch (...) {
    return finish(StatusCode::kInternal,
                  std::string(function) + ": internal error: an unknown exception");
  }
}

}  // namespace
}  // namespace tessel

extern "C" {

void tessel_gemm_args_init(tessel_gemm_args_t* args) {
  if (args != nullptr) *args = tessel::to_c(tessel::GemmArguments{});
}

tessel_status_t tessel_gemm(const tessel_gemm_args_t* args, cudaStream_t stream) {
  return tessel::run_guarded("tessel_gemm", args, [stream](const tessel::GemmArguments& g) {
    return tessel::gemm(g, stream);
  });
}

tessel_status_t tessel_gemm_validate(const tessel_gemm_args_t* args) {
  return tessel::run_guarded("tessel_gemm_validate", args,
                             [](const tessel::GemmArguments& g) { return tessel::validate(g); });
}

void tessel_conv2d_fprop_args_init(tessel_conv2d_fprop_args_t* args) {
  if (args != nullptr) *args = tessel::to_c(tessel::Conv2dArguments{});
}

void tessel_conv2d_dgrad_args_init(tessel_conv2d_dgrad_args_t* args) {
  if (args != nullptr) *args = tessel::to_c(tessel::Conv2dDgradArguments{});
}

void tessel_conv2d_wgrad_args_init(tessel_conv2d_wgrad_args_t* args) {
  if (args != nullptr) *args = tessel::to_c(tessel::Conv2dWgradArguments{});
}

tessel_status_t tessel_conv2d_fprop(const tessel_conv2d_fprop_args_t* args, cudaStream_t stream) {
  return tessel::run_guarded(
      "tessel_conv2d_fprop", args,
      [stream](const tessel::Conv2dArguments& a) { return tessel::conv2d_fprop(a, stream); });
}

tessel_status_t tessel_conv2d_dgrad(const tessel_conv2d_dgrad_args_t* args, cudaStream_t stream) {
  return tessel::run_guarded(
      "tessel_conv2d_dgrad", args,
      [stream](const tessel::Conv2dDgradArguments& a) { return tessel::conv2d_dgrad(a, stream); });
}

tessel_status_t tessel_conv2d_wgrad(const tessel_conv2d_wgrad_args_t* args, cudaStream_t stream) {
  return tessel::run_guarded(
      "tessel_conv2d_wgrad", args,
      [stream](const tessel::Conv2dWgradArguments& a) { return tessel::conv2d_wgrad(a, stream); });
}

tessel_status_t tessel_conv2d_fprop_validate(const tessel_conv2d_fprop_args_t* args) {
  return tessel::run_guarded("tessel_conv2d_fprop_validate", args,
                             [](const tessel::Conv2dArguments& a) { return tessel::validate(a); });
}

tessel_status_t tessel_conv2d_dgrad_validate(const tessel_conv2d_dgrad_args_t* args) {
  return tessel::run_guarded(
      "tessel_conv2d_dgrad_validate", args,
      [](const tessel::Conv2dDgradArguments& a) { return tessel::validate(a); });
}

tessel_status_t tessel_conv2d_wgrad_validate(const tessel_conv2d_wgrad_args_t* args) {
  return tessel::run_guarded(
      "tessel_conv2d_wgrad_validate", args,
      [](const tessel::Conv2dWgradArguments& a) { return tessel::validate(a); });
}

tessel_status_t tessel_conv2d_output_size(const tessel_conv2d_problem_t* problem, int* p, int* q) {
  using tessel::StatusCode;
  try {
    const char* missing = problem == nullptr ? "problem" : p == nullptr ? "p" : q == nullptr ? "q" : nullptr;
    if (missing != nullptr) {
      return tessel::finish(StatusCode::kInvalidArgument,
                            std::string("tessel_conv2d_output_size: ") + missing + " is NULL");
    }
    const tessel::Conv2dProblem pb = tessel::to_cpp(*problem);
    if (tessel::Status s = tessel::validate(pb); !s) return tessel::finish(s.code(), s.message());
    *p = pb.p();
    *q = pb.q();
    return tessel::finish(StatusCode::kSuccess, "");
  } catch (const std::exception& e) {
    return tessel::finish(StatusCode::kInternal, std::string("tessel_conv2d_output_size: internal error: ") + e.what());
  }
}

const char* tessel_get_last_error(void) { return tessel::last_error.c_str(); }

const char* tessel_status_string(tessel_status_t status) {
  const int value = tessel::enum_value(status);
  if (value < TESSEL_SUCCESS || value > TESSEL_ERROR_INTERNAL) return "unknown status";
  return tessel::status_code_name(tessel::StatusCode(value));
}

int tessel_version(void) {
  return TESSEL_VERSION_MAJOR * 10000 + TESSEL_VERSION_MINOR * 100 + TESSEL_VERSION_PATCH;
}

}  // extern "C"
