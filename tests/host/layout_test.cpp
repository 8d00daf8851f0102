// Layouts: construction, evaluation, queries and restructuring.
#include "test_util.hpp"

namespace tessel {
namespace {

using _1 = Int<1>;
using _2 = Int<2>;
using _4 = Int<4>;
using _8 = Int<8>;

TEST(Layout, ColumnAndRowMajor) {
  auto col = make_layout(make_shape(4, 2));
  auto row = make_layout(make_shape(4, 2), LayoutRight{});
  EXPECT_EQ(to_string(col), "(4,2):(1,4)");
  EXPECT_EQ(to_string(row), "(4,2):(2,1)");
  EXPECT_EQ(col(1, 1), 5);
  EXPECT_EQ(row(1, 1), 3);
  EXPECT_EQ(col(5), 5);   // 1-D index: colexicographic
  EXPECT_EQ(row(5), 3);   // index 5 = (1,1)
}

TEST(Layout, FullyStaticLayoutsFoldAtCompileTime) {
  constexpr auto l = make_layout(make_shape(_4{}, _8{}), LayoutRight{});
  static_assert(l(1, 2) == 10);
  static_assert(is_constant<decltype(size(l))>::value && size(l) == 32);
  static_assert(is_constant<decltype(cosize(l))>::value && cosize(l) == 32);
  static_assert(is_constant<decltype(l(make_coord(_1{}, _2{})))>::value);
}

TEST(Layout, OrderedLayouts) {
  auto o = make_ordered_layout(make_shape(_2{}, _2{}, _2{}, _2{}),
                               make_tuple(Int<0>{}, Int<2>{}, Int<3>{}, Int<1>{}));
  EXPECT_EQ(to_string(o), "(2,2,2,2):(1,4,8,2)");
  auto o2 = make_ordered_layout(make_shape(3, 5), make_tuple(_1{}, Int<0>{}));
  EXPECT_EQ(to_string(o2), "(3,5):(5,1)");
}

TEST(Layout, QueriesOnHierarchicalLayouts) {
  auto l = make_layout(make_shape(make_shape(2, 4), 8), make_stride(make_stride(1, 16), 2));
  EXPECT_EQ(rank(l), 2);
  EXPECT_EQ(depth(l), 2);
  EXPECT_EQ(size(l), 64);
  EXPECT_EQ(cosize(l), 1 + 1 + 3 * 16 + 7 * 2);
  EXPECT_EQ(to_string(get<0>(l)), "(2,4):(1,16)");
  EXPECT_EQ(to_string(get<0, 1>(l)), "4:16");
  EXPECT_EQ(l(make_coord(make_coord(1, 2), 3)), 1 + 32 + 6);
}

TEST(Layout, AppendPrependGroupFlatten) {
  auto l = make_layout(make_shape(4, 2), make_stride(1, 4));
  EXPECT_EQ(to_string(append(l, make_layout(3, 8))), "(4,2,3):(1,4,8)");
  EXPECT_EQ(to_string(prepend(l, make_layout(3, 8))), "(3,4,2):(8,1,4)");
  auto g = group_modes<1, 3>(make_layout(make_shape(2, 3, 4, 5)));
  EXPECT_EQ(to_string(g), "(2,(3,4),5):(1,(2,6),24)");
  EXPECT_EQ(to_string(flatten(g)), "(2,3,4,5):(1,2,6,24)");
  EXPECT_EQ(to_string(take<1, 3>(flatten(g))), "(3,4):(2,6)");
}

TEST(Layout, SliceAndOffset) {
  auto l = make_layout(make_shape(4, 8), make_stride(1, 4));
  auto so = slice_and_offset(make_coord(_, 2), l);
  EXPECT_EQ(to_string(get<0>(so)), "4:1");
  EXPECT_EQ(get<1>(so), 8);
  EXPECT_EQ(to_string(l(1, _)), "8:4");
}

}  // namespace
}  // namespace tessel
