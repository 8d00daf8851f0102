// The sm90 epilogue: a warpgroup's wgmma accumulators to D, without a barrier:
//   D = act(alpha * acc + beta * C + bias)       in fp32, then D's type
// By wgmma's accumulator layout (arch/sm90/wgmma.hpp), thread t = 32 w + l of a warpgroup holds,
// per 64-row block mb and 8-column chunk j, the pairs
//   row 64 mb + 16 w + l / 4 + 8 h,  columns 8 j + 2 (l % 4) + {0, 1}        (h = 0, 1)
// Where D and C are 16-byte aligned and the warpgroup's columns end on a 16-byte run
// (store_full_columns), the lanes of a quad exchange their pairs with shuffles, so that each
// stores 16-byte runs straight from the registers: a warp's store covers 8 rows x 64 bytes.
// Otherwise (unaligned rows, N inside a run: store_through_warp_scratch) each warp stages 32
// columns of its 16 rows at a time in its own shared memory and stores them a row at a time,
// 32 consecutive elements a warp. The stores are in flight while the warps go on to the next
// tile's mainloop. C and D may be the same memory: each element of C is read by the thread
// that then writes it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "epilogue.hpp"

namespace tessel {

namespace detail {
// Shared memory of store_through_warp_scratch (below): each MMA warp stages its (16, 32)
// slices of fp32 values in its own (16, kScratchStride) area. With rows 40 floats apart, a
// half-warp's 8-byte writes (4 rows x 4 lanes) and a warp's reads of one row hit 32 distinct
// banks (tests/host/gemm_config_test.cpp).
inline constexpr int kScratchStride = 40;
inline constexpr int kWarpScratchFloats = 16 * kScratchStride;
template <class Config>
inline constexpr int kEpilogueScratchBytes = Config::kThreads / 32 * kWarpScratchFloats * int(sizeof(float));
}  // namespace detail

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

// One pair of D's values, row r and chunk j of the thread (accumulator_pair), packed as D's
// words: alpha * acc, plus beta * C's pair (c_pair; nullptr past M or without C), the column's
// bias (b0, b1) and the row's, then the activation. General = false: alpha * acc + bias only,
// and ReLU where Relu, without a decision per element.
template <class Config, class Out, bool Relu, bool General>
__device__ inline void pair_value(float const (&acc)[Config::kAccumulators], int r, int j, Out const* c_pair, float b0,
                                  float b1, float row_bias, EpilogueParams const& p, std::uint32_t* words) {
  float const* v = accumulator_pair<Config>(acc, r, j);
  float x0, x1;
  if constexpr (General) {
    float c0 = 0.0f, c1 = 0.0f;
    if (c_pair != nullptr) {
      const OutPair<Out> cv = *reinterpret_cast<OutPair<Out> const*>(c_pair);
      c0 = to_float(cv.x), c1 = to_float(cv.y);
    }
    x0 = epilogue_value(v[0], c0, b0 + row_bias, p.alpha, p.beta, p.act);
    x1 = epilogue_value(v[1], c1, b1 + row_bias, p.alpha, p.beta, p.act);
  } else {
    x0 = p.alpha * v[0] + b0, x1 = p.alpha * v[1] + b1;
    if constexpr (Relu) x0 = fmaxf(x0, 0.0f), x1 = fmaxf(x1, 0.0f);
  }
  pack_pair<Out>(x0, x1, words);
}

// Calls f(relu, general) with the form of pair_value that p needs, as std::bool_constant
// values: general where C is read (beta != 0), the bias is per row or the activation is GELU;
// else relu for ReLU; else neither.
template <class F>
__device__ inline void with_value_form(EpilogueParams const& p, F&& f) {
  if (p.beta != 0.0f || p.bias_mode == BiasMode::kPerRow || p.act == Activation::kGELU) {
    f(std::false_type{}, std::true_type{});
  } else if (p.act == Activation::kReLU) {
    f(std::true_type{}, std::false_type{});
  } else {
    f(std::false_type{}, std::false_type{});
  }
}

// D (and C) 16-byte aligned (vector_ok). Each lane of a quad (the 4 lanes that share rows)
// holds pairs 8 bytes (fp32) or 4 bytes apart; kG = 8 / sizeof(Out) lanes exchange them by a
// kG x kG transpose (shuffles), so that each lane holds a 16-byte run of one 8-column chunk per
// row: then a warp's store covers 8 rows x 64 bytes, whole sectors, with four times fewer
// accesses for 16-bit D than pairs would take.
//   before: lane q of the group, chunk j0 + c:  columns 8 (j0 + c) + 2 q' + {0, 1}, c < kG
//   after:  lane q, chunk j0 + q % kG:         columns 8 (j0 + q % kG) + 2 kG (q' / kG) + [0, 2 kG)
// (q' = lane % 4; for fp32 the quad is two groups of two lanes, each one half of a chunk).
// The values are computed before the exchange, each pair with C's pair where beta != 0.
// General = false: no residual, no bias per row, no activation or ReLU (Relu), without a
// decision per element. wg_cols: the warpgroup's columns inside D, all of them or a multiple
// of 2 kG (D's rows are whole 16-byte runs), so that a pair or a run lies inside D or past it
// whole: those past it are neither loaded nor stored.
template <class Config, class Out, bool Relu, bool General>
__device__ void store_full_columns(float const (&acc)[Config::kAccumulators], Out* const (&out)[2 * Config::kWgMBlocks],
                                   Out const* const (&c_out)[2 * Config::kWgMBlocks],
                                   float const (&row_bias)[2 * Config::kWgMBlocks], Out const* bias, int wg_cols,
                                   EpilogueParams const& p) {
  constexpr int kRows = 2 * Config::kWgMBlocks, kChunks = Config::kWgTileN / 8;
  constexpr int kG = 8 / int(sizeof(Out));      // lanes (and chunks) a transpose spans
  constexpr int kWords = int(sizeof(Out)) / 2;  // 32-bit words of one pair
  const int lane = int(threadIdx.x) % 32;
  const int run_col = 8 * (lane % 4 % kG) + 2 * kG * (lane % 4 / kG);  // the lane's run after the exchange, + 8 j0
#pragma unroll
  for (int j0 = 0; j0 < kChunks; j0 += kG) {
    // Groups of chunks past D's last column hold nothing to store: a narrow D (N = 16 in a
    // 64-wide tile: MobileNetV2's 1x1 layers) would spend most of the epilogue on them.
    if (8 * j0 >= wg_cols) break;
    std::uint32_t x[kRows][kG][kWords];  // (row, chunk, word): this lane's pairs
#pragma unroll
    for (int c = 0; c < kG; ++c) {
      const bool inside = 8 * (j0 + c) + 2 * (lane % 4) < wg_cols;  // this lane's pair of chunk j0 + c
      float b0 = 0.0f, b1 = 0.0f;
      if (bias != nullptr && inside) b0 = to_float(bias[8 * (j0 + c)]), b1 = to_float(bias[8 * (j0 + c) + 1]);
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        Out const* c_pair = c_out[r] != nullptr && inside ? c_out[r] + 8 * (j0 + c) : nullptr;
        pair_value<Config, Out, Relu, General>(acc, r, j0 + c, c_pair, b0, b1, row_bias[r], p, x[r][c]);
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
      if (out[r] != nullptr && run_col + 8 * j0 < wg_cols) {
        *reinterpret_cast<uint4*>(out[r] + 8 * j0) = make_uint4(run[0], run[1], run[2], run[3]);
      }
    }
  }
}

// The other cases: D or C not 16-byte aligned, or N inside a 16-byte run of the tile. Each
// warp writes its 16 rows of a 64-row block, 32 columns at a time, into its scratch area, then
// reads them back a row at a time: lane l takes column l, so a warp's store (and C's load) is
// 32 consecutive elements of one row, at any alignment. Only __syncwarp: no warp reads
// another's area (scratch: kEpilogueScratchBytes, the MMA warps' areas by warp index).
template <class Config, class Out>
__device__ void store_through_warp_scratch(float const (&acc)[Config::kAccumulators], int wg_m, int wg_col,
                                           EpilogueParams const& p, Out* d, Out const* c, Out const* bias, int row0,
                                           int col0, int rows, int cols, float* scratch) {
  const int warp = int(threadIdx.x) % 128 / 32, lane = int(threadIdx.x) % 32;
  float* area = scratch + int(threadIdx.x) / 32 * kWarpScratchFloats;  // (16, 32), rows kScratchStride apart
#pragma unroll
  for (int mb = 0; mb < Config::kWgMBlocks; ++mb) {
    const int warp_row = (wg_m * Config::kWgMBlocks + mb) * 64 + warp * 16;  // the warp's first row in the tile
    if (warp_row >= rows) break;
    const int warp_rows = rows - warp_row < 16 ? rows - warp_row : 16;
    // Lane i < warp_rows finds where the warp's row i starts in D and C, and its bias per row;
    // the row loops below take them by shuffles (no division per row where rows scatter).
    std::int64_t lane_row_d = 0, lane_row_c = 0;
    float lane_row_bias = 0.0f;
    if (lane < warp_rows) {
      const std::int64_t gm = row0 + warp_row + lane;
      lane_row_d = p.scatter.row_start(gm, p.ldd) + col0;
      lane_row_c = (p.scatter.cols > 0 ? lane_row_d - col0 : gm * p.ldc) + col0;  // scattered: C laid out as D
      if (p.bias_mode == BiasMode::kPerRow) lane_row_bias = to_float(bias[gm]);
    }
#pragma unroll
    for (int s = 0; s < Config::kWgTileN / 32; ++s) {
      const int n = wg_col + 32 * s + lane;  // this lane's column in the tile
      if (n - lane >= cols) break;
      __syncwarp();  // the last slice's reads are done
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          float const* v = accumulator_pair<Config>(acc, 2 * mb + h, 4 * s + jj);
          *reinterpret_cast<float2*>(&area[(lane / 4 + 8 * h) * kScratchStride + 8 * jj + 2 * (lane % 4)]) =
              make_float2(v[0], v[1]);
        }
      }
      __syncwarp();
      const bool inside = n < cols;
      const float column_bias = p.bias_mode == BiasMode::kPerColumn && inside ? to_float(bias[col0 + n]) : 0.0f;
#pragma unroll 4
      for (int i = 0; i < warp_rows; ++i) {
        const std::int64_t row_d = __shfl_sync(0xffffffffu, lane_row_d, i);
        const std::int64_t row_c = __shfl_sync(0xffffffffu, lane_row_c, i);
        const float row_bias = __shfl_sync(0xffffffffu, lane_row_bias, i);
        if (!inside) continue;
        const float cv = c != nullptr ? to_float(c[row_c + n]) : 0.0f;
        const float b = p.bias_mode == BiasMode::kPerRow ? row_bias : column_bias;
        d[row_d + n] = from_float<Out>(epilogue_value(area[i * kScratchStride + lane], cv, b, p.alpha, p.beta, p.act));
      }
    }
  }
}

// The tile's part of one warpgroup, from its accumulators (acc: (64 * kWgMBlocks, kWgTileN),
// wgmma.hpp's layout; wg_m, wg_n its place in the tile) to D as Out; (row0, col0) the tile's
// origin in D, rows x cols of the tile inside D.
template <class Config, class Out>
__device__ void store_accumulators_as(float const (&acc)[Config::kAccumulators], int wg_m, int wg_n,
                                      EpilogueParams const& p, int batch, int row0, int col0, int rows, int cols,
                                      float* scratch) {
  constexpr int kRows = 2 * Config::kWgMBlocks;  // rows a thread holds
  const int warp = int(threadIdx.x) % 128 / 32, lane = int(threadIdx.x) % 32;
  const int wg_col = Config::kWarpGroupsN == 1 ? 0 : wg_n * Config::kWgTileN;  // within the tile
  auto row_of = [&](int r) {  // the thread's r-th row in the tile: r = 2 mb + h
    return (wg_m * Config::kWgMBlocks + r / 2) * 64 + warp * 16 + lane / 4 + 8 * (r % 2);
  };
  Out* d = static_cast<Out*>(p.d) + batch * p.d_batch_stride;
  Out const* c = p.beta != 0.0f ? static_cast<Out const*>(p.c) + batch * p.c_batch_stride : nullptr;
  Out const* bias = static_cast<Out const*>(p.bias) + batch * p.bias_batch_stride;

  if (wg_col >= cols) return;  // the warpgroup's part lies past N
  // The register exchange where D's rows are 16-byte aligned, and the warpgroup's columns are
  // all inside D or end on a 16-byte run (always, where ldd is N).
  if (p.vector_ok && (wg_col + Config::kWgTileN <= cols || (cols - wg_col) % (16 / int(sizeof(Out))) == 0)) {
    constexpr int kG = 8 / int(sizeof(Out));
    const int q = lane % 4;
    Out* out[kRows];          // (row) where this lane's first 16-byte run goes; nullptr past M
    Out const* c_out[kRows];  // (row) this lane's first pair of C; nullptr past M or without C
    float row_bias[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const int row = row_of(r);
      const std::int64_t gm = row0 + row, row_d = p.scatter.row_start(gm, p.ldd);
      out[r] = row < rows ? d + row_d + col0 + wg_col + 8 * (q % kG) + 2 * kG * (q / kG) : nullptr;
      c_out[r] = row < rows && c != nullptr ? c + (p.scatter.cols > 0 ? row_d : gm * p.ldc) + col0 + wg_col + 2 * q
                                            : nullptr;  // scattered: C laid out as D
      row_bias[r] = row < rows && p.bias_mode == BiasMode::kPerRow ? to_float(bias[gm]) : 0.0f;
    }
    Out const* lane_bias = p.bias_mode == BiasMode::kPerColumn ? bias + col0 + wg_col + 2 * q : nullptr;
    with_value_form(p, [&](auto relu, auto general) {
      constexpr bool kRelu = decltype(relu)::value, kGeneral = decltype(general)::value;
      store_full_columns<Config, Out, kRelu, kGeneral>(acc, out, c_out, row_bias, lane_bias, cols - wg_col, p);
    });
    return;
  }

  store_through_warp_scratch<Config, Out>(acc, wg_m, wg_col, p, d, c, bias, row0, col0, rows, cols, scratch);
}

// The tile's accumulators into D, by each MMA warpgroup for its part of the tile; (row0, col0)
// the tile's origin in D, rows x cols of it inside D. No barrier: a warpgroup may go on as soon
// as its stores are issued. scratch: kEpilogueScratchBytes of shared memory that no other
// thread of the block touches while the MMA warps store (the general path's).
template <class Config>
__device__ void store_accumulators(float const (&acc)[Config::kAccumulators], int wg_m, int wg_n,
                                   EpilogueParams const& p, int batch, int row0, int col0, int rows, int cols,
                                   unsigned char* scratch) {
  rows = rows < Config::kTileM ? rows : Config::kTileM;
  cols = cols < Config::kTileN ? cols : Config::kTileN;
  float* s = reinterpret_cast<float*>(scratch);
  switch (p.out) {
    case DataType::kF32:
      store_accumulators_as<Config, float>(acc, wg_m, wg_n, p, batch, row0, col0, rows, cols, s);
      break;
    case DataType::kF16:
      store_accumulators_as<Config, Half>(acc, wg_m, wg_n, p, batch, row0, col0, rows, cols, s);
      break;
    case DataType::kBF16:
      store_accumulators_as<Config, BFloat16>(acc, wg_m, wg_n, p, batch, row0, col0, rows, cols, s);
      break;
  }
}

}  // namespace detail
#endif

}  // namespace tessel
