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

#include "tessel/layout/config.hpp"

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

}  // namespace tessel
