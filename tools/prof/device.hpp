// The GPU the profiler measures on, or why there is none.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace tessel::prof {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;  // "NVIDIA H100 80GB HBM3"
  int sm = 0;        // compute capability as 90
  int multiprocessors = 0;
  std::size_t l2_bytes = 0;
  std::string text() const;  // "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, L2 50 MiB)"
};

// The current device; nullopt and `why` ("cudaGetDeviceCount: cudaErrorNoDevice: no
// CUDA-capable device is detected") when there is none. Fast on a machine without a GPU.
std::optional<DeviceInfo> find_device(std::string& why);

}  // namespace tessel::prof
