// DeviceBuffer: one cudaMalloc'd allocation, freed when it goes out of scope (also when a
// measured run throws half-way), so a failing row leaks nothing into the next.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "cuda_check.hpp"

namespace tessel::prof {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // `what` names the buffer in the error, e.g. "A (8 copies of 4096x4096 f16)".
  DeviceBuffer(std::size_t bytes, const std::string& what) : bytes_(bytes) {
    if (bytes > 0) {
      check_cuda(cudaMalloc(&ptr_, bytes),
                 "cudaMalloc of " + std::to_string(bytes) + " bytes for " + what);
    }
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);  // an error here is already sticky; nothing to add
  }

  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace tessel::prof
