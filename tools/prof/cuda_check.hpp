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

// After an error: true when the context is unusable (a sticky error such as an illegal
// address comes back on every call), with the error in `why`; clears a non-sticky error.
bool context_lost(std::string& why);

// A non-blocking stream, destroyed with its owner: the one a suite's rows run on.
class Stream {
 public:
  Stream() {
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace tessel::prof
