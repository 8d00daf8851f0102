// The conv runtime's split-K rule (src/conv/conv2d_plan.cpp, choose_split) over many
// generated GEMM shapes and SM counts: it splits when the output's tiles fill less than
// half the SMs, into at most 64 slices, each of at least 16 K tiles (1024 K on the wgmma
// kernels: 32 tiles of 32, 16 of 64; the tile says which), no more items than the blocks an
// SM holds (two, or one for the deep form) times the SMs; or, with between one and two tiles per SM, into the fewest of at most 8 slices that
// leave the busiest SM at most 1.3 tiles' work; or, for groups (batches) between half a wave
// and one on the cp.async kernels, into the fewest of at most 8 slices that cut the busiest
// SM's K tiles by a fifth; no slice empty, every K tile in exactly one slice; plus the
// documented examples.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "conv/conv2d_plan.hpp"

namespace tessel {
namespace {

// Returns whether it split.
bool check_rule(int m, int n, int k, sm80::ConvTile tile, int sms, int batches = 1, int blocks_per_sm = 2) {
  const conv_detail::Split s = conv_detail::choose_split(m, n, k, tile, sms, batches, blocks_per_sm);
  const long long tiles = (long long)((m + tile.m - 1) / tile.m) * ((n + tile.n - 1) / tile.n) * batches;
  const int k_tiles = (k + tile.k - 1) / tile.k;
  const int min_slice = tile.wgmma ? 1024 / tile.k : 16;
  SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k << " tile " << tile.m << "x" << tile.n << "x"
                                    << tile.k << (tile.wgmma ? " wgmma" : "") << (tile.tma ? " tma" : "") << ", "
                                    << batches << " batches, " << sms << " SMs, " << blocks_per_sm
                                    << " blocks an SM");
  // Between one and two tiles per SM: the busiest SM's work, in tiles, with n slices.
  auto busiest = [&](long long n) { return double((tiles * n + sms - 1) / sms) / double(n); };
  const bool between = tiles > sms && tiles < 2LL * sms;
  // Groups between half a wave and one (cp.async kernels): the busiest SM's K tiles, n slices.
  auto busiest_k_tiles = [&](long long n) { return (tiles * n + sms - 1) / sms * ((k_tiles + n - 1) / n); };
  const bool band = 2 * tiles > sms && tiles <= sms && batches > 1 && !tile.tma;
  if (s.splits == 1) {
    EXPECT_FALSE(s.partials());
    // Not split although it could have been: enough tiles, or too short a reduction, or
    // between one and two tiles per SM no split of at most 8 evens the SMs' work out, or in
    // the groups' band none cuts the busiest SM's K tiles by a fifth.
    if (between) {
      for (long long n = 2; n <= std::min(8, k_tiles / min_slice); ++n) EXPECT_GT(busiest(n), 1.3);
    } else if (band) {
      for (long long n = 2; n <= std::min(8, k_tiles / min_slice); ++n)
        EXPECT_GT(5 * busiest_k_tiles(n), 4LL * k_tiles);
    } else {
      EXPECT_TRUE(2 * tiles > sms || k_tiles / min_slice < 2 || (long long)blocks_per_sm * sms / tiles < 2);
    }
    return false;
  }
  if (between) {
    EXPECT_LE(s.splits, 8);
    EXPECT_LE(busiest(s.splits), 1.3);
    for (long long n = 2; n < s.splits; ++n) EXPECT_GT(busiest(n), 1.3);  // the fewest
  } else if (band) {
    EXPECT_LE(s.splits, 8);
    EXPECT_LE(5 * busiest_k_tiles(s.splits), 4LL * k_tiles);
    for (long long n = 2; n < s.splits; ++n) EXPECT_GT(5 * busiest_k_tiles(n), 4LL * k_tiles);  // the fewest
  } else {
    EXPECT_LE(2 * tiles, sms);
    EXPECT_LE(s.splits, 64);
    EXPECT_LE(tiles * s.splits, (long long)blocks_per_sm * sms);  // one wave of blocks_per_sm blocks an SM
  }
  EXPECT_GE(s.k_tiles_per_split, min_slice);
  EXPECT_GE((long long)s.splits * s.k_tiles_per_split, k_tiles);        // every K tile in a slice
  EXPECT_LT((long long)(s.splits - 1) * s.k_tiles_per_split, k_tiles);  // and no slice empty
  EXPECT_EQ(s.workspace_bytes(m, n), std::size_t(s.splits) * m * n * sizeof(float));
  return true;
}

TEST(ConvSplitK, RuleHoldsOnGeneratedShapes) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> mn(1, 4096), deep(1, 1 << 17), sm(1, 200), groups(2, 64);
  int split[2] = {0, 0};  // cases split, sm80 and wgmma tiles
  int band = 0;           // groups split between half a wave and one
  for (int i = 0; i < 40000; ++i) {
    const bool wgmma = i % 2 == 1;
    sm80::ConvTile tile = i % 3 == 0 ? sm80::conv_tile_n(64, false, true, wgmma)
                                     : sm80::conv_tile_m(4096, false, wgmma);
    if (wgmma && i % 4 == 1) tile.tma = true, tile.k = sm80::kConvTileKTma;  // fprop's TMA kernel
    const int m = mn(rng), n = mn(rng) % 512 + 1, batches = i % 5 < 2 ? groups(rng) : 1;
    const int blocks_per_sm = tile.tma && i % 8 == 1 ? 1 : 2;  // fprop's and dgrad's deep form
    const bool was_split =
        check_rule(m, n, m % 7 == 0 ? deep(rng) % 8192 + 1 : deep(rng), tile, sm(rng), batches, blocks_per_sm);
    split[wgmma] += was_split;
    band += was_split && batches > 1 && !tile.tma;
  }
  EXPECT_GT(split[0], 1000);  // every branch of the rule is exercised
  EXPECT_GT(split[1], 1000);
  EXPECT_GT(band, 100);
}

TEST(ConvSplitK, TheDocumentedExample) {
  // wgrad 64 -> 64 3x3 at N = 32, 56x56 on the sm80 kernel: GEMM 64 x 576 x 100352, 5 tiles,
  // 3136 K tiles on 132 SMs -> 52 slices of 61 (260 items; 53 would be 265, one past 264).
  const conv_detail::Split s = conv_detail::choose_split(64, 576, 100352, sm80::conv_tile_m(64, false, false), 132);
  EXPECT_EQ(s.splits, 52);
  EXPECT_EQ(s.k_tiles_per_split, 61);
}

TEST(ConvSplitK, BetweenOneAndTwoTilesPerSmTheWorkIsEvenedOut) {
  // wgrad 7x7 512 -> 512 3x3 at N = 128 on the TMA kernel: GEMM 512 x 4608 x 6272, 4 x 36 = 144
  // tiles of 128x128 on 132 SMs, 98 K tiles of 64: 2 slices leave 3 items on the busiest SM
  // (1.5 tiles), 3 leave 4 (1.33), 4 leave 5 (1.25).
  sm80::ConvTile tile = sm80::conv_tile_n(4608, false, true, true);
  tile.tma = true, tile.k = sm80::kConvTileKTma;
  const conv_detail::Split s = conv_detail::choose_split(512, 4608, 6272, tile, 132);
  EXPECT_EQ(s.splits, 4);
  EXPECT_EQ(s.k_tiles_per_split, 25);
  // The same at N = 32 (25 K tiles): too short to cut into slices of 16.
  EXPECT_EQ(conv_detail::choose_split(512, 4608, 1568, tile, 132).splits, 1);
  // 98 tiles (fewer than SMs): every SM has at most one, nothing to even out.
  EXPECT_EQ(conv_detail::choose_split(1568 * 4, 256, 6272, tile, 132).splits, 1);
}

TEST(ConvSplitK, GroupsBetweenHalfAWaveAndOneAreSplitWhereTheBusiestSmGains) {
  // ResNeXt-50's 7x7x1024 3x3 of 32 groups, wgrad at N = 128 on the cp.async wgmma kernel: 32
  // GEMMs of 32 x 288 x 6272, 3 tiles of 64x128 each (96 on 132 SMs), 196 K tiles of 32. The
  // busiest SM's K tiles with 2, 3, 4 slices: 196, 198, 147 -> 4 slices of 49.
  const sm80::ConvTile tile = sm80::conv_tile_m(32, false, true);
  const conv_detail::Split s = conv_detail::choose_split(32, 288, 6272, tile, 132, 32);
  EXPECT_EQ(s.splits, 4);
  EXPECT_EQ(s.k_tiles_per_split, 49);
  // At N = 32 (49 K tiles) no slice of 32 K tiles gains; an ungrouped GEMM of as many tiles
  // (32 x 3 of 128x128) is not in the band.
  EXPECT_EQ(conv_detail::choose_split(32, 288, 1568, tile, 132, 32).splits, 1);
  EXPECT_EQ(conv_detail::choose_split(4096, 288, 6272, sm80::conv_tile_m(4096, false, true), 132).splits, 1);
}

TEST(ConvSplitK, TheWgmmaKernelCutsLongerSlices) {
  // fprop 7x7 512 -> 512 3x3 at N = 32: GEMM 1568 x 512 x 4608, 13 x 4 = 52 tiles of 128, 144
  // K tiles of 32. sm80: min(264/52 = 5, 144/16 = 9) = 5 slices of 29; wgmma: min(5, 144/32 = 4) = 4 of 36.
  EXPECT_EQ(conv_detail::choose_split(1568, 512, 4608, sm80::conv_tile_n(512, false, true, false), 132).splits, 5);
  const conv_detail::Split s = conv_detail::choose_split(1568, 512, 4608, sm80::conv_tile_n(512, false, true, true), 132);
  EXPECT_EQ(s.splits, 4);
  EXPECT_EQ(s.k_tiles_per_split, 36);
  // The TMA kernel's 128x128 tiles at one block an SM (the deep form, conv2d_plan.cpp's
  // finish): min(132/52 = 2, 72/16 = 4) = 2 slices of 36 K tiles of 64, 104 items.
  sm80::ConvTile tma = sm80::conv_tile_n(512, false, true, true);
  tma.tma = true, tma.k = sm80::kConvTileKTma;
  const conv_detail::Split deep = conv_detail::choose_split(1568, 512, 4608, tma, 132, 1, 1);
  EXPECT_EQ(deep.splits, 2);
  EXPECT_EQ(deep.k_tiles_per_split, 36);
}

}  // namespace
}  // namespace tessel
