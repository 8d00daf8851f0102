// Conv2dProblem: one 2-D convolution, its output size and the implicit GEMMs that compute it.
//
// Tensors (row-major, the last index fastest):
//   activation X   (N, H, W, C)            NHWC
//   output     Y   (N, P, Q, K)            NHWC
//   filter     W   (K, R, S, C/groups)     KRSC; group g owns filters [g*K/G, (g+1)*K/G) and
//                                          reads channels [g*C/G, (g+1)*C/G) of X
//
//   Y[n,p,q,k] = sum_{r,s,c} X[n, p*stride_h - pad_h + r'*dilation_h,
//                                 q*stride_w - pad_w + s'*dilation_w, g*C/G + c] * W[k,r,s,c]
// with g = k / (K/G), r' = r and s' = s for cross-correlation (the default, what frameworks call
// convolution), r' = R-1-r and s' = S-1-s for true convolution (the filter flipped). Taps
// outside the image read zero.
//
// Example: the ResNet-50 stem, N=32 H=W=224 C=3 K=64 R=S=7 pad 3 stride 2 -> P = Q = 112.
#pragma once

#include <cstdint>
#include <string>

#include "tessel/layout/config.hpp"
#include "tessel/runtime/status.hpp"

namespace tessel {

enum class ConvMode : int {
  kCrossCorrelation = 0,  // h = p*stride_h - pad_h + r*dilation_h
  kConvolution = 1,       // h = p*stride_h - pad_h + (R-1-r)*dilation_h
};

struct Conv2dProblem {
  int n = 1, h = 1, w = 1, c = 1;  // activation (N, H, W, C)
  int k = 1;                       // output channels (filters)
  int r = 1, s = 1;                // filter height and width
  int pad_h = 0, pad_w = 0;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  ConvMode mode = ConvMode::kCrossCorrelation;
  int groups = 1;

  // P = floor((H + 2*pad_h - dilation_h*(R-1) - 1) / stride_h) + 1; below 1 when the dilated
  // filter does not fit the padded image (validate() reports it). 224, 7, pad 3, stride 2 -> 112.
  TESSEL_HOST_DEVICE int p() const { return output_extent(h, pad_h, dilation_h, r, stride_h); }
  // Q, likewise over W, S, pad_w, dilation_w, stride_w.
  TESSEL_HOST_DEVICE int q() const { return output_extent(w, pad_w, dilation_w, s, stride_w); }

  TESSEL_HOST_DEVICE int channels_per_group() const { return c / groups; }  // C/G
  TESSEL_HOST_DEVICE int filters_per_group() const { return k / groups; }   // K/G

  // floor((extent + 2*pad - dilation*(taps-1) - 1) / stride) + 1, in 64-bit so that no int
  // input overflows; clamped to the int range for the callers' sake.
  TESSEL_HOST_DEVICE static int output_extent(int extent, int pad, int dilation, int taps,
                                              int stride) {
    long long span = (long long)extent + 2LL * pad - (long long)dilation * (taps - 1) - 1;
    if (stride < 1) return 0;  // invalid; validate() names it
    long long quotient = span >= 0 ? span / stride : -((-span + stride - 1) / stride);
    long long out = quotient + 1;
    if (out < -2147483647LL) return -2147483647;
    if (out > 2147483647LL) return 2147483647;
    return (int)out;
  }
};

// The (M, N, K) of an implicit GEMM, in 64-bit so that they can be computed before validation.
struct ConvGemmExtents {
  long long m, n, k;
};

// fprop: Y[NPQ, K] = X[NPQ, RSC/G] . W[RSC/G, K]   M = N*P*Q, N = K, K = R*S*(C/G).
// GEMM column k (an output channel) belongs to group k / (K/G); its reduction runs over the
// R*S*(C/G) taps of that group (GEMM row npq = (n*P + p)*Q + q, reduction index
// crs = (r*S + s)*(C/G) + c, see activation_iterator.hpp). With G = 1 one plain GEMM.
TESSEL_HOST_DEVICE inline ConvGemmExtents fprop_gemm_extents(const Conv2dProblem& pb) {
  return {(long long)pb.n * pb.p() * pb.q(), pb.k,
          (long long)pb.r * pb.s * pb.channels_per_group()};
}

// dgrad: dX[NHW, C] = dY' . W'   M = N*H*W, N = C, K = R*S*(K/G).
// GEMM column c (an input channel) belongs to group c / (C/G); its reduction runs over the
// R*S taps and the K/G filters of that group: dX[n,h,w,c] = sum_{r,s,k} dY[n,p,q,k] W[k,r,s,c]
// over the (p, q) with p*stride_h - pad_h + r'*dilation_h = h (and likewise w); with stride > 1
// a tap has no such p for some h and contributes nothing there.
TESSEL_HOST_DEVICE inline ConvGemmExtents dgrad_gemm_extents(const Conv2dProblem& pb) {
  return {(long long)pb.n * pb.h * pb.w, pb.c, (long long)pb.r * pb.s * pb.filters_per_group()};
}

// wgrad: dW[K, RSC/G] = dY[NPQ, K]^T . X[NPQ, RSC/G]   M = K, N = R*S*(C/G), K = N*P*Q.
// GEMM row k belongs to group k / (K/G) and correlates with that group's channels; the columns
// are ordered as fprop's reduction index, so dW is the KRSC filter tensor itself.
TESSEL_HOST_DEVICE inline ConvGemmExtents wgrad_gemm_extents(const Conv2dProblem& pb) {
  return {pb.k, (long long)pb.r * pb.s * pb.channels_per_group(),
          (long long)pb.n * pb.p() * pb.q()};
}

// The kernels and iterators index each tensor with 32-bit ints: every tensor, and the
// activation with its padding, holds at most this many elements.
inline constexpr long long kMaxConvTensorElements = 2147483647LL;

// dgrad runs one implicit GEMM per stride phase (ph, pw) that has rows of dX: ph < H and
// pw < W (conv/dgrad_operand_sm80.hpp). Real layers have at most 16 (stride 4); problems with
// more than kMaxDgradPhases (strides in the hundreds, on large images) are not supported.
inline constexpr long long kMaxDgradPhases = 4096;
TESSEL_HOST_DEVICE inline long long dgrad_phases_with_rows(const Conv2dProblem& pb) {
  return (long long)(pb.stride_h < pb.h ? pb.stride_h : pb.h) * (pb.stride_w < pb.w ? pb.stride_w : pb.w);
}

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
