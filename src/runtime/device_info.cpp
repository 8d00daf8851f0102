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

// TESSEL_STREAM_K_MIN_K_TILES as a positive number, else the default.
int stream_k_min_k_tiles() {
  const char* value = std::getenv("TESSEL_STREAM_K_MIN_K_TILES");
  if (value == nullptr) return DeviceInfo{}.stream_k_min_k_tiles;
  char* end = nullptr;
  const long n = std::strtol(value, &end, 10);
  return end != value && *end == '\0' && n >= 1 && n <= (1L << 30) ? int(n) : DeviceInfo{}.stream_k_min_k_tiles;
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
  d.tma_store = unset_or_zero("TESSEL_DISABLE_TMA_STORE");
  d.stream_k_min_k_tiles = stream_k_min_k_tiles();
  d.conv_as_gemm = unset_or_zero("TESSEL_DISABLE_CONV_AS_GEMM");
  d.packed_groups = unset_or_zero("TESSEL_DISABLE_PACKED_GROUPS");
  d.wgrad_im2col = unset_or_zero("TESSEL_DISABLE_WGRAD_IM2COL");
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
  d.tma_encoder = d.wgmma() && unset_or_zero("TESSEL_DISABLE_TMA") && sm90::tma_encoders_available();
  d.stream_k = unset_or_zero("TESSEL_DISABLE_STREAM_K");
  d.tma_store = unset_or_zero("TESSEL_DISABLE_TMA_STORE");
  d.stream_k_min_k_tiles = stream_k_min_k_tiles();
  d.conv_as_gemm = unset_or_zero("TESSEL_DISABLE_CONV_AS_GEMM");
  d.packed_groups = unset_or_zero("TESSEL_DISABLE_PACKED_GROUPS");
  d.wgrad_im2col = unset_or_zero("TESSEL_DISABLE_WGRAD_IM2COL");
  *out = d;
  return {};
}

}  // namespace tessel
