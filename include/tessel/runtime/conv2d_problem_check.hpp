// validate(Conv2dProblem): the rules a convolution must satisfy before anything is planned or
// launched, as a Status naming the broken rule. The problem itself (shapes, output size, the
// implicit GEMMs) is tessel/conv/problem.hpp, below the runtime layer; this check speaks the
// runtime's Status, so it lives here.
#pragma once

#include <string>
#include <utility>

#include "tessel/conv/problem.hpp"
#include "tessel/runtime/status.hpp"

namespace tessel {

namespace conv_detail {

// a * b * c * d, or -1 when the exact product does not fit in 64 bits (all factors >= 0).
inline long long checked_product(long long a, long long b, long long c, long long d) {
  long long ab = 0, abc = 0, abcd = 0;
  if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc) ||
      __builtin_mul_overflow(abc, d, &abcd)) {
    return -1;
  }
  return abcd;
}

inline Status invalid(std::string message) {
  return {StatusCode::kInvalidArgument, "conv2d: " + std::move(message)};
}

inline std::string str(long long v) { return std::to_string(v); }

// "N*H*W*C = 2*3*4*5 = 120", or "... = more than 2^63" on overflow.
inline std::string product_text(const char* names, long long a, long long b, long long c,
                                long long d, long long product) {
  return std::string(names) + " = " + str(a) + "*" + str(b) + "*" + str(c) + "*" + str(d) + " = " +
         (product < 0 ? std::string("more than 2^63") : str(product));
}

// The message for an output extent below 1, e.g. for P:
// "output height P = (H + 2*pad_h - dilation_h*(R-1) - 1) / stride_h + 1 = (5 + 2*0 - 1*(7-1)
//  - 1) / 1 + 1 = -1 is below 1: the dilated filter (dilation_h*(R-1) + 1 = 7 rows) is larger
//  than the padded image (H + 2*pad_h = 5 rows); lower R or dilation_h or raise pad_h"
inline std::string output_extent_text(const char* what, const char* out, const char* in,
                                      const char* pad, const char* dilation, const char* taps,
                                      const char* stride, const char* unit, int extent, int pad_v,
                                      int dilation_v, int taps_v, int stride_v, int out_v) {
  std::string formula = std::string("(") + in + " + 2*" + pad + " - " + dilation + "*(" + taps +
                        "-1) - 1) / " + stride + " + 1";
  std::string values = "(" + str(extent) + " + 2*" + str(pad_v) + " - " + str(dilation_v) + "*(" +
                       str(taps_v) + "-1) - 1) / " + str(stride_v) + " + 1";
  long long filter_span = (long long)dilation_v * (taps_v - 1) + 1;
  long long padded = (long long)extent + 2LL * pad_v;
  return std::string(what) + " " + out + " = " + formula + " = " + values + " = " + str(out_v) +
         " is below 1: the dilated filter (" + dilation + "*(" + taps +
         "-1) + 1 = " + str(filter_span) + " " + unit + ") is larger than the padded image (" + in +
         " + 2*" + pad + " = " + str(padded) + " " + unit + "); lower " + taps + " or " + dilation +
         " or raise " + pad;
}

}  // namespace conv_detail

// Checks a problem before anything touches the GPU; the first broken rule in this order is
// reported, naming the field, its value and what was expected:
//
//   1. N, H, W, C, K, R, S >= 1                                         invalid argument
//   2. pad_h, pad_w >= 0                                                invalid argument
//   3. stride_h, stride_w, dilation_h, dilation_w >= 1                  invalid argument
//   4. mode is kCrossCorrelation or kConvolution                        invalid argument
//   5. groups >= 1, C and K multiples of groups                         invalid argument
//   6. P >= 1 and Q >= 1                                                invalid argument
//   7. activation (also padded), output and filter tensors below 2^31
//      elements (the GEMM extents are bounded by them)                  not supported
//
// e.g. {.c = 6, .groups = 4} -> invalid argument
//   "conv2d: C = 6 is not a multiple of groups = 4 (each group reads C/groups channels)"
inline Status validate(const Conv2dProblem& pb) {
  using conv_detail::invalid;
  using conv_detail::str;
  const struct {
    const char* name;
    int value;
    const char* meaning;
  } sizes[] = {{"N", pb.n, "the batch size"},       {"H", pb.h, "the activation height"},
               {"W", pb.w, "the activation width"}, {"C", pb.c, "the input channels"},
               {"K", pb.k, "the output channels"},  {"R", pb.r, "the filter height"},
               {"S", pb.s, "the filter width"}};
  for (const auto& size : sizes) {
    if (size.value < 1) {
      return invalid(std::string(size.name) + " = " + str(size.value) + " must be at least 1 (" +
                     size.meaning + ")");
    }
  }
  const struct {
    const char* name;
    int value;
  } pads[] = {{"pad_h", pb.pad_h}, {"pad_w", pb.pad_w}};
  for (const auto& pad : pads) {
    if (pad.value < 0) {
      return invalid(std::string(pad.name) + " = " + str(pad.value) +
                     " must be at least 0 (zero rows or columns added on each side)");
    }
  }
  const struct {
    const char* name;
    int value;
  } steps[] = {{"stride_h", pb.stride_h},
               {"stride_w", pb.stride_w},
               {"dilation_h", pb.dilation_h},
               {"dilation_w", pb.dilation_w}};
  for (const auto& step : steps) {
    if (step.value < 1) {
      return invalid(std::string(step.name) + " = " + str(step.value) +
                     " must be at least 1 (1 is the dense case)");
    }
  }
  if (pb.mode != ConvMode::kCrossCorrelation && pb.mode != ConvMode::kConvolution) {
    return invalid("mode = " + str(static_cast<int>(pb.mode)) +
                   " is neither kCrossCorrelation (0) nor kConvolution (1)");
  }
  if (pb.groups < 1) {
    return invalid("groups = " + str(pb.groups) + " must be at least 1 (1 is a dense conv)");
  }
  if (pb.c % pb.groups != 0) {
    return invalid("C = " + str(pb.c) + " is not a multiple of groups = " + str(pb.groups) +
                   " (each group reads C/groups channels)");
  }
  if (pb.k % pb.groups != 0) {
    return invalid("K = " + str(pb.k) + " is not a multiple of groups = " + str(pb.groups) +
                   " (each group writes K/groups channels)");
  }
  const int p = pb.p(), q = pb.q();
  if (p < 1) {
    return invalid(conv_detail::output_extent_text("output height", "P", "H", "pad_h", "dilation_h",
                                                   "R", "stride_h", "rows", pb.h, pb.pad_h,
                                                   pb.dilation_h, pb.r, pb.stride_h, p));
  }
  if (q < 1) {
    return invalid(conv_detail::output_extent_text("output width", "Q", "W", "pad_w", "dilation_w",
                                                   "S", "stride_w", "columns", pb.w, pb.pad_w,
                                                   pb.dilation_w, pb.s, pb.stride_w, q));
  }
  const long long padded_h = (long long)pb.h + 2LL * pb.pad_h;
  const long long padded_w = (long long)pb.w + 2LL * pb.pad_w;
  const struct {
    const char* tensor;
    const char* names;
    long long a, b, c, d;
  } tensors[] = {
      {"the activation", "N*H*W*C", pb.n, pb.h, pb.w, pb.c},
      {"the padded activation", "N*(H+2*pad_h)*(W+2*pad_w)*C", pb.n, padded_h, padded_w, pb.c},
      {"the output", "N*P*Q*K", pb.n, p, q, pb.k},
      {"the filter", "K*R*S*(C/groups)", pb.k, pb.r, pb.s, pb.channels_per_group()},
  };
  for (const auto& t : tensors) {
    long long elements = conv_detail::checked_product(t.a, t.b, t.c, t.d);
    if (elements < 0 || elements > kMaxConvTensorElements) {
      return {StatusCode::kNotSupported,
              "conv2d: " + std::string(t.tensor) + " has " +
                  conv_detail::product_text(t.names, t.a, t.b, t.c, t.d, elements) +
                  " elements; at most 2^31-1 are supported (32-bit offsets): split the batch"};
    }
  }
  return Status::success();
}

}  // namespace tessel
