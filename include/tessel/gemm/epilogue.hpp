// The GEMM epilogue: accumulators -> swizzled shared memory -> 16-byte global stores, with
//   D = act(alpha * acc + beta * C + bias)
// computed in fp32 on the way out. Each thread owns runs of kVec = 16 / sizeof(Out) columns
// of one row (4 floats, 8 halves): it reads them from shared memory, reads C's run with one
// 16-byte load when beta != 0, and writes D's run with one 16-byte store. Runs that cross
// N fall back to element-wise accesses; rows and pointers that are not 16-byte aligned
// (EpilogueParams::vector_ok is false) to element-wise accesses spread over the row's
// threads (store_tile_unaligned). C and D may be the same memory: each element of C is read by
// the thread that then writes it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessel/arch/numeric_types.hpp"
#include "tessel/layout/config.hpp"
#include "tessel/types.hpp"
#include "tessel/tensor.hpp"

namespace tessel {

enum class BiasMode : int { kNone = 0, kPerColumn = 1, kPerRow = 2 };

// Rows of D (and C) that are not evenly spaced: dgrad's stride phases write every stride-th
// pixel of an image. Row m = (n*rows + i)*cols + j starts at element
//   n*image + i*row_step + j*col_step + origin
// e.g. phase (1, 0) of a stride-2 dgrad into (N, 5, 4, C): rows = 2, cols = 2, image = 5*4*C,
// row_step = 2*4*C, col_step = 2*C, origin = 1*4*C. cols == 0: off (row m at m * ld).
struct RowScatter {
  int rows = 0, cols = 0;
  std::int64_t image = 0, row_step = 0, col_step = 0, origin = 0;

  // The first element of row m of a matrix whose rows are `ld` apart when scattering is off.
  // (32-bit divisions: M < 2^31 rows.)
  TESSEL_HOST_DEVICE std::int64_t row_start(std::int64_t m, std::int64_t ld) const {
    if (cols == 0) return m * ld;
    const int row = int(m), per_image = rows * cols;
    return row / per_image * image + row % per_image / cols * row_step + row % cols * col_step + origin;
  }
};

struct EpilogueParams {
  void* d;              // (M,N) row-major, ldd; of type `out`
  void const* c;        // (M,N) row-major, ldc; read only when beta != 0
  void const* bias;     // N (per column) or M (per row) values of type `out`
  std::int64_t ldd, ldc;
  std::int64_t d_batch_stride, c_batch_stride;
  float alpha, beta;
  BiasMode bias_mode;
  Activation act;
  DataType out;
  bool vector_ok;  // d, c, ldd, ldc and the batch strides allow 16-byte accesses
  RowScatter scatter{};  // where the rows of D and C start, when not at m * ldd (m * ldc)
  std::int64_t bias_batch_stride = 0;  // batch z's bias at bias + z * bias_batch_stride (conv's groups)
};

// The fp32 staging tile (TileM, TileN) in shared memory: row-major, its 32-byte units
// XOR-swizzled by the row (Swizzle<2,3,log2 TileN - 3>): the MMA's 8-byte fragment writes
// (4 rows x 32 bytes per half-warp) and the 16-byte reads of 4-float runs (f32 output) are then
// conflict-free (tests/host/gemm_config_test.cpp); the 8-float runs of 16-bit outputs read at
// 2-way. Groups of 4 floats at multiples of 4 stay contiguous, so a thread reads them as one
// 16-byte vector.
template <int TileN>
inline constexpr int kLog2EpilogueTileN = TileN == 32 ? 5 : TileN == 64 ? 6 : TileN == 128 ? 7 : TileN == 256 ? 8 : 9;
template <int TileM, int TileN>
using EpilogueSmemLayout = decltype(composition(Swizzle<2, 3, kLog2EpilogueTileN<TileN> - 3>{},
                                                make_layout(make_shape(Int<TileM>{}, Int<TileN>{}), LayoutRight{})));

// The shape epilogue_store works on: a (TileM, TileN) fp32 tile in SmemLayoutC, stored by
// Threads consecutive threads (threadIdx.x % Threads numbers them). A config is one; a kernel
// that stages its tile in column slices, or per warpgroup, passes this.
template <int TileM, int TileN, int Threads>
struct EpilogueTileShape {
  static constexpr int kTileM = TileM, kTileN = TileN, kThreads = Threads;
  using SmemLayoutC = EpilogueSmemLayout<TileM, TileN>;
};

#if defined(__CUDACC__)
namespace detail {

template <class T>
__device__ inline float to_float(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return x;
  } else if constexpr (std::is_same_v<T, Half>) {
    return __half2float(x);
  } else {
    return __bfloat162float(x);
  }
}

template <class T>
__device__ inline T from_float(float x) {
  if constexpr (std::is_same_v<T, float>) {
    return x;
  } else if constexpr (std::is_same_v<T, Half>) {
    return __float2half_rn(x);
  } else {
    return __float2bfloat16_rn(x);
  }
}

__device__ inline float activate(float x, Activation act) {
  if (act == Activation::kReLU) return x > 0.0f ? x : 0.0f;
  if (act == Activation::kGELU) {  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    const float inner = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + tanhf(inner));
  }
  return x;
}

// One element of D in fp32, as every epilogue path computes it: act(alpha * acc + beta * c +
// bias), with c used only when beta != 0 and bias the element's bias per column or per row
// (0 without one).
__device__ inline float epilogue_value(float acc, float c, float bias, float alpha, float beta, Activation act) {
  float x = alpha * acc;
  if (beta != 0.0f) x += beta * c;
  return activate(x + bias, act);
}

// store_tile where D or C is not 16-byte aligned (ldd = 4095): element by element, a warp a
// row, lane l storing columns l + 32 j, so that each store instruction writes 32 consecutive
// elements (64 bytes of 16-bit D), not one element of each thread's run (a sector per lane):
// 4095x4096x1024 took 178 us against 102 for 4096^2x1024 before (H100, sm80 kernel, f16 D).
// The loop is bound by its instruction count (ncu: stalls on issue and fixed latencies), so a
// row's elements are addressed from two pointers with constant offsets: the staging tile's
// swizzle changes bits 3-4 of a column only, so column l + 32 j sits 32 j floats after column
// l (gemm_config_test checks it), and D's element 32 j elements after the lane's first.
// Not inlined: the sm90 kernels store their tiles in slices with the later slices'
// accumulators live, at their 168-register cap, and this loop's registers would spill there
// on every tile.
template <class Config, class Out, class SmemC>
__device__ __noinline__ void store_tile_unaligned(SmemC sC, Out* d, Out const* c, Out const* bias, std::int64_t ldd,
                                                  std::int64_t ldc, float alpha, float beta, BiasMode bias_mode,
                                                  Activation act, RowScatter scatter, int row0, int col0, int rows,
                                                  int cols) {
  static_assert(Config::kThreads % 32 == 0 && Config::kTileN % 32 == 0,
                "epilogue: whole warps over whole 32-column runs");
  constexpr int kPerRow = Config::kTileN / 32;  // a lane's columns in a row
  constexpr int kWarps = Config::kThreads / 32;
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) % Config::kThreads / 32;
  // Not inlined, the function would read sC with generic loads (LD.E) without this: the store
  // warps of sm90_128x128x64_s5_sw took 4095x4097x1031 (ldd 4097) in 116.3-116.8 us, with it
  // 112.3-112.7 (H100; the sm80 kernel's time did not change).
  __builtin_assume(__isShared(&sC(0, 0)));
  bool in[kPerRow];  // the lane's columns inside D; the same in every row
  for (int j = 0; j < kPerRow; ++j) in[j] = lane + 32 * j < cols;
  // simple: beta 0, no bias per row, no activation or ReLU; whole: every column inside D
  auto store_rows = [&](auto simple, auto whole) {
    auto inside = [&](int j) { return decltype(whole)::value || in[j]; };
    float b[kPerRow];  // their bias is loaded once
    for (int j = 0; j < kPerRow; ++j) {
      b[j] = bias_mode == BiasMode::kPerColumn && inside(j) ? to_float(bias[col0 + lane + 32 * j]) : 0.0f;
    }
    for (int row = warp; row < rows; row += kWarps) {
      const std::int64_t gm = row0 + row;
      const std::int64_t row_d = scatter.row_start(gm, ldd) + col0;
      const std::int64_t row_c = (scatter.cols > 0 ? row_d - col0 : gm * ldc) + col0;  // scattered: C as D
      float const* s = &sC(row, lane);  // column lane + 32 j at s[32 j]
      Out* out = d + row_d + lane;      // and at out[32 j] in D
      float v[kPerRow];  // read all before the first store: the loads overlap
      for (int j = 0; j < kPerRow; ++j) v[j] = s[32 * j];
      for (int j = 0; j < kPerRow; ++j) {
        float x;
        if constexpr (decltype(simple)::value) {
          x = alpha * v[j] + b[j];
          x = act == Activation::kReLU ? fmaxf(x, 0.0f) : x;
        } else {
          const float cv = beta != 0.0f && inside(j) ? to_float(c[row_c + lane + 32 * j]) : 0.0f;
          x = epilogue_value(v[j], cv, bias_mode == BiasMode::kPerRow ? to_float(bias[gm]) : b[j], alpha, beta, act);
        }
        const Out o = from_float<Out>(x);
        if (inside(j)) out[32 * j] = o;
      }
    }
  };
  const bool simple =
      beta == 0.0f && bias_mode != BiasMode::kPerRow && (act == Activation::kNone || act == Activation::kReLU);
  if (simple && cols == Config::kTileN) {
    store_rows(std::true_type{}, std::true_type{});
  } else if (simple) {
    store_rows(std::true_type{}, std::false_type{});
  } else {
    store_rows(std::false_type{}, std::false_type{});
  }
}

// Stores one (TileM, TileN) tile of fp32 values held in shared memory (sC, SmemLayoutC) as
// Out, rows [0, rows) and columns [0, cols) of it; (row0, col0) is the tile's origin in D.
template <class Config, class Out, class SmemC>
__device__ void store_tile(SmemC const& sC, EpilogueParams const& p, int batch, int row0, int col0, int rows,
                           int cols) {
  constexpr int kVec = 16 / int(sizeof(Out));
  constexpr int kThreadsPerRow = Config::kTileN / kVec;
  constexpr int kRowsPerPass = Config::kThreads / kThreadsPerRow;
  static_assert(Config::kThreads % kThreadsPerRow == 0 && Config::kTileM % kRowsPerPass == 0,
                "epilogue: the threads must cover whole rows of 16-byte runs, and whole passes the tile");
  static_assert(kVec % 4 == 0, "epilogue: a run is whole 16-byte groups of floats in shared memory");

  Out* d = static_cast<Out*>(p.d) + batch * p.d_batch_stride;
  Out const* c = p.beta != 0.0f ? static_cast<Out const*>(p.c) + batch * p.c_batch_stride : nullptr;
  Out const* bias = static_cast<Out const*>(p.bias) + batch * p.bias_batch_stride;
  if (!p.vector_ok) {
    store_tile_unaligned<Config>(sC, d, c, bias, p.ldd, p.ldc, p.alpha, p.beta, p.bias_mode, p.act, p.scatter, row0,
                                 col0, rows, cols);
    return;
  }
  const int thread = int(threadIdx.x) % Config::kThreads;  // of the threads that store this tile
  const int col = (thread % kThreadsPerRow) * kVec;          // within the tile
  if (col >= cols) return;
  const bool full_run = col + kVec <= cols;

  // The common case without a decision per element: no residual, a whole 16-byte run, no bias
  // or one per column (the thread's columns are the same in every row, so it loads its run of
  // bias once), no activation or ReLU.
  if (p.beta == 0.0f && full_run && p.bias_mode != BiasMode::kPerRow &&
      (p.act == Activation::kNone || p.act == Activation::kReLU)) {
    float b[kVec];
    for (int j = 0; j < kVec; ++j) b[j] = p.bias_mode == BiasMode::kPerColumn ? to_float(bias[col0 + col + j]) : 0.0f;
    auto store_rows = [&](auto relu) {
      for (int row = thread / kThreadsPerRow; row < rows; row += kRowsPerPass) {
        alignas(16) Out out[kVec];
        for (int j = 0; j < kVec; j += 4) {
          const float4 q = *reinterpret_cast<float4 const*>(&sC(row, col + j));
          const float v[4] = {q.x, q.y, q.z, q.w};
          for (int i = 0; i < 4; ++i) {
            const float x = p.alpha * v[i] + b[j + i];
            out[j + i] = from_float<Out>(decltype(relu)::value ? fmaxf(x, 0.0f) : x);
          }
        }
        *reinterpret_cast<uint4*>(d + p.scatter.row_start(row0 + row, p.ldd) + col0 + col) =
            *reinterpret_cast<uint4 const*>(out);
      }
    };
    if (p.act == Activation::kReLU) {
      store_rows(std::true_type{});
    } else {
      store_rows(std::false_type{});
    }
    return;
  }

  // Element by element where needed: a residual, a bias per row, GELU, or the run that crosses N.
  for (int row = thread / kThreadsPerRow; row < rows; row += kRowsPerPass) {
    float v[kVec];
    for (int j = 0; j < kVec; j += 4) {  // 16-byte groups: contiguous under the swizzle
      const float4 q = *reinterpret_cast<float4 const*>(&sC(row, col + j));
      v[j] = q.x, v[j + 1] = q.y, v[j + 2] = q.z, v[j + 3] = q.w;
    }
    const std::int64_t gm = row0 + row;
    const int gn = col0 + col;
    const std::int64_t row_d = p.scatter.row_start(gm, p.ldd);
    const std::int64_t row_c = p.scatter.cols > 0 ? row_d : gm * p.ldc;  // scattered: C is laid out as D
    alignas(16) Out cv[kVec];
    if (p.beta != 0.0f) {
      if (full_run) {
        *reinterpret_cast<uint4*>(cv) = *reinterpret_cast<uint4 const*>(c + row_c + gn);
      } else {
        for (int j = 0; j < kVec; ++j) cv[j] = col + j < cols ? c[row_c + gn + j] : Out{};
      }
    }
    alignas(16) Out out[kVec];
    for (int j = 0; j < kVec; ++j) {
      const float b = p.bias_mode == BiasMode::kPerRow                        ? to_float(bias[gm])
                      : p.bias_mode == BiasMode::kPerColumn && col + j < cols ? to_float(bias[gn + j])
                                                                              : 0.0f;
      const float c_value = p.beta != 0.0f ? to_float(cv[j]) : 0.0f;
      out[j] = from_float<Out>(epilogue_value(v[j], c_value, b, p.alpha, p.beta, p.act));
    }
    if (full_run) {
      *reinterpret_cast<uint4*>(d + row_d + gn) = *reinterpret_cast<uint4 const*>(out);
    } else {
      for (int j = 0; j < kVec && col + j < cols; ++j) d[row_d + gn + j] = out[j];
    }
  }
}

}  // namespace detail

// Stores the block's fp32 tile, staged in shared memory (smem, Config::SmemLayoutC) by the
// mainloop's accumulator layout, as D: rows [0, rows) and columns [0, cols) of it, (row0, col0)
// its origin in D. Shared by the sm80 and sm90 kernels; the caller has synchronized the block.
template <class Config>
__device__ void epilogue_store(unsigned char const* smem, EpilogueParams const& p, int batch, int row0, int col0,
                               int rows, int cols) {
  auto sC = make_tensor(make_smem_ptr(reinterpret_cast<float const*>(smem)), typename Config::SmemLayoutC{});
  rows = rows < Config::kTileM ? rows : Config::kTileM;
  cols = cols < Config::kTileN ? cols : Config::kTileN;
  switch (p.out) {
    case DataType::kF32: detail::store_tile<Config, float>(sC, p, batch, row0, col0, rows, cols); break;
    case DataType::kF16: detail::store_tile<Config, Half>(sC, p, batch, row0, col0, rows, cols); break;
    case DataType::kBF16: detail::store_tile<Config, BFloat16>(sC, p, batch, row0, col0, rows, cols); break;
  }
}

// The epilogue of one tile: tCrD is the thread's accumulator fragment (MMA,MMA_M,MMA_N),
// smem the block's shared memory (the mainloop's stages are dead by now).
template <class Config, class ThrMma, class Frag>
__device__ void epilogue_sm80(ThrMma const& thr_mma, Frag const& tCrD, unsigned char* smem, EpilogueParams const& p,
                              int batch, int row0, int col0, int rows, int cols) {
  auto sC = make_tensor(make_smem_ptr(reinterpret_cast<float*>(smem)), typename Config::SmemLayoutC{});  // (BLK_M,BLK_N)
  auto tCsC = thr_mma.partition_C(sC);  // (MMA,MMA_M,MMA_N)
  copy(tCrD, tCsC);
  __syncthreads();
  epilogue_store<Config>(smem, p, batch, row0, col0, rows, cols);
}
#endif

}  // namespace tessel
