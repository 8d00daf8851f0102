#include "conv/conv2d_common.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace tessel::conv_detail {

bool aligned(const void* p, int bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

Split choose_split(int m, int n, int k, sm80::ConvTile tile, int sms) {
  const long long tiles = (long long)((m + tile.m - 1) / tile.m) * ((n + tile.n - 1) / tile.n);
  const int k_tiles = (k + tile.k - 1) / tile.k;
  Split s;
  if (2 * tiles > sms) return s;
  const int min_slice = tile.wgmma ? 1024 / tile.k : 16;  // K tiles per slice: 1024 K on wgmma
  const long long slices = std::min<long long>({(2LL * sms + tiles - 1) / tiles, k_tiles / min_slice, 64});
  if (slices < 2) return s;
  s.k_tiles_per_split = int((k_tiles + slices - 1) / slices);
  s.splits = (k_tiles + s.k_tiles_per_split - 1) / s.k_tiles_per_split;
  return s;
}

int device_sms() {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return sms;
}

bool wgmma_available() {
#if defined(TESSEL_HAS_SM90A)
  const char* disable = std::getenv("TESSEL_DISABLE_SM90");
  if (disable != nullptr && std::strcmp(disable, "0") != 0) return false;
  int device = 0, major = 0, minor = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  return major == 9 && minor == 0;
#else
  return false;
#endif
}

}  // namespace tessel::conv_detail
