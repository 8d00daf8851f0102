// The TMA-store epilogue of the sm_90a TMA kernel: the threads turn their accumulators into D's
// values (alpha acc + bias, activation, D's type) and write them into the staging tile as the
// boxes of an output map, 128-byte swizzled; one thread then asks the TMA engine to store the
// boxes and the threads go back to the mainloop while the engine writes D. Measured before it
// existed: the f32 output of 4096^3 cost 27-49 us of a 240 us kernel, written by the threads
// while the tensor cores waited (docs/PERFORMANCE.md, fifth session of 2026-11-24).
//
// A slice of E = Config::kEpilogueTileN columns at a time (the staging tile's width):
//   1. the issuing thread waits until the previous slice's stores have read the staging tile;
//      named barrier
//   2. each thread writes its pairs of adjacent columns (wgmma.hpp's layout) into the boxes:
//      box b holds columns [b * W, b * W + W), W = 128 / sizeof(Out), of all TileM rows; row r
//      of a box is 128 bytes, its 16-byte units XOR-swizzled by r % 8 (the map's 128-byte
//      swizzle), so a warp's 8-row pair stores are conflict-free
//   3. fence.proxy.async; named barrier; the issuing thread stores the E / W boxes, commits
// The host encodes the map (TmaStore, dispatch.cpp) only where it applies: no C to read
// (beta = 0), rows evenly spaced (no RowScatter), 16-byte aligned D. Boxes past D's edges are
// clipped by the engine. Before the block exits, the issuing thread waits for every store.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "epilogue.hpp"
#include "tessel/arch/named_barrier.hpp"
#include "tessel/arch/sm90/tma.hpp"
#include "tessel/arch/sm90/wgmma.hpp"  // fence_proxy_async

namespace tessel {

// D's map for the TMA-store epilogue: (columns, rows, layers) of D's type, boxes of
// (128 / sizeof(Out), TileM, 1), 128-byte swizzle. on == 0: the staged threads' stores.
struct TmaStore {
  CUtensorMap map;
  int on = 0;
};

#if defined(__CUDACC__)
namespace detail {

template <class Out>
__device__ std::uint32_t pair_bits(float x0, float x1) {
  if constexpr (std::is_same_v<Out, Half>) {
    return std::uint32_t(__half_as_ushort(from_float<Half>(x0))) |
           std::uint32_t(__half_as_ushort(from_float<Half>(x1))) << 16;
  } else {
    return std::uint32_t(__bfloat16_as_ushort(from_float<BFloat16>(x0))) |
           std::uint32_t(__bfloat16_as_ushort(from_float<BFloat16>(x1))) << 16;
  }
}

// One pair of D's values into shared memory at the 32-bit address `at` (st.shared with a
// register + constant address: no 64-bit pointers for the compiler to precompute and spill).
template <class Out>
__device__ void store_pair(std::uint32_t at, float x0, float x1) {
  if constexpr (sizeof(Out) == 4) {
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(at), "f"(x0), "f"(x1) : "memory");
  } else {
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(at), "r"(pair_bits<Out>(x0, x1)) : "memory");
  }
}

// Step 2 for slice `Slice` of the warpgroup's accumulators, as Out. rows x cols: the tile's
// part inside D (bias is read only there). A thread's rows differ by multiples of 8, so the
// swizzle's row % 8 is lane / 4 for all of them; a pair's 16-byte unit in its box row is the
// chunk's (a constant) plus (lane % 4) * 2 * sizeof(Out) / 16, which only flips bit 0.
template <class Config, int Slice, class Out>
__device__ void stage_output_slice(unsigned char* staging, float const (&acc)[Config::kAccumulators], int wg_m,
                                   int wg_n, EpilogueParams const& p, int batch, int row0, int col0, int rows,
                                   int cols) {
  constexpr int kE = Config::kEpilogueTileN, kBoxCols = 128 / int(sizeof(Out));
  constexpr int kBoxBytes = Config::kTileM * 128;
  const int thread = epilogue_thread_index();
  const int warp = thread % 128 / 32, lane = thread % 32;
  const int wg_col = Config::kWarpGroupsN == 1 ? 0 : wg_n * Config::kWgTileN;  // as stage_accumulators
  const int pair_byte = 2 * (lane % 4) * int(sizeof(Out));                     // in the 8-column chunk
  const int swizzle = (pair_byte >> 4) ^ (lane / 4);  // XOR of the chunk's 16-byte unit
  const int first_row = wg_m * Config::kWgMBlocks * 64 + warp * 16 + lane / 4;
  const std::uint32_t thread_base =
      std::uint32_t(__cvta_generic_to_shared(staging)) + first_row * 128 + (pair_byte & 15);
  Out const* bias = static_cast<Out const*>(p.bias) + batch * p.bias_batch_stride;
#pragma unroll
  for (int mb = 0; mb < Config::kWgMBlocks; ++mb) {
    float const* block = &acc[mb * (Config::kWgTileN / 2)];
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // rows r and r + 8
      const int row = first_row + mb * 64 + 8 * h;  // in the tile
      const float row_bias = p.bias_mode == BiasMode::kPerRow && row < rows ? to_float(bias[row0 + row]) : 0.0f;
#pragma unroll
      for (int j = 0; j < Config::kWgTileN / 8; ++j) {
        const int chunk = wg_col + 8 * j - Slice * kE;  // the chunk's first column in the slice
        if (chunk < 0 || chunk >= kE) continue;
        const int tile_col = Slice * kE + chunk + 2 * (lane % 4);  // the pair's first column in the tile
        float x0 = p.alpha * block[4 * j + 2 * h] + row_bias, x1 = p.alpha * block[4 * j + 2 * h + 1] + row_bias;
        if (p.bias_mode == BiasMode::kPerColumn) {
          if (tile_col < cols) x0 += to_float(bias[col0 + tile_col]);
          if (tile_col + 1 < cols) x1 += to_float(bias[col0 + tile_col + 1]);
        }
        x0 = activate(x0, p.act), x1 = activate(x1, p.act);
        const int unit = (chunk % kBoxCols) * int(sizeof(Out)) / 16;  // the chunk's 16-byte unit
        store_pair<Out>(thread_base + (chunk / kBoxCols) * kBoxBytes + (mb * 64 + 8 * h) * 128 + ((unit ^ swizzle) << 4),
                        x0, x1);
      }
    }
  }
}

}  // namespace detail

// The tile's accumulators into D by the TMA engine (see above); the Config::kEpilogueThreads
// threads that own the tile (named barrier `barrier`) call it, threadIdx.x % kEpilogueThreads
// == 0 issues. (row0, col0): the tile's origin in D, rows x cols of it inside D; batch: the map's
// layer.
template <class Config>
__device__ void store_accumulators_tma(unsigned char* staging, float const (&acc)[Config::kAccumulators], int wg_m,
                                       int wg_n, EpilogueParams const& p, CUtensorMap const* map, int barrier,
                                       int batch, int row0, int col0, int rows, int cols) {
  constexpr int kE = Config::kEpilogueTileN;
  const bool issuer = int(threadIdx.x) % Config::kEpilogueThreads == 0;
  auto slice = [&](auto s, auto out) {
    constexpr int kSlice = decltype(s)::value;
    using Out = typename decltype(out)::type;
    constexpr int kBoxCols = 128 / int(sizeof(Out)), kBoxBytes = Config::kTileM * 128;
    static_assert(kE % kBoxCols == 0, "TMA-store epilogue: a slice is whole boxes");
    if (issuer) bulk_wait_group_read<0>();  // the previous slice's boxes have been read
    named_barrier<Config::kEpilogueThreads>(barrier);
    detail::stage_output_slice<Config, kSlice, Out>(staging, acc, wg_m, wg_n, p, batch, row0, col0, rows, cols);
    fence_proxy_async();
    named_barrier<Config::kEpilogueThreads>(barrier);
    if (issuer) {
      for (int b = 0; b < kE / kBoxCols; ++b) {
        if (kSlice * kE + b * kBoxCols < cols) {
          tma_store_3d(map, staging + b * kBoxBytes, col0 + kSlice * kE + b * kBoxCols, row0, batch);
        }
      }
      bulk_commit_group();
    }
  };
  auto slices = [&](auto out) {
    [&]<int... S>(std::integer_sequence<int, S...>) {
      (slice(std::integral_constant<int, S>{}, out), ...);
    }(std::make_integer_sequence<int, Config::kTileN / kE>{});
  };
  switch (p.out) {
    case DataType::kF32: slices(std::type_identity<float>{}); break;
    case DataType::kF16: slices(std::type_identity<Half>{}); break;
    case DataType::kBF16: slices(std::type_identity<BFloat16>{}); break;
  }
}
#endif

}  // namespace tessel
