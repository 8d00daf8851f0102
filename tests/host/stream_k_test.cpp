// The stream-K partition (include/tessel/gemm/stream_k.hpp) covers every K tile of every item
// exactly once, and the fix-up's bookkeeping (contributors, slots) agrees with what the blocks
// actually compute: checked by walking every block's segments, as the kernel does.
#include "tessel/gemm/stream_k.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <vector>

namespace tessel {
namespace {

// Walks every block of s and checks the partition.
void check_partition(StreamKSchedule const& s) {
  SCOPED_TRACE(std::to_string(s.items) + " items x " + std::to_string(s.k_tiles) + " K tiles, " +
               std::to_string(s.sk_items) + " stream-K, " + std::to_string(s.blocks) + " blocks");
  ASSERT_TRUE(s.valid());
  std::vector<int> covered(size_t(s.items) * s.k_tiles, 0);
  std::map<int, std::vector<int>>
      contributors;  // stream-K item -> blocks with a partial of it, in walk order
  for (int b = 0; b < s.blocks; ++b) {
    auto cursor = s.start(b);
    std::set<int> slots;
    int previous_item = -1;
    for (WorkSegment seg; s.next(cursor, &seg);) {
      ASSERT_GE(seg.item, 0);
      ASSERT_LT(seg.item, s.items);
      ASSERT_LT(seg.k_begin, seg.k_end) << "an empty segment";
      ASSERT_GE(seg.k_begin, 0);
      ASSERT_LE(seg.k_end, s.k_tiles);
      ASSERT_GT(seg.item, previous_item) << "a block's items go up";
      previous_item = seg.item;
      for (int k = seg.k_begin; k < seg.k_end; ++k) ++covered[size_t(seg.item) * s.k_tiles + k];
      const bool whole = seg.k_begin == 0 && seg.k_end == s.k_tiles;
      EXPECT_EQ(seg.slot < 0, whole && s.splits == 1);
      if (seg.item < s.dp_items()) {
        EXPECT_TRUE(whole) << "data-parallel items are whole";
        EXPECT_EQ(seg.item % s.blocks, b) << "round robin";
      }
      if (s.splits > 1) EXPECT_EQ(seg.item, b % s.items) << "sliced: one slice of item b % items";
      if (seg.slot >= 0) {
        EXPECT_TRUE(slots.insert(seg.slot).second)
            << "block " << b << " uses slot " << seg.slot << " twice";
        const int t = seg.item - s.dp_items();
        ASSERT_GE(t, 0) << "a partial of a data-parallel item";
        EXPECT_EQ(s.slot_of(b, t), seg.slot);
        contributors[t].push_back(b);
      }
    }
  }
  for (size_t i = 0; i < covered.size(); ++i) {
    ASSERT_EQ(covered[i], 1) << "item " << i / s.k_tiles << " K tile " << i % s.k_tiles;
  }
  for (int t = 0; t < s.sk_items; ++t) {
    auto it = contributors.find(t);
    if (it == contributors.end()) {  // one block computed it whole
      EXPECT_EQ(s.contributors(t), 1) << "item " << t;
      continue;
    }
    std::vector<int> expected;
    for (int j = 0; j < s.contributors(t); ++j) expected.push_back(s.contributor(t, j));
    std::vector<int> walked = it->second;
    std::sort(walked.begin(), walked.end());
    EXPECT_EQ(walked, expected) << "stream-K item " << t << ": the blocks that wrote a partial";
    // The sum runs in K order: each contributor's slice begins where the one before ended.
    EXPECT_TRUE(std::is_sorted(expected.begin(), expected.end()) || s.splits > 1);
  }
}

TEST(StreamK, TheDocumentedExample) {
  const StreamKSchedule s{4, 2, 6, 2};  // 2 items of 6 K tiles, all stream-K, 4 blocks
  EXPECT_EQ(s.sk_begin(1), 3);
  EXPECT_EQ(s.first_contributor(0), 0);
  EXPECT_EQ(s.last_contributor(0), 1);
  EXPECT_EQ(s.first_contributor(1), 2);
  EXPECT_EQ(s.last_contributor(1), 3);
  EXPECT_EQ(s.slot_of(0, 0), 1);  // block 0 ends inside item 0: its last segment
  EXPECT_EQ(s.slot_of(1, 0), 0);  // block 1 begins inside item 0: its first segment
  check_partition(s);
}

TEST(StreamK, WithoutStreamKItemsEveryBlockWalksWholeTilesRoundRobin) {
  const StreamKSchedule s{3, 8, 5, 0};
  auto cursor = s.start(1);
  std::vector<int> items;
  for (WorkSegment seg; s.next(cursor, &seg);) items.push_back(seg.item);
  EXPECT_EQ(items, (std::vector<int>{1, 4, 7}));
  check_partition(s);
}

// Ranges as the GEMM plans them (gemm_plan.cpp) on 132 SMs: the last wave plus one.
TEST(StreamK, PlannedShapes) {
  check_partition({132, 133, 8, 133});                // one tile past a wave: all shared
  check_partition({132, 1024 + 100, 64, 100 + 132});  // data-parallel waves, then two shared
}

// As many blocks as iterations, one item, one K tile, one block, primes.
TEST(StreamK, EdgeCases) {
  check_partition({3, 1, 3, 1});
  check_partition({1, 1, 1, 1});
  check_partition({6, 3, 2, 3});
  check_partition({1, 5, 7, 5});
  check_partition({131, 17, 97, 17});
  check_partition({2, 3, 1, 2});
}

// Sliced: 3 items of 10 K tiles in 4 slices on 12 blocks; block b takes slice b / 3 of item
// b % 3, and item t is summed from blocks t, t + 3, t + 6, t + 9.
TEST(StreamK, SlicedItems) {
  const StreamKSchedule s{12, 3, 10, 3, 4};
  ASSERT_TRUE(s.valid());
  auto cursor = s.start(7);
  WorkSegment seg;
  ASSERT_TRUE(s.next(cursor, &seg));
  EXPECT_EQ(seg.item, 1);
  EXPECT_EQ(seg.k_begin, 5);  // slice 2 of 10 K tiles in 4: [5, 7)
  EXPECT_EQ(seg.k_end, 7);
  EXPECT_EQ(seg.slot, 0);
  EXPECT_FALSE(s.next(cursor, &seg));
  EXPECT_EQ(s.contributors(1), 4);
  EXPECT_EQ(s.contributor(1, 3), 10);
  check_partition(s);
  check_partition({128, 32, 64, 32, 4});   // 128x4096x4096: 4 slices of 16
  check_partition({132, 4, 1024, 4, 33});  // 256x256x65536
  check_partition({2, 1, 2, 1, 2});
  EXPECT_FALSE((StreamKSchedule{12, 3, 3, 3, 4}.valid()));   // an empty slice
  EXPECT_FALSE((StreamKSchedule{11, 3, 10, 3, 4}.valid()));  // blocks != items * splits
}

// A block with an empty range would break the contributors' count: such a schedule is invalid.
TEST(StreamK, MoreBlocksThanIterationsIsInvalid) {
  EXPECT_FALSE((StreamKSchedule{7, 1, 3, 1}.valid()));
  EXPECT_TRUE((StreamKSchedule{3, 1, 3, 1}.valid()));
  EXPECT_TRUE((StreamKSchedule{7, 1, 3, 0}.valid()));   // no stream-K items: any number of blocks
  EXPECT_FALSE((StreamKSchedule{4, 2, 6, 3}.valid()));  // more stream-K items than items
}

TEST(StreamK, RandomSchedulesPartitionExactly) {
  std::mt19937 rng(20261124);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 300; ++i) {
    StreamKSchedule s;
    s.blocks = pick(1, 140), s.items = pick(1, 400), s.k_tiles = pick(1, 300);
    s.sk_items = pick(0, 2) == 0 ? 0 : pick(1, s.items);
    if (pick(0, 3) == 0) {  // sliced
      s.sk_items = s.items = pick(1, 40), s.splits = pick(2, 8), s.blocks = s.items * s.splits;
    }
    if (!s.valid()) continue;
    check_partition(s);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace tessel
