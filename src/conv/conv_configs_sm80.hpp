// The tile configurations of the precompiled conv kernels: the GEMM's 128x128x32_s4_w2x2 with
// each direction's operand orders (config_sm80.hpp), for an element type and access width.
#pragma once

#include "tessel/gemm/config_sm80.hpp"

namespace tessel::sm80 {

inline constexpr int kConvTile = 128;   // TileM = TileN of every conv kernel
inline constexpr int kConvTileK = 32;  // the K tile of every conv kernel (the iterators' step)

// fprop  A activations (K-major gather), B KRSC filters (K-major: C/G runs along R*S*C/G)
template <class Element, int Access>
using FpropConfig = GemmConfigSm80<kConvTile, kConvTile, kConvTileK, 4, 2, 2, Element, Major::kK, Major::kK, Access>;
// dgrad  A dY (K-major gather, as fprop's), B filters (MN-major gather: C runs)
template <class Element, int Access>
using DgradConfig = GemmConfigSm80<kConvTile, kConvTile, kConvTileK, 4, 2, 2, Element, Major::kK, Major::kMN, Access>;
// wgrad  A dY^T (MN-major matrix: K runs), B activations (MN-major gather: C runs)
template <class Element, int Access>
using WgradConfig = GemmConfigSm80<kConvTile, kConvTile, kConvTileK, 4, 2, 2, Element, Major::kMN, Major::kMN, Access>;

}  // namespace tessel::sm80
