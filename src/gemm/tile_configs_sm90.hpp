// The tile configurations libtessel ships for the sm_90a GEMM (the warp-specialized TMA kernel,
// gemm/kernel_sm90_tma.hpp, persistent), by index, largest first (the names below);
// gemm_plan.cpp's heuristic chooses among them, GemmArguments::config overrides it. Built only
// where libtessel has sm_90a code.
#pragma once

#include <iterator>
#include <tuple>

#include "tessel/gemm/config_sm90.hpp"

namespace tessel::sm90 {

struct TmaTileConfigInfo {
  const char* name;
  int tile_m, tile_n, tile_k, stages;
  bool ping_pong;  // MmaSchedule::kPingPong (else cooperative)
  int cluster_m;    // blocks per cluster along M, sharing B (GemmConfigSm90::kClusterM)
  int store_warps;  // warps that store the tiles (GemmConfigSm90::kStoreWarps; 0: the MMA warps)
  // Shared memory per block of the persistent kernel: the ring, the epilogue's fp32 staging
  // (64 columns a warpgroup in ping-pong and for 256-wide tiles, else the whole tile), the
  // barriers and flags (kTmaKernelSmemBytes; instances_sm90.cuh checks the two agree).
  constexpr int smem_bytes() const {
    const int staging_n = ping_pong || tile_n > 128 ? 64 : tile_n;
    return (tile_m + tile_n) * tile_k * 2 * stages + (ping_pong ? 2 : 1) * tile_m * staging_n * 4 +
           (2 * stages + 4) * 8 + 24;
  }
};

// Each operand's stage is written by the TMA engine: one box (K-major) or TileMN/64 boxes
// (MN-major) of 128-byte swizzled rows (gemm/matrix_operand_sm90.hpp).
template <int TileM, int TileN, int Stages, MmaSchedule Schedule = MmaSchedule::kCooperative, int ClusterM = 1,
          int StoreWarps = 0>
struct TmaTileShape {
  template <class Element, Major A, Major B>
  using Config = GemmConfigSm90<TileM, TileN, 64, Stages, Element, A, B, 1,
                                A == Major::kK ? GmmaLayout::kRing : GmmaLayout::kMnBoxes,
                                B == Major::kK ? GmmaLayout::kRing : GmmaLayout::kMnBoxes, Schedule, ClusterM,
                                StoreWarps>;
};

// A name reads sm90_<TileM>x<TileN>x<TileK>_s<stages>[_pingpong][_c2][_sw] (_c2: clusters of
// two blocks along M, B multicast; _sw: two store warps store each tile while the MMA
// warpgroups go on; kernel_sm90_tma.hpp). Shared memory (persistent: the ring, then the
// epilogue's staging): 128x256 holds four stages of 48 KiB and a 128x64 fp32 slice (224 KiB);
// 128x192 four of 40 KiB and a 128x64 fp32 slice (192 KiB);
// 128x128 five of 32 KiB and its whole 128x128 fp32 tile, or in ping-pong one 128x64 slice
// per warpgroup (224 KiB); 128x64 (two warpgroups stacked, 64x64 each) and 64x128 (side by
// side) eight of 24 KiB and their 8,192-float tile (224 KiB); 128x64 in ping-pong six of 24
// KiB and a 128x64 slice per warpgroup (208 KiB); 256x64 (two warpgroups of 128 rows) four
// of 40 KiB and its 16,384-float tile (224 KiB).
// clang-format off
inline constexpr TmaTileConfigInfo kTmaTileConfigs[] = {
    {"sm90_128x256x64_s4",          128, 256, 64, 4, false, 1, 0},
    {"sm90_128x192x64_s4",          128, 192, 64, 4, false, 1, 0},
    {"sm90_128x128x64_s5_pingpong", 128, 128, 64, 5, true,  1, 0},
    {"sm90_128x128x64_s5_c2",       128, 128, 64, 5, false, 2, 0},
    {"sm90_128x128x64_s5_sw",       128, 128, 64, 5, false, 1, 2},
    {"sm90_128x128x64_s5",          128, 128, 64, 5, false, 1, 0},
    {"sm90_128x64x64_s8",           128, 64,  64, 8, false, 1, 0},
    {"sm90_128x64x64_s6_pingpong",  128, 64,  64, 6, true,  1, 0},
    {"sm90_256x64x64_s4",           256, 64,  64, 4, false, 1, 0},
    {"sm90_64x128x64_s8",           64,  128, 64, 8, false, 1, 0},
};
using TmaTileShapes = std::tuple<TmaTileShape<128, 256, 4>,
                                 TmaTileShape<128, 192, 4>,
                                 TmaTileShape<128, 128, 5, MmaSchedule::kPingPong>,
                                 TmaTileShape<128, 128, 5, MmaSchedule::kCooperative, 2>,
                                 TmaTileShape<128, 128, 5, MmaSchedule::kCooperative, 1, 2>,
                                 TmaTileShape<128, 128, 5>,
                                 TmaTileShape<128, 64, 8>,
                                 TmaTileShape<128, 64, 6, MmaSchedule::kPingPong>,
                                 TmaTileShape<256, 64, 4>,
                                 TmaTileShape<64, 128, 8>>;
// clang-format on
inline constexpr int kNumTmaTileConfigs = int(std::size(kTmaTileConfigs));
static_assert(std::tuple_size_v<TmaTileShapes> == kNumTmaTileConfigs, "tile_configs_sm90: one shape per table row");

template <int I>
using TmaTileConfigAt = std::tuple_element_t<I, TmaTileShapes>;

}  // namespace tessel::sm90
