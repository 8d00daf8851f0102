// One TMA tensor map (CUtensorMap) as the parameters the driver's encoders take, planned
// without the driver (conv_tma_maps.hpp, gemm_plan.hpp) and encoded at launch
// (tma_encoder.hpp). Elements are 16-bit (f16, bf16).
#pragma once

#include <cstdint>
#include <string>

namespace tessel::sm90 {

// One map over 16-bit elements: tiled (a box) or im2col (corners, channels x pixels).
struct TmaMapParams {
  bool im2col = false;
  int rank = 0;                      // 3 or 4 dimensions, innermost first
  std::uint64_t dims[4] = {};
  std::uint64_t strides[3] = {};     // bytes from one index of dims 1..rank-1 to the next
  std::uint32_t box[4] = {};         // tiled: the box
  int lower[2] = {}, upper[2] = {};  // im2col: the walk's bounding-box corners (w, h)
  std::uint32_t channels = 0, pixels = 0;  // im2col: a box of channels x pixels
  std::uint32_t traversal[4] = {1, 1, 1, 1};
  int swizzle_bytes = 128;  // 64 (TileK 32) or 128 (TileK 64)
};

// The encoder's documented requirements (cuda.h: cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col)
// on p: empty when all hold, else the first one broken, e.g. "im2col corner lower[1] = -130 is
// outside [-128, 127] (4-d maps)".
std::string tma_map_problem(const TmaMapParams& p);

// A tiled map of a dense tensor of Rank dimensions (innermost first, packed), boxes `box`,
// rows swizzled by 64 (tile_k 32) or 128 bytes (tile_k 64).
template <int Rank>
TmaMapParams tiled_map(const std::uint64_t (&dims)[Rank], const std::uint32_t (&box)[Rank], int tile_k) {
  TmaMapParams m;
  m.rank = Rank;
  for (int i = 0; i < Rank; ++i) m.dims[i] = dims[i], m.box[i] = box[i];
  m.strides[0] = dims[0] * 2;
  for (int i = 1; i < Rank - 1; ++i) m.strides[i] = m.strides[i - 1] * dims[i];
  m.swizzle_bytes = tile_k == 64 ? 128 : 64;
  return m;
}

}  // namespace tessel::sm90
