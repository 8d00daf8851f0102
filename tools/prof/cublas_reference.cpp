// cublas_gemm: layout letters become cuBLAS's op flags, with the same leading dimensions
// tessel gets (problem.hpp), so both read the very same bytes.
#include "cublas_reference.hpp"

#include <string>

#include "cuda_check.hpp"

namespace tessel::prof {
namespace {

cudaDataType_t cuda_data_type(DataType t) {
  switch (t) {
    case DataType::kF16:
      return CUDA_R_16F;
    case DataType::kBF16:
      return CUDA_R_16BF;
    case DataType::kF32:
      return CUDA_R_32F;
  }
  throw ProfError("cuBLAS: unknown tessel::DataType " + std::to_string(static_cast<int>(t)));
}

}  // namespace

CublasHandle::CublasHandle(cudaStream_t stream) {
  check_cublas(cublasCreate(&handle_), "cublasCreate");
  check_cublas(cublasSetStream(handle_, stream), "cublasSetStream");
}

CublasHandle::~CublasHandle() { cublasDestroy(handle_); }

void cublas_gemm(cublasHandle_t handle, const GemmProblem& p, const void* a, const void* b, void* c,
                 DataType c_type, float alpha, float beta) {
  const cublasOperation_t op_a = p.a_transposed() ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = p.b_transposed() ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cudaDataType_t in = cuda_data_type(p.input_type);
  const cudaDataType_t out = cuda_data_type(c_type);
  const auto& [m, n, k] = p.shape;
  const int lda = static_cast<int>(p.lda()), ldb = static_cast<int>(p.ldb());
  const int ldc = static_cast<int>(p.ldd());
  if (p.batch == 1) {
    check_cublas(cublasGemmEx(handle, op_a, op_b, m, n, k, &alpha, a, in, lda, b, in, ldb, &beta, c,
                              out, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx " + p.shape_text() + " " + p.layout);
    return;
  }
  check_cublas(
      cublasGemmStridedBatchedEx(handle, op_a, op_b, m, n, k, &alpha, a, in, lda, p.a_elements(), b,
                                 in, ldb, p.b_elements(), &beta, c, out, ldc, p.d_elements(),
                                 p.batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
      "cublasGemmStridedBatchedEx " + p.shape_text() + " " + p.layout);
}

std::string cublas_version(cublasHandle_t handle) {
  int v = 0;
  check_cublas(cublasGetVersion(handle, &v), "cublasGetVersion");
  // CUBLAS_VERSION = major * 10000 + minor * 100 + patch (cuBLAS 11 and later)
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

}  // namespace tessel::prof
