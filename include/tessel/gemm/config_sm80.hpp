// GemmConfigSm80: every policy choice of the sm80 multistage GEMM in one place (seed 004's
// Config), with every quantity derived from the few that are chosen and every relation
// between them checked. The kernel computes D (M,N) = A (M,K) * B (N,K)^T; each operand is
// K-major or MN-major (operand_sm80.hpp), its elements f16 or bf16, accumulation fp32.
//
//   GemmConfigSm80<128, 128, 32, 4>                 128x128 tile, K-tile 32, 4 stages, 2x2 warps
//   GemmConfigSm80<128, 256, 64, 3, 2, 4, BFloat16, Major::kMN, Major::kK>   bf16, A M-major
#pragma once

#include "epilogue.hpp"
#include "operand_sm80.hpp"
#include "tessel/atom/mma_traits_sm80.hpp"
#include "tessel/atom/tiled_mma.hpp"

namespace tessel {

template <int TileM = 128, int TileN = 128, int TileK = 32, int Stages = 3, int WarpsM = 2, int WarpsN = 2,
          class ElementAB = Half, Major MajorA = Major::kK, Major MajorB = Major::kK, int Access = 8>
struct GemmConfigSm80 {
  using Element = ElementAB;  // A and B
  using Accumulator = float;
  static constexpr int kTileM = TileM, kTileN = TileN, kTileK = TileK, kStages = Stages;
  static constexpr int kWarpsM = WarpsM, kWarpsN = WarpsN, kAccess = Access;
  static constexpr Major kMajorA = MajorA, kMajorB = MajorB;
  static constexpr int kRasterGroup = 8;  // tile rows walked together (tile_scheduler.hpp)
  // Whether the K loop spreads a tile's cp.async over its k-slices (kernel_sm80.hpp): measured
  // faster on the H100 for 128x256x64_s3 (4096^3 317.6 us against 329.4) and 128x128x32_s4
  // (356.0 against 370.0), slower for 64x128x32_s4 (1024x1024x65536 672 us against 566);
  // it needs 3 stages (docs/PERFORMANCE.md, 2026-11-26).
  static constexpr bool kSpreadCopies = Stages >= 3 && TileM * TileN >= 128 * 128;

  // ---- relations between the chosen numbers, checked before anything is derived from them
  static_assert(TileK == 32 || TileK == 64,
                "GemmConfigSm80: TileK must be 32 or 64 (swizzled 64- or 128-byte rows of 16-bit "
                "elements, a multiple of the MMA's K of 16)");
  static_assert(TileM % (16 * WarpsM) == 0,
                "GemmConfigSm80: TileM must be a multiple of the tiled MMA's M (16 * WarpsM)");
  static_assert(TileN % (16 * WarpsN) == 0,
                "GemmConfigSm80: TileN must be a multiple of the tiled MMA's N (16 * WarpsN)");
  static_assert(Stages >= 2 && Stages <= 6, "GemmConfigSm80: 2 to 6 pipeline stages");
  static_assert((TileM + TileN) * TileK * Stages * 2 <= 227 * 1024,
                "GemmConfigSm80: the shared-memory stages exceed 227 KiB per block; use fewer "
                "stages or smaller tiles");
  static_assert(std::is_same_v<ElementAB, Half> || std::is_same_v<ElementAB, BFloat16>,
                "GemmConfigSm80: the inputs must be Half or BFloat16");

  // ---- the MMA: m16n8k16 atoms over WarpsM x WarpsN warps; N permuted to two atoms per warp
  // so that B's fragments can be loaded with ldmatrix.x4 (8 values per thread).
  using MmaOp = std::conditional_t<std::is_same_v<ElementAB, Half>, SM80_16x8x16_F32F16F16F32_TN,
                                   SM80_16x8x16_F32BF16BF16F32_TN>;
  using Mma = TiledMMA<MmaOp, Layout<Shape<Int<WarpsM>, Int<WarpsN>, Int<1>>>,
                       Tile<Int<16 * WarpsM>, Int<16 * WarpsN>, Int<16>>>;
  static constexpr int kThreads = Mma::kThreads;

  // ---- the operands: shared-memory layouts (Tile, TileK, Stages), global -> shared copies
  // (G2S unpredicated, G2SEdge zero-filling past the edges), shared -> register ldmatrix.
  using OperandA = OperandSm80<ElementAB, MajorA, TileM, TileK, Stages, kThreads, Access>;
  using OperandB = OperandSm80<ElementAB, MajorB, TileN, TileK, Stages, kThreads, Access>;
  using SmemLayoutA = typename OperandA::SmemLayout;
  using SmemLayoutB = typename OperandB::SmemLayout;
  using G2SA = typename OperandA::G2S;
  using G2SB = typename OperandB::G2S;
  using G2SEdgeA = typename OperandA::G2SEdge;
  using G2SEdgeB = typename OperandB::G2SEdge;
  using S2RA = decltype(make_tiled_copy_A(CopyAtom<typename OperandA::S2ROp, ElementAB>{}, Mma{}));
  using S2RB = decltype(make_tiled_copy_B(CopyAtom<typename OperandB::S2ROp, ElementAB>{}, Mma{}));
  static constexpr int kSmemBytesAB = (TileM + TileN) * TileK * Stages * int(sizeof(ElementAB));

  // ---- epilogue: the fp32 accumulator tile is staged in the same shared memory
  // (EpilogueSmemLayout, epilogue.hpp)
  static_assert((TileN & (TileN - 1)) == 0 && TileN >= 32,
                "GemmConfigSm80: TileN must be a power of two >= 32 (the epilogue's swizzle)");
  using SmemLayoutC = EpilogueSmemLayout<TileM, TileN>;
  static constexpr int kSmemBytesC = TileM * TileN * int(sizeof(Accumulator));
  static constexpr int kSmemBytes = kSmemBytesAB > kSmemBytesC ? kSmemBytesAB : kSmemBytesC;
  static_assert(kSmemBytes <= 227 * 1024,
                "GemmConfigSm80: the epilogue's fp32 staging tile (TileM * TileN * 4 bytes) exceeds "
                "227 KiB; use a smaller tile");
  static_assert(kThreads * 8 <= TileM * TileN,
                "GemmConfigSm80: the epilogue's 16-byte stores need a tile of at least 8 elements "
                "per thread");
};

}  // namespace tessel
