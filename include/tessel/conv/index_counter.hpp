// IndexCounter: a GEMM K index kept as three mixed-radix digits (outer, middle, inner) and
// moved by a fixed step without dividing, for the operand loaders whose K index is a
// coordinate tuple: dgrad's filter (t, u, k) taps x filters, wgrad's activations (n, p, q).
//
//   index = (outer * middle_extent + middle) * inner_extent + inner
//
// e.g. (n, p, q) over P = Q = 7 stepped by a K tile of 32 = (0, 4, 4): from (0, 6, 5) = 47,
// inner 5 + 4 = 9 -> 2 carry 1, middle 6 + 4 + 1 = 11 -> 4 carry 1: (1, 4, 2) = 79.
// The outer digit has no bound: the caller compares it with its extent (past it, the index is
// past the GEMM's K).
#pragma once

#include "tessel/layout/config.hpp"

namespace tessel {

struct IndexCounterParams {
  int middle_extent, inner_extent;          // >= 1
  int step_outer, step_middle, step_inner;  // the step as digits: middle < extent, inner < extent
};

// Digits of `step` for extents (middle, inner); host or device.
TESSEL_HOST_DEVICE inline IndexCounterParams make_index_counter_params(int middle_extent,
                                                                       int inner_extent, int step) {
  return {middle_extent, inner_extent, step / inner_extent / middle_extent,
          step / inner_extent % middle_extent, step % inner_extent};
}

struct IndexCounter {
  int outer, middle, inner;

  TESSEL_HOST_DEVICE static IndexCounter at(int index, IndexCounterParams const& c) {
    return {index / c.inner_extent / c.middle_extent, index / c.inner_extent % c.middle_extent,
            index % c.inner_extent};
  }

  // index += step: each digit carries at most once, as each step digit is below its extent.
  TESSEL_HOST_DEVICE void advance(IndexCounterParams const& c) {
    inner += c.step_inner;
    middle += c.step_middle;
    outer += c.step_outer;
    if (inner >= c.inner_extent) {
      inner -= c.inner_extent;
      ++middle;
    }
    if (middle >= c.middle_extent) {
      middle -= c.middle_extent;
      ++outer;
    }
  }
};

}  // namespace tessel
