// The sm80 multistage GEMM kernel, as seed 004 draws it: D (M,N) = A (M,K) * B (N,K)^T, then
// the epilogue (epilogue_sm80.hpp). blockIdx.x is the tile (rasterized), blockIdx.z the batch
// and, with split-K, the slice of K: z = batch * splits + split. Each split accumulates its
// k_tiles_per_split K tiles and writes them through the epilogue as its own output matrix
// (z-th of the epilogue's batches); the runtime then sums the splits (split_k_reduce).
//   prologue  cp.async the first Stages-1 K-tiles into the shared-memory ring
//   mainloop  per K-tile, per 16-wide k-slice: ldmatrix the next slice into registers while
//             the MMAs run on this one (register double buffering); at the first slice issue
//             the cp.async of the tile Stages-1 ahead; at the last, wait for the next tile
//   epilogue  accumulators -> swizzled shared memory -> 16-byte stores with alpha/beta/bias/act
// With Edges = false, M, N and K must be multiples of the tile: nothing is predicated. With
// Edges = true, any M, N, K: vectors past the edges are zero-filled (their MN coordinates are
// decided once, their K coordinates per tile). The predicates cost registers, so the runtime
// picks the variant by the problem. The operands' access width (Config::kAccess) decides the
// alignment the kernel needs: see operand_sm80.hpp.
//
// ASource and BSource say where the operands come from: MatrixOperand (the default), the
// strided matrices p.a / p.b; or an implicit operand such as convolution's activations
// (conv/*_operand_sm80.hpp), which loads each K tile itself through its iterator: the rest of
// the pipeline is the same. An implicit source gives each thread a loader,
//   make_loader(AtomOrigins origin, int mn0, int k0, int tile_k)   the thread's copy atoms'
//       (mn, k) in the tile, the tile's first row (A) or column (B), the first K index
//   loader.load<Op>(smem_dst, base)   once per K tile, in order: zero-fill what lies outside
// (the operand's own predicates replace the edge predicates). An implicit A is K-major with
// each thread's atoms in one column; an implicit B is MN-major with each thread's atoms in one
// row of N (one contiguous run of 8 or 1 elements at several K indices).
#pragma once

#include <cstddef>
#include <cstdint>

#include "config_sm80.hpp"
#include "epilogue_sm80.hpp"
#include "tile_scheduler.hpp"
#include "tessel/arch/sm80.hpp"
#include "tessel/atom/copy.hpp"
#include "tessel/atom/mma.hpp"

namespace tessel {

struct GemmParamsSm80 {
  void const* a;  // (M,K) of Config::Element: K-major stride (lda,1), MN-major (1,lda)
  void const* b;  // (N,K), the same with ldb
  int m, n, k;
  int lda, ldb;
  std::int64_t a_batch_stride, b_batch_stride;
  int splits;             // slices of K (1: no split-K)
  int k_tiles_per_split;  // K tiles per slice (with splits == 1: all of them)
  EpilogueParams epilogue;  // its batch index is blockIdx.z
};

// The operand is the strided matrix of GemmParamsSm80 (a, lda, a_batch_stride; or b, ...).
struct MatrixOperand {};

#if defined(__CUDACC__)
namespace detail {
// An operand's (MN,K) global tensor: K-major (ld,1) or MN-major (1,ld).
template <Major M, class T>
__device__ auto make_operand_tensor(T const* ptr, int mn, int k, int ld) {
  if constexpr (M == Major::kK) {
    return make_tensor(make_gmem_ptr(ptr), make_shape(mn, k), make_stride(ld, Int<1>{}));
  } else {
    return make_tensor(make_gmem_ptr(ptr), make_shape(mn, k), make_stride(Int<1>{}, ld));
  }
}
}  // namespace detail

template <class Config, bool Edges = true, class ASource = MatrixOperand, class BSource = MatrixOperand>
__global__ void __launch_bounds__(Config::kThreads)
    gemm_kernel_sm80(GemmParamsSm80 p, ASource a_source, BSource b_source) {
  constexpr bool kMatrixA = std::is_same_v<ASource, MatrixOperand>;
  constexpr bool kMatrixB = std::is_same_v<BSource, MatrixOperand>;
  static_assert(kMatrixA || (Edges && Config::kMajorA == Major::kK),
                "gemm_kernel_sm80: an implicit A operand needs the predicated (Edges) variant and a K-major A");
  static_assert(kMatrixB || (Edges && Config::kMajorB == Major::kMN),
                "gemm_kernel_sm80: an implicit B operand needs the predicated (Edges) variant and an MN-major B");
  using namespace tessel;
  using Element = typename Config::Element;
  constexpr int kStages = Config::kStages;
  constexpr int kAccess = Config::kAccess;
  extern __shared__ __align__(128) unsigned char smem[];
  auto* smem_a = reinterpret_cast<Element*>(smem);
  constexpr int kStageA = Config::OperandA::kStageElems, kStageB = Config::OperandB::kStageElems;
  auto* smem_b = smem_a + kStages * kStageA;

  auto tile_mnk = make_shape(Int<Config::kTileM>{}, Int<Config::kTileN>{}, Int<Config::kTileK>{});
  const TileCoord tile = rasterize(int(blockIdx.x), (p.m + Config::kTileM - 1) / Config::kTileM,
                                   (p.n + Config::kTileN - 1) / Config::kTileN, Config::kRasterGroup);
  const int batch = int(blockIdx.z) / p.splits, split = int(blockIdx.z) % p.splits;
  auto const* a = static_cast<Element const*>(p.a) + batch * p.a_batch_stride;
  auto const* b = static_cast<Element const*>(p.b) + batch * p.b_batch_stride;
  auto blk = make_coord(tile.m, tile.n, _);
  auto mA = detail::make_operand_tensor<Config::kMajorA>(a, p.m, p.k, p.lda);  // (M,K)
  auto mB = detail::make_operand_tensor<Config::kMajorB>(b, p.n, p.k, p.ldb);  // (N,K)
  auto gA = local_tile(mA, tile_mnk, blk, make_step(Int<1>{}, _, Int<1>{}));      // (BLK_M,BLK_K,k)
  auto gB = local_tile(mB, tile_mnk, blk, make_step(_, Int<1>{}, Int<1>{}));      // (BLK_N,BLK_K,k)
  // Stage 0 of the shared-memory ring; stage s is the same tensor s stages further on.
  auto sA = make_tensor(make_smem_ptr(smem_a), typename Config::OperandA::SmemStageLayout{});  // (BLK_M,BLK_K)
  auto sB = make_tensor(make_smem_ptr(smem_b), typename Config::OperandB::SmemStageLayout{});  // (BLK_N,BLK_K)
  auto at = [](auto const& t, std::ptrdiff_t shift) { return make_tensor(t.data() + shift, t.layout()); };

  const int tid = threadIdx.x;
  std::conditional_t<Edges, typename Config::G2SEdgeA, typename Config::G2SA> g2s_a;
  std::conditional_t<Edges, typename Config::G2SEdgeB, typename Config::G2SB> g2s_b;
  auto g2s_thr_a = g2s_a.get_slice(tid);
  auto g2s_thr_b = g2s_b.get_slice(tid);
  // K tile t of the operands is K tile 0 moved by t * k_step elements.
  auto tAgA = g2s_thr_a.partition_S(gA(_, _, 0));  // (CPY,CPY_M,CPY_K)
  auto tAsA = g2s_thr_a.partition_D(sA);           // (CPY,CPY_M,CPY_K)
  auto tBgB = g2s_thr_b.partition_S(gB(_, _, 0));
  auto tBsB = g2s_thr_b.partition_D(sB);
  const std::ptrdiff_t k_step_a = Config::kTileK * (Config::kMajorA == Major::kK ? 1 : std::ptrdiff_t(p.lda));
  const std::ptrdiff_t k_step_b = Config::kTileK * (Config::kMajorB == Major::kK ? 1 : std::ptrdiff_t(p.ldb));

  // Edge predicates: each atom's (mn, k) inside the tile (a static identity tile, so no
  // division), against the extents left from the tile's origin.
  constexpr int kAtomsA = int(decltype(size(tAsA))::value) / kAccess;
  constexpr int kAtomsB = int(decltype(size(tBsB))::value) / kAccess;
  const AtomOrigins<kAccess, kAtomsA> origin_a(
      g2s_thr_a.partition_S(make_identity_tensor(make_shape(Int<Config::kTileM>{}, Int<Config::kTileK>{}))));
  const AtomOrigins<kAccess, kAtomsB> origin_b(
      g2s_thr_b.partition_S(make_identity_tensor(make_shape(Int<Config::kTileN>{}, Int<Config::kTileK>{}))));
  const int tile_begin = split * p.k_tiles_per_split;  // this block's K tiles
  const int tile_end = min(tile_begin + p.k_tiles_per_split, (p.k + Config::kTileK - 1) / Config::kTileK);
  // An implicit operand loads through its own per-thread loader (one call per K tile, in order
  // from tile_begin).
  auto a_loader = [&] {
    if constexpr (kMatrixA) {
      return 0;
    } else {
      static_assert(decltype(size<2>(tAsA))::value == 1,
                    "gemm_kernel_sm80: an implicit A needs each thread's copy atoms in one column (CPY_K == 1)");
      return a_source.make_loader(origin_a, tile.m * Config::kTileM, tile_begin * Config::kTileK, Config::kTileK);
    }
  }();
  auto b_loader = [&] {
    if constexpr (kMatrixB) {
      return 0;
    } else {
      static_assert(decltype(size<1>(tBsB))::value == 1,
                    "gemm_kernel_sm80: an implicit B needs each thread's copy atoms in one row of N (CPY_N == 1)");
      return b_source.make_loader(origin_b, tile.n * Config::kTileN, tile_begin * Config::kTileK, Config::kTileK);
    }
  }();
  const int rows_a = p.m - tile.m * Config::kTileM;  // rows of this tile inside the matrix
  const int rows_b = p.n - tile.n * Config::kTileN;
  auto load_tile = [&](int t, int stage) {  // K tile t -> pipeline stage
    const int k0 = t * Config::kTileK;
    auto in_a = [&](int i) { return origin_a.row[i] < rows_a && k0 + origin_a.col[i] < p.k; };
    auto in_b = [&](int i) { return origin_b.row[i] < rows_b && k0 + origin_b.col[i] < p.k; };
    if constexpr (!kMatrixA) {
      a_loader.template load<typename Config::OperandA::G2SEdgeOp>(at(tAsA, stage * kStageA), a);
    } else if constexpr (Edges) {
      copy_if(g2s_a, in_a, at(tAgA, t * k_step_a), at(tAsA, stage * kStageA), a);
    } else {
      copy(g2s_a, at(tAgA, t * k_step_a), at(tAsA, stage * kStageA));
    }
    if constexpr (!kMatrixB) {
      b_loader.template load<typename Config::OperandB::G2SEdgeOp>(at(tBsB, stage * kStageB), b);
    } else if constexpr (Edges) {
      copy_if(g2s_b, in_b, at(tBgB, t * k_step_b), at(tBsB, stage * kStageB), b);
    } else {
      copy(g2s_b, at(tBgB, t * k_step_b), at(tBsB, stage * kStageB));
    }
  };

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
    if (itile_to_read < tile_end) load_tile(itile_to_read, stage);
    ++itile_to_read;
    cp_async_commit_group();
  }
  int ismem_read = 0, ismem_write = kStages - 1;
  cp_async_wait_group<kStages - 2>();
  __syncthreads();
  copy(s2r_a, at(tXsA, ismem_read * kStageA)(_, _, 0), tXrA(_, _, 0));
  copy(s2r_b, at(tXsB, ismem_read * kStageB)(_, _, 0), tXrB(_, _, 0));

  for (int itile = tile_begin; itile < tile_end; ++itile) {
    for (int ik = 0; ik < kSlices; ++ik) {
      const int ik_next = (ik + 1) % kSlices;
      if (ik == kSlices - 1) {  // the next tile must be in shared memory before its first slice
        cp_async_wait_group<kStages - 2>();
        __syncthreads();
        ismem_read = (ismem_read + 1) % kStages;
      }
      copy(s2r_a, at(tXsA, ismem_read * kStageA)(_, _, ik_next), tXrA(_, _, ik_next));
      copy(s2r_b, at(tXsB, ismem_read * kStageB)(_, _, ik_next), tXrB(_, _, ik_next));
      if (ik == 0) {
        if (itile_to_read < tile_end) {
          load_tile(itile_to_read, ismem_write);
          ismem_write = (ismem_write + 1) % kStages;
        }
        ++itile_to_read;
        cp_async_commit_group();
      }
      gemm(mma, tCrD, tCrA(_, _, ik), tCrB(_, _, ik), tCrD);
    }
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
