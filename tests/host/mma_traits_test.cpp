// MmaTraits for sm80: every TV layout equals the PTX ISA fragment table of its instruction.
//
// The expected positions below are an independent re-statement of the ISA's formulas
// ("Matrix Fragments for mma.m16n8k16 / mma.m16n8k8 with floating point type"), written with
// groupID and threadID_in_group exactly as the ISA does; the layouts are evaluated through
// the algebra. A mismatch names the lane, the value, and both positions.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <type_traits>

#include "tessel/atom/mma_traits_sm80.hpp"
#include "tessel/layout.hpp"

namespace tessel {
namespace {

struct RowCol {
  int row;
  int col;
};

int group_id(int lane) { return lane >> 2; }
int thread_in_group(int lane) { return lane % 4; }

// PTX ISA, mma.m16n8k16, .f16/.bf16 A (16x16, a0..a7), B (16x8, b0..b3), C/D (16x8, c0..c3).
struct IsaM16N8K16 {
  static constexpr int kM = 16, kN = 8, kK = 16;
  static constexpr int kAValues = 8, kBValues = 4, kCValues = 4;
  static RowCol a(int lane, int i) {
    int row = (i < 2 || (4 <= i && i < 6)) ? group_id(lane) : group_id(lane) + 8;
    int col = thread_in_group(lane) * 2 + (i & 0x1) + (i >= 4 ? 8 : 0);
    return {row, col};
  }
  static RowCol b(int lane, int i) {  // row is k, col is n
    int row = thread_in_group(lane) * 2 + (i & 0x1) + (i >= 2 ? 8 : 0);
    return {row, group_id(lane)};
  }
  static RowCol c(int lane, int i) {
    int row = i < 2 ? group_id(lane) : group_id(lane) + 8;
    return {row, thread_in_group(lane) * 2 + (i & 0x1)};
  }
};

// PTX ISA, mma.m16n8k8, .f16/.bf16 A (16x8, a0..a3), B (8x8, b0..b1), C/D (16x8, c0..c3).
struct IsaM16N8K8 {
  static constexpr int kM = 16, kN = 8, kK = 8;
  static constexpr int kAValues = 4, kBValues = 2, kCValues = 4;
  static RowCol a(int lane, int i) {
    int row = i < 2 ? group_id(lane) : group_id(lane) + 8;
    return {row, thread_in_group(lane) * 2 + (i & 0x1)};
  }
  static RowCol b(int lane, int i) { return {thread_in_group(lane) * 2 + i, group_id(lane)}; }
  static RowCol c(int lane, int i) { return IsaM16N8K16::c(lane, i); }
};

// Each op with its ISA table and the text forms of its layouts.
template <class OpT, class IsaT>
struct Case {
  using Op = OpT;
  using Isa = IsaT;
  using Traits = MmaTraits<Op>;
};
using Cases = ::testing::Types<Case<SM80_16x8x16_F32F16F16F32_TN, IsaM16N8K16>,
                               Case<SM80_16x8x16_F32BF16BF16F32_TN, IsaM16N8K16>,
                               Case<SM80_16x8x16_F16F16F16F16_TN, IsaM16N8K16>,
                               Case<SM80_16x8x8_F32F16F16F32_TN, IsaM16N8K8>,
                               Case<SM80_16x8x8_F32BF16BF16F32_TN, IsaM16N8K8>>;

struct CaseNames {
  template <class T>
  static std::string GetName(int) {
    using Op = typename T::Op;
    if (std::is_same_v<Op, SM80_16x8x16_F32F16F16F32_TN>) return "SM80_16x8x16_F32F16F16F32_TN";
    if (std::is_same_v<Op, SM80_16x8x16_F32BF16BF16F32_TN>) return "SM80_16x8x16_F32BF16BF16F32_TN";
    if (std::is_same_v<Op, SM80_16x8x16_F16F16F16F16_TN>) return "SM80_16x8x16_F16F16F16F16_TN";
    if (std::is_same_v<Op, SM80_16x8x8_F32F16F16F32_TN>) return "SM80_16x8x8_F32F16F16F32_TN";
    return "SM80_16x8x8_F32BF16BF16F32_TN";
  }
};

template <class C>
class MmaTraitsSm80 : public ::testing::Test {};
TYPED_TEST_SUITE(MmaTraitsSm80, Cases, CaseNames);

// Compares layout(lane, v) with rows + rows_of_tile * cols from the ISA for every lane and
// value; `rows_of_tile` is the tile's first extent (M for A and C, N for B).
template <class TV, class IsaFn>
void expect_matches_isa(TV const& tv, IsaFn isa, int rows_of_tile, int values, const char* name) {
  ASSERT_EQ(int(size(get<0>(tv))), 32) << name << ": thread mode of " << to_string(tv);
  ASSERT_EQ(int(size(get<1>(tv))), values) << name << ": value mode of " << to_string(tv);
  for (int lane = 0; lane < 32; ++lane) {
    for (int v = 0; v < values; ++v) {
      RowCol want = isa(lane, v);
      int got = static_cast<int>(tv(lane, v));
      EXPECT_EQ(got, want.row + rows_of_tile * want.col)
          << name << " " << to_string(tv) << ": lane " << lane << " value " << v << " is at ("
          << got % rows_of_tile << "," << got / rows_of_tile << ") but the PTX ISA puts it at ("
          << want.row << "," << want.col << ")";
    }
  }
}

// Every coordinate of the rows x cols tile is held by exactly one (lane, value).
template <class TV>
void expect_bijection_onto_tile(TV const& tv, int tile_size, const char* name) {
  EXPECT_EQ(int(size(tv)), tile_size) << name << " " << to_string(tv);
  std::set<long long> seen;
  for (int i = 0; i < int(size(tv)); ++i) {
    long long x = tv(i);
    EXPECT_TRUE(0 <= x && x < tile_size) << name << ": index " << i << " maps outside: " << x;
    EXPECT_TRUE(seen.insert(x).second) << name << ": coordinate " << x << " held twice";
  }
  EXPECT_EQ(int(seen.size()), tile_size) << name;
}

TYPED_TEST(MmaTraitsSm80, ThreadIdIsOneWarp) {
  using T = typename TypeParam::Traits;
  EXPECT_EQ(to_string(typename T::ThrID{}), "32:1");
}

TYPED_TEST(MmaTraitsSm80, ShapeIsTheInstructionsMNK) {
  using T = typename TypeParam::Traits;
  using Isa = typename TypeParam::Isa;
  static_assert(is_static_v<typename T::ShapeMNK>, "ShapeMNK must be static");
  typename T::ShapeMNK mnk{};
  EXPECT_EQ(int(get<0>(mnk)), Isa::kM);
  EXPECT_EQ(int(get<1>(mnk)), Isa::kN);
  EXPECT_EQ(int(get<2>(mnk)), Isa::kK);
}

TYPED_TEST(MmaTraitsSm80, ALayoutMatchesIsaFragmentTable) {
  using T = typename TypeParam::Traits;
  using Isa = typename TypeParam::Isa;
  expect_matches_isa(typename T::ALayout{}, &Isa::a, Isa::kM, Isa::kAValues, "A");
}

TYPED_TEST(MmaTraitsSm80, BLayoutMatchesIsaFragmentTable) {
  using T = typename TypeParam::Traits;
  using Isa = typename TypeParam::Isa;
  // The ISA gives B as (row k, col n); the layout indexes the (N,K) tile: n + N * k.
  auto isa_nk = [](int lane, int i) {
    RowCol kn = Isa::b(lane, i);
    return RowCol{kn.col, kn.row};
  };
  expect_matches_isa(typename T::BLayout{}, isa_nk, Isa::kN, Isa::kBValues, "B");
}

TYPED_TEST(MmaTraitsSm80, CLayoutMatchesIsaFragmentTable) {
  using T = typename TypeParam::Traits;
  using Isa = typename TypeParam::Isa;
  expect_matches_isa(typename T::CLayout{}, &Isa::c, Isa::kM, Isa::kCValues, "C");
}

TYPED_TEST(MmaTraitsSm80, LayoutsAreBijectionsOntoTheirTiles) {
  using T = typename TypeParam::Traits;
  using Isa = typename TypeParam::Isa;
  expect_bijection_onto_tile(typename T::ALayout{}, Isa::kM * Isa::kK, "A over (M,K)");
  expect_bijection_onto_tile(typename T::BLayout{}, Isa::kN * Isa::kK, "B over (N,K)");
  expect_bijection_onto_tile(typename T::CLayout{}, Isa::kM * Isa::kN, "C over (M,N)");
}

// The values a lane holds fill the op's registers exactly (16-bit values two per register).
TYPED_TEST(MmaTraitsSm80, ValuesFillTheRegisters) {
  using T = typename TypeParam::Traits;
  using Op = typename TypeParam::Op;
  auto values = [](auto tv) { return int(size(get<1>(tv))); };
  EXPECT_EQ(values(typename T::ALayout{}) * bits_of<typename T::ValTypeA>,
            bits_of<typename Op::ARegisters>);
  EXPECT_EQ(values(typename T::BLayout{}) * bits_of<typename T::ValTypeB>,
            bits_of<typename Op::BRegisters>);
  EXPECT_EQ(values(typename T::CLayout{}) * bits_of<typename T::ValTypeC>,
            bits_of<typename Op::CRegisters>);
  EXPECT_EQ(values(typename T::CLayout{}) * bits_of<typename T::ValTypeD>,
            bits_of<typename Op::DRegisters>);
}

// The text forms, as the header documents them (CuTe's values).
TEST(MmaTraitsSm80Text, M16N8K16Layouts) {
  using T = MmaTraits<SM80_16x8x16_F32F16F16F32_TN>;
  EXPECT_EQ(to_string(T::ALayout{}), "((4,8),(2,2,2)):((32,1),(16,8,128))");
  EXPECT_EQ(to_string(T::BLayout{}), "((4,8),(2,2)):((16,1),(8,64))");
  EXPECT_EQ(to_string(T::CLayout{}), "((4,8),(2,2)):((32,1),(16,8))");
}

TEST(MmaTraitsSm80Text, M16N8K8Layouts) {
  using T = MmaTraits<SM80_16x8x8_F32F16F16F32_TN>;
  EXPECT_EQ(to_string(T::ALayout{}), "((4,8),(2,2)):((32,1),(16,8))");
  EXPECT_EQ(to_string(T::BLayout{}), "((4,8),2):((16,1),8)");
  EXPECT_EQ(to_string(T::CLayout{}), "((4,8),(2,2)):((32,1),(16,8))");
}

TEST(MmaTraitsSm80Text, ValueTypes) {
  EXPECT_TRUE((std::is_same_v<MmaTraits<SM80_16x8x16_F32F16F16F32_TN>::ValTypeA, Half>));
  EXPECT_TRUE((std::is_same_v<MmaTraits<SM80_16x8x16_F32BF16BF16F32_TN>::ValTypeB, BFloat16>));
  EXPECT_TRUE((std::is_same_v<MmaTraits<SM80_16x8x16_F16F16F16F16_TN>::ValTypeD, Half>));
  EXPECT_TRUE((std::is_same_v<MmaTraits<SM80_16x8x8_F32BF16BF16F32_TN>::ValTypeC, float>));
}

// The worked example in the header: lane 5 (groupID 1, threadID_in_group 1) value 4 is
// A(1, 10) of m16n8k16.
TEST(MmaTraitsSm80Text, HeaderExampleLane5) {
  using T = MmaTraits<SM80_16x8x16_F32F16F16F32_TN>;
  EXPECT_EQ(T::ALayout{}(5, 4), 1 + 16 * 10);
  EXPECT_EQ(MmaTraits<SM80_16x8x8_F32F16F16F32_TN>::ALayout{}(5, 2), 9 + 16 * 2);
}

// Built without CUDA, the wrappers compile to a message and an abort, never to a wrong answer.
TEST(MmaOpsOnHostDeathTest, CallingAnMmaOnTheHostAbortsWithTheInstructionsName) {
  float d[4] = {}, c[4] = {};
  std::uint32_t a[4] = {}, b[2] = {};
  EXPECT_DEATH(SM80_16x8x16_F32F16F16F32_TN::fma(d, a, b, c), "m16n8k16.*needs sm_80");
}

}  // namespace
}  // namespace tessel
