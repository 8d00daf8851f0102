// verify_gemm: the f32 reference and the |A||B| denominator from cuBLAS, the epilogue cuBLAS
// cannot do from device_kernels, the comparison on the device; then, for small problems,
// the same inputs through the fp64 host GEMM.
#include "verify.hpp"

#include <cmath>
#include <vector>

#include "cublas_reference.hpp"
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "device_kernels.hpp"
#include "host_reference.hpp"

namespace tessel::prof {
namespace {

constexpr double kAccumulationUnit = 0x1p-23;  // fp32 with truncating adds: one ulp
constexpr double kEpilogueRoundings = 8;
constexpr double kGeluAllowance = 0x1p-11;

double output_rounding(DataType t) {
  switch (t) {
    case DataType::kF16:
      return 0x1p-11;
    case DataType::kBF16:
      return 0x1p-8;
    case DataType::kF32:
      return 0;  // counted in kEpilogueRoundings
  }
  return 0;
}

std::vector<float> download_as_float(const void* src, DataType t, std::size_t count,
                                     cudaStream_t stream, const char* name) {
  if (count == 0 || src == nullptr) return {};
  std::vector<float> host(count);
  DeviceBuffer staging(count * sizeof(float), std::string("the f32 copy of ") + name);
  convert_to_float(src, t, count, staging.as<float>(), false, stream);
  check_cuda(cudaMemcpyAsync(host.data(), staging.get(), count * sizeof(float),
                             cudaMemcpyDeviceToHost, stream),
             std::string("cudaMemcpyAsync of ") + name + " to the host");
  check_cuda(cudaStreamSynchronize(stream), std::string("copying ") + name + " to the host");
  return host;
}

double fp64_error(const GemmProblem& p, const RotatingOperands& ops, cudaStream_t stream) {
  const std::size_t batch = p.batch;
  HostOperands h;
  h.a = download_as_float(ops.a(0), p.input_type, batch * p.a_elements(), stream, "A");
  h.b = download_as_float(ops.b(0), p.input_type, batch * p.b_elements(), stream, "B");
  h.c = download_as_float(ops.c(0), p.output_type, batch * p.d_elements(), stream, "C");
  h.bias = download_as_float(ops.bias(0), p.output_type, p.shape.n, stream, "bias");
  h.d = download_as_float(ops.d(0), p.output_type, batch * p.d_elements(), stream, "D");
  return host_reference_error(p, h);
}

}  // namespace

double tolerance(const GemmProblem& p) {
  const double accumulation =
      kAccumulationUnit * (2 * std::sqrt(double(p.shape.k)) + kEpilogueRoundings);
  const double gelu = p.activation == Activation::kGELU ? kGeluAllowance : 0.0;
  return accumulation + output_rounding(p.output_type) + gelu;
}

Verification verify_gemm(const GemmProblem& p, const RotatingOperands& ops, cublasHandle_t cublas,
                         cudaStream_t stream) {
  const std::size_t batch = p.batch;
  const std::size_t d_count = batch * p.d_elements();
  DeviceBuffer ref(d_count * sizeof(float), "the f32 reference");
  DeviceBuffer scale(d_count * sizeof(float), "the error's denominator |A||B| + |C| + |bias|");
  if (p.reads_c()) {
    convert_to_float(ops.c(0), p.output_type, d_count, ref.as<float>(), false, stream);
    convert_to_float(ops.c(0), p.output_type, d_count, scale.as<float>(), true, stream);
  }
  // ref = alpha A B + beta C in f32
  cublas_gemm(cublas, p, ops.a(0), ops.b(0), ref.get(), DataType::kF32, p.alpha, p.beta);
  {
    // scale = |alpha| |A| |B| + |beta| |C|
    const std::size_t in_bytes = data_type_bytes(p.input_type);  // 2: f16 or bf16
    DeviceBuffer abs_a(batch * p.a_elements() * in_bytes, "|A|");
    DeviceBuffer abs_b(batch * p.b_elements() * in_bytes, "|B|");
    abs_16bit(ops.a(0), batch * p.a_elements(), abs_a.get(), stream);
    abs_16bit(ops.b(0), batch * p.b_elements(), abs_b.get(), stream);
    cublas_gemm(cublas, p, abs_a.get(), abs_b.get(), scale.get(), DataType::kF32,
                std::fabs(p.alpha), std::fabs(p.beta));
    check_cuda(cudaStreamSynchronize(stream), "the cuBLAS reference GEMMs");
  }
  apply_reference_epilogue(ref.as<float>(), scale.as<float>(), ops.bias(0), p.output_type,
                           p.shape.m, p.shape.n, p.batch, p.activation, stream);

  Verification v;
  v.tolerance = tolerance(p);
  v.max_err = max_scaled_error(ops.d(0), p.output_type, ref.as<float>(), scale.as<float>(), d_count,
                               stream);
  if (p.flops() / 2 <= kHostReferenceMaxMacs) v.fp64_err = fp64_error(p, ops, stream);
  return v;
}

}  // namespace tessel::prof
