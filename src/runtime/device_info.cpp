#include "runtime/device_info.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/tma_encoder.hpp"

namespace tessel {

namespace {
bool unset_or_zero(const char* variable) {
  const char* value = std::getenv(variable);
  return value == nullptr || std::strcmp(value, "0") == 0;
}

bool sm90_kernels_enabled() {
#if defined(TESSEL_HAS_SM90A)
  return unset_or_zero("TESSEL_DISABLE_SM90");
#else
  return false;
#endif
}
}  // namespace

DeviceInfo planning_device_without_gpu() {
  DeviceInfo d;
  d.sm90_kernels = sm90_kernels_enabled();
  d.stream_k = unset_or_zero("TESSEL_DISABLE_STREAM_K");
  return d;
}

Status current_device(const char* who, DeviceInfo* out) {
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) {
    cudaGetLastError();  // clear it: the caller's later CUDA calls must not see our failure
    return {StatusCode::kNoDevice, std::string(who) + ": no CUDA device: " + cudaGetErrorString(e)};
  }
  DeviceInfo d;
  cudaDeviceGetAttribute(&d.cc_major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute(&d.cc_minor, cudaDevAttrComputeCapabilityMinor, device);
  cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceGetAttribute(&d.smem_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (d.cc_major < 8) {
    return {StatusCode::kNoDevice, std::string(who) + ": device " + std::to_string(device) +
                                       " has compute capability " + std::to_string(d.cc_major) + "." +
                                       std::to_string(d.cc_minor) + "; tessel's kernels need sm_80 or newer"};
  }
  d.sm90_kernels = sm90_kernels_enabled();
  d.tma_encoder = d.wgmma() && sm90::tma_encoders_available();
  d.stream_k = unset_or_zero("TESSEL_DISABLE_STREAM_K");
  *out = d;
  return {};
}

}  // namespace tessel
