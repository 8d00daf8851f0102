// check_cuda / check_cublas: one message format for every failing runtime call.
#include "cuda_check.hpp"

namespace tessel::prof {

void check_cuda(cudaError_t e, const std::string& what) {
  if (e == cudaSuccess) return;
  throw ProfError(what + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

void check_cublas(cublasStatus_t s, const std::string& what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  throw ProfError(what + ": " + cublasGetStatusName(s) + ": " + cublasGetStatusString(s));
}

bool context_lost(std::string& why) {
  if (cudaDeviceSynchronize() == cudaSuccess) return false;
  cudaGetLastError();  // clears a non-sticky error
  const cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) return false;
  why = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
  return true;
}

}  // namespace tessel::prof
