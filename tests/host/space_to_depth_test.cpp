// Space-to-depth (tessel/conv/space_to_depth.hpp): a strided layer equals the stride-1 layer of
// its copies X' and W', built element by element from space_to_depth_{x,w}_source as the
// device kernels build them (src/conv/space_to_depth.cu). Exact, in integers, on random layers
// of every stride, pad, filter size, mode and channel count up to 9.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "conv_test_util.hpp"
#include "tessel/conv/space_to_depth.hpp"
#include "tessel/runtime/conv2d_problem_check.hpp"

namespace tessel {
namespace {

// Y (N, P, Q, K) by the definition (for_each_term), X and W as given.
std::vector<long long> convolve(const Conv2dProblem& pb, const std::vector<long long>& x,
                                const std::vector<long long>& f) {
  std::vector<long long> y(std::size_t(pb.n) * pb.p() * pb.q() * pb.k, 0);
  conv_test::for_each_term(pb, [&](int n, int p, int q, int k, int r, int s, int c, int h, int w) {
    y[((std::size_t(n) * pb.p() + p) * pb.q() + q) * pb.k + k] +=
        x[((std::size_t(n) * pb.h + h) * pb.w + w) * pb.c + c] * f[((std::size_t(k) * pb.r + r) * pb.s + s) * pb.c + c];
  });
  return y;
}

// One of the copies, (outer, rows, cols, C'), each element from `source` or zero.
template <class Source>
std::vector<long long> copy(const std::vector<long long>& from, int outer, int rows, int cols, int channels,
                            Source source) {
  std::vector<long long> out;
  for (int o = 0; o < outer; ++o)
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x)
        for (int c = 0; c < channels; ++c) {
          const long long i = source(o, y, x, c);
          out.push_back(i < 0 ? 0 : from.at(std::size_t(i)));
        }
  return out;
}

TEST(SpaceToDepth, TheStemIsAStrideOneLayerOfSixteenChannels) {
  const Conv2dProblem stem{32, 224, 224, 3, 64, 7, 7, 3, 3, 2, 2};
  const Conv2dProblem s = space_to_depth_problem(stem);
  EXPECT_EQ(s.h, 115);
  EXPECT_EQ(s.w, 115);
  EXPECT_EQ(s.c, 16);
  EXPECT_EQ(s.r, 4);
  EXPECT_EQ(s.s, 4);
  EXPECT_EQ(s.p(), 112);
  EXPECT_EQ(s.q(), 112);
  // X'[n, y, x, (dh*2 + dw)*3 + c] = X[n, 2y + dh - 3, 2x + dw - 3, c]
  EXPECT_EQ(space_to_depth_x_source(stem, 0, 0, 0, 0), -1);                      // row -3
  EXPECT_EQ(space_to_depth_x_source(stem, 1, 2, 2, 3 * 3 + 2), ((224LL + 2) * 224 + 2) * 3 + 2);
  EXPECT_EQ(space_to_depth_x_source(stem, 0, 5, 5, 12), -1);                      // a padding channel
  // W'[k, i, j, (dh*2 + dw)*3 + c] = W[k, 2i + dh, 2j + dw, c]: tap 7 is past the filter
  EXPECT_EQ(space_to_depth_w_source(stem, 1, 3, 0, 0), ((1 * 7 + 6) * 7 + 0) * 3 + 0);
  EXPECT_EQ(space_to_depth_w_source(stem, 1, 3, 0, 2 * 3), -1);
}

TEST(SpaceToDepth, RandomStridedLayersEqualTheirStrideOneForm) {
  std::mt19937 rng(2026);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0;
  for (int i = 0; checked < 400; ++i) {
    Conv2dProblem pb;
    pb.n = pick(1, 2), pb.h = pick(1, 17), pb.w = pick(1, 17), pb.c = pick(1, 9), pb.k = pick(1, 3);
    pb.r = pick(1, 8), pb.s = pick(1, 8), pb.pad_h = pick(0, 4), pb.pad_w = pick(0, 4);
    pb.stride_h = pick(1, 4), pb.stride_w = pick(1, 4);
    pb.mode = pick(0, 1) ? ConvMode::kConvolution : ConvMode::kCrossCorrelation;
    if (!validate(pb).ok()) continue;
    SCOPED_TRACE(conv_test::describe(pb));
    const conv_test::Tensors t = conv_test::random_tensors(pb, 7000 + i);
    const Conv2dProblem s = space_to_depth_problem(pb);
    ASSERT_TRUE(validate(s).ok()) << validate(s).message();
    EXPECT_EQ(s.c % 8, 0);
    const std::vector<long long> xs = copy(t.x, s.n, s.h, s.w, s.c, [&](int n, int y, int x, int c) {
      return space_to_depth_x_source(pb, n, y, x, c);
    });
    const std::vector<long long> ws = copy(t.f, s.k, s.r, s.s, s.c, [&](int k, int y, int x, int c) {
      return space_to_depth_w_source(pb, k, y, x, c);
    });
    ASSERT_EQ(convolve(s, xs, ws), convolve(pb, t.x, t.f));
    ++checked;
  }
}

}  // namespace
}  // namespace tessel
