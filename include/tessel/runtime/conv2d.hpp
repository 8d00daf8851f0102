// The convolution runtime: implicit-GEMM conv2d, all three directions, on the GEMM pipeline.
//
//   fprop  Y  = act(alpha * conv(X, W) + beta * R + bias)        Conv2dArguments
//   dgrad  dX = act(alpha * dgrad(dY, W) + beta * R + bias)      Conv2dDgradArguments
//   wgrad  dW = alpha * wgrad(dY, X) + beta * R                  Conv2dWgradArguments
//
// with dgrad(dY, W)[n,h,w,c] = sum over (p,q,k,r,s) that fprop connects of dY[n,p,q,k] W[k,r,s,c]
// and wgrad(dY, X)[k,r,s,c] = sum over (n,p,q) of dY[n,p,q,k] X[n,h,w,c] (problem.hpp gives
// the index relations). The tensors, named by their fprop roles:
//
//   X  activations, NHWC: N x H x W x C, packed
//   W  filters, KRSC: K x R x S x (C / groups), packed
//   Y  outputs, NHWC: N x P x Q x K, packed; R (the residual, `residual`) likewise, read only
//      when beta != 0 and may be Y itself
//   bias  K values of the output type, or null (fprop; dgrad's is C values)
//
// Inputs f16 or bf16 (both inputs the same), fp32 accumulation, outputs f16, bf16 or f32. Groups
// run as one GEMM per group, all of them in one launch (the groups are the kernel's batches);
// depthwise layers (C = K = groups, up to 128 filter taps) on direct kernels
// (tessel/conv/depthwise_direct.hpp). Groups of 4 to 32 channels (by direction) with C = K a
// multiple of 64 run as groups of 64 channels over a block-diagonal copy of W (fprop, dgrad;
// stream-ordered temporary memory) or as a GEMM whose split-K reduction takes dW from the
// block diagonal (wgrad; src/conv/packed_groups.hpp). Channel counts that are not multiples of 8
// (C = 3, odd C or K), or tensors not 16-byte aligned, rule out 16-byte loads: an ungrouped
// layer then runs on a copy of the offending operand zero-padded to a multiple of 8 channels
// (stream-ordered temporary memory: X and W for fprop, W for dgrad, X for wgrad) when the
// other operand allows 16-byte loads; otherwise the narrow (element-wise) path runs. Strided
// layers with few channels, such as the RGB stem, run in every direction as the stride-1 layer
// of their space-to-depth copies instead where that reduction is shorter
// (tessel/conv/space_to_depth.hpp). Short outputs with long reductions are split along K, with
// an fp32 workspace likewise.
//
// Example (ResNet-50's stem):
//   tessel::Conv2dArguments args;
//   args.problem = {.n = 32, .h = 224, .w = 224, .c = 3, .k = 64, .r = 7, .s = 7,
//                   .pad_h = 3, .pad_w = 3, .stride_h = 2, .stride_w = 2};
//   args.x = x; args.w = w; args.y = y;   // f16 in, f32 out
//   tessel::Status s = tessel::conv2d_fprop(args, stream);
#pragma once

#include <cuda_runtime_api.h>

#include "tessel/conv/problem.hpp"
#include "tessel/runtime/conv2d_problem_check.hpp"
#include "tessel/runtime/status.hpp"
#include "tessel/runtime/types.hpp"

namespace tessel {

struct Conv2dArguments {
  Conv2dProblem problem;
  DataType input_type = DataType::kF16;   // X and W
  DataType output_type = DataType::kF32;  // Y, the residual and the bias
  const void* x = nullptr;
  const void* w = nullptr;
  const void* residual = nullptr;  // read only when beta != 0
  void* y = nullptr;
  float alpha = 1.0f, beta = 0.0f;
  const void* bias = nullptr;
  Activation activation = Activation::kNone;
};

// Checks everything without touching the GPU: the problem (conv/problem.hpp), types, null
// pointers, element alignment, and that Y overlaps neither X, W nor the bias.
Status validate(const Conv2dArguments& args);

// Runs fprop on `stream` (asynchronous).
Status conv2d_fprop(const Conv2dArguments& args, cudaStream_t stream = nullptr);

// dgrad: the gradient of the activations. dY (N,P,Q,K) and W (K,R,S,C/G) in, dX (N,H,W,C) out;
// residual likewise NHWC (read when beta != 0, may be dX), bias C values of the output type.
// Stride > 1: an (h, w) receives a tap's contribution only where h + pad_h - r*dilation_h is a
// multiple of stride_h (and likewise w); the others read zero for that tap.
// It runs one GEMM per stride phase that has rows; more than kMaxDgradPhases (4096) phases with
// rows, min(stride_h, H) * min(stride_w, W), are refused (kNotSupported).
struct Conv2dDgradArguments {
  Conv2dProblem problem;
  DataType input_type = DataType::kF16;   // dY and W
  DataType output_type = DataType::kF32;  // dX, the residual and the bias
  const void* dy = nullptr;
  const void* w = nullptr;
  const void* residual = nullptr;  // read only when beta != 0
  void* dx = nullptr;
  float alpha = 1.0f, beta = 0.0f;
  const void* bias = nullptr;
  Activation activation = Activation::kNone;
};

// wgrad: the gradient of the filters. dY (N,P,Q,K) and X (N,H,W,C) in, dW (K,R,S,C/G) out;
// residual likewise KRSC (read when beta != 0, may be dW: beta = 1 accumulates into dW). The
// reduction runs over N*P*Q; where that is long and K x RSC/G gives few tiles, it is split
// (split-K) into slices summed in a fixed order, so results are deterministic.
struct Conv2dWgradArguments {
  Conv2dProblem problem;
  DataType input_type = DataType::kF16;   // dY and X
  DataType output_type = DataType::kF32;  // dW and the residual
  const void* dy = nullptr;
  const void* x = nullptr;
  const void* residual = nullptr;  // read only when beta != 0
  void* dw = nullptr;
  float alpha = 1.0f, beta = 0.0f;
};

// As validate(Conv2dArguments), for the other directions' tensors.
Status validate(const Conv2dDgradArguments& args);
Status validate(const Conv2dWgradArguments& args);

// Run dgrad / wgrad on `stream` (asynchronous). wgrad's split-K takes a stream-ordered
// workspace (cudaMallocAsync) that is freed on the stream after the reduction.
Status conv2d_dgrad(const Conv2dDgradArguments& args, cudaStream_t stream = nullptr);
Status conv2d_wgrad(const Conv2dWgradArguments& args, cudaStream_t stream = nullptr);

}  // namespace tessel
