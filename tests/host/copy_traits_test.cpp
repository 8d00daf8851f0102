// CopyTraits for sm80: cp.async moves one thread's bits unchanged; ldmatrix's layouts put
// every bit where the PTX ISA ("Warp-level matrix load instruction: ldmatrix") says.
//
// Bit coordinates: num 8x8 matrices of 16-bit elements, row after row; bit
// 1024*j + 128*r + 16*c + b is bit b of element (r, c) of matrix j.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <type_traits>

#include "tessel/atom/copy_traits_sm80.hpp"
#include "tessel/layout.hpp"

namespace tessel {
namespace {

// ---- cp.async ----------------------------------------------------------------------------

template <class OpT, int BytesV>
struct CpCase {
  using Op = OpT;
  static constexpr int kBytes = BytesV;
};
using CpCases =
    ::testing::Types<CpCase<SM80_CP_ASYNC_CA<4>, 4>, CpCase<SM80_CP_ASYNC_CA<8>, 8>,
                     CpCase<SM80_CP_ASYNC_CA<16>, 16>, CpCase<SM80_CP_ASYNC_CG<16>, 16>,
                     CpCase<SM80_CP_ASYNC_CA_ZFILL<4>, 4>, CpCase<SM80_CP_ASYNC_CA_ZFILL<8>, 8>,
                     CpCase<SM80_CP_ASYNC_CA_ZFILL<16>, 16>,
                     CpCase<SM80_CP_ASYNC_CG_ZFILL<16>, 16>>;
template <class C>
class CpAsyncTraits : public ::testing::Test {};
TYPED_TEST_SUITE(CpAsyncTraits, CpCases);

TYPED_TEST(CpAsyncTraits, OneThreadMovesItsBytes) {
  using T = CopyTraits<typename TypeParam::Op>;
  constexpr int kBits = 8 * TypeParam::kBytes;
  EXPECT_EQ(to_string(typename T::ThrID{}), "1:0");
  EXPECT_EQ(to_string(typename T::SrcLayout{}), "(1," + std::to_string(kBits) + "):(0,1)");
  EXPECT_EQ(int(size(typename T::SrcLayout{})), kBits);
  EXPECT_EQ(int(size(typename T::DstLayout{})), kBits);
}

TYPED_TEST(CpAsyncTraits, SourceAndDestinationAreTheSameBits) {
  using T = CopyTraits<typename TypeParam::Op>;
  EXPECT_TRUE(typename T::SrcLayout{} == typename T::DstLayout{});
  EXPECT_TRUE(typename T::RefLayout{} == typename T::SrcLayout{});
  for (int b = 0; b < 8 * TypeParam::kBytes; ++b) EXPECT_EQ(typename T::SrcLayout{}(0, b), b);
}

TYPED_TEST(CpAsyncTraits, RegistersAreTheAccessSize) {
  using Op = typename TypeParam::Op;
  EXPECT_EQ(int(sizeof(typename Op::SRegisters)), TypeParam::kBytes);
  EXPECT_EQ(int(sizeof(typename Op::DRegisters)), TypeParam::kBytes);
  EXPECT_EQ(int(alignof(UintBytes<TypeParam::kBytes>)), TypeParam::kBytes);
}

// ---- ldmatrix ----------------------------------------------------------------------------

template <class OpT, int NumV, bool TransV>
struct LdsmCase {
  using Op = OpT;
  static constexpr int kNum = NumV;  // matrices: .x1, .x2, .x4
  static constexpr bool kTrans = TransV;
};
using LdsmCases = ::testing::Types<
    LdsmCase<SM80_LDMATRIX_X1, 1, false>, LdsmCase<SM80_LDMATRIX_X2, 2, false>,
    LdsmCase<SM80_LDMATRIX_X4, 4, false>, LdsmCase<SM80_LDMATRIX_X1_TRANS, 1, true>,
    LdsmCase<SM80_LDMATRIX_X2_TRANS, 2, true>, LdsmCase<SM80_LDMATRIX_X4_TRANS, 4, true>>;
template <class C>
class LdmatrixTraits : public ::testing::Test {};
TYPED_TEST_SUITE(LdmatrixTraits, LdsmCases);

// The ISA's sentence: lane l holds, in register j, elements (l/4, 2*(l%4)) and
// (l/4, 2*(l%4)+1) of matrix j, low half first; with .trans, elements (2*(l%4), l/4) and
// (2*(l%4)+1, l/4).
int isa_destination_bit(int lane, int reg, int half, int bit, bool trans) {
  int row = trans ? 2 * (lane % 4) + half : lane / 4;
  int col = trans ? lane / 4 : 2 * (lane % 4) + half;
  return 1024 * reg + 128 * row + 16 * col + bit;
}

TYPED_TEST(LdmatrixTraits, ThreadIdIsOneWarp) {
  using T = CopyTraits<typename TypeParam::Op>;
  EXPECT_EQ(to_string(typename T::ThrID{}), "32:1");
}

TYPED_TEST(LdmatrixTraits, DestinationPlacesEveryBitWhereTheIsaSays) {
  using T = CopyTraits<typename TypeParam::Op>;
  typename T::DstLayout dst{};
  ASSERT_EQ(int(size(get<0>(dst))), 32) << to_string(dst);
  ASSERT_EQ(int(size(get<1>(dst))), 32 * TypeParam::kNum) << to_string(dst);
  for (int lane = 0; lane < 32; ++lane) {
    for (int reg = 0; reg < TypeParam::kNum; ++reg) {
      for (int half = 0; half < 2; ++half) {
        for (int bit = 0; bit < 16; ++bit) {
          int v = 32 * reg + 16 * half + bit;  // value = bit of the lane's registers
          int want = isa_destination_bit(lane, reg, half, bit, TypeParam::kTrans);
          int got = static_cast<int>(dst(lane, v));
          ASSERT_EQ(got, want) << to_string(dst) << ": lane " << lane << " register " << reg
                               << (half ? " high" : " low") << " half bit " << bit
                               << " gets matrix " << got / 1024 << " element (" << got % 1024 / 128
                               << "," << got % 128 / 16 << ") but the PTX ISA says matrix "
                               << want / 1024 << " element (" << want % 1024 / 128 << ","
                               << want % 128 / 16 << ")";
        }
      }
    }
  }
}

TYPED_TEST(LdmatrixTraits, DestinationIsABijectionOntoTheMatrices) {
  using T = CopyTraits<typename TypeParam::Op>;
  typename T::DstLayout dst{};
  int bits = 1024 * TypeParam::kNum;
  ASSERT_EQ(int(size(dst)), bits);
  std::set<int> seen;
  for (int i = 0; i < bits; ++i) {
    int x = static_cast<int>(dst(i));
    EXPECT_TRUE(0 <= x && x < bits) << i << " -> " << x;
    EXPECT_TRUE(seen.insert(x).second) << "bit " << x << " loaded twice";
  }
}

TYPED_TEST(LdmatrixTraits, SourceLaneAddressesItsRow) {
  using T = CopyTraits<typename TypeParam::Op>;
  typename T::SrcLayout src{};
  int rows = 8 * TypeParam::kNum;  // lanes past this are ignored; they repeat rows 0..rows-1
  ASSERT_EQ(int(size(src)), 32 * 128) << to_string(src);
  for (int lane = 0; lane < 32; ++lane) {
    for (int b = 0; b < 128; ++b) {
      ASSERT_EQ(src(lane, b), 128 * (lane % rows) + b)
          << to_string(src) << ": lane " << lane << " bit " << b;
    }
  }
}

TYPED_TEST(LdmatrixTraits, ReferenceIsTheDestinationAndRegistersMatch) {
  using T = CopyTraits<typename TypeParam::Op>;
  using Op = typename TypeParam::Op;
  EXPECT_TRUE(typename T::RefLayout{} == typename T::DstLayout{});
  EXPECT_EQ(int(sizeof(typename Op::DRegisters)), 4 * TypeParam::kNum);
  EXPECT_EQ(int(sizeof(typename Op::SRegisters)), 16);  // one 128-bit row address per lane
}

// The text forms, as the header documents them (CuTe's values).
TEST(LdmatrixTraitsText, Layouts) {
  EXPECT_EQ(to_string(CopyTraits<SM80_LDMATRIX_X1>::SrcLayout{}), "((8,4),128):((128,0),1)");
  EXPECT_EQ(to_string(CopyTraits<SM80_LDMATRIX_X2>::SrcLayout{}), "((16,2),128):((128,0),1)");
  EXPECT_EQ(to_string(CopyTraits<SM80_LDMATRIX_X4>::SrcLayout{}), "(32,128):(128,1)");
  EXPECT_EQ(to_string(CopyTraits<SM80_LDMATRIX_X1>::DstLayout{}), "(32,32):(32,1)");
  EXPECT_EQ(to_string(CopyTraits<SM80_LDMATRIX_X2>::DstLayout{}), "(32,(32,2)):(32,(1,1024))");
  EXPECT_EQ(to_string(CopyTraits<SM80_LDMATRIX_X4>::DstLayout{}), "(32,(32,4)):(32,(1,1024))");
  EXPECT_EQ(to_string(CopyTraits<SM80_LDMATRIX_X1_TRANS>::DstLayout{}),
            "((4,8),(16,2)):((256,16),(1,128))");
  EXPECT_EQ(to_string(CopyTraits<SM80_LDMATRIX_X2_TRANS>::DstLayout{}),
            "((4,8),(16,2,2)):((256,16),(1,128,1024))");
  EXPECT_EQ(to_string(CopyTraits<SM80_LDMATRIX_X4_TRANS>::DstLayout{}),
            "((4,8),(16,2,4)):((256,16),(1,128,1024))");
}

// The worked examples in the header.
TEST(LdmatrixTraitsText, HeaderExamples) {
  EXPECT_EQ(CopyTraits<SM80_LDMATRIX_X1>::DstLayout{}(5, 0), 160);
  EXPECT_EQ(CopyTraits<SM80_LDMATRIX_X2>::DstLayout{}(5, 32), 1184);
  EXPECT_EQ(CopyTraits<SM80_LDMATRIX_X4>::SrcLayout{}(9, 0), 1152);
  EXPECT_EQ(CopyTraits<SM80_LDMATRIX_X1_TRANS>::DstLayout{}(5, 16), 400);
  EXPECT_EQ(CopyTraits<SM80_LDMATRIX_X4_TRANS>::DstLayout{}(0, 96), 3072);
}

}  // namespace
}  // namespace tessel
