// The sm80 multistage GEMM kernel, as seed 004 draws it: D (M,N) = A (M,K) * B (N,K)^T.
//   prologue  cp.async the first Stages-1 K-tiles into the shared-memory ring
//   mainloop  per K-tile, per 16-wide k-slice: ldmatrix the next slice into registers while
//             the MMAs run on this one (register double buffering); at the first slice issue
//             the cp.async of the tile Stages-1 ahead; at the last, wait for the next tile
//   epilogue  the accumulators to global memory
// With Edges = false, M, N and K must be multiples of the tile: nothing is predicated. With
// Edges = true, any M and N: vectors past the edges are zero-filled by cp.async (their rows are
// decided once, their K columns per tile) and the stores of an edge tile are masked; the
// predicates cost registers, so the runtime picks the variant by the problem. Both need K a
// multiple of 8 and 16-byte aligned rows (lda, ldb multiples of 8, aligned pointers): each
// cp.async moves 8 halves that are all inside or all outside the matrix.
#pragma once

#include "config_sm80.hpp"
#include "tile_scheduler.hpp"
#include "tessel/arch/sm80.hpp"
#include "tessel/atom/copy.hpp"
#include "tessel/atom/mma.hpp"

namespace tessel {

struct GemmParamsSm80 {
  Half const* a;  // (M,K), row stride lda
  Half const* b;  // (N,K), row stride ldb
  float* d;       // (M,N), row stride ldd
  int m, n, k;
  int lda, ldb, ldd;
};

#if defined(__CUDACC__)
template <class Config, bool Edges = true>
__global__ void __launch_bounds__(Config::kThreads) gemm_kernel_sm80(GemmParamsSm80 p) {
  using namespace tessel;
  constexpr int kStages = Config::kStages;
  extern __shared__ __align__(128) unsigned char smem[];
  auto* smem_a = reinterpret_cast<Half*>(smem);
  auto* smem_b = smem_a + cosize(typename Config::SmemLayoutA{});

  auto tile_mnk = make_shape(Int<Config::kTileM>{}, Int<Config::kTileN>{}, Int<Config::kTileK>{});
  const TileCoord tile = rasterize(int(blockIdx.x + gridDim.x * blockIdx.y), int(gridDim.x), int(gridDim.y),
                                   Config::kRasterGroup);
  auto blk = make_coord(tile.m, tile.n, _);
  auto mA = make_tensor(make_gmem_ptr(p.a), make_shape(p.m, p.k), make_stride(p.lda, Int<1>{}));
  auto mB = make_tensor(make_gmem_ptr(p.b), make_shape(p.n, p.k), make_stride(p.ldb, Int<1>{}));
  auto mD = make_tensor(make_gmem_ptr(p.d), make_shape(p.m, p.n), make_stride(p.ldd, Int<1>{}));
  auto gA = local_tile(mA, tile_mnk, blk, make_step(Int<1>{}, _, Int<1>{}));  // (BLK_M,BLK_K,k)
  auto gB = local_tile(mB, tile_mnk, blk, make_step(_, Int<1>{}, Int<1>{}));  // (BLK_N,BLK_K,k)
  auto gD = local_tile(mD, tile_mnk, blk, make_step(Int<1>{}, Int<1>{}, _));  // (BLK_M,BLK_N)
  auto sA = make_tensor(make_smem_ptr(smem_a), typename Config::SmemLayoutA{});  // (BLK_M,BLK_K,PIPE)
  auto sB = make_tensor(make_smem_ptr(smem_b), typename Config::SmemLayoutB{});  // (BLK_N,BLK_K,PIPE)

  const int tid = threadIdx.x;
  std::conditional_t<Edges, typename Config::G2SEdge, typename Config::G2S> g2s;
  auto g2s_thr = g2s.get_slice(tid);
  auto tAgA = g2s_thr.partition_S(gA);  // (CPY,CPY_M,CPY_K,k)
  auto tAsA = g2s_thr.partition_D(sA);  // (CPY,CPY_M,CPY_K,PIPE)
  auto tBgB = g2s_thr.partition_S(gB);
  auto tBsB = g2s_thr.partition_D(sB);

  // Edge predicates: each atom's coordinates inside the tile (a static identity tile, so no
  // division), offset by the tile's position in the matrix.
  constexpr int kAtomsA = int(decltype(size(tAsA))::value) / 8 / Config::kStages;
  constexpr int kAtomsB = int(decltype(size(tBsB))::value) / 8 / Config::kStages;
  const AtomOrigins<8, kAtomsA> origin_a(
      g2s_thr.partition_S(make_identity_tensor(make_shape(Int<Config::kTileM>{}, Int<Config::kTileK>{}))));
  const AtomOrigins<8, kAtomsB> origin_b(
      g2s_thr.partition_S(make_identity_tensor(make_shape(Int<Config::kTileN>{}, Int<Config::kTileK>{}))));
  const int rows_a = p.m - tile.m * Config::kTileM;  // rows of this tile inside the matrix
  const int rows_b = p.n - tile.n * Config::kTileN;
  auto load_tile = [&](int t, int stage) {  // K tile t -> pipeline stage
    const int k0 = t * Config::kTileK;
    auto in_a = [&](int i) { return origin_a.row[i] < rows_a && k0 + origin_a.col[i] < p.k; };
    auto in_b = [&](int i) { return origin_b.row[i] < rows_b && k0 + origin_b.col[i] < p.k; };
    if constexpr (Edges) {
      copy_if(g2s, in_a, tAgA(_, _, _, t), tAsA(_, _, _, stage), p.a);
      copy_if(g2s, in_b, tBgB(_, _, _, t), tBsB(_, _, _, stage), p.b);
    } else {
      copy(g2s, tAgA(_, _, _, t), tAsA(_, _, _, stage));
      copy(g2s, tBgB(_, _, _, t), tBsB(_, _, _, stage));
    }
  };

  typename Config::Mma mma;
  auto thr_mma = mma.get_slice(tid);
  auto tCrA = thr_mma.partition_fragment_A(sA(_, _, 0));  // (MMA,MMA_M,MMA_K)
  auto tCrB = thr_mma.partition_fragment_B(sB(_, _, 0));  // (MMA,MMA_N,MMA_K)
  auto tCrD = thr_mma.partition_fragment_C(gD);           // (MMA,MMA_M,MMA_N)
  clear(tCrD);

  typename Config::S2RA s2r_a;
  typename Config::S2RB s2r_b;
  auto tXsA = s2r_a.get_slice(tid).partition_S(sA);  // (CPY,CPY_M,CPY_K,PIPE)
  auto tXrA = s2r_a.get_slice(tid).retile_D(tCrA);   // (CPY,CPY_M,CPY_K)
  auto tXsB = s2r_b.get_slice(tid).partition_S(sB);
  auto tXrB = s2r_b.get_slice(tid).retile_D(tCrB);

  const int num_tiles = int(size<2>(gA));
  constexpr int kSlices = int(decltype(size<2>(tCrA))::value);  // k-slices per tile

  // prologue: tiles 0 .. Stages-2 in flight
  int itile_to_read = 0;
  for (int stage = 0; stage < kStages - 1; ++stage) {
    if (itile_to_read < num_tiles) load_tile(itile_to_read, stage);
    ++itile_to_read;
    cp_async_commit_group();
  }
  int ismem_read = 0, ismem_write = kStages - 1;
  cp_async_wait_group<kStages - 2>();
  __syncthreads();
  copy(s2r_a, tXsA(_, _, 0, ismem_read), tXrA(_, _, 0));
  copy(s2r_b, tXsB(_, _, 0, ismem_read), tXrB(_, _, 0));

  for (int itile = 0; itile < num_tiles; ++itile) {
    for (int ik = 0; ik < kSlices; ++ik) {
      const int ik_next = (ik + 1) % kSlices;
      if (ik == kSlices - 1) {  // the next tile must be in shared memory before its first slice
        cp_async_wait_group<kStages - 2>();
        __syncthreads();
        ismem_read = (ismem_read + 1) % kStages;
      }
      copy(s2r_a, tXsA(_, _, ik_next, ismem_read), tXrA(_, _, ik_next));
      copy(s2r_b, tXsB(_, _, ik_next, ismem_read), tXrB(_, _, ik_next));
      if (ik == 0) {
        if (itile_to_read < num_tiles) {
          load_tile(itile_to_read, ismem_write);
          ismem_write = (ismem_write + 1) % kStages;
        }
        ++itile_to_read;
        cp_async_commit_group();
      }
      gemm(mma, tCrD, tCrA(_, _, ik), tCrB(_, _, ik), tCrD);
    }
  }

  auto tCgD = thr_mma.partition_C(gD);  // (MMA,MMA_M,MMA_N)
  if (!Edges || ((tile.m + 1) * Config::kTileM <= p.m && (tile.n + 1) * Config::kTileN <= p.n)) {
    copy(tCrD, tCgD);  // an interior tile: no masks
  } else {
    auto tCcD = thr_mma.partition_C(make_identity_tensor(make_shape(Int<Config::kTileM>{}, Int<Config::kTileN>{})));
    const int rows = p.m - tile.m * Config::kTileM, cols = p.n - tile.n * Config::kTileN;
    for (int i = 0; i < int(size(tCrD)); ++i) {
      auto c = tCcD[i];  // inside the tile
      if (get<0>(c) < rows && get<1>(c) < cols) tCgD[i] = tCrD[i];
    }
  }
}
#endif

}  // namespace tessel
