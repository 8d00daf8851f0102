// Integers and hierarchical int-tuples: rank, depth, size, prefix products, shape division,
// congruence, compatibility, crd2idx/idx2crd and slicing.
#include "test_util.hpp"

namespace tessel {
namespace {

using _1 = Int<1>;
using _2 = Int<2>;
using _3 = Int<3>;
using _4 = Int<4>;
using _8 = Int<8>;

TEST(Integer, StaticArithmeticStaysStatic) {
  constexpr auto x = _4{} * _2{} + _1{};
  static_assert(std::is_same_v<decltype(x), const C<9>>);
  static_assert(is_constant<decltype(min(_4{}, _2{}))>::value);
  auto y = _4{} * 3;  // dynamic
  static_assert(std::is_same_v<decltype(y), int>);
  EXPECT_EQ(y, 12);
  EXPECT_EQ(ceil_div(7, 2), 4);
  static_assert(decltype(ceil_div(_8{}, _3{}))::value == 3);
}

TEST(IntTuple, RankDepthSize) {
  constexpr auto t = make_shape(_2{}, make_shape(_3{}, _4{}));
  static_assert(decltype(rank(t))::value == 2);
  static_assert(decltype(depth(t))::value == 2);
  static_assert(decltype(depth(_2{}))::value == 0);
  static_assert(decltype(product(t))::value == 24);
  static_assert(is_static_v<decltype(t)>);
  auto d = make_shape(2, make_shape(3, _4{}));
  static_assert(!is_static_v<decltype(d)>);
  EXPECT_EQ(product(d), 24);
  EXPECT_EQ(to_string(product_each(d)), "(2,12)");
  EXPECT_EQ(to_string(flatten(make_shape(make_shape(2, 3), make_shape(4, make_shape(5, 6))))),
            "(2,3,4,5,6)");
}

TEST(IntTuple, PrefixProductsAndCompactStrides) {
  auto s = make_shape(2, make_shape(3, 4));
  EXPECT_EQ(to_string(prefix_product(s)), "(1,(2,6))");
  EXPECT_EQ(to_string(compact_col_major(s)), "(1,(2,6))");
  EXPECT_EQ(to_string(compact_row_major(s)), "(12,(4,1))");
  static_assert(is_static_v<decltype(compact_col_major(make_shape(_2{}, _4{})))>);
  EXPECT_EQ(to_string(compact_col_major(make_shape(_4{}, _1{}, _2{}))), "(1,0,4)");
  EXPECT_EQ(to_string(compact_row_major(make_shape(_4{}, _1{}, _2{}))), "(2,0,1)");
}

TEST(IntTuple, ShapeDiv) {
  EXPECT_EQ(to_string(shape_div(make_shape(4, 6), 8)), "(1,3)");
  EXPECT_EQ(to_string(shape_div(make_shape(4, 6), 2)), "(2,6)");
  EXPECT_EQ(shape_div(3, 6), 1);
  EXPECT_EQ(shape_div(12, 4), 3);
  EXPECT_THROW(shape_div(4, 6), LayoutError);
  static_assert(decltype(shape_div(_8{}, _2{}))::value == 4);
}

TEST(IntTuple, CongruenceAndCompatibility) {
  static_assert(is_congruent_v<decltype(make_shape(2, make_shape(3, 4))),
                               decltype(make_shape(1, make_shape(5, _2{})))>);
  static_assert(!is_congruent_v<decltype(make_shape(2, 12)), decltype(make_shape(2, make_shape(3, 4)))>);
  EXPECT_TRUE(compatible(24, make_shape(2, make_shape(3, 4))));
  EXPECT_TRUE(compatible(make_shape(6, 4), make_shape(make_shape(2, 3), 4)));
  EXPECT_FALSE(compatible(make_shape(6, 4), make_shape(make_shape(2, 2), 4)));
  EXPECT_FALSE(compatible(make_shape(make_shape(2, 3), 4), make_shape(6, 4)));
}

TEST(IntTuple, Crd2IdxAndIdx2CrdAreColexicographic) {
  auto shape = make_shape(4, 8);
  auto stride = make_stride(1, 4);
  EXPECT_EQ(crd2idx(make_coord(1, 2), shape, stride), 9);
  EXPECT_EQ(crd2idx(9, shape, stride), 9);
  EXPECT_EQ(to_string(idx2crd(9, shape)), "(1,2)");
  // Hierarchical: ((2,3),4) with row-major-ish strides.
  auto hs = make_shape(make_shape(2, 3), 4);
  auto hd = make_stride(make_stride(12, 4), 1);
  EXPECT_EQ(to_string(idx2crd(7, hs)), "((1,0),1)");
  EXPECT_EQ(crd2idx(7, hs, hd), 12 + 1);
  EXPECT_EQ(crd2idx(make_coord(make_coord(1, 2), 3), hs, hd), 12 + 8 + 3);
  // Past the size the last mode keeps going.
  EXPECT_EQ(crd2idx(40, shape, stride), 40);
  // Round trip over the whole domain.
  for (int i = 0; i < 24; ++i) {
    EXPECT_EQ(crd2idx(idx2crd(i, hs), hs, compact_col_major(hs)), i);
  }
}

TEST(IntTuple, SliceWithUnderscore) {
  auto t = make_shape(make_shape(2, 3), 8);
  EXPECT_EQ(to_string(slice(make_coord(_, 1), t)), "(2,3)");
  EXPECT_EQ(to_string(slice(make_coord(make_coord(_, 0), _), t)), "(2,8)");
  EXPECT_EQ(to_string(underscore_to_zero(make_coord(make_coord(_, 1), 5))), "((0,1),5)");
  static_assert(has_underscore<decltype(make_coord(1, make_coord(_, 2)))>());
  static_assert(!has_underscore<decltype(make_coord(1, 2))>());
}

}  // namespace
}  // namespace tessel
