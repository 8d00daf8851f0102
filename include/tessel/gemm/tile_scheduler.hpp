// Which output tile a block computes. Launching blocks in plain row order walks all of B for
// every row of A tiles; grouping `group` rows of tiles and walking down each column of the
// group first keeps the A and B tiles that neighbouring blocks share in L2 (threadblock
// rasterization, seed 004 "Thread Block Swizzle").
#pragma once

#include "fast_divmod.hpp"
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

// rasterize() for one grid, its divisions prepared once: for a persistent kernel, which
// rasterizes every item it takes (fast_divmod.hpp says why). The last group of rows has
// num_m % group rows where that is not 0.
struct TileRasterizer {
  int num_m = 1, group = 1;
  FastDivmod per_group, rows, last_rows;

  TileRasterizer() = default;
  TESSEL_HOST_DEVICE TileRasterizer(int num_m_, int num_n, int group_)
      : num_m(num_m_), group(group_), per_group(group_ * num_n), rows(group_),
        last_rows(num_m_ % group_ != 0 ? num_m_ % group_ : group_) {}
  TESSEL_HOST_DEVICE TileCoord operator()(int linear) const {
    int g, in_group, m, n;
    per_group.divmod(linear, g, in_group);
    const int first_m = g * group;
    (num_m - first_m < group ? last_rows : rows).divmod(in_group, n, m);
    return {first_m + m, n};
  }
};

}  // namespace tessel
