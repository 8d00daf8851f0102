// The algebra on hand-worked examples (CuTe's documentation, seed 002/004, and derivations
// done on paper; the derivation is in the comment where it is not obvious).
#include "test_util.hpp"

namespace tessel {
namespace {

using _1 = Int<1>;
using _2 = Int<2>;
using _3 = Int<3>;
using _4 = Int<4>;
using _5 = Int<5>;
using _6 = Int<6>;
using _8 = Int<8>;

template <class... Ts>
constexpr auto S(Ts... ts) {
  return make_shape(ts...);
}

TEST(Coalesce, MergesContiguousModesAndDropsUnitModes) {
  EXPECT_EQ(to_string(coalesce(make_layout(S(_2{}, S(_1{}, _6{})), S(_1{}, S(Int<7>{}, _2{}))))),
            "12:1");
  EXPECT_EQ(to_string(coalesce(make_layout(S(4, 3), S(1, 5)))), "(4,3):(1,5)");
  EXPECT_EQ(to_string(coalesce(make_layout(S(_2{}, _4{}), S(Int<0>{}, Int<0>{})))), "8:0");
  EXPECT_EQ(to_string(coalesce(make_layout(S(_1{}, _1{}), S(_2{}, _3{})))), "1:0");
}

TEST(Coalesce, ByModeWithAProfile) {
  auto l = make_layout(S(S(_2{}, _2{}), S(_3{}, _4{})), S(S(_1{}, _2{}), S(_8{}, Int<24>{})));
  EXPECT_EQ(to_string(coalesce(l, S(_1{}, _1{}))), "(4,12):(1,8)");
  EXPECT_EQ(to_string(coalesce(l, S(_1{}))), "(4,(3,4)):(1,(8,24))");
}

TEST(Filter, DropsBroadcastModes) {
  EXPECT_EQ(to_string(filter(make_layout(S(_4{}, _2{}, _3{}), S(_1{}, Int<0>{}, _5{})))),
            "(4,3):(1,5)");
}

TEST(Composition, CuteDocumentationExamples) {
  EXPECT_EQ(to_string(composition(make_layout(20, 2), make_layout(S(5, 4), S(4, 1)))),
            "(5,4):(8,2)");
  EXPECT_EQ(to_string(composition(make_layout(S(_6{}, _2{}), S(_8{}, _2{})),
                                  make_layout(S(_4{}, _3{}), S(_3{}, _1{})))),
            "((2,2),3):((24,2),8)");
  EXPECT_EQ(to_string(composition(make_layout(S(Int<10>{}, _2{}), S(Int<16>{}, _4{})),
                                  make_layout(S(_5{}, _4{}), S(_1{}, _5{})))),
            "(5,(2,2)):(16,(80,4))");
}

TEST(Composition, ByModeWithATiler) {
  auto a = make_layout(S(Int<12>{}, S(_4{}, _8{})), S(Int<59>{}, S(Int<13>{}, _1{})));
  auto r = composition(a, make_tuple(make_layout(_3{}, _4{}), make_layout(_8{}, _2{})));
  EXPECT_EQ(to_string(r), "(3,(2,4)):(236,(26,1))");
  // `_` keeps a mode; an integer N means N:1.
  auto k = composition(make_layout(S(8, 6), S(6, 1)), make_tuple(_, 3));
  EXPECT_EQ(to_string(k), "(8,3):(6,1)");
}

TEST(Composition, StrideZeroAndUnitCases) {
  EXPECT_EQ(to_string(composition(make_layout(S(_4{}, _3{}), S(_1{}, Int<10>{})), make_layout(_5{}, Int<0>{}))),
            "5:0");
  // B runs past A: A's last mode continues. (4,3):(1,10) ∘ 5:4 -> 4 divides away mode 0,
  // then 5 steps of mode 1.
  EXPECT_EQ(to_string(composition(make_layout(S(_4{}, _3{}), S(_1{}, Int<10>{})), make_layout(_5{}, _4{}))),
            "5:10");
}

TEST(Composition, DynamicViolationsNameTheRule) {
  auto a = make_layout(S(4, 3), S(1, 10));
  try {
    composition(a, make_layout(3, 3));
    FAIL() << "expected a LayoutError";
  } catch (LayoutError const& e) {
    EXPECT_NE(std::string(e.what()).find("stride divisibility"), std::string::npos) << e.what();
  }
  try {
    composition(a, make_layout(6, 1));
    FAIL() << "expected a LayoutError";
  } catch (LayoutError const& e) {
    EXPECT_NE(std::string(e.what()).find("shape divisibility"), std::string::npos) << e.what();
  }
}

TEST(Complement, Examples) {
  EXPECT_EQ(to_string(complement(make_layout(_4{}, _2{}), Int<24>{})), "(2,3):(1,8)");
  EXPECT_EQ(to_string(complement(make_layout(S(_2{}, _2{}), S(_4{}, _1{})), Int<24>{})),
            "(2,3):(2,8)");
  EXPECT_EQ(to_string(complement(make_layout(_4{}, _1{}), Int<24>{})), "6:4");
  // cosize((2,4):(1,6)) = 19: holes 2..5 (stride 2, 3 of them); nothing needed past 24.
  EXPECT_EQ(to_string(complement(make_layout(S(_2{}, _4{}), S(_1{}, _6{})))), "3:2");
  EXPECT_EQ(to_string(complement(make_layout(_4{}, Int<0>{}), _8{})), "8:1");
  EXPECT_EQ(to_string(complement(make_layout(_4{}, _2{}), S(_3{}, _8{}))), "(2,3):(1,8)");
}

TEST(Complement, OverlapIsAnError) {
  try {
    complement(make_layout(S(2, 2), S(1, 1)), 8);
    FAIL() << "expected a LayoutError";
  } catch (LayoutError const& e) {
    EXPECT_NE(std::string(e.what()).find("complement"), std::string::npos);
  }
}

TEST(Inverse, RightAndLeft) {
  EXPECT_EQ(to_string(right_inverse(make_layout(S(_4{}, _2{}), S(_2{}, _1{})))), "(2,4):(4,1)");
  // Only the chain 1 -> 2 exists: (2,4):(1,4) is not surjective past 2.
  EXPECT_EQ(to_string(right_inverse(make_layout(S(_2{}, _4{}), S(_1{}, _4{})))), "2:1");
  // A stride-0 mode is skipped: (2,3,4):(0,1,3) coalesces to (2,12):(0,1).
  EXPECT_EQ(to_string(right_inverse(make_layout(S(_2{}, _3{}, _4{}), S(Int<0>{}, _1{}, _3{})))),
            "12:2");
  auto a = make_layout(S(_4{}, _2{}), S(_2{}, _8{}));
  auto l = left_inverse(a);
  EXPECT_EQ(to_string(l), "(2,8):(8,1)");
  for (int i = 0; i < 8; ++i) EXPECT_EQ(l(a(i)), i);
  EXPECT_THROW(left_inverse(make_layout(S(4, 2), S(1, 0))), LayoutError);
}

TEST(Divide, LogicalDivide) {
  auto a = make_layout(S(_4{}, _2{}, _3{}), S(_2{}, _1{}, _8{}));
  EXPECT_EQ(to_string(logical_divide(a, make_layout(_4{}, _2{}))), "((2,2),(2,3)):((4,1),(2,8))");
}

TEST(Divide, ZippedTiledFlat) {
  auto m = make_layout(S(Int<12>{}, _8{}));
  auto tiler = make_tuple(_3{}, _4{});
  EXPECT_EQ(to_string(logical_divide(m, tiler)), "((3,4),(4,2)):((1,3),(12,48))");
  EXPECT_EQ(to_string(zipped_divide(m, tiler)), "((3,4),(4,2)):((1,12),(3,48))");
  EXPECT_EQ(to_string(tiled_divide(m, tiler)), "((3,4),4,2):((1,12),3,48)");
  EXPECT_EQ(to_string(flat_divide(m, tiler)), "(3,4,4,2):(1,12,3,48)");
}

// A nested tiler unzips recursively; `_` keeps a mode and splits it as it stands (CuTe's
// TiledMMA: ((ThrV,FrgV),(RestM,RestN)) / [_, [ThrM, ThrN]]).
TEST(Divide, ZippedWithANestedTiler) {
  auto tv = make_layout(S(S(_4{}, _2{}), S(_8{}, Int<6>{})), S(S(_1{}, _4{}), S(_8{}, Int<64>{})));
  auto z = zipped_divide(tv, make_tuple(_, make_tuple(_2{}, _3{})));
  EXPECT_EQ(to_string(z), "((4,(2,3)),(2,(4,2))):((1,(8,64)),(4,(16,192)))");
  for (int t = 0; t < 4; ++t)
    for (int m = 0; m < 2; ++m)
      for (int n = 0; n < 3; ++n)
        for (int v = 0; v < 2; ++v)
          for (int rm = 0; rm < 4; ++rm)
            for (int rn = 0; rn < 2; ++rn)
              EXPECT_EQ(z(make_coord(make_coord(t, make_coord(m, n)), make_coord(v, make_coord(rm, rn)))),
                        tv(make_coord(make_coord(t, v), make_coord(m + 2 * rm, n + 3 * rn))));
}

TEST(Product, LogicalBlockedRaked) {
  EXPECT_EQ(to_string(logical_product(make_layout(S(_2{}, _2{}), S(_4{}, _1{})), make_layout(_6{}, _1{}))),
            "((2,2),(2,3)):((4,1),(2,8))");
  auto block = make_layout(S(_2{}, _5{}), S(_5{}, _1{}));
  auto tiler = make_layout(S(_3{}, _4{}), S(_1{}, _3{}));
  EXPECT_EQ(to_string(blocked_product(block, tiler)), "(6,(5,4)):(5,(1,30))");
  EXPECT_EQ(to_string(raked_product(block, tiler)), "((3,2),(4,5)):((10,5),(30,1))");
}

TEST(Product, ZippedTiledFlat) {
  auto block = make_layout(S(_2{}, _2{}));
  auto tiler = make_tuple(make_layout(_3{}), make_layout(_4{}));
  // Mode 0: 2:1 x 3:1 -> (2,3):(1,2). Mode 1: complement(2:2, 2*4) = (2,2):(1,4) (the hole
  // at 1, then the copies at 4), composed with 4:1 -> (2,2):(1,4); so (2,(2,2)):(2,(1,4)).
  EXPECT_EQ(to_string(logical_product(block, tiler)), "((2,3),(2,(2,2))):((1,2),(2,(1,4)))");
  EXPECT_EQ(to_string(zipped_product(block, tiler)), "((2,2),(3,(2,2))):((1,2),(2,(1,4)))");
  EXPECT_EQ(to_string(tiled_product(block, tiler)), "((2,2),3,(2,2)):((1,2),2,(1,4))");
  EXPECT_EQ(to_string(flat_product(block, tiler)), "(2,2,3,(2,2)):(1,2,2,(1,4))");
}

TEST(Product, TileToShape) {
  EXPECT_EQ(to_string(tile_to_shape(make_layout(S(_2{}, _2{})), S(_4{}, _6{}))),
            "((2,2),(2,3)):((1,4),(2,8))");
  // The seeds' shared-memory tile: an (8,64) row-major atom repeated to (128,64,3 stages).
  auto smem = tile_to_shape(make_layout(S(_8{}, Int<64>{}), LayoutRight{}), S(Int<128>{}, Int<64>{}, _3{}));
  EXPECT_EQ(to_string(smem), "(128,64,3):(64,1,8192)");
  EXPECT_THROW(tile_to_shape(make_layout(S(2, 2)), S(4, 5)), LayoutError);
}

// Fully static inputs give fully static results: the whole algebra folds at compile time.
TEST(StaticFolding, EveryOperationOfStaticLayoutsIsStatic) {
  constexpr auto a = make_layout(S(_4{}, _8{}), LayoutRight{});
  constexpr auto b = make_layout(S(_2{}, _4{}), S(_8{}, _1{}));
  auto is_static_layout = [](auto const& l) {
    return is_static_v<decltype(l.shape())> && is_static_v<decltype(l.stride())>;
  };
  static_assert(is_static_layout(coalesce(a)));
  static_assert(is_static_layout(filter(a)));
  static_assert(is_static_layout(composition(a, b)));
  static_assert(is_static_layout(complement(b, Int<64>{})));
  static_assert(is_static_layout(right_inverse(a)));
  static_assert(is_static_layout(left_inverse(b)));
  static_assert(is_static_layout(logical_divide(a, make_tuple(_2{}, _4{}))));
  static_assert(is_static_layout(zipped_divide(a, b)));
  static_assert(is_static_layout(logical_product(a, b)));
  static_assert(is_static_layout(blocked_product(a, b)));
  static_assert(is_static_layout(raked_product(a, b)));
  static_assert(is_static_layout(tile_to_shape(a, S(Int<16>{}, Int<16>{}))));
  static_assert(is_static_layout(upcast<2>(a)));
  // ... and their values are constant expressions.
  static_assert(composition(a, b)(5) == a(b(5)));
  static_assert(decltype(size(logical_product(a, b)))::value == 32 * 8);
}

TEST(Recast, UpcastAndDowncast) {
  auto row = make_layout(S(_8{}, Int<64>{}), LayoutRight{});
  EXPECT_EQ(to_string(upcast<8>(row)), "(8,8):(8,1)");
  EXPECT_EQ(to_string(downcast<2>(row)), "(8,128):(128,1)");
  EXPECT_EQ(to_string(upcast<2>(make_layout(S(_8{}, _4{}), S(_1{}, _8{})))), "(4,4):(1,4)");
}

}  // namespace
}  // namespace tessel
