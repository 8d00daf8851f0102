// The layouts docs/guide quotes for the sm80 kernel (03-registers.md), written there as text
// for `tessel-layout show --tv`, are the ones the library computes for the shipped
// configuration GemmConfigSm80<128, 128, 32, 4> (2x2 warps, f16). If a test here fails, the
// kernel's layouts changed: update the page's commands (and rerun check_guide.py --update).
#include <gtest/gtest.h>

#include <string>

#include "tessel/atom/copy_atom.hpp"
#include "tessel/atom/copy_traits_sm80.hpp"
#include "tessel/gemm/config_sm80.hpp"
#include "tessel/gemm/config_sm90.hpp"

namespace tessel {
namespace {

using Config = GemmConfigSm80<128, 128, 32, 4>;
using Unpermuted = TiledMMA<Config::MmaOp, Layout<Shape<Int<2>, Int<2>, Int<1>>>>;

TEST(GuideLayouts, TiledMmaTileIs32x32x16WithThePermutation) {
  EXPECT_EQ(to_string(Config::Mma::tile_size<0>()), "32");
  EXPECT_EQ(to_string(Config::Mma::tile_size<1>()), "32");
  EXPECT_EQ(to_string(Config::Mma::tile_size<2>()), "16");
  EXPECT_EQ(to_string(Unpermuted::tile_size<1>()), "16");
}

TEST(GuideLayouts, BOperandTVLayoutsWithAndWithoutThePermutation) {
  EXPECT_EQ(to_string(Unpermuted::layout_B_TV()), "(((4,8),2,2),((2,2),(1,1))):(((32,1),0,8),((16,128),(0,0)))");
  EXPECT_EQ(to_string(Config::Mma::layout_B_TV()), "(((4,8),2,2),((2,2),(2,1))):(((64,1),0,8),((32,256),(16,0)))");
}

TEST(GuideLayouts, CopiesOfTheKernel) {
  // global -> shared, A: 128 threads x 8 halves over a (32,32) block of the (128,32) stage
  EXPECT_EQ(to_string(Config::G2SA::layout_tv()), "((4,32),8):((256,1),32)");
  EXPECT_EQ(to_string(Config::G2SA::tiler()), "(32,32)");
  // shared -> registers, B: the TiledMMA's own B layout (make_tiled_copy_B)
  EXPECT_EQ(to_string(Config::S2RB::layout_tv()), to_string(Config::Mma::layout_B_TV()));
}

TEST(GuideLayouts, FragmentsAndTheirRetiledViews) {
  auto sA = make_tensor(make_smem_ptr(static_cast<Half*>(nullptr)), Config::OperandA::SmemStageLayout{});
  auto sB = make_tensor(make_smem_ptr(static_cast<Half*>(nullptr)), Config::OperandB::SmemStageLayout{});
  Config::Mma mma;
  auto thr = mma.get_slice(0);
  auto tCrA = thr.partition_fragment_A(sA);  // (MMA,MMA_M,MMA_K)
  auto tCrB = thr.partition_fragment_B(sB);  // (MMA,MMA_N,MMA_K)
  EXPECT_EQ(to_string(tCrA.layout()), "((2,2,2),4,2):((1,2,4),8,32)");
  EXPECT_EQ(to_string(tCrB.layout()), "((2,2),8,2):((1,2),4,32)");
  Config::S2RB s2r_b;
  EXPECT_EQ(to_string(s2r_b.get_slice(0).retile_D(tCrB).layout()), "((8,1),4,2):((1,0),8,32)");
}

// 03-registers.md: ldmatrix.x4 whose matrix j is quadrant (j % 2, j / 2) of the 16x16 A tile
// delivers to lane l, value v exactly element A_TV(l, v) of the m16n8k16 atom.
TEST(GuideLayouts, LdmatrixX4DeliversTheMmaAFragment) {
  using Dst = CopyAtom<SM80_LDMATRIX_X4, Half>::ValLayoutDst;  // (lane, value) -> 64 j + 8 r + c
  using A = MmaTraits<Config::MmaOp>::ALayout;                 // (lane, value) -> m + 16 k
  for (int lane = 0; lane < 32; ++lane) {
    for (int v = 0; v < 8; ++v) {
      const int e = int(Dst{}(lane, v));
      const int j = e / 64, r = e / 8 % 8, c = e % 8;
      const int m = r + 8 * (j % 2), k = c + 8 * (j / 2);
      EXPECT_EQ(m + 16 * k, int(A{}(lane, v))) << "lane " << lane << " value " << v;
    }
  }
}

// 06-hopper.md: the TMA's 128-byte swizzle (the tensor map's CU_TENSOR_MAP_SWIZZLE_128B,
// wgmma's GmmaSwizzle::k128B: Swizzle<3,4,3> on byte addresses) is the ring's Sw<3,3,3> on
// 16-bit elements: the byte address of every element of an (8,64) atom is twice its element
// offset in the ring's atom, which is the one the sm90 TMA kernel's TileK 64 stages use.
TEST(GuideLayouts, Tma128ByteSwizzleIsTheRingSwizzle) {
  using Sm90 = GemmConfigSm90<128, 128, 64, 4>;
  using RingAtom = Sm90::OperandA::SmemAtom;  // (8,64) halves
  EXPECT_EQ(to_string(RingAtom{}), "Sw<3,3,3> o 0 o (8,64):(64,1)");
  for (int row = 0; row < 8; ++row) {
    for (int col = 0; col < 64; ++col) {
      const int bytes = Swizzle<3, 4, 3>{}(2 * (64 * row + col));
      EXPECT_EQ(bytes, 2 * int(RingAtom{}(row, col))) << "element (" << row << "," << col << ")";
    }
  }
  EXPECT_EQ(Sm90::GmmaA::kSwizzle, GmmaSwizzle::k128B);
  EXPECT_EQ(Sm90::GmmaA::kSbo, 1024);  // 8 rows of 128 bytes
}

}  // namespace
}  // namespace tessel
