// The persistent TMA kernel's epilogue for 16-bit D through the TMA engine
// (kernel_sm90_tma.hpp): each MMA warpgroup computes its values in registers as
// epilogue_sm90.hpp does (alpha, C, bias, activation), writes them with stmatrix into boxes of
// shared memory laid out as D's tensor map says, and one thread asks the engine to store the
// boxes; the warpgroup then goes on to its next tile while the engine writes D. The engine
// computes the addresses and clips at M, N and the batch, so the MMA warps spend no
// instruction on either (the register path: about 540 instructions a warp and 128x128 tile,
// docs/PERFORMANCE.md, thirty-fourth session).
//
// A warpgroup's part of the tile, (64 * kWgMBlocks, kWgTileN), is stored as boxes of 64
// columns: (kWgRows, 64) of 128-byte rows, each row's eight 16-byte chunks swizzled by the row
// (chunk ^ row % 8: the map's 128-byte swizzle). stmatrix writes an 8x8 matrix as 8 rows of one
// chunk, which then lie in 8 different chunk columns: no bank conflict.
// The warpgroup's share of the staging area (GemmConfigSm90::kSmemBytesC / 2) holds kSlots
// boxes, used as two alternating groups of kPass boxes (a pass): while the threads write one
// group, the engine reads the other. Per pass:
//   threads   compute and stmatrix the pass's boxes into group (pass % 2); fence the proxy
//   leader    wait until the engine has read the previous pass (tma_store_wait_read<0>: the
//             only group still outstanding), whose boxes the next pass overwrites
//   barrier   (the warpgroup's named barrier, 3 + wg)
//   leader    store the pass's boxes, one bulk group
// The barrier both publishes this pass's writes to the leader and tells every thread that the
// next pass's group is free. The engine writes a row of D in whole 16-byte units, so the plan
// takes this epilogue only where N ends on one (gemm_plan.cpp, plan_d_map).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "epilogue.hpp"
#include "epilogue_sm90.hpp"
#include "tessel/arch/named_barrier.hpp"
#include "tessel/arch/sm90/stmatrix.hpp"
#include "tessel/arch/sm90/tma.hpp"

namespace tessel {

// D's tensor map for the TMA epilogue, planned and encoded on the host (gemm_plan.hpp,
// plan_d_map): (N, M, batch) of D in the kernel's view, box (64, kWgRows, 1), 128-byte
// swizzle. on = false: the MMA warps store D from their registers (epilogue_sm90.hpp).
struct TmaStoreD {
  CUtensorMap map;
  bool on = false;
};

namespace detail {
// The boxes of one warpgroup (see above).
template <class Config>
struct TmaStoreShape {
  static constexpr int kWgRows = 64 * Config::kWgMBlocks;
  static constexpr int kBoxBytes = kWgRows * 128;  // (kWgRows, 64) 16-bit values
  static constexpr int kWgBoxes = Config::kWgTileN / 64;
  static constexpr int kRegionBytes = Config::kSmemBytesC / 2;  // one warpgroup's share
  static constexpr int kSlots = kRegionBytes / kBoxBytes;
  static constexpr int kPass = kSlots >= 2 * kWgBoxes ? kWgBoxes : kSlots / 2;  // boxes a pass
  // Two warpgroups, two groups of whole boxes a warpgroup, each box on a swizzle-pattern
  // boundary (1024 bytes): every configuration of the GEMM (tile_configs_sm90.hpp).
  static constexpr bool kFits =
      Config::kThreads == 256 && kPass >= 1 && kRegionBytes % 1024 == 0 && kBoxBytes % 1024 == 0;
};

// Where stmatrix puts one lane's rows in a box: lane l of warp w gives row l % 8 of matrix
// l / 8, which holds rows 8 (l / 8 % 2) + [0, 8) of the warp's 16 in a 64-row block and chunk
// l / 16 of the chunk pair (jp, jp + 1); the row's chunk is swizzled as the map's 128-byte
// swizzle: chunk ^ row % 8 (tests/host/gemm_config_test.cpp).
struct StmatrixBoxLane {
  std::uint32_t offset;   // the lane's row, in bytes
  std::uint32_t swizzle;  // XORed into the chunk pair's byte offset
  TESSEL_HOST_DEVICE constexpr StmatrixBoxLane(int warp, int lane)
      : offset(std::uint32_t((16 * warp + 8 * (lane / 8 % 2) + lane % 8) * 128)),
        swizzle(std::uint32_t(((lane / 16) ^ (lane % 8)) << 4)) {}
  // The byte offset in the box for 64-row block mb and chunk pair jp (even).
  TESSEL_HOST_DEVICE constexpr std::uint32_t at(int mb, int jp) const {
    return std::uint32_t(mb * 64 * 128) + offset + ((std::uint32_t(jp) << 4) ^ swizzle);
  }
};
}  // namespace detail

#if defined(__CUDACC__)
namespace detail {

// store_accumulators_tma's passes for one type of D and one form of the values (pair_value).
template <class Config, class Out, bool Relu, bool General>
__device__ void store_boxes_tma(float const (&acc)[Config::kAccumulators], int wg, int wg_m, int wg_col,
                                EpilogueParams const& p, CUtensorMap const* map, int batch, int row0, int col0,
                                int rows, int cols, unsigned char* staging, int& passes) {
  using Shape = TmaStoreShape<Config>;
  static_assert(Shape::kFits, "store_boxes_tma: the configuration's staging area does not hold two groups of boxes");
  constexpr int kRows = 2 * Config::kWgMBlocks;
  const int warp = int(threadIdx.x) % 128 / 32, lane = int(threadIdx.x) % 32, q = lane % 4;
  const bool leader = threadIdx.x % 128 == 0;
  const int wg_cols = cols - wg_col;  // > 0
  Out const* c = p.beta != 0.0f ? static_cast<Out const*>(p.c) + batch * p.c_batch_stride : nullptr;
  Out const* bias = static_cast<Out const*>(p.bias) + batch * p.bias_batch_stride;
  Out const* c_row[kRows];  // this lane's first pair of C in row r; nullptr past M or without C
  float row_bias[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int row = (wg_m * Config::kWgMBlocks + r / 2) * 64 + warp * 16 + lane / 4 + 8 * (r % 2);
    const std::int64_t gm = row0 + row;
    c_row[r] = row < rows && c != nullptr ? c + gm * p.ldc + col0 + wg_col + 2 * q : nullptr;
    row_bias[r] = row < rows && p.bias_mode == BiasMode::kPerRow ? to_float(bias[gm]) : 0.0f;
  }
  Out const* lane_bias = p.bias_mode == BiasMode::kPerColumn ? bias + col0 + wg_col + 2 * q : nullptr;
  const StmatrixBoxLane box_lane(warp, lane);
  const std::uint32_t region =
      static_cast<std::uint32_t>(__cvta_generic_to_shared(staging)) + std::uint32_t(wg * Shape::kRegionBytes);
  unsigned char* region_ptr = staging + wg * Shape::kRegionBytes;
#pragma unroll
  for (int b0 = 0; b0 < Shape::kWgBoxes; b0 += Shape::kPass) {
    if (64 * b0 >= wg_cols) break;  // the rest lies past N
    const int group = passes & 1;
    ++passes;
#pragma unroll
    for (int i = 0; i < Shape::kPass && b0 + i < Shape::kWgBoxes; ++i) {
      const std::uint32_t box = region + std::uint32_t((group * Shape::kPass + i) * Shape::kBoxBytes);
#pragma unroll
      for (int jp = 0; jp < 8; jp += 2) {  // chunk pairs of the box
        const int j = 8 * (b0 + i) + jp;     // the pair's first chunk in the warpgroup's columns
        float bias_pair[2][2] = {};
#pragma unroll
        for (int cj = 0; cj < 2; ++cj) {
          if (lane_bias != nullptr && 8 * (j + cj) + 2 * q < wg_cols) {
            bias_pair[cj][0] = to_float(lane_bias[8 * (j + cj)]);
            bias_pair[cj][1] = to_float(lane_bias[8 * (j + cj) + 1]);
          }
        }
#pragma unroll
        for (int mb = 0; mb < Config::kWgMBlocks; ++mb) {
          std::uint32_t x[4];  // matrices (h 0, chunk j), (h 1, j), (h 0, j + 1), (h 1, j + 1)
#pragma unroll
          for (int m = 0; m < 4; ++m) {
            const int r = 2 * mb + m % 2, cj = m / 2;
            const bool inside = 8 * (j + cj) + 2 * q < wg_cols;
            Out const* c_pair = c_row[r] != nullptr && inside ? c_row[r] + 8 * (j + cj) : nullptr;
            pair_value<Config, Out, Relu, General>(acc, r, j + cj, c_pair, bias_pair[cj][0], bias_pair[cj][1],
                                                   row_bias[r], p, &x[m]);
          }
          stmatrix_x4(box + box_lane.at(mb, jp), x);
        }
      }
    }
    fence_proxy_async_shared();
    if (leader) tma_store_wait_read<0>();  // the pass before this one has left its group
    named_barrier<128>(3 + wg);
    if (leader) {
#pragma unroll
      for (int i = 0; i < Shape::kPass && b0 + i < Shape::kWgBoxes; ++i) {
        if (64 * (b0 + i) >= wg_cols) break;
        tma_store_3d(map, region_ptr + (group * Shape::kPass + i) * Shape::kBoxBytes, col0 + wg_col + 64 * (b0 + i),
                     row0 + wg_m * Shape::kWgRows, batch);
      }
      tma_store_commit();
    }
  }
}

// The tile's part of warpgroup wg (acc; wg_m, wg_n its place in the tile) into D through the
// TMA engine; (row0, col0) the tile's origin in D, rows x cols of it inside D. D is 16-bit
// (p.out), plain (no row scatter) and the map's; staging: the kernel's staging area, which
// nothing else uses while the map is on; passes: the warpgroup's passes so far (kept by the
// caller across tiles).
template <class Config>
__device__ void store_accumulators_tma(float const (&acc)[Config::kAccumulators], int wg, int wg_m, int wg_n,
                                       EpilogueParams const& p, CUtensorMap const* map, int batch, int row0, int col0,
                                       int rows, int cols, unsigned char* staging, int& passes) {
  rows = rows < Config::kTileM ? rows : Config::kTileM;
  cols = cols < Config::kTileN ? cols : Config::kTileN;
  const int wg_col = Config::kWarpGroupsN == 1 ? 0 : wg_n * Config::kWgTileN;
  if (wg_col >= cols || wg_m * TmaStoreShape<Config>::kWgRows >= rows) return;  // the part lies past N or M
  with_value_form(p, [&](auto relu, auto general) {
    constexpr bool kRelu = decltype(relu)::value, kGeneral = decltype(general)::value;
    if (p.out == DataType::kF16) {
      store_boxes_tma<Config, Half, kRelu, kGeneral>(acc, wg, wg_m, wg_col, p, map, batch, row0, col0, rows, cols,
                                                     staging, passes);
    } else {
      store_boxes_tma<Config, BFloat16, kRelu, kGeneral>(acc, wg, wg_m, wg_col, p, map, batch, row0, col0, rows, cols,
                                                         staging, passes);
    }
  });
}

}  // namespace detail
#endif

}  // namespace tessel
