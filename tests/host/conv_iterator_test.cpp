// The fprop activation iterators (include/tessel/conv/activation_iterator.hpp):
//   - the analytic iterator agrees with the convolution's direct formula on every element of
//     the implicit GEMM matrix, and the implicit GEMM it defines is the direct convolution;
//   - the optimized iterator visits exactly the analytic iterator's addresses with the same
//     predicates, for every thread slice and every advance() step.
// Problems are generated from fixed seeds; a failure prints the seed and the problem.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tessel/conv/activation_iterator.hpp"
#include "tessel/conv/problem.hpp"
#include "tessel/runtime/conv2d_problem_check.hpp"
#include "conv_test_util.hpp"

namespace tessel {
namespace {

using namespace conv_test;

// A small valid problem drawn from `seed`: every field varies, P and Q >= 1.
Conv2dProblem random_problem(std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (;;) {
    Conv2dProblem pb;
    pb.n = uniform(1, 3);
    pb.h = uniform(1, 11);
    pb.w = uniform(1, 11);
    pb.groups = uniform(0, 2) == 0 ? uniform(2, 4) : 1;
    pb.c = uniform(1, 6) * pb.groups;
    pb.k = uniform(1, 2) * pb.groups;
    pb.r = uniform(1, 6);
    pb.s = uniform(1, 6);
    pb.pad_h = uniform(0, 3);
    pb.pad_w = uniform(0, 3);
    pb.stride_h = uniform(1, 3);
    pb.stride_w = uniform(1, 3);
    pb.dilation_h = uniform(1, 3);
    pb.dilation_w = uniform(1, 3);
    pb.mode = uniform(0, 1) ? ConvMode::kConvolution : ConvMode::kCrossCorrelation;
    if (validate(pb).ok()) return pb;
  }
}

constexpr std::uint32_t kFirstSeed = 20261123;
constexpr int kProblems = 1000;

// One element of the implicit GEMM matrix as the direct formula gives it.
struct DirectElement {
  int row, column;  // npq, crs
  ActivationCoord x;
  bool inside;  // 0 <= h < H and 0 <= w < W
  long long offset;
};

// Every element of group g's activation matrix, enumerated by the convolution's own loops
// (rows n, p, q; columns r, s, c, each index counted, not computed), so that no division of
// the iterator is repeated here.
std::vector<DirectElement> direct_elements(const Conv2dProblem& pb, int g) {
  std::vector<DirectElement> out;
  const int cg = pb.c / pb.groups;
  int row = 0;
  for (int n = 0; n < pb.n; ++n) {
    for (int p = 0; p < pb.p(); ++p) {
      for (int q = 0; q < pb.q(); ++q, ++row) {
        int column = 0;
        for (int r = 0; r < pb.r; ++r) {
          for (int s = 0; s < pb.s; ++s) {
            for (int c = 0; c < cg; ++c, ++column) {
              const bool flip = pb.mode == ConvMode::kConvolution;
              const int tap_h = flip ? pb.r - 1 - r : r, tap_w = flip ? pb.s - 1 - s : s;
              DirectElement e;
              e.row = row;
              e.column = column;
              e.x = {n, p * pb.stride_h - pb.pad_h + tap_h * pb.dilation_h,
                     q * pb.stride_w - pb.pad_w + tap_w * pb.dilation_w, g * cg + c};
              e.inside = e.x.h >= 0 && e.x.h < pb.h && e.x.w >= 0 && e.x.w < pb.w;
              e.offset = (((long long)n * pb.h + e.x.h) * pb.w + e.x.w) * pb.c + e.x.c;
              out.push_back(e);
            }
          }
        }
      }
    }
  }
  return out;
}

TEST(ActivationIteratorAnalytic, MatchesTheDirectFormulaOnEveryElement) {
  for (int t = 0; t < kProblems; ++t) {
    const std::uint32_t seed = kFirstSeed + t;
    const Conv2dProblem pb = random_problem(seed);
    for (int g = 0; g < pb.groups; ++g) {
      for (const DirectElement& e : direct_elements(pb, g)) {
        ActivationIteratorAnalytic<1> it(pb, g, {e.row, 1, e.column}, 1);
        const ActivationCoord x = it.at(0);
        if (x.n != e.x.n || x.h != e.x.h || x.w != e.x.w || x.c != e.x.c ||
            it.valid(0) != e.inside || (e.inside && it.offset(0) != e.offset)) {
          FAIL() << "seed " << seed << ": " << describe(pb) << ", group " << g << ", row " << e.row
                 << ", column " << e.column << ": iterator (" << x.n << "," << x.h << "," << x.w
                 << "," << x.c << ") valid " << it.valid(0) << " offset " << it.offset(0)
                 << ", direct (" << e.x.n << "," << e.x.h << "," << e.x.w << "," << e.x.c
                 << ") inside " << e.inside << " offset " << e.offset;
        }
      }
    }
  }
}

TEST(ActivationIteratorAnalytic, RowsAndColumnsPastTheMatrixAreInvalid) {
  for (int t = 0; t < kProblems; ++t) {
    const std::uint32_t seed = kFirstSeed + t;
    const Conv2dProblem pb = random_problem(seed);
    const ConvGemmExtents e = fprop_gemm_extents(pb);
    for (int extra = 0; extra < 3; ++extra) {
      ActivationIteratorAnalytic<1> past_rows(pb, 0, {int(e.m) + extra, 1, 0}, 1);
      ActivationIteratorAnalytic<1> past_columns(pb, 0, {0, 1, int(e.k) + extra}, 1);
      ASSERT_FALSE(past_rows.valid(0)) << "seed " << seed << ": " << describe(pb);
      ASSERT_FALSE(past_columns.valid(0)) << "seed " << seed << ": " << describe(pb);
    }
  }
}

TEST(ActivationIteratorAnalytic, AdvanceMovesOneTileDeeper) {
  const Conv2dProblem pb = random_problem(kFirstSeed);
  ActivationIteratorAnalytic<2> it(pb, 0, {1, 3, 5}, 16);
  it.advance();
  it.advance();
  EXPECT_EQ(it.column(), 5 + 2 * 16);
}

// fprop as an implicit GEMM, Y[npq, k] = sum_crs A[npq, crs] * B[crs, k] with A read through
// the analytic iterator (zero where invalid) and B through fprop_filter_offset, equals the
// definition Y[n,p,q,k] += X[n,h,w,g*C/G+c] * W[k,r,s,c], for every mode, group count, pad,
// stride and dilation.
TEST(ActivationIteratorAnalytic, ImplicitGemmIsTheDirectConvolution) {
  for (int t = 0; t < kProblems; ++t) {
    const std::uint32_t seed = kFirstSeed + t;
    const Conv2dProblem pb = random_problem(seed);
    const Tensors in = random_tensors(pb, seed);
    const int cg = pb.c / pb.groups, kg = pb.k / pb.groups;
    std::vector<long long> direct(in.dy.size(), 0), gemm(in.dy.size(), 0);
    for_each_term(pb, [&](int n, int p, int q, int k, int r, int s, int c, int h, int w) {
      direct[((std::size_t(n) * pb.p() + p) * pb.q() + q) * pb.k + k] +=
          in.x[((std::size_t(n) * pb.h + h) * pb.w + w) * pb.c + (k / kg) * cg + c] *
          in.f[((std::size_t(k) * pb.r + r) * pb.s + s) * cg + c];
    });
    const ConvGemmExtents e = fprop_gemm_extents(pb);
    for (int npq = 0; npq < e.m; ++npq) {
      for (int k = 0; k < e.n; ++k) {
        for (int crs = 0; crs < e.k; ++crs) {
          ActivationIteratorAnalytic<1> a(pb, k / kg, {npq, 1, crs}, 1);
          if (a.valid(0)) {
            gemm[std::size_t(npq) * pb.k + k] +=
                in.x[a.offset(0)] * in.f[fprop_filter_offset(pb, k, crs)];
          }
        }
      }
    }
    ASSERT_EQ(gemm, direct) << "seed " << seed << ": " << describe(pb);
  }
}

// dgrad as an implicit GEMM through dgrad_output_grad_at and dgrad_filter_offset equals the
// definition's scatter dX[n,h,w,g*C/G+c] += dY[n,p,q,k] * W[k,r,s,c], strides > 1 included.
TEST(DgradMapping, ImplicitGemmIsTheDefinition) {
  for (int t = 0; t < kProblems; ++t) {
    const std::uint32_t seed = kFirstSeed + t;
    const Conv2dProblem pb = random_problem(seed);
    const Tensors in = random_tensors(pb, seed);
    const int cg = pb.c / pb.groups, kg = pb.k / pb.groups;
    std::vector<long long> direct(in.x.size(), 0), gemm(in.x.size(), 0);
    for_each_term(pb, [&](int n, int p, int q, int k, int r, int s, int c, int h, int w) {
      direct[((std::size_t(n) * pb.h + h) * pb.w + w) * pb.c + (k / kg) * cg + c] +=
          in.dy[((std::size_t(n) * pb.p() + p) * pb.q() + q) * pb.k + k] *
          in.f[((std::size_t(k) * pb.r + r) * pb.s + s) * cg + c];
    });
    const ConvGemmExtents e = dgrad_gemm_extents(pb);
    for (int nhw = 0; nhw < e.m; ++nhw) {
      for (int c = 0; c < e.n; ++c) {
        for (int krs = 0; krs < e.k; ++krs) {
          const OutputCoord y = dgrad_output_grad_at(pb, c / cg, nhw, krs);
          if (y.valid) {
            gemm[std::size_t(nhw) * pb.c + c] +=
                in.dy[output_offset(pb, y)] * in.f[dgrad_filter_offset(pb, krs, c)];
          }
        }
      }
    }
    ASSERT_EQ(gemm, direct) << "seed " << seed << ": " << describe(pb);
  }
}

// wgrad as an implicit GEMM, dY^T times fprop's activation matrix read through the analytic
// iterator, equals the definition's dW[k,r,s,c] += dY[n,p,q,k] * X[n,h,w,g*C/G+c].
TEST(WgradMapping, ImplicitGemmIsTheDefinition) {
  for (int t = 0; t < kProblems; ++t) {
    const std::uint32_t seed = kFirstSeed + t;
    const Conv2dProblem pb = random_problem(seed);
    const Tensors in = random_tensors(pb, seed);
    const int cg = pb.c / pb.groups, kg = pb.k / pb.groups;
    std::vector<long long> direct(in.f.size(), 0), gemm(in.f.size(), 0);
    for_each_term(pb, [&](int n, int p, int q, int k, int r, int s, int c, int h, int w) {
      direct[((std::size_t(k) * pb.r + r) * pb.s + s) * cg + c] +=
          in.dy[((std::size_t(n) * pb.p() + p) * pb.q() + q) * pb.k + k] *
          in.x[((std::size_t(n) * pb.h + h) * pb.w + w) * pb.c + (k / kg) * cg + c];
    });
    const ConvGemmExtents e = wgrad_gemm_extents(pb);
    for (int k = 0; k < e.m; ++k) {
      for (int crs = 0; crs < e.n; ++crs) {
        for (int npq = 0; npq < e.k; ++npq) {
          ActivationIteratorAnalytic<1> b(pb, k / kg, {npq, 1, crs}, 1);
          if (b.valid(0)) {
            gemm[std::size_t(k) * e.n + crs] +=
                in.dy[std::size_t(npq) * pb.k + k] * in.x[b.offset(0)];
          }
        }
      }
    }
    ASSERT_EQ(gemm, direct) << "seed " << seed << ": " << describe(pb);
  }
}

// Walks every thread slice of every M tile of group g's matrix through all K tiles (and one
// step past them), comparing the optimized iterator with the analytic one at every row.
// The tile is kRows * row_stride rows by tile_k columns; thread (t, j) owns rows
// m0 + t + i*row_stride and column j of each K tile. Returns a failure description or "".
template <int kRows>
std::string compare_iterators(const Conv2dProblem& pb, int g, int row_stride, int tile_k) {
  const ConvGemmExtents e = fprop_gemm_extents(pb);
  const ActivationParams params = make_activation_params(pb, tile_k);
  const int tile_m = kRows * row_stride;
  const int k_tiles = int((e.k + tile_k - 1) / tile_k);
  for (int m0 = 0; m0 < e.m; m0 += tile_m) {
    for (int t = 0; t < row_stride; ++t) {
      for (int j = 0; j < tile_k; ++j) {
        const ThreadSlice slice{m0 + t, row_stride, j};
        ActivationIteratorAnalytic<kRows> analytic(pb, g, slice, tile_k);
        ActivationIteratorOptimized<kRows> optimized(params, g, slice);
        for (int step = 0; step <= k_tiles; ++step) {
          for (int i = 0; i < kRows; ++i) {
            const bool valid = analytic.valid(i);
            const bool same = optimized.valid(i) == valid &&
                              (!valid || optimized.offset(i) == analytic.offset(i));
            if (!same) {
              std::ostringstream out;
              out << describe(pb) << ", group " << g << ", kRows " << kRows << ", row_stride "
                  << row_stride << ", tile_k " << tile_k << ", slice {" << slice.first_row << ", "
                  << row_stride << ", " << j << "}, step " << step << ", row " << i
                  << ": analytic valid " << valid << " offset " << analytic.offset(i)
                  << ", optimized valid " << optimized.valid(i) << " offset " << optimized.offset(i)
                  << " (r, s, c) = (" << optimized.filter_r() << ", " << optimized.filter_s()
                  << ", " << optimized.channel() << ")";
              return out.str();
            }
          }
          analytic.advance();
          optimized.advance();
        }
      }
    }
  }
  return "";
}

template <int kRows>
void expect_optimized_equals_analytic() {
  for (int t = 0; t < kProblems; ++t) {
    const std::uint32_t seed = kFirstSeed + t;
    const Conv2dProblem pb = random_problem(seed);
    ASSERT_TRUE(ActivationIteratorOptimized<kRows>::supports(pb));
    std::mt19937 rng(seed);
    const int cg = pb.c / pb.groups;
    // tile_k below, at and above C/G and S*C/G, so that advance() takes every carry path
    const int tile_ks[] = {1, cg, cg + 1, 3 * cg - 1, pb.s * cg + 2, 32};
    for (int tile_k : tile_ks) {
      if (tile_k < 1) continue;
      const int row_stride = std::uniform_int_distribution<int>(1, 3)(rng);
      const int g = std::uniform_int_distribution<int>(0, pb.groups - 1)(rng);
      const std::string failure = compare_iterators<kRows>(pb, g, row_stride, tile_k);
      ASSERT_EQ(failure, "") << "seed " << seed;
    }
  }
}

TEST(ActivationIteratorOptimized, VisitsTheAnalyticAddressesOneRowPerThread) {
  expect_optimized_equals_analytic<1>();
}

TEST(ActivationIteratorOptimized, VisitsTheAnalyticAddressesFourRowsPerThread) {
  expect_optimized_equals_analytic<4>();
}

TEST(ActivationIteratorOptimized, VisitsTheAnalyticAddressesThirtyTwoRowsPerThread) {
  expect_optimized_equals_analytic<32>();
}

// The full-size filter the masks allow (R = S = 32), dilated and flipped, against the
// analytic iterator.
TEST(ActivationIteratorOptimized, HandlesTheLargestFilter) {
  Conv2dProblem pb;
  pb.n = 1, pb.h = 40, pb.w = 36, pb.c = 2, pb.k = 1, pb.r = 32, pb.s = 32;
  pb.pad_h = 5, pb.pad_w = 3, pb.stride_h = 3, pb.stride_w = 2;
  pb.mode = ConvMode::kConvolution;
  ASSERT_TRUE(validate(pb).ok()) << validate(pb).message();
  ASSERT_TRUE(ActivationIteratorOptimized<8>::supports(pb));
  EXPECT_EQ(compare_iterators<8>(pb, 0, 2, 16), "");
  EXPECT_EQ(compare_iterators<8>(pb, 0, 1, 70), "");
}

TEST(ActivationIteratorOptimized, RefusesFiltersWiderThanItsMasks) {
  Conv2dProblem pb;
  pb.h = pb.w = 64, pb.r = 3, pb.s = 33;
  EXPECT_FALSE(ActivationIteratorOptimized<4>::supports(pb));
  pb.r = 33, pb.s = 3;
  EXPECT_FALSE(ActivationIteratorOptimized<4>::supports(pb));
}

TEST(ActivationIteratorOptimized, PredicateMaskHasOneBitPerValidRow) {
  const Conv2dProblem pb = random_problem(kFirstSeed + 7);
  const ActivationParams params = make_activation_params(pb, 4);
  ActivationIteratorOptimized<8> it(params, 0, {0, 1, 0});
  for (int step = 0; step < 5; ++step, it.advance()) {
    unsigned expected = 0;
    for (int i = 0; i < 8; ++i) expected |= unsigned(it.valid(i)) << i;
    EXPECT_EQ(it.predicate(), expected) << describe(pb);
  }
}

TEST(FpropFilterOffset, IsTheRowMajorKByRSCMatrix) {
  Conv2dProblem pb;
  pb.h = pb.w = 8, pb.c = 12, pb.k = 6, pb.r = 3, pb.s = 2, pb.groups = 3;  // C/G = 4
  // W[k, r, s, c] of KRSC at column crs = (r*S + s)*C/G + c
  EXPECT_EQ(fprop_filter_offset(pb, 5, (2 * 2 + 1) * 4 + 3), ((5 * 3 + 2) * 2 + 1) * 4 + 3);
}

}  // namespace
}  // namespace tessel
