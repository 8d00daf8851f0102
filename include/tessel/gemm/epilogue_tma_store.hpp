// The sm_90a kernel's epilogue through the TMA engine's store (kernel_sm90_tma.hpp, when the
// host planned a map of D: TmaOutput). Each thread computes D = act(alpha * acc + bias) from its
// accumulators in registers, converts it to D's type and writes it into shared memory as the
// boxes of D's map; one thread asks the engine to store them, and the warpgroups go on to their
// next tile without waiting for global memory. The wait for the engine to have read the boxes
// is deferred to the next time the staging is written (the next slice, or the next tile).
//
// Staging for E = Config::kEpilogueTileN columns of the tile: E / box_cols boxes, each
// (TileM rows, box_cols = 128 / sizeof(Out) columns: 32 f32 or 64 f16/bf16), rows of 128 bytes
// whose 16-byte chunks are XORed with row % 8 (the map's CU_TENSOR_MAP_SWIZZLE_128B). A warp
// writes 2 values per lane for 8 rows and 8 columns: 8 rows of 32 bytes (f32) fall on 4 chunk
// pairs, 2 wavefronts for 256 bytes; 8 rows of 16 bytes (f16, bf16) on 8 chunks, one wavefront.
//
// Used when beta = 0 (C is not read) and D's pointer, rows and batches lie on 16 bytes; the
// threads' stores of epilogue.hpp do the rest.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "epilogue.hpp"
#include "tessel/arch/named_barrier.hpp"
#include "tessel/arch/sm90/tma.hpp"
#include "tessel/arch/sm90/wgmma.hpp"

namespace tessel {

// D as the host encodes it (src/gemm/gemm_plan.hpp, plan_output_map): a 3-d tiled map
// (N, M, batch) of D's type, boxes (128 / sizeof(Out), TileM, 1), 128-byte swizzle.
// on = false: the threads store D.
struct TmaOutput {
  CUtensorMap map;
  bool on = false;
};

#if defined(__CUDACC__)
namespace detail {

// Element i of an array of D's type (the bias), as a float.
__device__ inline float output_value(EpilogueParams const& p, void const* values, std::int64_t i) {
  if (p.out == DataType::kF32) return static_cast<float const*>(values)[i];
  if (p.out == DataType::kF16) return to_float(static_cast<Half const*>(values)[i]);
  return to_float(static_cast<BFloat16 const*>(values)[i]);
}

// Columns [Slice * E, Slice * E + E) of the warpgroup's part of the tile, from its accumulators
// (wgmma.hpp's layout) through the epilogue's arithmetic into the staging boxes, as p.out.
// rows x cols of the tile lie inside D (bias reads stop there). The output type is a run-time
// branch per pair of values, not three copies of the loop: with three, ptxas spills.
template <class Config, int Slice>
__device__ void stage_outputs(unsigned char* staging, float const (&acc)[Config::kAccumulators], int wg_m, int wg_n,
                              EpilogueParams const& p, int row0, int col0, int rows, int cols) {
  constexpr int kE = Config::kEpilogueTileN;
  constexpr int kBoxBytes = Config::kTileM * 128;
  const bool f32 = p.out == DataType::kF32;
  const int log2_bytes = f32 ? 2 : 1;
  const int log2_box_cols = 7 - log2_bytes;  // 32 or 64 columns of 128 bytes
  const int warp = int(threadIdx.x) % 128 / 32, lane = int(threadIdx.x) % 32;
  const int col = wg_n * Config::kWgTileN + 2 * (lane % 4) - Slice * kE;  // of column 0 of the warpgroup, in the slice
#pragma unroll
  for (int mb = 0; mb < Config::kWgMBlocks; ++mb) {
    const int row = (wg_m * Config::kWgMBlocks + mb) * 64 + warp * 16 + lane / 4;
    float row_bias[2] = {0.0f, 0.0f};
    if (p.bias_mode == BiasMode::kPerRow) {
      for (int h = 0; h < 2; ++h) row_bias[h] = row + 8 * h < rows ? output_value(p, p.bias, row0 + row + 8 * h) : 0.0f;
    }
    float const* block = &acc[mb * (Config::kWgTileN / 2)];
#pragma unroll
    for (int j = 0; j < Config::kWgTileN / 8; ++j) {
      const int c = col + 8 * j;  // in the slice
      if (c < 0 || c >= kE) continue;
      const int tile_col = Slice * kE + c;
      float col_bias[2] = {0.0f, 0.0f};
      if (p.bias_mode == BiasMode::kPerColumn) {
        for (int i = 0; i < 2; ++i) {
          col_bias[i] = tile_col + i < cols ? output_value(p, p.bias, col0 + tile_col + i) : 0.0f;
        }
      }
      const int byte = (c & ((1 << log2_box_cols) - 1)) << log2_bytes;  // in the box's 128-byte row
      unsigned char* box = staging + (c >> log2_box_cols) * kBoxBytes;
#pragma unroll
      for (int h = 0; h < 2; ++h) {  // rows row and row + 8
        const int r = row + 8 * h;
        const float x = activate(p.alpha * block[4 * j + 2 * h] + col_bias[0] + row_bias[h], p.act);
        const float y = activate(p.alpha * block[4 * j + 2 * h + 1] + col_bias[1] + row_bias[h], p.act);
        unsigned char* at = box + r * 128 + (((byte / 16) ^ (r % 8)) * 16) + byte % 16;
        if (f32) {
          *reinterpret_cast<float2*>(at) = make_float2(x, y);
        } else if (p.out == DataType::kF16) {
          *reinterpret_cast<__half2*>(at) = __floats2half2_rn(x, y);
        } else {
          *reinterpret_cast<__nv_bfloat162*>(at) = __floats2bfloat162_rn(x, y);
        }
      }
    }
  }
}

// The tile's accumulators into D through the engine (see the top of this file); the arguments
// are those of store_accumulators (kernel_sm90.hpp), plus D's map. The leader thread
// (threadIdx.x % Config::kEpilogueThreads == 0) owns the stores: before the block exits it
// waits for them (tma_store_wait<0>).
template <class Config>
__device__ void store_accumulators_tma(unsigned char* staging, float const (&acc)[Config::kAccumulators], int wg,
                                       int wg_m, int wg_n, EpilogueParams const& p, CUtensorMap const* map, int batch,
                                       int row0, int col0, int rows, int cols) {
  constexpr int kE = Config::kEpilogueTileN;
  constexpr int kBoxBytes = Config::kTileM * 128;
  static_assert(kE % 64 == 0 && kE / 32 * kBoxBytes <= Config::kSmemBytesCPerWg,
                "store_accumulators_tma: a slice is whole boxes of 128-byte rows, and they fit the staging");
  const int box_cols = p.out == DataType::kF32 ? 32 : 64;
  const int barrier = Config::kPingPong ? 1 + wg : 1;
  const bool leader = int(threadIdx.x) % Config::kEpilogueThreads == 0;  // issues and waits for the stores
  auto slice = [&](auto s) {
    constexpr int kSlice = decltype(s)::value;
    if (kSlice * kE >= cols) return;  // past N (the same for every thread)
    if (leader) tma_store_wait_read<0>();  // the boxes of the slice or tile before have been read
    named_barrier<Config::kEpilogueThreads>(barrier);
    stage_outputs<Config, kSlice>(staging, acc, wg_m, wg_n, p, row0, col0, rows, cols);
    fence_proxy_async();  // the writes, visible to the engine
    named_barrier<Config::kEpilogueThreads>(barrier);
    if (leader) {
      for (int b = 0; b * box_cols < kE && kSlice * kE + b * box_cols < cols; ++b) {
        tma_store_3d(map, col0 + kSlice * kE + b * box_cols, row0, batch, staging + b * kBoxBytes);
      }
      tma_store_commit();
    }
  };
  [&]<int... S>(std::integer_sequence<int, S...>) {
    (slice(std::integral_constant<int, S>{}), ...);
  }(std::make_integer_sequence<int, Config::kTileN / kE>{});
}

}  // namespace detail
#endif

}  // namespace tessel
