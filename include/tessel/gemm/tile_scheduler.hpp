// Which output tile a block computes. Launching blocks in plain row order walks all of B for
// every row of A tiles; grouping `group` rows of tiles and walking down each column of the
// group first keeps the A and B tiles that neighbouring blocks share in L2 (threadblock
// rasterization, seed 004 "Thread Block Swizzle").
#pragma once

#include "tessel/layout/config.hpp"

namespace tessel {

struct TileCoord {
  int m = 0, n = 0;
};

// Block `linear` of num_m x num_n tiles -> its (m, n) tile, in groups of `group` tile rows:
// with group 2 and a 4x3 grid the order is (0,0) (1,0) (0,1) (1,1) (0,2) (1,2) (2,0) (3,0) ...
TESSEL_HOST_DEVICE constexpr TileCoord rasterize(int linear, int num_m, int num_n, int group) {
  const int per_group = group * num_n;
  const int first_m = (linear / per_group) * group;
  const int rows = num_m - first_m < group ? num_m - first_m : group;
  const int in_group = linear % per_group;
  return {first_m + in_group % rows, in_group / rows};
}

}  // namespace tessel
