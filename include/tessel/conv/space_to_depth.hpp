// Space-to-depth: a strided convolution with few channels as a stride-1 convolution with more.
//
// A stride (sh, sw) layer reads row h = p*sh - pad_h + r. Writing r = sh*i + dh (dh < sh) gives
// h = sh*(p + i) + dh - pad_h: the layer is the stride-1, unpadded convolution of
//   X' (N, H', W', C')  X'[n, y, x, (dh*sw + dw)*C + c] = X[n, sh*y + dh - pad_h, sw*x + dw - pad_w, c]
//   W' (K, R', S', C')  W'[k, i, j, (dh*sw + dw)*C + c] = W[k, sh*i + dh, sw*j + dw, c]
// with R' = ceil(R/sh), S' = ceil(S/sw), H' = P + R' - 1, W' = Q + S' - 1, the channels
// C' = sh*sw*C rounded up to 8 (16-byte vectors), and zero wherever the right side is outside
// X, outside the filter (taps sh*i + dh >= R) or past sh*sw*C. Its output is Y itself (P x Q).
//
// Example: ResNet-50's stem, 224x224x3, 7x7/2 pad 3 -> X' 115x115x16, W' 4x4x16: a reduction
// of 4*4*16 = 256 instead of 7*7*8 = 392 with the channels padded to 8, and 16 taps instead of
// 49 (tests/host/space_to_depth_test.cpp checks the identity on random layers).
#pragma once

#include "tessel/conv/problem.hpp"

namespace tessel {

// The stride-1 problem of a valid layer with groups = 1 and dilation 1 (the caller checks).
// Extents past the int range are clamped to it (validate() then refuses the problem).
TESSEL_HOST_DEVICE inline Conv2dProblem space_to_depth_problem(const Conv2dProblem& pb) {
  auto clamp = [](long long v) { return int(v < 2147483647LL ? v : 2147483647LL); };
  Conv2dProblem s;
  s.n = pb.n, s.k = pb.k;
  s.r = clamp(((long long)pb.r + pb.stride_h - 1) / pb.stride_h);
  s.s = clamp(((long long)pb.s + pb.stride_w - 1) / pb.stride_w);
  s.h = clamp((long long)pb.p() + s.r - 1);
  s.w = clamp((long long)pb.q() + s.s - 1);
  const long long phases = (long long)pb.stride_h * pb.stride_w;  // below 2^62
  s.c = clamp(phases > 2147483647LL ? phases : (phases * pb.c + 7) / 8 * 8);
  return s;  // pads 0, strides 1, dilations 1, cross-correlation, one group
}

// The element of X that X'[n, y, x, channel] copies, as an NHWC offset, or -1 for a zero.
TESSEL_HOST_DEVICE inline long long space_to_depth_x_source(const Conv2dProblem& pb, int n, int y, int x,
                                                            int channel) {
  const int c = channel % pb.c, phase = channel / pb.c;  // phase = dh*sw + dw
  if (phase >= pb.stride_h * pb.stride_w) return -1;     // padding channels
  const int h = pb.stride_h * y + phase / pb.stride_w - pb.pad_h;
  const int w = pb.stride_w * x + phase % pb.stride_w - pb.pad_w;
  if (h < 0 || h >= pb.h || w < 0 || w >= pb.w) return -1;
  return (((long long)n * pb.h + h) * pb.w + w) * pb.c + c;
}

// The element of W that W'[k, i, j, channel] copies, as a KRSC offset, or -1 for a zero. A true
// convolution (ConvMode::kConvolution) stores its filter flipped: tap r is row R-1-r of W.
TESSEL_HOST_DEVICE inline long long space_to_depth_w_source(const Conv2dProblem& pb, int k, int i, int j,
                                                            int channel) {
  const int c = channel % pb.c, phase = channel / pb.c;
  if (phase >= pb.stride_h * pb.stride_w) return -1;
  int r = pb.stride_h * i + phase / pb.stride_w;
  int s = pb.stride_w * j + phase % pb.stride_w;
  if (r >= pb.r || s >= pb.s) return -1;
  if (pb.mode == ConvMode::kConvolution) r = pb.r - 1 - r, s = pb.s - 1 - s;
  return (((long long)k * pb.r + r) * pb.s + s) * pb.c + c;
}

}  // namespace tessel
