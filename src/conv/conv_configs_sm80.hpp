// The tile configurations of the precompiled conv kernels: the GEMM's 128x128x32_s4_w2x2 with
// each direction's operand orders (config_sm80.hpp), for an element type and access width;
// with 64 or fewer output channels (GEMM N for fprop and dgrad, M for wgrad) the 16-byte
// kernels use a 64-wide tile there instead of computing half a tile of padding.
#pragma once

#include "tessel/gemm/config_sm80.hpp"
#include "tessel/gemm/config_sm90.hpp"

namespace tessel::sm80 {

inline constexpr int kConvTile = 128;      // TileM = TileN of the conv kernels
inline constexpr int kConvSmallTile = 64;  // ... but TileN (fprop, dgrad) or TileM (wgrad) of
                                           // the 16-byte kernels for 64 or fewer output channels
inline constexpr int kConvTileK = 32;      // the K tile of every conv kernel (the iterators' step)

// fprop  A activations (K-major gather), B KRSC filters (K-major: C/G runs along R*S*C/G)
template <class Element, int Access, int TileN = kConvTile>
using FpropConfig =
    GemmConfigSm80<kConvTile, TileN, kConvTileK, 4, 2, 2, Element, Major::kK, Major::kK, Access>;
// dgrad  A dY (K-major gather, as fprop's), B filters (MN-major gather: C runs)
template <class Element, int Access, int TileN = kConvTile>
using DgradConfig =
    GemmConfigSm80<kConvTile, TileN, kConvTileK, 4, 2, 2, Element, Major::kK, Major::kMN, Access>;
// wgrad  A dY^T (MN-major matrix: K runs), B activations (MN-major gather: C runs)
template <class Element, int Access, int TileM = kConvTile>
using WgradConfig =
    GemmConfigSm80<TileM, kConvTile, kConvTileK, 4, 2, 2, Element, Major::kMN, Major::kMN, Access>;

// The same tiles for the sm_90a wgmma kernel (config_sm90.hpp): 6 stages, as the ring refills
// the stage two tiles back (72 or 96 KiB: two blocks per SM).
inline constexpr int kConvTileKSm90 = 32, kConvStagesSm90 = 6;
template <class Element, int TileN = kConvTile>
using FpropConfigSm90 = GemmConfigSm90<kConvTile, TileN, kConvTileKSm90, kConvStagesSm90, Element, Major::kK, Major::kK>;
template <class Element, int TileN = kConvTile>
using DgradConfigSm90 = GemmConfigSm90<kConvTile, TileN, kConvTileKSm90, kConvStagesSm90, Element, Major::kK, Major::kMN>;
template <class Element, int TileM = kConvTile>
using WgradConfigSm90 =
    GemmConfigSm90<TileM, kConvTile, kConvTileKSm90, kConvStagesSm90, Element, Major::kMN, Major::kMN>;

// fprop on the TMA kernel (gemm/kernel_sm90_tma.hpp, conv/fprop_operand_sm90.hpp): K tiles of
// 64 channels of one tap, three stages of 128x128 (four of 128x64): 96 KiB, two blocks per SM;
// persistent (short reductions), one block per SM with four stages and the epilogue's own tile;
// deep (128x128, grids of at most one block per SM: ConvTile::deep), seven stages, 224 KiB.
inline constexpr int kConvTileKTma = 64;
inline constexpr int kConvDeepStages = 7;
template <int TileN, bool Persistent, bool Deep>
inline constexpr int kConvStagesTma = Deep ? kConvDeepStages : TileN == kConvTile && !Persistent ? 3 : 4;
// TileM = 256 (kConvWideTile, with TileN = 64, persistent): two warpgroups of 128 rows, four
// stages of 40 KiB and the epilogue's 256x64 fp32 tile (224 KiB).
inline constexpr int kConvWideTile = 256;
template <class Element, int TileN = kConvTile, bool Persistent = false, bool Deep = false, int TileM = kConvTile>
using FpropConfigTma = GemmConfigSm90<TileM, TileN, kConvTileKTma, kConvStagesTma<TileN, Persistent, Deep>,
                                      Element, Major::kK, Major::kK>;
// dgrad on the TMA kernel (conv/dgrad_operand_sm90.hpp): the same tiles, B MN-major as boxes.
template <class Element, int TileN = kConvTile, bool Persistent = false, bool Deep = false, int TileM = kConvTile>
using DgradConfigTma = GemmConfigSm90<TileM, TileN, kConvTileKTma, kConvStagesTma<TileN, Persistent, Deep>,
                                      Element, Major::kK, Major::kMN, 1, GmmaLayout::kRing, GmmaLayout::kMnBoxes>;
// wgrad on the TMA kernel (conv/wgrad_operand_sm90.hpp): both operands MN-major as boxes,
// 128 columns of dW a tile (two column blocks of 64), three stages of 128x128 (four of 64x128),
// two blocks per SM, split along K where tiles are few; persistent (128x128, four stages) only
// to run stream-K, where tiles leave SMs idle and the reduction is deep (conv2d_plan.cpp), in
// clusters of two blocks along M that share B's boxes (each block loads one of the two).
template <class Element, int TileM = kConvTile, bool Persistent = false, int ClusterM = 1>
using WgradConfigTma = GemmConfigSm90<TileM, kConvTile, kConvTileKTma, kConvStagesTma<TileM, Persistent, false>,
                                      Element, Major::kMN, Major::kMN, 1, GmmaLayout::kMnBoxes, GmmaLayout::kMnBoxes,
                                      MmaSchedule::kCooperative, ClusterM>;
// The persistent kernel serves reductions of at most this many K tiles (1x1 layers up to 256
// channels), where a block's life is mostly load latency and epilogue. Measured on the H100
// (docs/PERFORMANCE.md): faster on the 1x1 layers of 64 to 256 channels, slower from 512
// channels (8 K tiles) and on every 3x3 layer.
inline constexpr int kConvPersistentMaxKTiles = 4;

// The tile a GEMM runs with: the small one for few output channels on the 16-byte path with
// the optimized iterator (the narrow and analytic kernels come in the large tile only); and
// whether the sm_90a wgmma kernel runs it (the 16-byte path with the optimized iterator, on a
// device that has it: DeviceInfo::wgmma(), src/runtime/device_info.hpp).
struct ConvTile {
  int m, n;
  bool wgmma = false;
  int k = kConvTileK;  // the kernel's K tile: the operand iterators' step, split-K's unit
  bool tma = false;    // on the TMA kernel (then k = kConvTileKTma)
  bool persistent = false;  // ... in its persistent form (kConvPersistentMaxKTiles)
  bool deep = false;        // ... not persistent, 128x128, one block per SM: kConvDeepStages
  int cluster = 1;          // wgrad, persistent: 2, a cluster of two tile rows sharing B
  bool small() const { return m < kConvTile || n < kConvTile; }
};
// fprop and dgrad: n output channels (GEMM N).
inline ConvTile conv_tile_n(int n, bool narrow, bool optimized, bool wgmma) {
  const bool fast = !narrow && optimized;
  return {kConvTile, fast && n <= kConvSmallTile ? kConvSmallTile : kConvTile, fast && wgmma,
          fast && wgmma ? kConvTileKSm90 : kConvTileK};
}
// wgrad: m output filters (GEMM M).
inline ConvTile conv_tile_m(int m, bool narrow, bool wgmma) {
  return {!narrow && m <= kConvSmallTile ? kConvSmallTile : kConvTile, kConvTile, !narrow && wgmma,
          !narrow && wgmma ? kConvTileKSm90 : kConvTileK};
}

}  // namespace tessel::sm80
