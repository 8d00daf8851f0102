// GemmConfigSm90: the sm_90a GEMM (kernel_sm90.hpp) — the sm80 pipeline's global -> shared
// half unchanged (cp.async into the swizzled ring of operand_sm80.hpp, 256 threads), with the
// shared -> tensor-core half replaced: two warpgroups issue wgmma straight from shared memory
// (arch/sm90/wgmma.hpp), so no ldmatrix and no operand registers.
//
//   GemmConfigSm90<128, 128, 32, 6>    128x128 tile, K-tile 32, 6 stages; warpgroups 2x1 (64x128 each)
//   GemmConfigSm90<64, 128, 32, 6>     warpgroups 1x2 (64x64 each)
//   GemmConfigSm90<128, 256, 64, 4>    warpgroups 2x1 (64x256 each: 128 fp32 accumulators a thread)
//   GemmConfigSm90<256, 64, 64, 4>     warpgroups 2x1 (128x64 each: two 64-row blocks)
//
// The ring's swizzle atoms are wgmma's canonical layouts, so each warpgroup's operand tile is
// one matrix descriptor per 16-wide k-step (GmmaOperand below; tests/host/gemm_sm90_config_test
// compares the descriptors' addresses with the ring's layout element by element):
//   K-major,  TileK 32   Sw<2,3,3> o (8,32):(32,1)  = 64-byte swizzle,  8-row groups 512 B apart
//   K-major,  TileK 64   Sw<3,3,3> o (8,64):(64,1)  = 128-byte swizzle, 8-row groups 1024 B apart
//   MN-major             Sw<3,3,3> o (64,8):(1,64)  = 128-byte swizzle, atoms of 64 MN 1024 B apart,
//                                                     8-K groups TileMN/64 atoms apart
#pragma once

#include "epilogue.hpp"
#include "operand_sm80.hpp"
#include "tessel/arch/sm90/wgmma.hpp"

namespace tessel {

// Who writes a stage, hence how it is laid out:
//   kRing     the cp.async ring of operand_sm80.hpp. A K-major TMA box of 64- or 128-byte
//             swizzled rows is the same layout.
//   kMnBoxes  MN-major, written by the TMA engine as TileMN/64 boxes of (64 MN, TileK K), each
//             K row of 64 MN 128-byte swizzled (Sw<3,3,3> o (64,TileK):(1,64)): atoms of 64 MN
//             TileK * 128 bytes apart, 8-K groups 1024 (conv/dgrad_operand_sm90.hpp)
enum class GmmaLayout { kRing, kMnBoxes };

// Where one warpgroup's wgmma operand lies in a stage of an (TileMN, TileK) operand of major
// M, laid out as `Layout` says.
template <Major M, int TileMN, int TileK, int ElementBytes = 2, GmmaLayout Layout = GmmaLayout::kRing>
struct GmmaOperand {
  static constexpr bool kKMajor = M == Major::kK;
  static constexpr bool kBoxes = Layout == GmmaLayout::kMnBoxes;
  static_assert(!kBoxes || !kKMajor, "GmmaOperand: kMnBoxes is an MN-major layout");
  static constexpr GmmaSwizzle kSwizzle = !kKMajor || TileK == 64 ? GmmaSwizzle::k128B : GmmaSwizzle::k64B;
  static constexpr int kRowBytes = TileK * ElementBytes;       // K-major: one MN row of the stage
  static constexpr int kAtomBytes = 64 * 8 * ElementBytes;     // MN-major: one (64,8) swizzle atom
  static constexpr int kBoxBytes = 64 * TileK * ElementBytes;  // kMnBoxes: one (64, TileK) box
  // Leading and stride byte offsets of the descriptor (see make_gmma_descriptor).
  static constexpr int kLbo = kKMajor ? 16 : kBoxes ? kBoxBytes : kAtomBytes;
  static constexpr int kSbo = kKMajor ? 8 * kRowBytes : kBoxes ? kAtomBytes : (TileMN / 64) * kAtomBytes;
  // Byte offsets of the operand's (mn, k) origin: per 64 of MN, per 16 of K (one wgmma k-step).
  static constexpr int kBytesPer64MN = kKMajor ? 64 * kRowBytes : kBoxes ? kBoxBytes : kAtomBytes;
  static constexpr int kBytesPerKStep = kKMajor ? 16 * ElementBytes : 2 * kSbo;
  static_assert(kKMajor ? (TileK == 32 || TileK == 64) : TileMN % 64 == 0,
                "GmmaOperand: the stage must be made of wgmma's canonical swizzle atoms");

  // The descriptor of the operand whose (mn, k) origin is (64 * mn64, 16 * kstep) in the
  // stage at shared-memory address `stage`.
  TESSEL_HOST_DEVICE static constexpr std::uint64_t descriptor(std::uint32_t stage, int mn64, int kstep) {
    return make_gmma_descriptor(stage + std::uint32_t(mn64 * kBytesPer64MN + kstep * kBytesPerKStep), kLbo, kSbo,
                                kSwizzle);
  }
};

// How the two MMA warpgroups share the work (the TMA kernel, kernel_sm90_tma.hpp):
//   kCooperative  both on one tile, each 64 rows of it (or half its columns), one epilogue
//   kPingPong     each on its own tile, whole, the block's tiles alternating between them: one
//                 warpgroup's epilogue runs while the other's mainloop keeps the tensor cores
//                 busy (persistent TMA kernel only)
enum class MmaSchedule { kCooperative, kPingPong };

template <int TileM = 128, int TileN = 128, int TileK = 32, int Stages = 6, class ElementAB = Half,
          Major MajorA = Major::kK, Major MajorB = Major::kK, int MmaInFlight = 1,
          GmmaLayout LayoutA = GmmaLayout::kRing, GmmaLayout LayoutB = GmmaLayout::kRing,
          MmaSchedule Schedule = MmaSchedule::kCooperative, int ClusterM = 1, int StoreWarps = 0>
struct GemmConfigSm90 {
  using Element = ElementAB;  // A and B
  using Accumulator = float;
  static constexpr int kTileM = TileM, kTileN = TileN, kTileK = TileK, kStages = Stages;
  // 16-byte cp.async only: the narrow path (operand_sm80.hpp, Access = 1) stays on the sm80
  // kernel, whose tests cover it.
  static constexpr int kAccess = 8;
  // wgmma groups a warpgroup leaves in flight at the end of a K tile (kernel_sm90.hpp): 1
  // overlaps the next tile's wait and barrier with this tile's MMAs, at the cost of one stage.
  static constexpr int kMmaInFlight = MmaInFlight;
  static constexpr Major kMajorA = MajorA, kMajorB = MajorB;
  static constexpr int kRasterGroup = 8;  // tile rows walked together (tile_scheduler.hpp)
  // Blocks per cluster along M (the persistent TMA kernel, kernel_sm90_tma.hpp): 2 runs tile
  // rows 2i and 2i+1 of one column on a pair of blocks that load half of B each and multicast
  // it into both (arch/sm90/cluster.hpp): L2 serves B once per pair.
  static constexpr int kClusterM = ClusterM;
  static_assert(ClusterM == 1 || ClusterM == 2, "GemmConfigSm90: clusters of 1 or 2 blocks along M");
  static_assert(ClusterM == 1 || (MajorB == Major::kK ? TileN % 16 == 0 : TileN % 128 == 0),
                "GemmConfigSm90: with a cluster of 2, B's stage splits into two halves of whole TMA boxes");
  static_assert(kRasterGroup % ClusterM == 0, "GemmConfigSm90: the raster group holds whole clusters");
  // Warps that store the tiles (the persistent TMA kernel): 0, the MMA warpgroups store each
  // tile themselves; else these warps store it from the staging tile while the MMA warpgroups
  // go on to the next tile's mainloop (kernel_sm90_tma.hpp).
  static constexpr int kStoreWarps = StoreWarps;

  // ---- two warpgroups. Cooperative: stacked along M for 128 or 256 rows (64 or 128 each),
  // side by side along N for 64 rows. Ping-pong: each the whole tile. A warpgroup's rows are
  // kWgMBlocks blocks of 64, one wgmma each.
  static constexpr MmaSchedule kSchedule = Schedule;
  static constexpr bool kPingPong = Schedule == MmaSchedule::kPingPong;
  static constexpr int kThreads = 256;
  static constexpr int kWarpGroupsM = kPingPong || TileM == 64 ? 1 : 2;
  static constexpr int kWarpGroupsN = kPingPong ? 1 : 2 / kWarpGroupsM;
  static constexpr int kWgMBlocks = TileM / (64 * kWarpGroupsM);  // 64-row blocks per warpgroup
  static constexpr int kWgTileN = TileN / kWarpGroupsN;  // each warpgroup: (64 * kWgMBlocks) x kWgTileN
  static constexpr int kAccumulators = kWgMBlocks * kWgTileN / 2;  // fp32 registers per thread
  static_assert(TileM == 64 || TileM == 128 || (TileM == 256 && !kPingPong),
                "GemmConfigSm90: TileM is 64 or 128 (one or two warpgroups of 64 rows), or 256 cooperative");
  static_assert(kAccumulators <= 128, "GemmConfigSm90: at most 128 accumulators a thread");
  static_assert(kWgTileN == 64 || kWgTileN == 128 || kWgTileN == 192 || kWgTileN == 256,
                "GemmConfigSm90: each warpgroup's N (TileN, or TileN / 2 with TileM 64) must be 64, 128, 192 or 256");
  static_assert(TileK == 32 || TileK == 64, "GemmConfigSm90: TileK must be 32 or 64 (64- or 128-byte swizzled rows)");
  static_assert(MmaInFlight == 0 || MmaInFlight == 1, "GemmConfigSm90: 0 or 1 wgmma groups in flight");
  static_assert(Stages >= 2 + MmaInFlight && Stages <= 8,
                "GemmConfigSm90: 2 + MmaInFlight to 8 stages (one being multiplied, MmaInFlight "
                "still read, at least one loading)");
  static_assert(std::is_same_v<ElementAB, Half> || std::is_same_v<ElementAB, BFloat16>,
                "GemmConfigSm90: the inputs must be Half or BFloat16");

  using OperandA = OperandSm80<ElementAB, MajorA, TileM, TileK, Stages, kThreads, kAccess>;
  using OperandB = OperandSm80<ElementAB, MajorB, TileN, TileK, Stages, kThreads, kAccess>;
  using G2SA = typename OperandA::G2S;
  using G2SB = typename OperandB::G2S;
  using G2SEdgeA = typename OperandA::G2SEdge;
  using G2SEdgeB = typename OperandB::G2SEdge;
  // Layouts other than kRing: stages the TMA kernel's engine writes (kernel_sm90_tma.hpp).
  using GmmaA = GmmaOperand<MajorA, TileM, TileK, 2, LayoutA>;
  using GmmaB = GmmaOperand<MajorB, TileN, TileK, 2, LayoutB>;
  using Wgmma = Wgmma64xNx16<kWgTileN, ElementAB, MajorA == Major::kMN, MajorB == Major::kMN>;
  static constexpr int kStageBytesA = TileM * TileK * 2, kStageBytesB = TileN * TileK * 2;
  static constexpr int kSmemBytesAB = (kStageBytesA + kStageBytesB) * Stages;
  static_assert(kStageBytesA % 1024 == 0 && kStageBytesB % 1024 == 0,
                "GemmConfigSm90: every stage must start on a 1024-byte swizzle-pattern boundary");

  // ---- epilogue: from the registers to D (epilogue_sm90.hpp). The staging tile below serves
  // the store warps (kStoreWarps), which store through the shared epilogue (epilogue.hpp), and
  // otherwise holds the MMA warps' scratch for the tiles the registers cannot store (20 KiB,
  // detail::kEpilogueScratchBytes); every config reserves it (the persistent kernel's layout,
  // and TmaTileConfigInfo::smem_bytes): a 256-wide tile's is one slice of 64 columns (32 KiB),
  // a ping-pong warpgroup's too.
  static constexpr int kEpilogueTileN = kPingPong || TileN > 128 ? 64 : TileN;
  static_assert(StoreWarps == 0 || (!kPingPong && kEpilogueTileN == TileN && kAccumulators <= 64),
                "GemmConfigSm90: store warps take whole staged tiles of the cooperative schedule");
  static constexpr int kEpilogueThreads = kPingPong ? 128 : kThreads;
  using EpilogueTile = EpilogueTileShape<TileM, kEpilogueTileN, kEpilogueThreads>;
  using SmemLayoutC = typename EpilogueTile::SmemLayoutC;
  static constexpr int kSmemBytesCPerWg = TileM * kEpilogueTileN * int(sizeof(Accumulator));
  static constexpr int kSmemBytesC = (kPingPong ? 2 : 1) * kSmemBytesCPerWg;
  static constexpr int kSmemBytes = kSmemBytesAB > kSmemBytesC ? kSmemBytesAB : kSmemBytesC;
  static_assert(kSmemBytes <= 227 * 1024, "GemmConfigSm90: more than 227 KiB of shared memory per block");
};

}  // namespace tessel
