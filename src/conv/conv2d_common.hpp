// What the three conv2d directions share on the host: alignment, the device check and the
// launch-error status.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "tessel/runtime/status.hpp"

namespace tessel::conv_detail {

bool aligned(const void* p, int bytes);

// kNoDevice when there is no CUDA device or it is older than sm_80; else success.
inline Status check_device(const char* direction) {
  int device = 0, major = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) {
    cudaGetLastError();
    return {StatusCode::kNoDevice, std::string("conv2d: ") + direction + ": no CUDA device: " + cudaGetErrorString(e)};
  }
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (major < 8) return {StatusCode::kNoDevice, std::string("conv2d: ") + direction + ": tessel's kernels need sm_80 or newer"};
  return {};
}

// kCudaError for a failed launch of group g (clearing CUDA's sticky-free last error).
inline Status launch_error(const char* direction, int group, cudaError_t e) {
  cudaGetLastError();
  return {StatusCode::kCudaError, std::string("conv2d: ") + direction + " launch failed (group " +
                                      std::to_string(group) + "): " + cudaGetErrorString(e)};
}

}  // namespace tessel::conv_detail
