// Tensors: construction, element access, slicing views, fragments, identity tensors, tiling,
// partitioning and the element-wise algorithms.
#include <numeric>
#include <set>
#include <vector>

#include "tessel/tensor.hpp"
#include "test_util.hpp"

namespace tessel {
namespace {

using _1 = Int<1>;
using _2 = Int<2>;
using _4 = Int<4>;
using _8 = Int<8>;

std::vector<float> iota_vector(int n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

TEST(Tensor, ElementAccessThroughTheLayout) {
  auto data = iota_vector(6 * 4);
  auto a = make_tensor(make_gmem_ptr(data.data()), make_shape(6, 4), make_stride(4, 1));  // row-major
  static_assert(std::is_same_v<decltype(a)::memory_space, GlobalMemory>);
  EXPECT_EQ(a(2, 3), 11.0f);
  EXPECT_EQ(a[1], 4.0f);  // index 1 = (1,0)
  a(0, 1) = -1.0f;
  EXPECT_EQ(data[1], -1.0f);
  EXPECT_EQ(size(a), 24);
}

TEST(Tensor, SlicesAreViewsOfTheSameMemory) {
  auto data = iota_vector(6 * 4);
  auto a = make_tensor(make_gmem_ptr(data.data()), make_shape(6, 4), make_stride(4, 1));
  auto row = a(2, _);  // (4)
  auto col = a(_, 3);  // (6)
  EXPECT_EQ(size(row), 4);
  EXPECT_EQ(size(col), 6);
  for (int j = 0; j < 4; ++j) EXPECT_EQ(row(j), a(2, j));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(col(i), a(i, 3));
  col(5) = 100.0f;
  EXPECT_EQ(data[5 * 4 + 3], 100.0f);
}

TEST(Tensor, OwningFragmentsAndFragmentLike) {
  auto frag = make_tensor<float>(make_layout(make_shape(_4{}, _2{})));
  static_assert(std::is_same_v<decltype(frag)::memory_space, RegisterMemory>);
  static_assert(sizeof(frag.engine().data) == 8 * sizeof(float));
  clear(frag);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(frag[i], 0.0f);
  frag(3, 1) = 2.5f;
  EXPECT_EQ(frag[7], 2.5f);
  auto like = make_fragment_like(frag(_, 1));  // (4) of float
  static_assert(decltype(size(like))::value == 4);
  copy(frag(_, 1), like);
  EXPECT_EQ(like(3), 2.5f);
}

TEST(Tensor, IdentityTensorKeepsCoordinatesThroughTiling) {
  auto id = make_identity_tensor(make_shape(10, 12));
  EXPECT_EQ(to_string(id(3, 7)), "(3,7)");
  auto tile = local_tile(id, make_shape(_4{}, _4{}), make_coord(1, 2));  // rows 4..7, cols 8..11
  EXPECT_EQ(to_string(tile(0, 0)), "(4,8)");
  EXPECT_EQ(to_string(tile(3, 2)), "(7,10)");
}

TEST(Tiling, LocalTileWithUnderscoreKeepsTheTileMode) {
  auto id = make_identity_tensor(make_shape(8, 12));
  auto row_of_tiles = local_tile(id, make_shape(_4{}, _4{}), make_coord(1, _));  // (4,4,3)
  EXPECT_EQ(rank(row_of_tiles), 3);
  EXPECT_EQ(size(row_of_tiles), 48);
  EXPECT_EQ(to_string(row_of_tiles(2, 1, 2)), "(6,9)");
}

TEST(Tiling, LocalTileWithAProjection) {
  // A GEMM's A operand (M,K) tiled by the (M,N,K) block tile, keeping modes M and K.
  auto a = make_identity_tensor(make_shape(16, 32));
  auto cta_tiler = make_shape(_8{}, Int<16>{}, _8{});
  auto blk = local_tile(a, cta_tiler, make_coord(1, 0, _), make_step(_1{}, _, _1{}));  // (8,8,4)
  EXPECT_EQ(size(blk), 8 * 8 * 4);
  EXPECT_EQ(to_string(blk(0, 0, 0)), "(8,0)");
  EXPECT_EQ(to_string(blk(7, 7, 3)), "(15,31)");
}

// Every element of the tile goes to exactly one thread, at the coordinate the thread layout
// gives: thread t of (4,2):(2,1) (row-major) sits at (t/2, t%2) of each 4x2 tile.
TEST(Tiling, LocalPartitionCoversTheTileExactlyOnce) {
  auto id = make_identity_tensor(make_shape(8, 4));
  auto threads = make_layout(make_shape(_4{}, _2{}), make_stride(_2{}, _1{}));
  std::multiset<std::string> seen;
  for (int t = 0; t < 8; ++t) {
    auto part = local_partition(id, threads, t);  // (2,2)
    ASSERT_EQ(size(part), 4);
    EXPECT_EQ(to_string(part(0, 0)), "(" + std::to_string(t / 2) + "," + std::to_string(t % 2) + ")");
    for (int i = 0; i < size(part); ++i) seen.insert(to_string(part[i]));
  }
  EXPECT_EQ(seen.size(), 32u);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 32u);
}

TEST(Algorithm, CopyIfWithAnIdentityPredicate) {
  // Copy the in-bounds part of a 4x4 tile that hangs over the edge of a 6x3 matrix.
  auto src_data = iota_vector(6 * 3);
  std::vector<float> dst_data(16, -1.0f);
  auto src = make_tensor(make_gmem_ptr(src_data.data()), make_shape(6, 3));
  auto dst = make_tensor(make_gmem_ptr(dst_data.data()), make_layout(make_shape(_4{}, _4{})));
  auto id = make_identity_tensor(make_shape(8, 4));
  auto tile_id = local_tile(id, make_shape(_4{}, _4{}), make_coord(1, 0));  // rows 4..7
  auto pred = make_tensor<bool>(make_layout(make_shape(_4{}, _4{})));
  for (int i = 0; i < 16; ++i) pred[i] = get<0>(tile_id[i]) < 6 && get<1>(tile_id[i]) < 3;
  // The source tile, addressed through coordinates clamped inside the matrix.
  for (int i = 0; i < 16; ++i) {
    if (pred[i]) dst[i] = src(get<0>(tile_id[i]), get<1>(tile_id[i]));
  }
  std::vector<float> expected(16, -1.0f);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) expected[r + 4 * c] = src_data[(4 + r) + 6 * c];
  EXPECT_EQ(dst_data, expected);
  // copy_if with the same predicate from a full source copies exactly the masked cells.
  std::vector<float> full(16, 7.0f), out(16, 0.0f);
  auto full_t = make_tensor(make_gmem_ptr(full.data()), make_layout(make_shape(_4{}, _4{})));
  auto out_t = make_tensor(make_gmem_ptr(out.data()), make_layout(make_shape(_4{}, _4{})));
  copy_if(pred, full_t, out_t);
  int copied = 0;
  for (float x : out) copied += x == 7.0f;
  EXPECT_EQ(copied, 6);
}

TEST(Tensor, SwizzledSharedMemoryTensors) {
  std::vector<int> smem(8 * 64);
  auto layout = composition(Swizzle<3, 3, 3>{}, make_layout(make_shape(_8{}, Int<64>{}), LayoutRight{}));
  auto s = make_tensor(make_smem_ptr(smem.data()), layout);
  static_assert(std::is_same_v<decltype(s)::memory_space, SharedMemory>);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 64; ++c) s(r, c) = r * 100 + c;
  EXPECT_EQ(smem[72], 100);  // (1,0) lives at offset 64 ^ 8
  auto row = s(1, _);
  for (int c = 0; c < 64; ++c) EXPECT_EQ(row(c), 100 + c);
  auto tiles = zipped_divide(s, make_tuple(_8{}, _8{}));  // ((8,8),(1,8))
  EXPECT_EQ(tiles(make_coord(make_coord(1, 0), make_coord(0, 2))), 116);
}

// A static offset's whole swizzle periods leave the swizzle: swizzle(x + h) == swizzle(x) + h.
TEST(Tensor, WholeSwizzlePeriodsLeaveTheSwizzle) {
  using Sw = Swizzle<3, 3, 3>;  // period 512
  static_assert(Sw::period == 512);
  auto check = [](auto off) {
    auto parts = split_under_swizzle<Sw>(off);
    auto rest = get<0>(parts);
    auto h = get<1>(parts);
    static_assert(is_constant<decltype(rest)>::value && is_constant<decltype(h)>::value);
    EXPECT_EQ(rest + h, off);
    EXPECT_EQ(h % Sw::period, 0);
    EXPECT_TRUE(0 <= rest && rest < Sw::period) << rest;
    for (long long x = 0; x < 2 * Sw::period; ++x) EXPECT_EQ(Sw{}(x + h), Sw{}(x) + h);
  };
  check(C<0>{}), check(C<511>{}), check(C<512>{}), check(C<1000>{}), check(C<4097>{}), check(C<-5>{});
  auto dynamic = split_under_swizzle<Sw>(1000);  // a run-time offset stays whole
  EXPECT_EQ(get<0>(dynamic), 1000);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(get<1>(dynamic))>, C<0>>);
  auto plain = split_under_swizzle<Layout<Shape<_8>, Stride<_1>>>(C<1000>{});  // not a swizzle
  EXPECT_EQ(get<0>(plain), 1000);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(get<1>(plain))>, C<0>>);
}

// Slices of a swizzled tensor at static coordinates move whole periods into the pointer and
// read the same elements as the whole tensor.
TEST(Tensor, SwizzledSlicesAtStaticCoordinatesMoveThePointer) {
  std::vector<int> smem(32 * 64);  // 4 periods of Swizzle<3,3,3>
  auto s = make_tensor(make_smem_ptr(smem.data()),
                       composition(Swizzle<3, 3, 3>{}, make_layout(make_shape(Int<32>{}, Int<64>{}), LayoutRight{})));
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 64; ++c) s(r, c) = r * 100 + c;
  auto row = s(Int<9>{}, _);  // offset 576: one period (512) leaves, 64 stays under the swizzle
  EXPECT_EQ(row.data().get(), smem.data() + 512);
  for (int c = 0; c < 64; ++c) EXPECT_EQ(row(c), 900 + c);
  auto dyn = s(9, _);  // a run-time row: the offset stays whole
  EXPECT_EQ(dyn.data().get(), smem.data());
  for (int c = 0; c < 64; ++c) EXPECT_EQ(dyn(c), 900 + c);
  EXPECT_EQ(s(Int<31>{}, Int<63>{}), 3163);
}

// for_each_index: static indices (C<i>) in order for a static count, ints otherwise.
TEST(Tensor, ForEachIndexGivesStaticIndicesForAStaticCount) {
  std::vector<int> seen;
  for_each_index(Int<4>{}, [&](auto i) {
    static_assert(is_constant<decltype(i)>::value);
    seen.push_back(int(i));
  });
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3}));
  seen.clear();
  for_each_index(3, [&](auto i) {
    static_assert(std::is_same_v<decltype(i), int>);
    seen.push_back(i);
  });
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
  for_each_index(0, [&](auto) { ADD_FAILURE() << "called for a count of 0"; });
  for_each_index(Int<0>{}, [&](auto) { ADD_FAILURE() << "called for a count of 0"; });
}

}  // namespace
}  // namespace tessel
