// cuBLAS as the baseline and the reference: the same problem through cublasGemmEx (or its
// strided-batched form), fp32 compute (CUBLAS_COMPUTE_32F) on the tensor cores.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string>

#include "problem.hpp"

namespace tessel::prof {

// A cuBLAS handle bound to one stream; destroyed with its owner.
class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream);  // throws ProfError
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

// C = alpha * op(A) op(B) + beta * C with A, B as `p` lays them out (p.input_type) and C
// column-major (M,N) of `c_type`, batches packed (strides M*K, K*N, M*N). cuBLAS has no
// separate D, so C is overwritten; with beta == 0, C is not read.
// Example: cublas_gemm(h, p, a, b, ref, DataType::kF32, p.alpha, p.beta) -> f32 reference.
void cublas_gemm(cublasHandle_t handle, const GemmProblem& p, const void* a, const void* b, void* c,
                 DataType c_type, float alpha, float beta);

// "13.0.0" (cublasGetVersion of the linked library).
std::string cublas_version(cublasHandle_t handle);

}  // namespace tessel::prof
