// The dgrad and wgrad operands of the implicit GEMMs, run on the host with exact integer
// arithmetic (include/tessel/conv/{dgrad,wgrad}_operand_sm80.hpp, index_counter.hpp):
//   - IndexCounter's division-free advance agrees with division;
//   - dgrad's stride phases, each a GEMM over fprop's activation iterator on dY and the filter
//     gather, scattered back by RowScatter, write every element of dX exactly once and equal
//     the definition dX[n,h,w,c] = sum dY[n,p,q,k] W[k,r,s,c]; the optimized iterator on a
//     phase visits the analytic iterator's addresses;
//   - wgrad's activation gather times dY^T equals dW[k,r,s,c] = sum dY[n,p,q,k] X[n,h,w,c].
// Problems are generated from fixed seeds; a failure prints the seed and the problem.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tessel/conv/dgrad_operand_sm80.hpp"
#include "tessel/conv/wgrad_operand_sm80.hpp"
#include "tessel/runtime/conv2d_problem_check.hpp"
#include "conv_test_util.hpp"

namespace tessel {
namespace {

using namespace conv_test;

// A small valid problem from `seed`; strides up to 4 and dilations up to 3 so that phases
// with several, one and no taps all occur.
Conv2dProblem random_problem(std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (;;) {
    Conv2dProblem pb;
    pb.n = uniform(1, 2);
    pb.h = uniform(1, 10);
    pb.w = uniform(1, 10);
    pb.groups = uniform(0, 2) == 0 ? uniform(2, 3) : 1;
    pb.c = uniform(1, 4) * pb.groups;
    pb.k = uniform(1, 3) * pb.groups;
    pb.r = uniform(1, 5);
    pb.s = uniform(1, 5);
    pb.pad_h = uniform(0, 3);
    pb.pad_w = uniform(0, 3);
    pb.stride_h = uniform(1, 4);
    pb.stride_w = uniform(1, 4);
    pb.dilation_h = uniform(1, 3);
    pb.dilation_w = uniform(1, 3);
    pb.mode = uniform(0, 1) ? ConvMode::kConvolution : ConvMode::kCrossCorrelation;
    if (validate(pb).ok()) return pb;
  }
}

constexpr std::uint32_t kFirstSeed = 4242;
constexpr int kProblems = 600;

TEST(IndexCounter, AdvanceAgreesWithDivision) {
  std::mt19937 rng(kFirstSeed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int t = 0; t < 2000; ++t) {
    const int middle = uniform(1, 9), inner = uniform(1, 9), step = uniform(1, 200), start = uniform(0, 500);
    const IndexCounterParams params = make_index_counter_params(middle, inner, step);
    IndexCounter c = IndexCounter::at(start, params);
    for (int j = 1; j <= 20; ++j) {
      c.advance(params);
      const IndexCounter want = IndexCounter::at(start + j * step, params);
      ASSERT_TRUE(c.outer == want.outer && c.middle == want.middle && c.inner == want.inner)
          << "extents (" << middle << ", " << inner << "), step " << step << ", start " << start << ", advance "
          << j << ": (" << c.outer << ", " << c.middle << ", " << c.inner << ") != (" << want.outer << ", "
          << want.middle << ", " << want.inner << ")";
    }
  }
}

TEST(DgradPhase, ExampleFromTheHeader) {
  Conv2dProblem pb;
  pb.h = 5, pb.r = 3, pb.pad_h = 1, pb.stride_h = 2;  // P = 3
  const DgradPhase even = make_dgrad_phase(pb, 0, 0), odd = make_dgrad_phase(pb, 1, 0);
  EXPECT_EQ(even.rows, 3);
  EXPECT_EQ(even.taps_r, 1);
  EXPECT_EQ(even.r_first, 1);
  EXPECT_EQ(odd.rows, 2);
  EXPECT_EQ(odd.taps_r, 2);
  EXPECT_EQ(odd.r_first, 0);
  EXPECT_EQ(odd.r_step, 2);
}

// dgrad as the sum of its phases' implicit GEMMs, exactly as the kernel runs them (the GEMM
// K index in the kernel's order; zero where an operand is invalid), equals the definition.
TEST(DgradPhase, PhaseGemmsScatteredAreTheDefinition) {
  for (int t = 0; t < kProblems; ++t) {
    const std::uint32_t seed = kFirstSeed + t;
    const Conv2dProblem pb = random_problem(seed);
    const Tensors in = random_tensors(pb, seed);
    const int cg = pb.c / pb.groups, kg = pb.k / pb.groups;
    std::vector<long long> direct(in.x.size(), 0), gemm(in.x.size(), 0);
    std::vector<int> written(in.x.size(), 0);
    for_each_term(pb, [&](int n, int p, int q, int k, int r, int s, int c, int h, int w) {
      direct[((std::size_t(n) * pb.h + h) * pb.w + w) * pb.c + (k / kg) * cg + c] +=
          in.dy[((std::size_t(n) * pb.p() + p) * pb.q() + q) * pb.k + k] *
          in.f[((std::size_t(k) * pb.r + r) * pb.s + s) * cg + c];
    });
    for (int g = 0; g < pb.groups; ++g) {
      for (int ph = 0; ph < pb.stride_h; ++ph) {
        for (int pw = 0; pw < pb.stride_w; ++pw) {
          const DgradPhase phase = make_dgrad_phase(pb, ph, pw);
          const RowScatter scatter = dgrad_row_scatter(pb, phase);
          // Group 0's operands, moved to group g by the kernel's batch strides: K/G filters of dY,
          // K/G * R*S*C/G elements of W.
          const ConvDgradFilterB b = ConvDgradFilterB::make(pb, phase, 1);
          const long long a_shift = (long long)g * kg, b_shift = (long long)g * kg * pb.r * pb.s * cg;
          const int m = pb.n * phase.rows * phase.cols, k_extent = phase.taps_r * phase.taps_s * kg;
          for (int row = 0; row < m; ++row) {
            const long long d = scatter.row_start(row, pb.c) + g * cg;
            for (int c = 0; c < cg; ++c) {
              ++written[d + c];
              for (int kk = 0; kk < k_extent; ++kk) {
                ActivationIteratorAnalytic<1> a(phase.fprop, 0, {row, 1, kk}, 1, phase.rows, phase.cols);
                const IndexCounter at = IndexCounter::at(kk, b.counter);
                ASSERT_TRUE(b.valid(c, at));
                if (a.valid(0)) gemm[d + c] += in.dy[a_shift + a.offset(0)] * in.f[b_shift + b.offset(c, at)];
              }
            }
          }
        }
      }
    }
    ASSERT_EQ(written, std::vector<int>(in.x.size(), 1)) << "seed " << seed << ": " << describe(pb);
    ASSERT_EQ(gemm, direct) << "seed " << seed << ": " << describe(pb);
  }
}

// On every phase, the optimized iterator (make_dgrad_activation_params) visits the analytic
// iterator's addresses with the same predicates, for thread slices of 4 rows through all K
// tiles, tile_k = 32 (the kernels') and 5.
TEST(DgradPhase, OptimizedIteratorVisitsTheAnalyticAddresses) {
  constexpr int kRows = 4;
  for (int t = 0; t < kProblems; ++t) {
    const std::uint32_t seed = kFirstSeed + t;
    const Conv2dProblem pb = random_problem(seed);
    const int kg = pb.k / pb.groups;
    for (int tile_k : {5, 32}) {
      for (int ph = 0; ph < pb.stride_h; ++ph) {
        for (int pw = 0; pw < pb.stride_w; ++pw) {
          const DgradPhase phase = make_dgrad_phase(pb, ph, pw);
          if (phase.taps_r * phase.taps_s == 0) continue;
          const ActivationParams params = make_dgrad_activation_params(phase, tile_k);
          const int m = pb.n * phase.rows * phase.cols, k_tiles = (phase.taps_r * phase.taps_s * kg + tile_k - 1) / tile_k;
          const int g = int(seed % unsigned(pb.groups));
          for (int m0 = 0; m0 < m; m0 += 2 * kRows) {
            for (int row = 0; row < 2; ++row) {
              for (int j = 0; j < tile_k; ++j) {
                const ThreadSlice slice{m0 + row, 2, j};
                ActivationIteratorAnalytic<kRows> analytic(phase.fprop, g, slice, tile_k, phase.rows, phase.cols);
                ActivationIteratorOptimized<kRows> optimized(params, g, slice);
                for (int step = 0; step <= k_tiles; ++step) {
                  for (int i = 0; i < kRows; ++i) {
                    const bool valid = analytic.valid(i);
                    ASSERT_EQ(optimized.valid(i), valid)
                        << "seed " << seed << ": " << describe(pb) << ", phase " << ph << "," << pw << ", row "
                        << slice.first_row + 2 * i << ", step " << step;
                    if (valid) ASSERT_EQ(optimized.offset(i), analytic.offset(i)) << "seed " << seed;
                  }
                  analytic.advance();
                  optimized.advance();
                }
              }
            }
          }
        }
      }
    }
  }
}

// wgrad as the kernel runs it: A = dY^T, B through ConvWgradActivationB with the K index
// (n, p, q) of an IndexCounter, equals the definition.
TEST(WgradActivationB, ImplicitGemmIsTheDefinition) {
  for (int t = 0; t < kProblems; ++t) {
    const std::uint32_t seed = kFirstSeed + t;
    const Conv2dProblem pb = random_problem(seed);
    const Tensors in = random_tensors(pb, seed);
    const int cg = pb.c / pb.groups, kg = pb.k / pb.groups, crs_extent = pb.r * pb.s * cg;
    const int npq_extent = pb.n * pb.p() * pb.q();
    std::vector<long long> direct(in.f.size(), 0), gemm(in.f.size(), 0);
    for_each_term(pb, [&](int n, int p, int q, int k, int r, int s, int c, int h, int w) {
      direct[((std::size_t(k) * pb.r + r) * pb.s + s) * cg + c] +=
          in.dy[((std::size_t(n) * pb.p() + p) * pb.q() + q) * pb.k + k] *
          in.x[((std::size_t(n) * pb.h + h) * pb.w + w) * pb.c + (k / kg) * cg + c];
    });
    for (int g = 0; g < pb.groups; ++g) {
      const ConvWgradActivationB b = ConvWgradActivationB::make(pb, 1);  // group 0's; group g at + g*C/G
      for (int crs = 0; crs < crs_extent; ++crs) {
        const ConvWgradActivationB::Run run = b.run(crs);
        IndexCounter at = IndexCounter::at(0, b.counter);
        for (int npq = 0; npq < npq_extent; ++npq, at.advance(b.counter)) {
          if (!b.valid(run, at)) continue;
          for (int k = 0; k < kg; ++k) {
            gemm[std::size_t(g * kg + k) * crs_extent + crs] +=
                in.dy[std::size_t(npq) * pb.k + g * kg + k] * in.x[g * cg + b.offset(run, at)];
          }
        }
        ASSERT_FALSE(b.valid(run, at)) << "past N*P*Q must be invalid; seed " << seed;
      }
      ASSERT_FALSE(b.run(crs_extent).inside);
    }
    ASSERT_EQ(gemm, direct) << "seed " << seed << ": " << describe(pb);
  }
}

}  // namespace
}  // namespace tessel
