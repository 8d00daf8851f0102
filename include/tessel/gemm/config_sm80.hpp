// GemmConfigSm80: every policy choice of the sm80 multistage GEMM in one place (seed 004's
// Config), with every quantity derived from the few that are chosen and every relation
// between them checked. Operands "TN": A (M,K) and B (N,K), both K-major (row-major A,
// column-major B in BLAS terms).
#pragma once

#include "tessel/arch/numeric_types.hpp"
#include "tessel/atom/copy_traits_sm80.hpp"
#include "tessel/atom/mma_traits_sm80.hpp"
#include "tessel/atom/tiled_copy.hpp"
#include "tessel/atom/tiled_mma.hpp"

namespace tessel {

template <int TileM = 128, int TileN = 128, int TileK = 32, int Stages = 3, int WarpsM = 2, int WarpsN = 2>
struct GemmConfigSm80 {
  using Element = Half;  // A and B
  using Accumulator = float;
  static constexpr int kTileM = TileM, kTileN = TileN, kTileK = TileK, kStages = Stages;
  static constexpr int kRasterGroup = 8;  // tile rows walked together (tile_scheduler.hpp)

  // ---- relations between the chosen numbers, checked before anything is derived from them
  static_assert(TileK == 32 || TileK == 64,
                "GemmConfigSm80: TileK must be 32 or 64 (swizzled 64- or 128-byte rows of fp16, "
                "a multiple of the MMA's K of 16)");
  static_assert(TileM % (16 * WarpsM) == 0,
                "GemmConfigSm80: TileM must be a multiple of the tiled MMA's M (16 * WarpsM)");
  static_assert(TileN % (16 * WarpsN) == 0,
                "GemmConfigSm80: TileN must be a multiple of the tiled MMA's N (16 * WarpsN)");
  static_assert(Stages >= 2 && Stages <= 6, "GemmConfigSm80: 2 to 6 pipeline stages");
  static_assert((TileM + TileN) * TileK * Stages * 2 <= 227 * 1024,
                "GemmConfigSm80: the shared-memory stages exceed 227 KiB per block; use fewer "
                "stages or smaller tiles");

  // ---- the MMA: m16n8k16 atoms over WarpsM x WarpsN warps; N permuted to two atoms per warp
  // so that B's fragments can be loaded with ldmatrix.x4 (8 values per thread).
  using Mma = TiledMMA<SM80_16x8x16_F32F16F16F32_TN, Layout<Shape<Int<WarpsM>, Int<WarpsN>, Int<1>>>,
                       Tile<Int<16 * WarpsM>, Int<16 * WarpsN>, Int<16>>>;
  static constexpr int kThreads = Mma::kThreads;

  static_assert(kThreads % (TileK / 8) == 0,
                "GemmConfigSm80: the threads must form whole rows of 16-byte vectors");
  static_assert(TileM % (kThreads / (TileK / 8)) == 0 && TileN % (kThreads / (TileK / 8)) == 0,
                "GemmConfigSm80: the cp.async copy's rows (threads / vectors per row) must "
                "divide TileM and TileN");

  // ---- shared memory: (8, TileK) row-major atoms, swizzled so that both the 16-byte
  // cp.async writes and the ldmatrix reads are conflict-free (tessel-layout banks checks
  // them: tests/host/gemm_config_test.cpp), repeated to (Tile, TileK, Stages).
  static constexpr int kSwizzleBits = TileK == 64 ? 3 : TileK == 32 ? 2 : 1;
  using SmemAtom = decltype(composition(Swizzle<kSwizzleBits, 3, 3>{},
                                        make_layout(make_shape(Int<8>{}, Int<TileK>{}), LayoutRight{})));
  using SmemLayoutA = decltype(tile_to_shape(SmemAtom{}, make_shape(Int<TileM>{}, Int<TileK>{}, Int<Stages>{})));
  using SmemLayoutB = decltype(tile_to_shape(SmemAtom{}, make_shape(Int<TileN>{}, Int<TileK>{}, Int<Stages>{})));
  static constexpr int kSmemBytes = (TileM + TileN) * TileK * Stages * int(sizeof(Element));

  // ---- copies: global -> shared with 16-byte cp.async, each thread a row-major slot of
  // (kThreads / (TileK/8), TileK/8) 16-byte vectors; G2SEdge is the same copy with the
  // zero-fill form, for tiles that hang over the matrix's edges. Shared -> registers with
  // ldmatrix.x4 in the MMA's fragment order.
  static constexpr int kVectorsPerRow = TileK / 8;
  using G2SThreads = Layout<Shape<Int<kThreads / kVectorsPerRow>, Int<kVectorsPerRow>>, Stride<Int<kVectorsPerRow>, Int<1>>>;
  using G2SValues = Layout<Shape<Int<1>, Int<8>>>;
  using G2S = decltype(make_tiled_copy(CopyAtom<SM80_CP_ASYNC_CG<16>, Element>{}, G2SThreads{}, G2SValues{}));
  using G2SEdge = decltype(make_tiled_copy(CopyAtom<SM80_CP_ASYNC_CG_ZFILL<16>, Element>{}, G2SThreads{}, G2SValues{}));
  using S2RA = decltype(make_tiled_copy_A(CopyAtom<SM80_LDMATRIX_X4, Element>{}, Mma{}));
  using S2RB = decltype(make_tiled_copy_B(CopyAtom<SM80_LDMATRIX_X4, Element>{}, Mma{}));

};

}  // namespace tessel
