// A stream-ordered allocation (cudaMallocAsync) for one call, freed on the stream
// (cudaFreeAsync) when it goes out of scope: the kernels queued before on that stream still
// own it. Workspaces, staged copies.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "tessel/runtime/status.hpp"

namespace tessel {

class StreamBuffer {
 public:
  explicit StreamBuffer(cudaStream_t stream) : stream_(stream) {}
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  ~StreamBuffer() {
    if (ptr_ != nullptr) cudaFreeAsync(ptr_, stream_);
  }
  // Allocates `bytes` (nothing for 0), freeing what it held; kCudaError "<who>: allocating
  // <what> failed: ..." on failure.
  Status allocate(std::size_t bytes, const char* who, const char* what) {
    if (ptr_ != nullptr) cudaFreeAsync(ptr_, stream_), ptr_ = nullptr;
    if (bytes == 0) return {};
    if (cudaError_t e = cudaMallocAsync(&ptr_, bytes, stream_); e != cudaSuccess) {
      cudaGetLastError();
      ptr_ = nullptr;
      return {StatusCode::kCudaError,
              std::string(who) + ": allocating " + what + " failed: " + cudaGetErrorString(e)};
    }
    return {};
  }
  template <class T = void>
  T* get() const {
    return static_cast<T*>(ptr_);
  }

 private:
  cudaStream_t stream_;
  void* ptr_ = nullptr;
};

}  // namespace tessel
