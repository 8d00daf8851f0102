#include "conv/conv2d_common.hpp"

#include "conv/conv_configs_sm80.hpp"

#include <algorithm>
#include <cstdint>

namespace tessel::conv_detail {

bool aligned(const void* p, int bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

Split choose_split(int m, int n, int k, int sms) {
  constexpr int kTile = sm80::kConvTile, kTileK = sm80::kConvTileK;
  const long long tiles = (long long)((m + kTile - 1) / kTile) * ((n + kTile - 1) / kTile);
  const int k_tiles = (k + kTileK - 1) / kTileK;
  Split s;
  if (2 * tiles > sms) return s;
  const long long slices = std::min<long long>({(2LL * sms + tiles - 1) / tiles, k_tiles / 8, 64});
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

}  // namespace tessel::conv_detail
