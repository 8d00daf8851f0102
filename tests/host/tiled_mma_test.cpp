// TiledMMA partitions, checked through identity tensors: every element of C belongs to exactly
// one thread; A and B are replicated over the threads of the mode they lack; the values a
// thread holds are the ones the PTX ISA assigns to its lane; the TV layouts agree with the
// partitions.
#include <map>
#include <set>

#include "tessel/atom/mma_traits_sm80.hpp"
#include "tessel/atom/tiled_mma.hpp"
#include "test_util.hpp"

namespace tessel {
namespace {

using _1 = Int<1>;
using _2 = Int<2>;
using _16 = Int<16>;
using _32 = Int<32>;
using _64 = Int<64>;

using Mma2x2 = TiledMMA<SM80_16x8x16_F32F16F16F32_TN, Layout<Shape<_2, _2, _1>>>;

TEST(TiledMMA, ThreadCountAndTileSize) {
  static_assert(Mma2x2::kThreads == 128);
  static_assert(decltype(Mma2x2::tile_size<0>())::value == 32);
  static_assert(decltype(Mma2x2::tile_size<1>())::value == 16);
  static_assert(decltype(Mma2x2::tile_size<2>())::value == 16);
  using Permuted = TiledMMA<SM80_16x8x16_F32F16F16F32_TN, Layout<Shape<_2, _2, _1>>,
                            Tile<Int<32>, Int<32>, Int<16>>>;
  static_assert(decltype(Permuted::tile_size<1>())::value == 32);
}

// Counts, for every coordinate of `shape`, how many threads' partitions hold it.
template <class Partition>
std::map<std::string, int> owners(int threads, Partition&& partition) {
  std::map<std::string, int> count;
  for (int t = 0; t < threads; ++t) {
    auto p = partition(t);
    for (int i = 0; i < size(p); ++i) ++count[to_string(p[i])];
  }
  return count;
}

TEST(TiledMMA, PartitionCCoversTheTileExactlyOnce) {
  auto c = make_identity_tensor(make_shape(_64{}, _64{}));
  auto count = owners(128, [&](int t) { return Mma2x2::get_slice(t).partition_C(c); });
  EXPECT_EQ(count.size(), 64u * 64u);
  for (auto const& [coord, n] : count) ASSERT_EQ(n, 1) << coord;
  auto part = Mma2x2::get_slice(0).partition_C(c);  // (MMA_V, MMA_M, MMA_N) = ((2,2),2,4)
  EXPECT_EQ(to_string(part.shape()), "((2,2),2,4)");
}

TEST(TiledMMA, PartitionAAndBAreReplicatedOverTheOtherMode) {
  auto a = make_identity_tensor(make_shape(_64{}, _32{}));
  auto count_a = owners(128, [&](int t) { return Mma2x2::get_slice(t).partition_A(a); });
  EXPECT_EQ(count_a.size(), 64u * 32u);
  for (auto const& [coord, n] : count_a) ASSERT_EQ(n, 2) << coord;  // ThrN = 2
  auto b = make_identity_tensor(make_shape(_64{}, _32{}));
  auto count_b = owners(128, [&](int t) { return Mma2x2::get_slice(t).partition_B(b); });
  for (auto const& [coord, n] : count_b) ASSERT_EQ(n, 2) << coord;  // ThrM = 2
}

// PTX ISA, mma.m16n8k16 C fragment: lane l holds c0,c1 at row l/4, columns 2*(l%4)+{0,1} and
// c2,c3 at row l/4+8. Warp 1 of the 2x2 atom layout (threads 32..63) is the atom one step
// down in M.
TEST(TiledMMA, ThreadsHoldThePtxFragmentElements) {
  auto c = make_identity_tensor(make_shape(_32{}, _16{}));  // one tile of the tiled MMA
  for (int t = 0; t < 128; ++t) {
    auto part = Mma2x2::get_slice(t).partition_C(c);  // ((2,2),1,1)
    int lane = t % 32, warp = t / 32;
    int row0 = (warp % 2) * 16 + lane / 4, col0 = (warp / 2) * 8 + 2 * (lane % 4);
    EXPECT_EQ(to_string(part(0)), "(" + std::to_string(row0) + "," + std::to_string(col0) + ")");
    EXPECT_EQ(to_string(part(1)), "(" + std::to_string(row0) + "," + std::to_string(col0 + 1) + ")");
    EXPECT_EQ(to_string(part(2)), "(" + std::to_string(row0 + 8) + "," + std::to_string(col0) + ")");
  }
}

TEST(TiledMMA, TVLayoutsAgreeWithThePartitions) {
  auto check = [](auto tv, auto m, auto n, auto partition) {
    auto tile = make_identity_tensor(make_shape(m, n));
    for (int t = 0; t < 128; ++t) {
      auto part = partition(t, tile);
      for (int v = 0; v < size(part); ++v) {
        ASSERT_EQ(to_string(tile[tv(make_coord(t, v))]), to_string(part[v])) << "thread " << t << " value " << v;
      }
    }
  };
  check(Mma2x2::layout_C_TV(), _32{}, _16{}, [](int t, auto& x) { return Mma2x2::get_slice(t).partition_C(x); });
  check(Mma2x2::layout_A_TV(), _32{}, _16{}, [](int t, auto& x) { return Mma2x2::get_slice(t).partition_A(x); });
  check(Mma2x2::layout_B_TV(), _16{}, _16{}, [](int t, auto& x) { return Mma2x2::get_slice(t).partition_B(x); });
}

TEST(TiledMMA, FragmentsAreStaticRegisterTensors) {
  auto sA = make_identity_tensor(make_shape(_64{}, _32{}));
  auto frag = Mma2x2::get_slice(5).partition_fragment_A(sA);  // (MMA_V, MMA_M, MMA_K)
  static_assert(std::is_same_v<decltype(frag)::memory_space, RegisterMemory>);
  EXPECT_EQ(to_string(frag.shape()), "((2,2,2),2,2)");
}

}  // namespace
}  // namespace tessel
