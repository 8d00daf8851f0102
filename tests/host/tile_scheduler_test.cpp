// Threadblock rasterization visits every tile exactly once, in groups of rows; TileRasterizer
// (the persistent kernel's, by multiplications) visits them in the same order.
#include <gtest/gtest.h>

#include <set>

#include "tessel/gemm/tile_scheduler.hpp"

namespace tessel {
namespace {

TEST(Rasterize, GroupedOrderOfTheDocumentation) {
  const int expected[][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}, {2, 0}, {3, 0}};
  for (int i = 0; i < 8; ++i) {
    TileCoord t = rasterize(i, 4, 3, 2);
    EXPECT_EQ(t.m, expected[i][0]) << i;
    EXPECT_EQ(t.n, expected[i][1]) << i;
  }
}

TEST(Rasterize, EveryTileOnceForManyGridsAndGroups) {
  for (int num_m = 1; num_m <= 13; ++num_m) {
    for (int num_n = 1; num_n <= 11; ++num_n) {
      for (int group : {1, 2, 3, 8}) {
        std::set<std::pair<int, int>> seen;
        for (int i = 0; i < num_m * num_n; ++i) {
          TileCoord t = rasterize(i, num_m, num_n, group);
          ASSERT_TRUE(t.m >= 0 && t.m < num_m && t.n >= 0 && t.n < num_n) << num_m << "x" << num_n << " g" << group;
          seen.insert({t.m, t.n});
        }
        ASSERT_EQ(int(seen.size()), num_m * num_n) << num_m << "x" << num_n << " g" << group;
      }
    }
  }
}

TEST(TileRasterizer, EqualsRasterize) {
  for (int num_m = 1; num_m <= 40; ++num_m) {
    for (int num_n = 1; num_n <= 17; ++num_n) {
      for (int group : {1, 2, 3, 4, 8}) {
        const TileRasterizer raster(num_m, num_n, group);
        for (int i = 0; i < num_m * num_n; ++i) {
          const TileCoord a = rasterize(i, num_m, num_n, group), b = raster(i);
          ASSERT_TRUE(a.m == b.m && a.n == b.n) << num_m << "x" << num_n << " g" << group << " item " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tessel
