// The direct epilogue of the wgmma kernels: each thread stores its accumulators straight from
// registers to D, with no staging tile in shared memory and no barrier,
//   D = act(alpha * acc + beta * C + bias)
// as epilogue.hpp computes it (C may alias D: each element of C is read by the thread that
// then writes it). Used where staging costs more than it gives (GemmConfigSm90::kDirectEpilogue):
// a 128x256 tile's 128 accumulators a thread do not fit beside the staged epilogue's registers,
// and the shared memory a staging tile takes is a stage of the ring.
//
// wgmma's accumulator layout (arch/sm90/wgmma.hpp) gives each thread, per 64-row block and
// per 8-column chunk j, two pairs of adjacent columns: (r, c..c+1) and (r+8, c..c+1), with
// r = 16 warp + lane / 4 and c = 8 j + 2 (lane % 4). A quad of lanes covers 8 columns of a row:
// 32 contiguous bytes of an fp32 D (one sector), 16 of a 16-bit one. A pair is stored with one
// 8- or 4-byte access where EpilogueParams::vector_ok holds (then every pair is aligned),
// element by element otherwise; rows past `rows` and columns past `cols` are not touched.
#pragma once

#include <cstdint>

#include "epilogue.hpp"
#include "tessel/arch/numeric_types.hpp"

namespace tessel {

#if defined(__CUDACC__)
namespace detail {

// Two adjacent values of type Out, as one access.
template <class Out>
struct alignas(2 * sizeof(Out)) OutPair {
  Out x, y;
};

// The pairs of one warpgroup's (64 * MBlocks, WgTileN) accumulators as Out. (row0, col0): the
// warpgroup's origin in D; rows x cols of it lie inside D.
template <int MBlocks, int WgTileN, class Out, int N>
__device__ void store_pairs_direct(float const (&acc)[N], EpilogueParams const& p, int batch, std::int64_t row0,
                                   int col0, int rows, int cols) {
  static_assert(N == MBlocks * WgTileN / 2, "store_pairs_direct: one fp32 register per (row, column) pair element");
  const int warp = int(threadIdx.x) % 128 / 32, lane = int(threadIdx.x) % 32;
  Out* d = static_cast<Out*>(p.d) + batch * p.d_batch_stride;
  Out const* c = p.beta != 0.0f ? static_cast<Out const*>(p.c) + batch * p.c_batch_stride : nullptr;
  Out const* bias = static_cast<Out const*>(p.bias) + batch * p.bias_batch_stride;
  // The common case decides nothing per element: no residual, no per-row bias, no GELU.
  const bool plain = p.beta == 0.0f && p.bias_mode != BiasMode::kPerRow && p.act != Activation::kGELU;
  const bool relu = p.act == Activation::kReLU, column_bias = p.bias_mode == BiasMode::kPerColumn;
#pragma unroll
  for (int mb = 0; mb < MBlocks; ++mb) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // rows r and r + 8 of the block
      const int row = mb * 64 + warp * 16 + lane / 4 + 8 * h;
      if (row >= rows) continue;
      const std::int64_t gm = row0 + row;
      const std::int64_t row_d = p.scatter.row_start(gm, p.ldd);
      const std::int64_t row_c = p.scatter.cols > 0 ? row_d : gm * p.ldc;  // scattered: C is laid out as D
      const float row_bias = p.bias_mode == BiasMode::kPerRow ? to_float(bias[gm]) : 0.0f;
#pragma unroll
      for (int j = 0; j < WgTileN / 8; ++j) {
        const int col = 8 * j + 2 * (lane % 4);
        if (col >= cols) break;
        const int gn = col0 + col;
        const bool both = col + 1 < cols;
        float x0 = p.alpha * acc[mb * (WgTileN / 2) + 4 * j + 2 * h];
        float x1 = p.alpha * acc[mb * (WgTileN / 2) + 4 * j + 2 * h + 1];
        if (column_bias) {
          x0 += to_float(bias[gn]);
          if (both) x1 += to_float(bias[gn + 1]);
        }
        if (plain) {
          if (relu) x0 = fmaxf(x0, 0.0f), x1 = fmaxf(x1, 0.0f);
        } else {
          if (p.beta != 0.0f) {
            x0 += p.beta * to_float(c[row_c + gn]);
            if (both) x1 += p.beta * to_float(c[row_c + gn + 1]);
          }
          x0 = activate(x0 + row_bias, p.act), x1 = activate(x1 + row_bias, p.act);
        }
        if (both && p.vector_ok) {
          *reinterpret_cast<OutPair<Out>*>(d + row_d + gn) = OutPair<Out>{from_float<Out>(x0), from_float<Out>(x1)};
        } else {
          d[row_d + gn] = from_float<Out>(x0);
          if (both) d[row_d + gn + 1] = from_float<Out>(x1);
        }
      }
    }
  }
}

// The warpgroup (wg_m, wg_n) of a Config tile stores its part of the tile to D: (row0, col0)
// the tile's origin in D, rows x cols of the tile inside D (clipped here).
template <class Config>
__device__ void store_accumulators_direct(float const (&acc)[Config::kAccumulators], int wg_m, int wg_n,
                                          EpilogueParams const& p, int batch, int row0, int col0, int rows, int cols) {
  constexpr int kRows = 64 * Config::kWgMBlocks, kCols = Config::kWgTileN;
  rows -= wg_m * kRows, cols -= wg_n * kCols;
  if (rows <= 0 || cols <= 0) return;
  rows = rows < kRows ? rows : kRows;
  cols = cols < kCols ? cols : kCols;
  const std::int64_t r0 = std::int64_t(row0) + wg_m * kRows;
  const int c0 = col0 + wg_n * kCols;
  switch (p.out) {
    case DataType::kF32:
      store_pairs_direct<Config::kWgMBlocks, kCols, float>(acc, p, batch, r0, c0, rows, cols);
      break;
    case DataType::kF16:
      store_pairs_direct<Config::kWgMBlocks, kCols, Half>(acc, p, batch, r0, c0, rows, cols);
      break;
    case DataType::kBF16:
      store_pairs_direct<Config::kWgMBlocks, kCols, BFloat16>(acc, p, batch, r0, c0, rows, cols);
      break;
  }
}

}  // namespace detail
#endif

}  // namespace tessel
