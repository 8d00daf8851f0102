// wgrad's explicit im2col copy (conv2d_plan.hpp's WgradPlan::im2col_gemm): the activations of a
// layer as the plain row-major matrix that its wgrad GEMM reduces over,
//   B (N*P*Q, R*S*C)   row (n, p, q), column (r, s, c) = X[n, h, w, c] with
//   h = p*stride_h - pad_h + r'*dilation_h,  w = q*stride_w - pad_w + s'*dilation_w
// (r' = r and s' = s for cross-correlation, R-1-r and S-1-s for true convolution: problem.hpp),
// zero where (h, w) lies outside X. 16-bit elements (f16 or bf16) copied bit for bit. E.g.
// ResNet-50's 7x7x512 3x3 layer at N = 128: X 128x7x7x512 (6.4 MB) -> B 6272 x 4608 (57.8 MB).
#pragma once

#include <cuda_runtime_api.h>

#include "tessel/conv/problem.hpp"

namespace tessel {

// x (N, H, W, C) of the ungrouped layer `pb` -> dst B (N*P*Q, R*S*C); C a multiple of 8, x and
// dst 16-byte aligned, N*P*Q*R*S*C/8 at most 2^31 - 256 (a 16-byte vector a thread).
cudaError_t im2col_activations(const void* x, const Conv2dProblem& pb, void* dst,
                               cudaStream_t stream);

}  // namespace tessel
