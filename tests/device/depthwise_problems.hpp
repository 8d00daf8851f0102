// The depthwise layers (C = K = G) and narrow-group layers (C/G = K/G = 2, 4, 8) that the device
// tests run on the direct kernels (tessel/conv/depthwise_direct.hpp): the strip kernels of 3, 5
// and 7 wide filters at strides 1 and 2 (output widths that are not whole strips), the per-pixel
// kernels (dilation, a 4x4 filter at stride 3, stride with dilation), odd channel counts (one
// channel a thread) and true convolution, for each group width.
#pragma once

#include <vector>

#include "tessel/conv/problem.hpp"

namespace tessel::test {

inline std::vector<Conv2dProblem> depthwise_problems() {
  // C channels in groups of cg (1: depthwise), r x r filters
  auto dw = [](int n, int h, int w, int c, int r, int pad, int stride, int dil = 1,
               ConvMode mode = ConvMode::kCrossCorrelation, int cg = 1) {
    Conv2dProblem p;
    p.n = n, p.h = h, p.w = w, p.c = p.k = c, p.groups = c / cg, p.r = p.s = r;
    p.pad_h = p.pad_w = pad, p.stride_h = p.stride_w = stride, p.dilation_h = p.dilation_w = dil, p.mode = mode;
    return p;
  };
  constexpr ConvMode kXc = ConvMode::kCrossCorrelation, kConv = ConvMode::kConvolution;
  return {dw(2, 13, 17, 64, 3, 1, 1),         dw(2, 14, 15, 96, 3, 1, 2),         dw(1, 12, 11, 48, 5, 2, 1, 1, kConv),
          dw(1, 15, 16, 32, 5, 2, 2),         dw(2, 14, 14, 96, 7, 3, 1),         dw(1, 9, 10, 24, 3, 2, 1, 2),
          dw(1, 9, 9, 21, 3, 1, 1),           dw(1, 8, 8, 16, 4, 1, 3),           dw(1, 7, 9, 136, 3, 0, 2, 1, kConv),
          dw(2, 13, 17, 64, 3, 1, 1, 1, kXc, 4), dw(2, 14, 15, 128, 3, 1, 2, 1, kXc, 8), dw(1, 12, 11, 32, 5, 2, 1, 1, kConv, 2),
          dw(1, 15, 16, 16, 5, 2, 2, 1, kXc, 4), dw(2, 14, 13, 16, 7, 3, 1, 1, kXc, 2), dw(1, 9, 10, 48, 3, 2, 1, 2, kXc, 4),
          dw(1, 8, 8, 24, 4, 1, 3, 1, kXc, 8),  dw(1, 7, 9, 40, 3, 0, 2, 1, kConv, 8), dw(2, 11, 12, 64, 3, 1, 1, 1, kConv, 8),
          // strided and dilated: dgrad's walk over the taps that reach dY (gcd 2 and 1)
          dw(1, 13, 12, 32, 3, 2, 2, 2),        dw(1, 14, 13, 24, 3, 2, 3, 2, kConv), dw(1, 11, 10, 32, 3, 2, 2, 2, kXc, 4)};
}

}  // namespace tessel::test
