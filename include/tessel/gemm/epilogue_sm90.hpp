// The sm90 epilogue: a warpgroup's wgmma accumulators straight to D, without shared memory:
//   D = act(alpha * acc + beta * C + bias)       in fp32, then D's type
// By wgmma's accumulator layout (arch/sm90/wgmma.hpp), thread t = 32 w + l of a warpgroup holds,
// per 64-row block mb and 8-column chunk j, the pairs
//   row 64 mb + 16 w + l / 4 + 8 h,  columns 8 j + 2 (l % 4) + {0, 1}        (h = 0, 1)
// In the common case (store_full_columns) the lanes of a quad exchange their pairs with
// shuffles, so that each stores 16-byte runs: a warp's store covers 8 rows x 64 bytes. Otherwise
// each pair is one access of two elements, and where a row of D is not aligned to two
// elements each element is one. No shared memory and no barrier: the stores
// are in flight while the warps go on to the next tile's mainloop, and the threads' addresses
// are a row pointer each plus constant column offsets. C and D may be the same memory: each
// element of C is read by the thread that then writes it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "epilogue.hpp"

namespace tessel {

#if defined(__CUDACC__)
namespace detail {

// Two consecutive elements of D or C, accessed as one (8 bytes for fp32, 4 for 16-bit types).
template <class Out>
struct alignas(2 * sizeof(Out)) OutPair {
  Out x, y;
};

// The accumulators of the thread's row r (r = 2 mb + h) in chunk j: columns 8 j + 2 (lane % 4)
// + {0, 1} of that row (wgmma.hpp's layout).
template <class Config>
__device__ inline float const* accumulator_pair(float const (&acc)[Config::kAccumulators], int r, int j) {
  return &acc[(r / 2) * (Config::kWgTileN / 2) + 4 * j + 2 * (r % 2)];
}

// A pair of D's values as the 32-bit words that hold it: two for fp32, one for 16-bit types.
template <class Out>
__device__ inline void pack_pair(float x0, float x1, std::uint32_t* words) {
  if constexpr (std::is_same_v<Out, float>) {
    words[0] = __float_as_uint(x0), words[1] = __float_as_uint(x1);
  } else {
    OutPair<Out> pair{from_float<Out>(x0), from_float<Out>(x1)};
    words[0] = *reinterpret_cast<std::uint32_t const*>(&pair);
  }
}

// The common case: the warpgroup's columns all inside D, 16-byte runs (vector_ok), no residual,
// no bias or one per column, no activation or ReLU. Each lane of a quad (the 4 lanes that
// share rows) holds pairs 8 bytes (fp32) or 4 bytes apart; kG = 8 / sizeof(Out) lanes
// exchange them by a kG x kG transpose (shuffles), so that each lane holds a 16-byte run of
// one 8-column chunk per row: then a warp's store covers 8 rows x 64 bytes, whole sectors,
// with four times fewer accesses for 16-bit D than pairs would take.
//   before: lane q of the group, chunk j0 + c:  columns 8 (j0 + c) + 2 q' + {0, 1}, c < kG
//   after:  lane q, chunk j0 + q % kG:         columns 8 (j0 + q % kG) + 2 kG (q' / kG) + [0, 2 kG)
// (q' = lane % 4; for fp32 the quad is two groups of two lanes, each one half of a chunk).
template <class Config, class Out, bool Relu>
__device__ void store_full_columns(float const (&acc)[Config::kAccumulators], Out* const (&out)[2 * Config::kWgMBlocks],
                                   Out const* bias, float alpha) {
  constexpr int kRows = 2 * Config::kWgMBlocks, kChunks = Config::kWgTileN / 8;
  constexpr int kG = 8 / int(sizeof(Out));      // lanes (and chunks) a transpose spans
  constexpr int kWords = int(sizeof(Out)) / 2;  // 32-bit words of one pair
  const int lane = int(threadIdx.x) % 32;
#pragma unroll
  for (int j0 = 0; j0 < kChunks; j0 += kG) {
    std::uint32_t x[kRows][kG][kWords];  // (row, chunk, word): this lane's pairs
#pragma unroll
    for (int c = 0; c < kG; ++c) {
      float b0 = 0.0f, b1 = 0.0f;
      if (bias != nullptr) b0 = to_float(bias[8 * (j0 + c)]), b1 = to_float(bias[8 * (j0 + c) + 1]);
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        float const* v = accumulator_pair<Config>(acc, r, j0 + c);
        float x0 = alpha * v[0] + b0, x1 = alpha * v[1] + b1;
        if constexpr (Relu) x0 = fmaxf(x0, 0.0f), x1 = fmaxf(x1, 0.0f);
        pack_pair<Out>(x0, x1, x[r][c]);
      }
    }
    // Butterfly transpose: at distance m, the lane whose bit m is clear gives its chunks with
    // bit m set and takes the partner's with bit m clear, and the other way round.
#pragma unroll
    for (int m = 1; m < kG; m *= 2) {
      const bool upper = lane & m;
#pragma unroll
      for (int c = 0; c < kG; ++c) {
        if (c & m) continue;
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
#pragma unroll
          for (int w = 0; w < kWords; ++w) {
            const std::uint32_t mine = upper ? x[r][c][w] : x[r][c | m][w];
            const std::uint32_t theirs = __shfl_xor_sync(0xffffffffu, mine, m);
            if (upper) {
              x[r][c][w] = theirs;
            } else {
              x[r][c | m][w] = theirs;
            }
          }
        }
      }
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      std::uint32_t const* run = &x[r][0][0];  // the lane's 16 bytes of row r, in column order
      if (out[r] != nullptr) *reinterpret_cast<uint4*>(out[r] + 8 * j0) = make_uint4(run[0], run[1], run[2], run[3]);
    }
  }
}

// The tile's part of one warpgroup, from its accumulators (acc: (64 * kWgMBlocks, kWgTileN),
// wgmma.hpp's layout; wg_m, wg_n its place in the tile) to D as Out; (row0, col0) the tile's
// origin in D, rows x cols of the tile inside D.
template <class Config, class Out>
__device__ void store_accumulators_as(float const (&acc)[Config::kAccumulators], int wg_m, int wg_n,
                                      EpilogueParams const& p, int batch, int row0, int col0, int rows, int cols) {
  constexpr int kRows = 2 * Config::kWgMBlocks;  // rows a thread holds
  constexpr int kChunks = Config::kWgTileN / 8;  // 8-column chunks of the warpgroup's part
  const int warp = int(threadIdx.x) % 128 / 32, lane = int(threadIdx.x) % 32;
  const int wg_col = Config::kWarpGroupsN == 1 ? 0 : wg_n * Config::kWgTileN;  // within the tile
  auto row_of = [&](int r) {  // the thread's r-th row in the tile: r = 2 mb + h
    return (wg_m * Config::kWgMBlocks + r / 2) * 64 + warp * 16 + lane / 4 + 8 * (r % 2);
  };
  Out* d = static_cast<Out*>(p.d) + batch * p.d_batch_stride;
  Out const* c = p.beta != 0.0f ? static_cast<Out const*>(p.c) + batch * p.c_batch_stride : nullptr;
  Out const* bias = static_cast<Out const*>(p.bias) + batch * p.bias_batch_stride;

  if (c == nullptr && p.vector_ok && wg_col + Config::kWgTileN <= cols && p.bias_mode != BiasMode::kPerRow &&
      (p.act == Activation::kNone || p.act == Activation::kReLU)) {
    constexpr int kG = 8 / int(sizeof(Out));
    const int q = lane % 4;
    Out* out[kRows];  // (row) where this lane's first 16-byte run goes; nullptr past M
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const int row = row_of(r);
      out[r] = row < rows ? d + p.scatter.row_start(row0 + row, p.ldd) + col0 + wg_col + 8 * (q % kG) + 2 * kG * (q / kG)
                          : nullptr;
    }
    Out const* lane_bias = p.bias_mode == BiasMode::kPerColumn ? bias + col0 + wg_col + 2 * q : nullptr;
    if (p.act == Activation::kReLU) {
      store_full_columns<Config, Out, true>(acc, out, lane_bias, p.alpha);
    } else {
      store_full_columns<Config, Out, false>(acc, out, lane_bias, p.alpha);
    }
    return;
  }

  // Pair by pair, element by element where needed: a residual, a bias per row, GELU, columns
  // past N, or rows that are not 16-byte aligned.
  const int col = wg_col + 2 * (lane % 4);  // the lane's first column in the tile; + 8 j
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int row = row_of(r);
    if (row >= rows) continue;
    const std::int64_t gm = row0 + row;
    const std::int64_t row_d = p.scatter.row_start(gm, p.ldd) + col0 + col;
    const std::int64_t row_c = p.scatter.cols > 0 ? row_d : gm * p.ldc + col0 + col;  // scattered: C laid out as D
    const float row_bias = p.bias_mode == BiasMode::kPerRow ? to_float(bias[gm]) : 0.0f;
    // Pairs where this row's are aligned to two elements (with an odd ldd, every other row).
    auto pair_aligned = [](Out const* q) { return reinterpret_cast<std::uintptr_t>(q) % (2 * sizeof(Out)) == 0; };
    const bool row_pairs = pair_aligned(d + row_d) && (c == nullptr || pair_aligned(c + row_c));
#pragma unroll
    for (int j = 0; j < kChunks; ++j) {
      const int n = col + 8 * j;  // within the tile
      if (n >= cols) break;
      const bool pair = n + 1 < cols && row_pairs;
      float const* v = accumulator_pair<Config>(acc, r, j);
      float x[2] = {p.alpha * v[0], p.alpha * v[1]};
      if (c != nullptr) {
        if (pair) {
          const OutPair<Out> cv = *reinterpret_cast<OutPair<Out> const*>(c + row_c + 8 * j);
          x[0] += p.beta * to_float(cv.x), x[1] += p.beta * to_float(cv.y);
        } else {
          x[0] += p.beta * to_float(c[row_c + 8 * j]);
          if (n + 1 < cols) x[1] += p.beta * to_float(c[row_c + 8 * j + 1]);
        }
      }
      for (int i = 0; i < 2; ++i) {
        if (p.bias_mode == BiasMode::kPerColumn && n + i < cols) x[i] += to_float(bias[col0 + n + i]);
        x[i] = activate(x[i] + row_bias, p.act);
      }
      if (pair) {
        *reinterpret_cast<OutPair<Out>*>(d + row_d + 8 * j) = OutPair<Out>{from_float<Out>(x[0]), from_float<Out>(x[1])};
      } else {
        d[row_d + 8 * j] = from_float<Out>(x[0]);
        if (n + 1 < cols) d[row_d + 8 * j + 1] = from_float<Out>(x[1]);
      }
    }
  }
}

// The tile's accumulators into D, by each MMA warpgroup for its part of the tile; (row0, col0)
// the tile's origin in D, rows x cols of it inside D. No shared memory and no barrier: a
// warpgroup may go on as soon as its stores are issued.
template <class Config>
__device__ void store_accumulators(float const (&acc)[Config::kAccumulators], int wg_m, int wg_n,
                                   EpilogueParams const& p, int batch, int row0, int col0, int rows, int cols) {
  rows = rows < Config::kTileM ? rows : Config::kTileM;
  cols = cols < Config::kTileN ? cols : Config::kTileN;
  switch (p.out) {
    case DataType::kF32: store_accumulators_as<Config, float>(acc, wg_m, wg_n, p, batch, row0, col0, rows, cols); break;
    case DataType::kF16: store_accumulators_as<Config, Half>(acc, wg_m, wg_n, p, batch, row0, col0, rows, cols); break;
    case DataType::kBF16:
      store_accumulators_as<Config, BFloat16>(acc, wg_m, wg_n, p, batch, row0, col0, rows, cols);
      break;
  }
}

}  // namespace detail
#endif

}  // namespace tessel
