// TiledCopy partitions and retile, checked through identity tensors: a G2S copy covers its
// tile exactly once with 16-byte row vectors; copies built from a TiledMMA hand each thread
// exactly the elements its MMA fragment holds, and retile_D puts them in the right registers
// (also for the seeds' permuted TiledMMA, where the copy moves more values than one atom).
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "tessel/atom/copy.hpp"
#include "tessel/atom/copy_traits_sm80.hpp"
#include "tessel/atom/copy_traits_universal.hpp"
#include "tessel/atom/mma_traits_sm80.hpp"
#include "tessel/atom/tiled_copy.hpp"
#include "tessel/atom/tiled_mma.hpp"
#include "test_util.hpp"

namespace tessel {
namespace {

using _1 = Int<1>;
using _2 = Int<2>;
using _4 = Int<4>;
using _8 = Int<8>;
using _32 = Int<32>;

TEST(TiledCopy, CpAsyncTileCopyCoversTheTileWithRowVectors) {
  auto g2s = make_tiled_copy(CopyAtom<SM80_CP_ASYNC_CG<16>, Half>{},
                             make_layout(make_shape(_32{}, _4{}), make_stride(_4{}, _1{})),
                             make_layout(make_shape(_1{}, _8{})));
  static_assert(decltype(g2s)::kThreads == 128 && decltype(g2s)::kValues == 8);
  auto tile = make_identity_tensor(make_shape(Int<128>{}, _32{}));
  std::map<std::string, int> count;
  for (int t = 0; t < 128; ++t) {
    auto part = g2s.get_slice(t).partition_S(tile);  // (CPY_V, CPY_M, CPY_N) = (8,4,1)
    ASSERT_EQ(size(part), 32);
    for (int i = 0; i < size(part); ++i) ++count[to_string(part[i])];
    // each thread's 8 values are one row's 8 consecutive columns: a 16-byte vector
    for (int v = 0; v < 8; ++v) {
      EXPECT_EQ(to_string(part(make_coord(v, 0, 0))),
                "(" + std::to_string(t / 4) + "," + std::to_string(8 * (t % 4) + v) + ")");
    }
  }
  EXPECT_EQ(count.size(), 128u * 32u);
  for (auto const& [coord, n] : count) ASSERT_EQ(n, 1) << coord;
}

// For every thread: what the copy delivers into value i of retile_D(fragment) is the element
// the MMA expects in that register. Checked for a column-major and a row-major fragment, so
// that retile must follow the fragment's layout, not just its size.
template <class Mma, class Copy, class PartitionMma, class Shape>
void expect_retile_matches_mma(Copy const& copy, Shape const& shape, PartitionMma&& partition_mma) {
  auto tile = make_identity_tensor(shape);
  for (int t = 0; t < Mma::kThreads; ++t) {
    auto mma_part = partition_mma(t, tile);  // (MMA_V, MMA_M, MMA_K)
    auto check = [&](auto frag) {            // frag: MMA index -> register
      std::map<long long, int> mma_index_of_register;
      for (int j = 0; j < size(frag); ++j) mma_index_of_register[frag(j)] = j;
      auto delivered = copy.get_slice(t).partition_D(tile);    // (CPY_V, CPY_M, CPY_K)
      auto registers = std::remove_cvref_t<Copy>::retile(frag);  // (CPY_V, CPY_M, CPY_K) -> register
      ASSERT_EQ(size(delivered), size(mma_part));
      ASSERT_EQ(to_string(product_each(delivered.shape())), to_string(product_each(registers.shape())));
      for (int i = 0; i < size(delivered); ++i) {
        ASSERT_EQ(to_string(delivered[i]), to_string(mma_part[mma_index_of_register.at(registers(i))]))
            << "thread " << t << " copy value " << i << " fragment " << to_string(frag);
      }
    };
    check(make_layout(mma_part.shape()));
    check(make_layout(mma_part.shape(), LayoutRight{}));
  }
}

TEST(TiledCopy, LdmatrixCopiesFromATiledMmaFeedItsFragments) {
  using Mma = TiledMMA<SM80_16x8x16_F32F16F16F32_TN, Layout<Shape<_2, _2, _1>>>;
  auto s2r_a = make_tiled_copy_A(CopyAtom<SM80_LDMATRIX_X4, Half>{}, Mma{});
  expect_retile_matches_mma<Mma>(s2r_a, make_shape(Int<64>{}, _32{}),
                                 [](int t, auto& x) { return Mma::get_slice(t).partition_A(x); });
  auto s2r_b = make_tiled_copy_B(CopyAtom<SM80_LDMATRIX_X2, Half>{}, Mma{});
  expect_retile_matches_mma<Mma>(s2r_b, make_shape(Int<64>{}, _32{}),
                                 [](int t, auto& x) { return Mma::get_slice(t).partition_B(x); });
}

// Seed 002/004's configuration: 2x2 warps, N permuted to 32 so that B's copy can use
// ldmatrix.x4 (8 values per thread, two MMA atoms' worth in N).
TEST(TiledCopy, RetileFollowsAPermutedTiledMma) {
  using Mma = TiledMMA<SM80_16x8x16_F32F16F16F32_TN, Layout<Shape<_2, _2, _1>>, Tile<_32, _32, Int<16>>>;
  auto s2r_b = make_tiled_copy_B(CopyAtom<SM80_LDMATRIX_X4, Half>{}, Mma{});
  expect_retile_matches_mma<Mma>(s2r_b, make_shape(Int<128>{}, _32{}),
                                 [](int t, auto& x) { return Mma::get_slice(t).partition_B(x); });
  auto s2r_a = make_tiled_copy_A(CopyAtom<SM80_LDMATRIX_X4, Half>{}, Mma{});
  expect_retile_matches_mma<Mma>(s2r_a, make_shape(Int<128>{}, _32{}),
                                 [](int t, auto& x) { return Mma::get_slice(t).partition_A(x); });
}

// ldmatrix: the 32 row addresses of a warp (partition_S) cover its 16x16 block of A once.
TEST(TiledCopy, LdmatrixSourceRowsCoverTheBlockOnce) {
  using Mma = TiledMMA<SM80_16x8x16_F32F16F16F32_TN, Layout<Shape<_1, _1, _1>>>;
  auto s2r_a = make_tiled_copy_A(CopyAtom<SM80_LDMATRIX_X4, Half>{}, Mma{});
  auto tile = make_identity_tensor(make_shape(Int<16>{}, Int<16>{}));
  std::map<std::string, int> count;
  for (int t = 0; t < 32; ++t) {
    auto src = s2r_a.get_slice(t).partition_S(tile);  // one 16-byte row per thread
    ASSERT_EQ(size(src), 8);
    for (int i = 0; i < 8; ++i) ++count[to_string(src[i])];
    EXPECT_EQ(to_string(src[0]), "(" + std::to_string(t % 16) + "," + std::to_string(8 * (t / 16)) + ")");
  }
  EXPECT_EQ(count.size(), 256u);
}

// A K loop issues a tile's copies in shares (kernel_sm80.hpp): the shares of P parts copy
// each atom exactly once, and a share copies nothing else; copy_if's predicate (and its zero
// fill) applies within the share only.
struct IntCopy {  // one thread copies one int (UniversalCopy's copy takes register arrays)
  using SRegisters = int[1];
  using DRegisters = int[1];
  static void copy(int const& src, int& dst) { dst = src; }
};
}  // namespace
template <>
struct CopyTraits<IntCopy> : detail::OneThreadCopyTraits<int> {};
namespace {

template <int Parts>
void check_shares() {
  constexpr int kAtoms = 4 * 6;
  std::vector<int> src(kAtoms), dst(kAtoms, -1);
  for (int i = 0; i < kAtoms; ++i) src[i] = 100 + i;
  auto layout = make_layout(make_shape(_1{}, _4{}, Int<6>{}));  // (CPY,CPY_M,CPY_K): atom i at i
  auto s = make_tensor(make_gmem_ptr(src.data()), layout);
  auto d = make_tensor(make_gmem_ptr(dst.data()), layout);
  [&]<int... Ps>(std::integer_sequence<int, Ps...>) {
    (
        [&] {
          copy(CopyAtom<IntCopy, int>{}, s, d, AtomShare<Ps, Parts>{});
          for (int i = 0; i < kAtoms; ++i) {
            const bool done = i % Parts <= Ps;  // this share and the ones before it
            EXPECT_EQ(dst[i], done ? 100 + i : -1) << "atom " << i << ", share " << Ps << " of " << Parts;
          }
        }(),
        ...);
  }(std::make_integer_sequence<int, Parts>{});

  std::fill(dst.begin(), dst.end(), -1);
  auto const* usrc = reinterpret_cast<unsigned const*>(src.data());
  copy_if(CopyAtom<UniversalCopyZfill<unsigned>, unsigned>{}, [](int i) { return i % 5 != 0; },
          make_tensor(make_gmem_ptr(usrc), layout),
          make_tensor(make_gmem_ptr(reinterpret_cast<unsigned*>(dst.data())), layout), usrc,
          AtomShare<Parts - 1, Parts>{});
  for (int i = 0; i < kAtoms; ++i) {
    const int expected = i % Parts != Parts - 1 ? -1 : i % 5 != 0 ? 100 + i : 0;
    EXPECT_EQ(dst[i], expected) << "atom " << i;
  }
}

TEST(TiledCopy, SharesOfAThreadsAtomsCopyEachAtomOnce) {
  check_shares<1>();
  check_shares<2>();
  check_shares<3>();
  check_shares<4>();
}

}  // namespace
}  // namespace tessel
