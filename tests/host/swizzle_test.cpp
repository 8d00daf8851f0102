// Swizzle<B,M,S> and swizzled (composed) layouts, on seed 004's examples.
#include "test_util.hpp"

#include <algorithm>
#include <set>

namespace tessel {
namespace {

using _8 = Int<8>;

TEST(Swizzle, XorsTheRowBitsIntoTheColumnBits) {
  Swizzle<3, 3, 3> sw;
  EXPECT_EQ(sw(0), 0);
  EXPECT_EQ(sw(7), 7);      // bits below M are never touched
  EXPECT_EQ(sw(64), 72);    // row 1 of 64 halves: unit 0 -> unit 1
  EXPECT_EQ(sw(72), 64);
  EXPECT_EQ(sw(64 * 7 + 8 * 7), 64 * 7);
  static_assert(decltype(sw(Int<64>{}))::value == 72);  // static in, static out
  Swizzle<2, 0, -2> neg;  // reads bits 0..1, writes bits 2..3
  EXPECT_EQ(neg(0b0011), 0b1111);
}

TEST(Swizzle, IsABijectionOnItsPeriod) {
  auto check = [](auto sw) {
    using Sw = decltype(sw);
    std::set<long long> seen;
    for (long long x = 0; x < Sw::period; ++x) {
      long long y = sw(x);
      ASSERT_GE(y, 0);
      ASSERT_LT(y, Sw::period);
      seen.insert(y);
    }
    EXPECT_EQ(static_cast<long long>(seen.size()), Sw::period);
  };
  check(Swizzle<3, 3, 3>{});
  check(Swizzle<2, 3, 3>{});
  check(Swizzle<3, 4, 3>{});
  check(Swizzle<1, 2, 4>{});
  check(Swizzle<2, 1, -3>{});
  check(Swizzle<0, 4, 3>{});
}

// Seed 004: composition(Swizzle<3,3,3>, (8,32):(32,1)) on fp16: offsets 0..255, 8-element
// (16-byte) units, the row bits 6..8 XORed into the unit bits 3..5.
TEST(SwizzledLayout, SeedExample8x32) {
  auto sl = composition(Swizzle<3, 3, 3>{}, make_layout(make_shape(_8{}, Int<32>{}), LayoutRight{}));
  EXPECT_EQ(to_string(sl), "Sw<3,3,3> o 0 o (8,32):(32,1)");
  EXPECT_EQ(sl(0, 0), 0);
  EXPECT_EQ(sl(1, 0), 32);   // offset 32: bit 6 clear, unchanged
  EXPECT_EQ(sl(2, 0), 72);   // offset 64 -> 64 ^ 8
  EXPECT_EQ(sl(3, 8), 96);   // offset 104 -> 104 ^ 8
  std::vector<long long> v = test::values(sl);
  std::sort(v.begin(), v.end());
  for (int i = 0; i < 256; ++i) EXPECT_EQ(v[i], i);  // a permutation of 0..255
}

// The (8,64) fp16 tile: each row is 128 bytes, so the 16-byte unit u of row r lands in unit
// u ^ r: the eight rows of any column unit fall into eight different 16-byte bank groups.
TEST(SwizzledLayout, SeedExample8x64SpreadsEachColumnUnitOverAllBankGroups) {
  auto sl = composition(Swizzle<3, 3, 3>{}, make_layout(make_shape(_8{}, Int<64>{}), LayoutRight{}));
  for (int unit = 0; unit < 8; ++unit) {
    std::set<long long> groups;
    for (int r = 0; r < 8; ++r) groups.insert((sl(r, unit * 8) % 64) / 8);
    EXPECT_EQ(groups.size(), 8u) << "column unit " << unit;
  }
  EXPECT_EQ(cosize(sl), 512);
}

TEST(SwizzledLayout, SlicingKeepsTheSwizzle) {
  auto sl = composition(Swizzle<3, 3, 3>{}, make_layout(make_shape(_8{}, Int<64>{}), LayoutRight{}));
  auto row3 = sl(3, _);
  EXPECT_EQ(to_string(row3), "Sw<3,3,3> o 192 o 64:1");
  for (int c = 0; c < 64; ++c) EXPECT_EQ(row3(c), sl(3, c));
}

TEST(SwizzledLayout, TileToShapeAndCompositionKeepTheSwizzle) {
  auto atom = composition(Swizzle<3, 3, 3>{}, make_layout(make_shape(_8{}, Int<64>{}), LayoutRight{}));
  auto smem = tile_to_shape(atom, make_shape(Int<128>{}, Int<64>{}, Int<3>{}));
  EXPECT_EQ(to_string(smem), "Sw<3,3,3> o 0 o (128,64,3):(64,1,8192)");
  EXPECT_EQ(size(smem), 128 * 64 * 3);
  auto sub = composition(atom, make_tuple(Int<4>{}, Int<16>{}));
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 16; ++c) EXPECT_EQ(sub(r, c), atom(r, c));
}

}  // namespace
}  // namespace tessel
