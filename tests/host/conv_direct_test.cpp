// The direct depthwise and narrow-group kernels' index arithmetic (tessel/conv/depthwise_direct.hpp),
// checked on the host against its definitions: the shared-memory layout of the filter taps is a
// bijection whose chunks a warp reads as consecutive words, and dgrad's walk over the taps that
// reach dY visits exactly the taps the definition says, with the right dY index.
#include <gtest/gtest.h>

#include <set>
#include <tuple>
#include <vector>

#include "tessel/conv/depthwise_direct.hpp"

namespace tessel {
namespace {

template <int Vec, int CG>
void check_tap_layout() {
  using L = detail::TapLayout<Vec, CG>;
  for (int vectors = 1; vectors <= 8; ++vectors) {
    for (int taps = 1; taps <= 9; ++taps) {
      const int count = taps * vectors * Vec * CG;
      std::vector<int> seen(count, 0);
      for (int e = 0; e < count; ++e) {
        int tap, v, f;
        L::element(e, FastDivmod(vectors), &tap, &v, &f);
        ASSERT_TRUE(tap >= 0 && tap < taps && v >= 0 && v < vectors && f >= 0 && f < Vec * CG) << e;
        // where the kernels read weight f of thread v's tap: chunk f / kChunk, word f % kChunk
        const int at = L::offset(tap, v, vectors) + f / L::kChunk * vectors * L::kChunk + f % L::kChunk;
        ASSERT_EQ(at, e) << "tap " << tap << " thread " << v << " weight " << f;
        ++seen[at];
      }
      for (int e = 0; e < count; ++e) ASSERT_EQ(seen[e], 1) << e;
      // One chunk of the block's threads: thread v's words follow thread v-1's.
      for (int v = 1; v < vectors; ++v)
        ASSERT_EQ(L::offset(taps - 1, v, vectors), L::offset(taps - 1, v - 1, vectors) + L::kChunk);
    }
  }
}

TEST(ConvDirect, TapLayoutIsABijectionReadInConsecutiveWords) {
  check_tap_layout<1, 1>();
  check_tap_layout<8, 1>();
  check_tap_layout<8, 2>();
  check_tap_layout<8, 4>();
  check_tap_layout<8, 8>();
}

// Every (stride, dilation, pad, taps, x): the walk's (tap, dY index) pairs are exactly those of
// the definition, tap t < taps reaching dY index (x + pad - t * dilation) / stride >= 0 where
// that divides.
TEST(ConvDirect, DgradTapWalkVisitsExactlyTheReachingTaps) {
  long long cases = 0;
  for (int stride = 1; stride <= 6; ++stride) {
    for (int dilation = 1; dilation <= 6; ++dilation) {
      const detail::TapWalk walk(stride, dilation);
      for (int taps = 1; taps <= 11; ++taps) {
        for (int pad = 0; pad <= 8; ++pad) {
          for (int x = 0; x <= 24; ++x, ++cases) {
            std::set<std::pair<int, int>> expected, visited;
            for (int t = 0; t < taps; ++t) {
              const int reach = x + pad - t * dilation;
              if (reach >= 0 && reach % stride == 0) expected.insert({t, reach / stride});
            }
            int t0, i0;
            if (walk.first(x + pad, &t0, &i0)) {
              for (int t = t0, i = i0; t < taps && i >= 0; t += walk.step, i -= walk.back) {
                ASSERT_TRUE(visited.insert({t, i}).second);
              }
            }
            ASSERT_EQ(visited, expected) << "stride " << stride << " dilation " << dilation << " taps " << taps
                                         << " pad " << pad << " x " << x;
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 6LL * 6 * 11 * 9 * 25);
}

}  // namespace
}  // namespace tessel
