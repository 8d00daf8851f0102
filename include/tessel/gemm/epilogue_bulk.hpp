// The staged epilogue with asynchronous stores (the sm_90 kernels): the fp32 tile staged in
// shared memory (epilogue.hpp's SmemLayoutC) becomes D's values in place, a dense row-major
// (TileM, TileN) tile of Out, and one thread per row hands that row to the bulk copy engine
// (arch/sm90/bulk_copy.hpp). The threads go back to the mainloop while the engine writes D:
// the tile's global writes overlap the next tile's MMAs instead of stalling them (measured
// before this existed: the f32 output of 4096^3 cost 27-49 us of a 240 us kernel, written
// while the tensor cores waited; docs/PERFORMANCE.md).
//
//   1. each thread reads its runs of kVec columns (store_tile's mapping) from the fp32 tile,
//      computes act(alpha acc + beta C + bias) and keeps them as Out in registers
//   2. barrier: every fp32 value has been read
//   3. each thread writes its runs to the dense Out tile over the same bytes; fence; barrier
//   4. thread r < rows copies row r: min(cols, TileN) * sizeof(Out) bytes to D's row row0 + r
//
// bulk_store_ok() says when it applies: 16-byte aligned rows (EpilogueParams::vector_ok) whose
// part in the tile is a whole number of 16-byte units. Before the staging tile is written
// again, each thread waits until its copies have read it (bulk_wait_group_read<0>), and before
// the block exits until they are written (bulk_wait_group<0>).
#pragma once

#include <cstdint>
#include <type_traits>

#include "epilogue.hpp"
#include "tessel/arch/named_barrier.hpp"
#include "tessel/arch/sm90/bulk_copy.hpp"
#include "tessel/arch/sm90/wgmma.hpp"  // fence_proxy_async

namespace tessel {

#if defined(__CUDACC__)
namespace detail {

inline __device__ int out_bytes(DataType out) { return out == DataType::kF32 ? 4 : 2; }

// Whether a tile's (rows, cols) part of D, clipped to TileN columns, can be stored by bulk copies.
template <int TileN>
__device__ bool bulk_store_ok(EpilogueParams const& p, int cols) {
  const int n = cols < TileN ? cols : TileN;
  return p.vector_ok && n > 0 && (n * out_bytes(p.out)) % 16 == 0;
}

// kVec = 16 / sizeof(Out) values as Out, packed into 16 bytes (lowest address first), in
// registers: an array of Out whose bytes were reinterpreted would live in local memory.
template <class Out>
__device__ uint4 pack16(float const* v) {
  if constexpr (sizeof(Out) == 4) {
    return make_uint4(__float_as_uint(v[0]), __float_as_uint(v[1]), __float_as_uint(v[2]), __float_as_uint(v[3]));
  } else {
    auto bits = [](float x) -> std::uint32_t {
      if constexpr (std::is_same_v<Out, Half>) {
        return __half_as_ushort(from_float<Half>(x));
      } else {
        return __bfloat16_as_ushort(from_float<BFloat16>(x));
      }
    };
    std::uint32_t w[4];
    for (int k = 0; k < 4; ++k) w[k] = bits(v[2 * k]) | bits(v[2 * k + 1]) << 16;
    return make_uint4(w[0], w[1], w[2], w[3]);
  }
}

template <class Tile, class Out, class SmemC>
__device__ void bulk_store_tile_as(unsigned char* staging, SmemC const& sC, EpilogueParams const& p, int batch,
                                   int row0, int col0, int rows, int cols, int barrier) {
  constexpr int kVec = 16 / int(sizeof(Out));
  constexpr int kThreadsPerRow = Tile::kTileN / kVec;
  constexpr int kRowsPerPass = Tile::kThreads / kThreadsPerRow;
  constexpr int kRuns = Tile::kTileM / kRowsPerPass;  // runs of kVec columns per thread
  static_assert(Tile::kThreads % kThreadsPerRow == 0 && Tile::kTileM % kRowsPerPass == 0,
                "bulk epilogue: the threads must cover whole rows of 16-byte runs, and whole passes the tile");
  static_assert(Tile::kThreads >= Tile::kTileM, "bulk epilogue: one thread per row issues its copy");

  const int thread = int(threadIdx.x) % Tile::kThreads;
  const int col = (thread % kThreadsPerRow) * kVec, first_row = thread / kThreadsPerRow;
  Out const* c = static_cast<Out const*>(p.c) + batch * p.c_batch_stride;
  Out const* bias = static_cast<Out const*>(p.bias) + batch * p.bias_batch_stride;
  float column_bias[kVec];
  for (int j = 0; j < kVec; ++j) {
    const bool in = p.bias_mode == BiasMode::kPerColumn && col + j < cols;
    column_bias[j] = in ? to_float(bias[col0 + col + j]) : 0.0f;
  }

  float out[kRuns][kVec];  // (runs, kVec): this thread's values of D, before their conversion
#pragma unroll
  for (int i = 0; i < kRuns; ++i) {
    const int row = first_row + i * kRowsPerPass;
    const bool row_in = row < rows;
    const std::int64_t gm = std::int64_t(row0) + row;
    const std::int64_t row_c = p.scatter.cols > 0 ? p.scatter.row_start(gm, p.ldd) : gm * p.ldc;
    const float row_bias = p.bias_mode == BiasMode::kPerRow && row_in ? to_float(bias[gm]) : 0.0f;
#pragma unroll
    for (int j = 0; j < kVec; j += 4) {  // 16-byte groups of floats: contiguous under the swizzle
      const float4 q = *reinterpret_cast<float4 const*>(&sC(row, col + j));
      const float v[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float x = p.alpha * v[e] + column_bias[j + e] + row_bias;
        if (p.beta != 0.0f && row_in && col + j + e < cols) x += p.beta * to_float(c[row_c + col0 + col + j + e]);
        out[i][j + e] = activate(x, p.act);
      }
    }
  }
  named_barrier<Tile::kThreads>(barrier);  // every fp32 value has been read

  Out* dense = reinterpret_cast<Out*>(staging);  // (TileM, TileN) row-major
#pragma unroll
  for (int i = 0; i < kRuns; ++i) {
    *reinterpret_cast<uint4*>(&dense[(first_row + i * kRowsPerPass) * Tile::kTileN + col]) = pack16<Out>(out[i]);
  }
  fence_proxy_async();  // the engine reads what these threads wrote
  named_barrier<Tile::kThreads>(barrier);

  if (thread < rows) {
    Out* d = static_cast<Out*>(p.d) + batch * p.d_batch_stride;
    const int n = cols < Tile::kTileN ? cols : Tile::kTileN;
    bulk_copy_to_global(d + p.scatter.row_start(std::int64_t(row0) + thread, p.ldd) + col0,
                        dense + thread * Tile::kTileN, std::uint32_t(n * int(sizeof(Out))));
    bulk_commit_group();
  }
}

}  // namespace detail

// Stores the (Tile::kTileM, Tile::kTileN) fp32 tile staged at `staging` (Tile::SmemLayoutC) as
// D, rows [0, rows) and columns [0, cols) of it at (row0, col0), by bulk copies; the caller has
// checked bulk_store_ok and synchronized the Tile::kThreads threads (named barrier `barrier`).
template <class Tile>
__device__ void epilogue_bulk_store(unsigned char* staging, EpilogueParams const& p, int batch, int row0, int col0,
                                    int rows, int cols, int barrier) {
  auto sC = make_tensor(make_smem_ptr(reinterpret_cast<float const*>(staging)), typename Tile::SmemLayoutC{});
  rows = rows < Tile::kTileM ? rows : Tile::kTileM;
  cols = cols < Tile::kTileN ? cols : Tile::kTileN;
  switch (p.out) {
    case DataType::kF32:
      detail::bulk_store_tile_as<Tile, float>(staging, sC, p, batch, row0, col0, rows, cols, barrier);
      break;
    case DataType::kF16:
      detail::bulk_store_tile_as<Tile, Half>(staging, sC, p, batch, row0, col0, rows, cols, barrier);
      break;
    case DataType::kBF16:
      detail::bulk_store_tile_as<Tile, BFloat16>(staging, sC, p, batch, row0, col0, rows, cols, barrier);
      break;
  }
}
#endif

}  // namespace tessel
