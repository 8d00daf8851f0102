// The tile configurations libtessel ships for the sm80 GEMM, by index. A name reads
// <TileM>x<TileN>x<TileK>_s<stages>_w<warps along M>x<warps along N>. Largest first; the
// heuristic in gemm_plan.cpp chooses among them, GemmArguments::config overrides it.
// With TESSEL_GEMM_CONFIGS_LEAN (a CI build, where no GPU runs them) only one is compiled.
#pragma once

#include <iterator>
#include <tuple>

#include "tessel/gemm/config_sm80.hpp"

namespace tessel::sm80 {

struct TileConfigInfo {
  const char* name;
  int tile_m, tile_n, tile_k, stages, warps_m, warps_n;
  // Shared memory per block: the 16-bit ring, or the fp32 epilogue tile over it, whichever is
  // larger (GemmConfigSm80::kSmemBytes; instances_sm80.cuh checks the two agree).
  constexpr int smem_bytes() const {
    const int ring = (tile_m + tile_n) * tile_k * stages * 2, epilogue = tile_m * tile_n * 4;
    return ring > epilogue ? ring : epilogue;
  }
};

template <int TileM, int TileN, int TileK, int Stages, int WarpsM, int WarpsN>
struct TileShape {
  template <class Element, Major A, Major B, int Access>
  using Config = GemmConfigSm80<TileM, TileN, TileK, Stages, WarpsM, WarpsN, Element, A, B, Access>;
};

// Operands whose rows are not 16-byte multiples load narrower vectors (operand_sm80.hpp's
// Access: 4 or 2 elements by 8- or 4-byte cp.async, 1 element by ordinary loads). Those
// variants are compiled for this configuration only, and only with edges: they serve the
// problems whose K or leading dimensions are odd sizes anyway.
using NarrowTile = TileShape<128, 128, 32, 4, 2, 2>;
inline constexpr TileConfigInfo kNarrowTileConfig{"128x128x32_s4_w2x2", 128, 128, 32, 4, 2, 2};

#if defined(TESSEL_GEMM_CONFIGS_LEAN)
inline constexpr int kNarrowAccesses[] = {1};  // widest first
inline constexpr TileConfigInfo kTileConfigs[] = {kNarrowTileConfig};
using TileShapes = std::tuple<NarrowTile>;
#else
inline constexpr int kNarrowAccesses[] = {4, 2, 1};
inline constexpr TileConfigInfo kTileConfigs[] = {
    {"128x256x64_s3_w2x4", 128, 256, 64, 3, 2, 4},
    {"128x128x64_s3_w2x2", 128, 128, 64, 3, 2, 2},
    kNarrowTileConfig,
    {"64x128x32_s4_w2x2", 64, 128, 32, 4, 2, 2},
};
using TileShapes = std::tuple<TileShape<128, 256, 64, 3, 2, 4>, TileShape<128, 128, 64, 3, 2, 2>, NarrowTile,
                              TileShape<64, 128, 32, 4, 2, 2>>;
#endif
inline constexpr int kNumTileConfigs = int(std::size(kTileConfigs));
static_assert(std::tuple_size_v<TileShapes> == kNumTileConfigs, "tile_configs_sm80: one shape per table row");

template <int I>
using TileConfigAt = std::tuple_element_t<I, TileShapes>;

}  // namespace tessel::sm80
