// The C API (include/tessel.h) over the C++ runtime: tessel_gemm_args_t <-> GemmArguments,
// Status -> tessel_status_t plus a message kept per thread. No exception crosses into C.
#include <cstring>
#include <exception>
#include <string>

#include "tessel.h"
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

// Runs `call` on the converted arguments of the C function `function`: NULL args, failures
// and exceptions all end as a status and a message.
template <class Call>
tessel_status_t run_guarded(const char* function, const tessel_gemm_args_t* args,
                            Call call) noexcept {
  try {
    if (args == nullptr) {
      return finish(StatusCode::kInvalidArgument,
                    std::string(function) +
                        ": args is NULL; expected a tessel_gemm_args_t filled by "
                        "tessel_gemm_args_init() and then by the caller");
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
  return tessel::run_guarded("tessel_gemm_validate", args, tessel::validate);
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
