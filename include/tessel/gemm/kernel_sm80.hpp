// The sm80 multistage GEMM kernel, as seed 004 draws it: D (M,N) = A (M,K) * B (N,K)^T, then
// the epilogue (epilogue.hpp). blockIdx.x is the tile (rasterized), blockIdx.z the batch
// and, with split-K, the slice of K: z = batch * splits + split. Each split accumulates its
// k_tiles_per_split K tiles and writes them through the epilogue as its own output matrix
// (z-th of the epilogue's batches); the runtime then sums the splits (split_k_reduce).
//   prologue  cp.async the first Stages-1 K-tiles into the shared-memory ring
//   mainloop  per K-tile, per 16-wide k-slice: ldmatrix the next slice into registers while
//             the MMAs run on this one (register double buffering); issue the cp.async of
//             the tile Stages-1 ahead, a share at each slice (Config::kSpreadCopies) or all
//             at the first; at the last slice, wait for the next tile
//   epilogue  accumulators -> swizzled shared memory -> 16-byte stores with alpha/beta/bias/act
// With Edges = false, M, N and K must be multiples of the tile: nothing is predicated. With
// Edges = true, any M, N, K: vectors past the edges are zero-filled (their MN coordinates are
// decided once, their K coordinates per tile). The predicates cost registers, so the runtime
// picks the variant by the problem. The operands' access width (Config::kAccess) decides the
// alignment the kernel needs: see operand_sm80.hpp.
//
// ASource and BSource say where the operands come from (tile_loader.hpp): the strided matrices
// of the params, or implicit operands such as convolution's activations.
#pragma once

#include <cstddef>
#include <cstdint>

#include "config_sm80.hpp"
#include "epilogue.hpp"
#include "tile_loader.hpp"
#include "tile_scheduler.hpp"
#include "tessel/arch/sm80.hpp"
#include "tessel/atom/copy.hpp"
#include "tessel/atom/mma.hpp"

namespace tessel {

#if defined(__CUDACC__)
template <class Config, bool Edges = true, class ASource = MatrixOperand, class BSource = MatrixOperand>
__global__ void __launch_bounds__(Config::kThreads)
    gemm_kernel_sm80(GemmParams p, ASource a_source, BSource b_source) {
  using Element = typename Config::Element;
  constexpr int kStages = Config::kStages;
  extern __shared__ __align__(128) unsigned char smem[];
  constexpr int kStageA = Config::OperandA::kStageElems, kStageB = Config::OperandB::kStageElems;
  auto* smem_a = reinterpret_cast<Element*>(smem);
  auto* smem_b = smem_a + kStages * kStageA;
  auto sA = make_tensor(make_smem_ptr(smem_a), typename Config::OperandA::SmemStageLayout{});  // (BLK_M,BLK_K)
  auto sB = make_tensor(make_smem_ptr(smem_b), typename Config::OperandB::SmemStageLayout{});  // (BLK_N,BLK_K)

  const auto [tile, batch, tile_begin, tile_end] = block_work<Config>(p);
  auto load_tile = make_tile_loader<Config, Edges>(p, a_source, b_source, tile, batch, tile_begin, smem);
  const int rows_a = p.m - tile.m * Config::kTileM;  // rows of this tile inside the matrix
  const int rows_b = p.n - tile.n * Config::kTileN;
  const int tid = threadIdx.x;

  typename Config::Mma mma;
  auto thr_mma = mma.get_slice(tid);
  auto tCrA = thr_mma.partition_fragment_A(sA);  // (MMA,MMA_M,MMA_K)
  auto tCrB = thr_mma.partition_fragment_B(sB);  // (MMA,MMA_N,MMA_K)
  auto tCrD = thr_mma.partition_fragment_C(
      make_identity_tensor(make_shape(Int<Config::kTileM>{}, Int<Config::kTileN>{})));  // (MMA,MMA_M,MMA_N)
  clear(tCrD);

  typename Config::S2RA s2r_a;
  typename Config::S2RB s2r_b;
  auto tXsA = s2r_a.get_slice(tid).partition_S(sA);  // (CPY,CPY_M,CPY_K), stage 0
  auto tXrA = s2r_a.get_slice(tid).retile_D(tCrA);   // (CPY,CPY_M,CPY_K)
  auto tXsB = s2r_b.get_slice(tid).partition_S(sB);
  auto tXrB = s2r_b.get_slice(tid).retile_D(tCrB);

  constexpr int kSlices = int(decltype(size<2>(tCrA))::value);  // k-slices per tile

  // prologue: tiles 0 .. Stages-2 in flight
  int itile_to_read = tile_begin;
  for (int stage = 0; stage < kStages - 1; ++stage) {
    if (itile_to_read < tile_end) load_tile(itile_to_read, AllAtoms{});  // into `stage`
    ++itile_to_read;
    cp_async_commit_group();
  }
  // The ring stage being read, as this thread's ldmatrix sources (moved by a pointer add per
  // tile, not rebuilt from a stage index per k-slice). load_tile writes the stages in turn.
  int ismem_read = 0;
  auto tXsA_read = tXsA;
  auto tXsB_read = tXsB;
  cp_async_wait_group<kStages - 2>();
  __syncthreads();
  copy(s2r_a, tXsA_read(_, _, 0), tXrA(_, _, 0));
  copy(s2r_b, tXsB_read(_, _, 0), tXrB(_, _, 0));

  // With Config::kSpreadCopies, the tile Stages-1 ahead is copied in kSlices shares, one per
  // k-slice, so that its cp.async interleave with the MMAs, and committed as one group at the
  // last slice, after the wait for the next tile: that wait leaves Stages-3 groups pending, not
  // Stages-2 (so it needs 3 stages). Otherwise the tile is copied whole at the first slice and
  // committed there.
  constexpr bool kSpread = Config::kSpreadCopies;
  constexpr int kPendingAtWait = kSpread ? kStages - 3 : kStages - 2;
  for (int itile = tile_begin; itile < tile_end; ++itile) {
    for_each_index(Int<kSlices>{}, [&](auto ik) {
      constexpr int kSlice = decltype(ik)::value, kNext = (kSlice + 1) % kSlices;
      constexpr int kCommitAt = kSpread ? kSlices - 1 : 0;
      if constexpr (kSlice == kSlices - 1) {  // the next tile must be in shared memory
        cp_async_wait_group<kPendingAtWait>();
        __syncthreads();
        ismem_read = ismem_read == kStages - 1 ? 0 : ismem_read + 1;
        tXsA_read = detail::at_offset(tXsA, ismem_read * kStageA);
        tXsB_read = detail::at_offset(tXsB, ismem_read * kStageB);
      }
      copy(s2r_a, tXsA_read(_, _, Int<kNext>{}), tXrA(_, _, Int<kNext>{}));
      copy(s2r_b, tXsB_read(_, _, Int<kNext>{}), tXrB(_, _, Int<kNext>{}));
      if constexpr (kSpread) {
        if (itile_to_read < tile_end) load_tile(itile_to_read, AtomShare<kSlice, kSlices>{});
      } else if constexpr (kSlice == 0) {
        if (itile_to_read < tile_end) load_tile(itile_to_read, AllAtoms{});
      }
      if constexpr (kSlice == kCommitAt) {
        ++itile_to_read;
        cp_async_commit_group();
      }
      gemm(mma, tCrD, tCrA(_, _, ik), tCrB(_, _, ik), tCrD);
    });
  }

  // The stages are reused for the epilogue's staging tile: no cp.async may still write them
  // and no warp may still read them.
  cp_async_wait_all();
  __syncthreads();
  epilogue_sm80<Config>(thr_mma, tCrD, smem, p.epilogue, int(blockIdx.z), tile.m * Config::kTileM, tile.n * Config::kTileN,
                        rows_a, rows_b);
}
#endif

}  // namespace tessel
