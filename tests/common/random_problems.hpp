// Random problems drawn from the whole valid input space of tessel's entry points, weighted
// towards the corners where planning and kernels break: sizes 1, images smaller than the
// stride, the filter or the dilated filter, pads larger than the filter, P or Q = 1, groups
// from 1 to depthwise (narrow groups of 2, 4 or 8 channels among them, and groups of 4 to 32
// in whole 64-channel blocks, as in ResNeXt), odd and tiny channel counts, K not a multiple of
// 8, 512 filters over 64 or 128 channels. The host planning fuzz (tests/host/plan_fuzz_test.cpp,
// Scale::kHuge: extents up to the 2^31-element limits) and the randomized device test of the
// API (tests/device/api_random_device_test.cpp, Scale::kSmall: problems a host fp64 reference
// checks quickly) draw from the same generator.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tessel/conv/problem.hpp"
#include "tessel/runtime/conv2d_problem_check.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel::testing {

using Rng = std::mt19937_64;

enum class Scale { kSmall, kHuge };

inline int uniform(Rng& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
inline bool chance(Rng& rng, double p) { return std::bernoulli_distribution(p)(rng); }
inline int one_of(Rng& rng, std::initializer_list<int> values) {
  return *(values.begin() + uniform(rng, 0, int(values.size()) - 1));
}
// Log-uniform in [1, hi]: every order of magnitude equally likely.
inline int log_uniform(Rng& rng, long long hi) {
  const double e = std::uniform_real_distribution<double>(0.0, std::log2(double(hi)))(rng);
  return int(std::clamp<long long>((long long)std::exp2(e), 1, hi));
}

// An extent of the image (H or W), small or corner-weighted.
inline int draw_extent(Rng& rng, Scale scale) {
  if (scale == Scale::kHuge && chance(rng, 0.2)) return log_uniform(rng, 1 << 20);
  switch (uniform(rng, 0, 5)) {
    case 0: return 1;
    case 1: return uniform(rng, 2, 4);
    default: return uniform(rng, 1, 20);
  }
}

// Channels per group: tiny, odd, multiples of 8 and a few around the 64-channel TMA tile.
inline int draw_channels(Rng& rng, Scale scale) {
  if (scale == Scale::kHuge && chance(rng, 0.15)) return log_uniform(rng, 1 << 24);
  switch (uniform(rng, 0, 4)) {
    case 0: return one_of(rng, {1, 2, 3, 4, 5, 7});
    case 1: return 8 * uniform(rng, 1, 4);
    case 2: return one_of(rng, {56, 64, 72, 96, 128});
    default: return uniform(rng, 1, 40);
  }
}

// A valid Conv2dProblem (validate(pb) succeeds).
inline Conv2dProblem random_conv_problem(Rng& rng, Scale scale) {
  for (;;) {
    Conv2dProblem pb;
    pb.n = chance(rng, 0.4) ? 1 : uniform(rng, 1, 4);
    if (scale == Scale::kHuge && chance(rng, 0.1)) pb.n = log_uniform(rng, 1 << 20);
    pb.h = draw_extent(rng, scale), pb.w = draw_extent(rng, scale);
    pb.r = one_of(rng, {1, 1, 2, 3, 3, 5, 7, uniform(rng, 1, 9)});
    pb.s = chance(rng, 0.7) ? pb.r : one_of(rng, {1, 2, 3, 5, 7});
    pb.stride_h = one_of(rng, {1, 1, 1, 2, 2, 3, uniform(rng, 1, 6)});
    pb.stride_w = chance(rng, 0.7) ? pb.stride_h : one_of(rng, {1, 2, 3, 4});
    pb.dilation_h = one_of(rng, {1, 1, 1, 2, 3, uniform(rng, 1, 5)});
    pb.dilation_w = chance(rng, 0.7) ? pb.dilation_h : one_of(rng, {1, 2, 3});
    if (scale == Scale::kHuge && chance(rng, 0.05)) pb.stride_h = log_uniform(rng, 1 << 30);
    if (scale == Scale::kHuge && chance(rng, 0.05)) pb.dilation_w = log_uniform(rng, 1 << 16);
    if (scale == Scale::kHuge && chance(rng, 0.05)) pb.r = log_uniform(rng, 1 << 12);
    // Pads from none to larger than the dilated filter (then the image is mostly padding).
    auto draw_pad = [&](int taps, int dilation) {
      const int span = (taps - 1) * dilation;
      switch (uniform(rng, 0, 4)) {
        case 0: return 0;
        case 1: return span / 2;
        case 2: return span + uniform(rng, 1, 3);
        default: return uniform(rng, 0, span / 2 + 2);
      }
    };
    pb.pad_h = draw_pad(pb.r, pb.dilation_h), pb.pad_w = draw_pad(pb.s, pb.dilation_w);
    if (scale == Scale::kHuge && chance(rng, 0.05)) pb.pad_w = log_uniform(rng, 1 << 20);
    pb.mode = chance(rng, 0.25) ? ConvMode::kConvolution : ConvMode::kCrossCorrelation;
    const int cg = draw_channels(rng, scale), kg = draw_channels(rng, scale);
    switch (uniform(rng, 0, 8)) {
      case 0:  // depthwise: one channel and one filter per group
        pb.groups = draw_channels(rng, scale), pb.c = pb.k = pb.groups;
        break;
      case 1:  // narrow groups (ResNeXt's): as many filters as channels, 2 to 8 of each
        pb.groups = draw_channels(rng, scale), pb.c = pb.k = pb.groups * one_of(rng, {2, 4, 8});
        break;
      case 2:  // grouped
        pb.groups = one_of(rng, {2, 3, 4, 8, 32});
        pb.c = pb.groups * cg, pb.k = pb.groups * kg;
        break;
      case 3: {  // ResNeXt's wider groups: 4 to 32 channels and filters each, whole blocks of 64
        const int width = one_of(rng, {4, 8, 16, 32});
        pb.groups = 64 / width * uniform(rng, 1, scale == Scale::kHuge ? 64 : 4);
        pb.c = pb.k = pb.groups * width;
        break;
      }
      case 4:  // many filters over whole 64-channel blocks: wgrad's explicit im2col (conv2d_plan.hpp)
        pb.groups = 1, pb.c = 64 * uniform(rng, 1, 2), pb.k = one_of(rng, {512, 520});
        break;
      default:
        pb.groups = 1, pb.c = cg, pb.k = kg;
    }
    if (validate(pb).ok()) return pb;
  }
}

// The environment variable `name` as a number, or `fallback` when unset or empty.
inline std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

// Valid problems whose image is smaller than the stride in one dimension, so that a stride
// phase of dgrad has no rows: each killed the process with SIGFPE before planning skipped
// such phases (issue 11).
inline std::vector<Conv2dProblem> image_smaller_than_stride_problems() {
  auto problem = [](int n, int h, int w, int c, int k, int r, int s, int pad_h, int pad_w, int stride_h, int stride_w,
                    int dilation_h, int dilation_w, int groups, ConvMode mode) {
    return Conv2dProblem{n, h, w, c, k, r, s, pad_h, pad_w, stride_h, stride_w, dilation_h, dilation_w, mode, groups};
  };
  return {problem(1, 2, 2, 384, 16, 1, 1, 2, 1, 3, 1, 3, 1, 4, ConvMode::kConvolution),
          problem(3, 1, 1, 96, 7, 2, 2, 1, 2, 1, 3, 1, 1, 1, ConvMode::kCrossCorrelation),
          problem(8, 2, 36, 8, 5, 2, 2, 3, 1, 3, 3, 1, 1, 1, ConvMode::kCrossCorrelation),
          problem(1, 34, 1, 12, 128, 1, 1, 2, 2, 1, 3, 2, 1, 4, ConvMode::kCrossCorrelation)};
}

inline std::string describe(const Conv2dProblem& pb) {
  std::ostringstream s;
  s << "N=" << pb.n << " H=" << pb.h << " W=" << pb.w << " C=" << pb.c << " K=" << pb.k << " R=" << pb.r
    << " S=" << pb.s << " pad=" << pb.pad_h << "," << pb.pad_w << " stride=" << pb.stride_h << "," << pb.stride_w
    << " dilation=" << pb.dilation_h << "," << pb.dilation_w << " groups=" << pb.groups
    << (pb.mode == ConvMode::kConvolution ? " convolution" : " cross-correlation") << " (P=" << pb.p()
    << " Q=" << pb.q() << ")";
  return s.str();
}

// GEMM extents: 0 and 1, primes, tile multiples and their neighbours.
inline int draw_gemm_extent(Rng& rng, Scale scale) {
  if (scale == Scale::kHuge && chance(rng, 0.2)) return log_uniform(rng, 1LL << 31) - 1;
  switch (uniform(rng, 0, 6)) {
    case 0: return one_of(rng, {0, 1, 1, 2, 3});
    case 1: return one_of(rng, {7, 13, 31, 61, 97, 127, 131, 251});
    case 2: return one_of(rng, {8, 16, 32, 64, 128, 256}) + uniform(rng, -1, 1);
    default: return uniform(rng, 1, 200);
  }
}

// Elements from one row (column) of a matrix stored with `layout` to the next: at least its
// contiguous extent, sometimes padded; leading dimensions are at least 1.
inline std::int64_t draw_ld(Rng& rng, MatrixLayout layout, int rows, int cols) {
  const std::int64_t tight = std::max(1, layout == MatrixLayout::kRowMajor ? cols : rows);
  return tight + one_of(rng, {0, 0, 0, 1, 3, 8, 64});
}
// Elements one matrix spans: (rows-1)*ld + cols in its layout's terms (0 for an empty matrix).
inline std::int64_t matrix_span(MatrixLayout layout, int rows, int cols, std::int64_t ld) {
  if (rows == 0 || cols == 0) return 0;
  return layout == MatrixLayout::kRowMajor ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
}

// GemmArguments with everything but the pointers: sizes, types, layouts, leading dimensions,
// batch strides (A or B sometimes broadcast with stride 0), alpha, beta, bias and activation
// (bias is set to a non-null placeholder when drawn: the caller replaces it).
inline GemmArguments random_gemm_shape(Rng& rng, Scale scale) {
  GemmArguments g;
  g.m = draw_gemm_extent(rng, scale), g.n = draw_gemm_extent(rng, scale), g.k = draw_gemm_extent(rng, scale);
  g.batch = chance(rng, 0.7) ? 1 : uniform(rng, 2, 4);
  if (scale == Scale::kHuge && chance(rng, 0.05)) g.batch = log_uniform(rng, 1 << 20);
  g.input_type = DataType(uniform(rng, 0, 1));
  g.output_type = DataType(uniform(rng, 0, 2));
  g.a_layout = MatrixLayout(uniform(rng, 0, 1));
  g.b_layout = MatrixLayout(uniform(rng, 0, 1));
  g.d_layout = MatrixLayout(uniform(rng, 0, 1));
  g.lda = draw_ld(rng, g.a_layout, g.m, g.k);
  g.ldb = draw_ld(rng, g.b_layout, g.k, g.n);
  g.ldd = draw_ld(rng, g.d_layout, g.m, g.n);
  const bool c_is_d = chance(rng, 0.3);
  g.ldc = c_is_d ? g.ldd : draw_ld(rng, g.d_layout, g.m, g.n);
  auto batch_stride = [&](std::int64_t span, bool may_broadcast) -> std::int64_t {
    if (g.batch == 1) return 0;
    if (may_broadcast && chance(rng, 0.25)) return 0;
    return span + one_of(rng, {0, 0, 1, 8});
  };
  g.a_batch_stride = batch_stride(matrix_span(g.a_layout, g.m, g.k, g.lda), true);
  g.b_batch_stride = batch_stride(matrix_span(g.b_layout, g.k, g.n, g.ldb), true);
  g.d_batch_stride = batch_stride(matrix_span(g.d_layout, g.m, g.n, g.ldd), false);
  g.c_batch_stride = c_is_d ? g.d_batch_stride : batch_stride(matrix_span(g.d_layout, g.m, g.n, g.ldc), true);
  g.alpha = chance(rng, 0.6) ? 1.0f : float(one_of(rng, {-2, 0, 3})) / 2;
  g.beta = chance(rng, 0.5) ? 0.0f : float(one_of(rng, {-2, 1, 2})) / 2;
  g.activation = Activation(uniform(rng, 0, 2));
  if (chance(rng, 0.3)) g.bias = &g;  // placeholder: the caller sets the real bias
  // c == d when drawn (set by the caller): remembered as ldc == ldd and equal batch strides.
  return g;
}

inline std::string describe(const GemmArguments& g) {
  std::ostringstream s;
  auto l = [](MatrixLayout x) { return x == MatrixLayout::kRowMajor ? "row" : "col"; };
  s << g.m << "x" << g.n << "x" << g.k << " batch " << g.batch << " " << data_type_name(g.input_type) << "->"
    << data_type_name(g.output_type) << " A " << l(g.a_layout) << " lda " << g.lda << " bs " << g.a_batch_stride
    << ", B " << l(g.b_layout) << " ldb " << g.ldb << " bs " << g.b_batch_stride << ", D " << l(g.d_layout)
    << " ldd " << g.ldd << " bs " << g.d_batch_stride << ", C ldc " << g.ldc << " bs " << g.c_batch_stride
    << (g.c == g.d && g.c ? " (C is D)" : "") << ", alpha " << g.alpha << " beta " << g.beta
    << (g.bias ? " bias" : "") << " act " << int(g.activation);
  return s.str();
}

}  // namespace tessel::testing
