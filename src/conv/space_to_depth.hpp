// The copies a space-to-depth convolution runs on (tessel/conv/space_to_depth.hpp), made on the
// stream before its implicit GEMM: X' and W' from X and W, 16-bit elements (f16 or bf16, copied
// bit for bit), zeros where the definition reads outside X, past the filter or past the
// sh*sw*C real channels; and, for dgrad and wgrad, dX and dW from the gradients of X' and W'.
#pragma once

#include <cuda_runtime_api.h>

#include "tessel/conv/problem.hpp"
#include "tessel/runtime/types.hpp"

namespace tessel {

// x (N, H, W, C) of the layer `pb` -> dst (N, H', W', C'), C' a multiple of 8, dst 16-byte
// aligned. E.g. the stem: 32x224x224x3 -> 32x115x115x16.
cudaError_t space_to_depth_activations(const void* x, const Conv2dProblem& pb, void* dst, cudaStream_t stream);

// w (K, R, S, C) of the layer `pb` -> dst (K, R', S', C'). E.g. the stem: 64x7x7x3 -> 64x4x4x16.
cudaError_t space_to_depth_filter(const void* w, const Conv2dProblem& pb, void* dst, cudaStream_t stream);

// dgrad's way back: dX (N, H, W, C) of the layer `pb` from the fp32 gradient of its copy X'
// (N, H', W', C'), each element of dX from the one element of X' that copies it (zero where
// none does: rows and columns no tap reaches), through the epilogue
// act(alpha * g + beta * residual + bias[c]) in `out_type` (residual may be dx).
cudaError_t depth_to_space_gradient(const float* dx_copy, const Conv2dProblem& pb, void* dx, const void* residual,
                                    const void* bias, float alpha, float beta, Activation act, DataType out_type,
                                    cudaStream_t stream);

// wgrad's way back: dW (K, R, S, C) of the layer `pb` = alpha * the fp32 gradient of its copy
// W' (K, R', S', C') at the element that copies each tap + beta * residual (which may be dw),
// in `out_type`.
cudaError_t depth_to_space_filter_gradient(const float* dw_copy, const Conv2dProblem& pb, void* dw,
                                           const void* residual, float alpha, float beta, DataType out_type,
                                           cudaStream_t stream);

}  // namespace tessel
