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

}  // namespace tessel::prof
