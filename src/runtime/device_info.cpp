#include "runtime/device_info.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "conv/conv_tma_sm90.hpp"

namespace tessel {

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
  if (d.cc_major < 8) {
    return {StatusCode::kNoDevice, std::string(who) + ": device " + std::to_string(device) +
                                       " has compute capability " + std::to_string(d.cc_major) + "." +
                                       std::to_string(d.cc_minor) + "; tessel's kernels need sm_80 or newer"};
  }
#if defined(TESSEL_HAS_SM90A)
  const char* disable = std::getenv("TESSEL_DISABLE_SM90");
  d.sm90_kernels = disable == nullptr || std::strcmp(disable, "0") == 0;
#else
  d.sm90_kernels = false;
#endif
  d.tma_encoder = d.wgmma() && sm90::tma_encoders_available();
  *out = d;
  return {};
}

}  // namespace tessel
