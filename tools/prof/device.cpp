// find_device: cudaGetDeviceCount first (it fails fast without a driver), then the current
// device's properties.
#include "device.hpp"

#include <cuda_runtime_api.h>

namespace tessel::prof {
namespace {

bool query(cudaError_t e, const char* call, std::string& why) {
  if (e == cudaSuccess) return true;
  why = std::string(call) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
  return false;
}

}  // namespace

std::string DeviceInfo::text() const {
  return name + " (sm_" + std::to_string(sm) + ", " + std::to_string(multiprocessors) +
         " SMs, L2 " + std::to_string(l2_bytes >> 20) + " MiB)";
}

std::optional<DeviceInfo> find_device(std::string& why) {
  int count = 0;
  if (!query(cudaGetDeviceCount(&count), "cudaGetDeviceCount", why)) return std::nullopt;
  if (count == 0) {
    why = "cudaGetDeviceCount: 0 devices";
    return std::nullopt;
  }
  DeviceInfo d;
  int major = 0, minor = 0, l2 = 0;
  if (!query(cudaGetDevice(&d.ordinal), "cudaGetDevice", why) ||
      !query(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d.ordinal),
             "cudaDeviceGetAttribute", why) ||
      !query(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d.ordinal),
             "cudaDeviceGetAttribute", why) ||
      !query(cudaDeviceGetAttribute(&d.multiprocessors, cudaDevAttrMultiProcessorCount, d.ordinal),
             "cudaDeviceGetAttribute", why) ||
      !query(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, d.ordinal),
             "cudaDeviceGetAttribute", why)) {
    return std::nullopt;
  }
  cudaDeviceProp prop{};
  if (!query(cudaGetDeviceProperties(&prop, d.ordinal), "cudaGetDeviceProperties", why)) {
    return std::nullopt;
  }
  d.name = prop.name;
  d.sm = major * 10 + minor;
  d.l2_bytes = static_cast<std::size_t>(l2);
  return d;
}

}  // namespace tessel::prof
