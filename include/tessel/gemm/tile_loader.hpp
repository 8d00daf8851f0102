// The global -> shared half of the multistage mainloop, shared by the sm80 (mma.sync) and
// sm90 (wgmma) kernels: one block's K tiles of A (M,K) and B (N,K) copied by cp.async (or the
// narrow path's element copies) into the swizzled shared-memory ring of operand_sm80.hpp.
//
//   auto load_tile = make_tile_loader<Config, Edges>(p, a_source, b_source, tile, batch,
//                                                    tile_begin, smem);
//   load_tile(t, AllAtoms{});         // K tile t -> ring stage (t - tile_begin) % Stages; t in
//                                     // order from tile_begin, each tile once
//   load_tile(t, AtomShare<p, P>{});  // its p-th of P shares, p in order (matrix operands; an
//                                     // implicit operand loads whole with p == 0)
// The loader keeps the next tile's addresses and moves them one K tile and one stage a tile
// (the sm80 kernel: 278 -> 235 instructions a K tile of 128x256x64). With Moving = false it
// rebuilds them from t and the caller's stage, load_tile(t, stage, share): the sm90 cp.async
// kernel's loop, one K tile of two wgmma, runs 138 instructions so against 171 moving
// (64x128x32, conv wgrad's grouped layers: docs/PERFORMANCE.md, nineteenth session).
//
// ASource and BSource say where the operands come from: MatrixOperand, the strided matrices
// p.a / p.b (edge vectors zero-filled with Edges); or an implicit operand such as
// convolution's activations (conv/*_operand_sm80.hpp), which gives each thread a loader,
//   make_loader(AtomOrigins origin, int mn0, int k0, int tile_k)   the thread's copy atoms'
//       (mn, k) in the tile, the tile's first row (A) or column (B), the first K index
//   loader.load<Op>(smem_dst, base)   once per K tile, in order: zero-fill what lies outside
// (the operand's own predicates replace the edge predicates). An implicit A is K-major with
// each thread's atoms in one column; an implicit B is MN-major with each thread's atoms in one
// row of N (one contiguous run of 8 or 1 elements at several K indices).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "epilogue.hpp"
#include "operand_sm80.hpp"
#include "tile_scheduler.hpp"
#include "tessel/atom/copy.hpp"

namespace tessel {

struct GemmParams {
  void const* a;  // (M,K) of Config::Element: K-major stride (lda,1), MN-major (1,lda)
  void const* b;  // (N,K), the same with ldb
  int m, n, k;
  int lda, ldb;
  std::int64_t a_batch_stride, b_batch_stride;
  int splits;             // slices of K (1: no split-K)
  int k_tiles_per_split;  // K tiles per slice (with splits == 1: all of them)
  EpilogueParams epilogue;  // its batch index is blockIdx.z
};

// The operand is the strided matrix of GemmParams (a, lda, a_batch_stride; or b, ...).
struct MatrixOperand {};

#if defined(__CUDACC__)
// A block's share of the grid (both kernels): its output tile (blockIdx.x, rasterized), its
// batch and its K split (blockIdx.z = batch * splits + split), and that split's K tiles
// [tile_begin, tile_end).
struct BlockWork {
  TileCoord tile;
  int batch, tile_begin, tile_end;
};
// (x, z): the grid position; a persistent kernel passes the work item's instead. With
// clusters of `cluster` blocks along M (kernel_sm90_tma.hpp), x numbers clusters: the cluster
// rasterizes over rows of `cluster` tile rows, and its block `rank` takes the rank-th row of
// its pair (a row past the last when the tile rows are odd: that block computes nothing).
template <class Config>
__device__ BlockWork block_work(GemmParams const& p, int x = int(blockIdx.x), int z = int(blockIdx.z), int cluster = 1,
                                int rank = 0) {
  const int tiles_m = (p.m + Config::kTileM - 1) / Config::kTileM;
  TileCoord tile = rasterize(x, (tiles_m + cluster - 1) / cluster, (p.n + Config::kTileN - 1) / Config::kTileN,
                             Config::kRasterGroup / cluster);
  tile.m = tile.m * cluster + rank;
  const int split = z % p.splits;
  const int tile_begin = split * p.k_tiles_per_split;
  const int tile_end = min(tile_begin + p.k_tiles_per_split, (p.k + Config::kTileK - 1) / Config::kTileK);
  return {tile, z / p.splits, tile_begin, tile_end};
}

// block_work for a persistent kernel's work items, item = z * tiles + x, with the divisions
// prepared once per launch (fast_divmod.hpp; `tiles` counts clusters' tiles, as x does). Built
// on the host and passed as a kernel parameter, so that its divisors cost no registers.
template <class Config>
struct WorkItemDecoder {
  TileRasterizer raster;
  FastDivmod tiles, splits;
  int cluster = 1, k_tiles = 0, k_tiles_per_split = 1;

  WorkItemDecoder() = default;
  TESSEL_HOST_DEVICE WorkItemDecoder(GemmParams const& p, int cluster_)
      : cluster(cluster_), k_tiles((p.k + Config::kTileK - 1) / Config::kTileK), k_tiles_per_split(p.k_tiles_per_split) {
    const int tiles_m = (p.m + Config::kTileM - 1) / Config::kTileM, tiles_n = (p.n + Config::kTileN - 1) / Config::kTileN;
    const int clusters_m = (tiles_m + cluster - 1) / cluster;
    raster = TileRasterizer(clusters_m, tiles_n, Config::kRasterGroup / cluster);
    tiles = FastDivmod(clusters_m * tiles_n);
    splits = FastDivmod(p.splits);
  }
  __device__ BlockWork operator()(int item, int rank) const {
    int z, x, batch, split;
    tiles.divmod(item, z, x);
    splits.divmod(z, batch, split);
    TileCoord tile = raster(x);
    tile.m = tile.m * cluster + rank;
    const int tile_begin = split * k_tiles_per_split;
    return {tile, batch, tile_begin, min(tile_begin + k_tiles_per_split, k_tiles)};
  }
};
#endif

// The edge predicates of one thread's copy atoms over a (TileMN, TileK) tile of a matrix
// operand, from the thread's (AtomV, atoms) partition of the tile's identity tensor: atom i
// lies inside when its row is below `rows` and its K index below the matrix's K. Rows are
// decided once per block, a bit per atom. K is decided per K tile from the thread's first
// atom and a constant per atom: the partition is the thread's origin plus a static layout, and
// its K coordinates add (tests/host/gemm_config_test.cpp checks these predicates against the
// partition for every thread of every configuration). So a thread keeps two registers, not
// two per atom (the narrow path has 32 atoms per operand).
template <class Partition>
struct EdgePredicates {
  using Layout = std::remove_cvref_t<decltype(std::declval<Partition>().layout())>;
  using Shape = decltype(std::declval<Partition>().engine().shape);  // the tile's
  static constexpr int kAtoms = int(decltype(size(get<1>(Layout{}.shape())))::value);
  static_assert(kAtoms <= 32, "EdgePredicates: at most 32 copy atoms a thread (a bit each)");

  int col0;              // the thread's first atom's K index in the tile
  unsigned rows_in = 0;  // bit i: atom i's row lies inside the matrix

  TESSEL_HOST_DEVICE EdgePredicates(Partition const& mine, int rows) : col0(int(get<1>(mine(make_coord(0, 0))))) {
#pragma unroll
    for (int i = 0; i < kAtoms; ++i) rows_in |= unsigned(int(get<0>(mine(make_coord(0, i)))) < rows) << i;
  }
  // Atom i's K index minus atom 0's: a constant once the copy loop is unrolled.
  TESSEL_HOST_DEVICE static constexpr int col_offset(int i) {
    return int(get<1>(idx2crd(Layout{}(make_coord(0, i)), Shape{}))) -
           int(get<1>(idx2crd(Layout{}(make_coord(0, 0)), Shape{})));
  }
  // Atom i of the K tile starting at k0, in a matrix of k columns of K.
  TESSEL_HOST_DEVICE bool operator()(int i, int k0, int k) const {
    return (rows_in >> i & 1u) != 0 && k0 + col0 + col_offset(i) < k;
  }
};
template <int AtomV, class ThrCopy, class Identity>
TESSEL_HOST_DEVICE auto make_edge_predicates(ThrCopy const& thr, Identity const& id, int rows) {
  auto mine = detail::group_atom_values<AtomV>(thr.partition_S(id));
  return EdgePredicates<decltype(mine)>(mine, rows);
}

#if defined(__CUDACC__)
namespace detail {
// The same tensor, its data moved by shift elements.
template <class T>
__device__ auto at_offset(T const& x, std::ptrdiff_t shift) {
  return make_tensor(x.data() + shift, x.layout());
}

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

// Returns the block's load_tile(t, share) (Moving) or load_tile(t, stage, share). smem holds
// Config::kStages stages of A, then of B.
template <class Config, bool Edges, class ASource, class BSource, bool Moving = true>
__device__ auto make_tile_loader(GemmParams const& p, ASource const& a_source, BSource const& b_source,
                                 TileCoord tile, int batch, int tile_begin, unsigned char* smem) {
  constexpr bool kMatrixA = std::is_same_v<ASource, MatrixOperand>;
  constexpr bool kMatrixB = std::is_same_v<BSource, MatrixOperand>;
  static_assert(kMatrixA || (Edges && Config::kMajorA == Major::kK),
                "make_tile_loader: an implicit A operand needs the predicated (Edges) variant and a K-major A");
  static_assert(kMatrixB || (Edges && Config::kMajorB == Major::kMN),
                "make_tile_loader: an implicit B operand needs the predicated (Edges) variant and an MN-major B");
  using Element = typename Config::Element;
  constexpr int kAccess = Config::kAccess;
  constexpr int kStageA = Config::OperandA::kStageElems, kStageB = Config::OperandB::kStageElems;
  auto* smem_a = reinterpret_cast<Element*>(smem);
  auto* smem_b = smem_a + Config::kStages * kStageA;

  auto tile_mnk = make_shape(Int<Config::kTileM>{}, Int<Config::kTileN>{}, Int<Config::kTileK>{});
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

  // Where each atom lies in the tile (a static identity tile, so no division): a matrix
  // operand's edge predicates, or an implicit operand's own per-thread loader (one call per K
  // tile, in order from tile_begin), which decides its edges itself.
  constexpr int kAtomsA = int(decltype(size(tAsA))::value) / kAccess;
  constexpr int kAtomsB = int(decltype(size(tBsB))::value) / kAccess;
  const auto id_a = make_identity_tensor(make_shape(Int<Config::kTileM>{}, Int<Config::kTileK>{}));
  const auto id_b = make_identity_tensor(make_shape(Int<Config::kTileN>{}, Int<Config::kTileK>{}));
  const int rows_a = p.m - tile.m * Config::kTileM;  // rows of this tile inside the matrix
  const int rows_b = p.n - tile.n * Config::kTileN;
  auto a_loader = [&] {
    if constexpr (kMatrixA) {
      return make_edge_predicates<kAccess>(g2s_thr_a, id_a, rows_a);
    } else {
      static_assert(decltype(size<2>(tAsA))::value == 1,
                    "make_tile_loader: an implicit A needs each thread's copy atoms in one column (CPY_K == 1)");
      return a_source.make_loader(AtomOrigins<kAccess, kAtomsA>(g2s_thr_a.partition_S(id_a)),
                                  tile.m * Config::kTileM, tile_begin * Config::kTileK, Config::kTileK);
    }
  }();
  auto b_loader = [&] {
    if constexpr (kMatrixB) {
      return make_edge_predicates<kAccess>(g2s_thr_b, id_b, rows_b);
    } else {
      static_assert(decltype(size<1>(tBsB))::value == 1,
                    "make_tile_loader: an implicit B needs each thread's copy atoms in one row of N (CPY_N == 1)");
      return b_source.make_loader(AtomOrigins<kAccess, kAtomsB>(g2s_thr_b.partition_S(id_b)),
                                  tile.n * Config::kTileN, tile_begin * Config::kTileK, Config::kTileK);
    }
  }();
  const int k = p.k;
  // One K tile's copies: from gA/gB (the tile's global sources) into sA/sB (its ring stage);
  // mutable: an implicit operand's loader moves along K as it loads.
  auto copy_tile = [=]<int Part, int Parts>(auto const& gA, auto const& sA, auto const& gB, auto const& sB, int t,
                                             AtomShare<Part, Parts> share) mutable {
    [[maybe_unused]] const int k0 = t * Config::kTileK;
    if constexpr (!kMatrixA) {
      if constexpr (Part == 0) {  // an implicit operand loads its tile whole
        a_loader.template load<typename Config::OperandA::G2SEdgeOp>(sA, a);
      }
    } else if constexpr (Edges) {
      copy_if(g2s_a, [&](int i) { return a_loader(i, k0, k); }, gA, sA, a, share);
    } else {
      copy(g2s_a, gA, sA, share);
    }
    if constexpr (!kMatrixB) {
      if constexpr (Part == 0) {  // an implicit operand loads its tile whole
        b_loader.template load<typename Config::OperandB::G2SEdgeOp>(sB, b);
      }
    } else if constexpr (Edges) {
      copy_if(g2s_b, [&](int i) { return b_loader(i, k0, k); }, gB, sB, b, share);
    } else {
      copy(g2s_b, gB, sB, share);
    }
  };
  if constexpr (Moving) {
    // Where the next K tile comes from and goes to, moved one K tile (and one ring stage) per
    // tile, not rebuilt from t and a stage index: a copy atom's addresses are then one add each.
    auto tAgA_t = detail::at_offset(tAgA, tile_begin * k_step_a);  // K tile t
    auto tBgB_t = detail::at_offset(tBgB, tile_begin * k_step_b);
    auto tAsA_w = tAsA;  // its ring stage
    auto tBsB_w = tBsB;
    int stage = 0;
    return [=]<int Part, int Parts>(int t, AtomShare<Part, Parts> share) mutable {  // K tile t -> the next stage
      copy_tile(tAgA_t, tAsA_w, tBgB_t, tBsB_w, t, share);
      if constexpr (Part == Parts - 1) {  // the tile's last share: on to K tile t + 1 and the next stage
        tAgA_t = detail::at_offset(tAgA_t, k_step_a);
        tBgB_t = detail::at_offset(tBgB_t, k_step_b);
        stage = stage == Config::kStages - 1 ? 0 : stage + 1;
        tAsA_w = detail::at_offset(tAsA, stage * kStageA);
        tBsB_w = detail::at_offset(tBsB, stage * kStageB);
      }
    };
  } else {
    return [=]<int Part, int Parts>(int t, int stage, AtomShare<Part, Parts> share) mutable {  // K tile t -> `stage`
      copy_tile(detail::at_offset(tAgA, t * k_step_a), detail::at_offset(tAsA, stage * kStageA),
                detail::at_offset(tBgB, t * k_step_b), detail::at_offset(tBsB, stage * kStageB), t, share);
    };
  }
}
#endif

}  // namespace tessel
