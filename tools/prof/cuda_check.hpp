// Errors of the CUDA runtime and cuBLAS as exceptions: each measured run catches them and
// reports its row as ERROR with the message, then the suite goes on.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace tessel::prof {

// A failure that ends one measured run (not the whole suite).
class ProfError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws ProfError("<what>: <cudaErrorName>: <description>") unless e is cudaSuccess.
// Example: check_cuda(cudaMalloc(&p, bytes), "cudaMalloc of A (4096x4096 f16)").
void check_cuda(cudaError_t e, const std::string& what);

// The same for cuBLAS: "<what>: CUBLAS_STATUS_NOT_SUPPORTED: <description>".
void check_cublas(cublasStatus_t s, const std::string& what);

}  // namespace tessel::prof
