// The tile configurations of the precompiled conv kernels: the GEMM's 128x128x32_s4_w2x2 with
// each direction's operand orders (config_sm80.hpp), for an element type and access width;
// with 64 or fewer output channels (GEMM N for fprop and dgrad, M for wgrad) the 16-byte
// kernels use a 64-wide tile there instead of computing half a tile of padding.
#pragma once

#include "tessel/gemm/config_sm80.hpp"

namespace tessel::sm80 {

inline constexpr int kConvTile = 128;      // TileM = TileN of the conv kernels
inline constexpr int kConvSmallTile = 64;  // ... but TileN (fprop, dgrad) or TileM (wgrad) of
                                           // the 16-byte kernels for 64 or fewer output channels
inline constexpr int kConvTileK = 32;      // the K tile of every conv kernel (the iterators' step)

// fprop  A activations (K-major gather), B KRSC filters (K-major: C/G runs along R*S*C/G)
template <class Element, int Access, int TileN = kConvTile>
using FpropConfig =
    GemmConfigSm80<kConvTile, TileN, kConvTileK, 4, 2, 2, Element, Major::kK, Major::kK, Access>;
// dgrad  A dY (K-major gather, as fprop's), B filters (MN-major gather: C runs)
template <class Element, int Access, int TileN = kConvTile>
using DgradConfig =
    GemmConfigSm80<kConvTile, TileN, kConvTileK, 4, 2, 2, Element, Major::kK, Major::kMN, Access>;
// wgrad  A dY^T (MN-major matrix: K runs), B activations (MN-major gather: C runs)
template <class Element, int Access, int TileM = kConvTile>
using WgradConfig =
    GemmConfigSm80<TileM, kConvTile, kConvTileK, 4, 2, 2, Element, Major::kMN, Major::kMN, Access>;

// The tile a GEMM runs with: the small one for few output channels on the 16-byte path with
// the optimized iterator (the narrow and analytic kernels come in the large tile only).
struct ConvTile {
  int m, n;
  bool small() const { return m < kConvTile || n < kConvTile; }
};
// fprop and dgrad: n output channels (GEMM N).
inline ConvTile conv_tile_n(int n, bool narrow, bool optimized) {
  return {kConvTile, !narrow && optimized && n <= kConvSmallTile ? kConvSmallTile : kConvTile};
}
// wgrad: m output filters (GEMM M).
inline ConvTile conv_tile_m(int m, bool narrow) {
  return {!narrow && m <= kConvSmallTile ? kConvSmallTile : kConvTile, kConvTile};
}

}  // namespace tessel::sm80
