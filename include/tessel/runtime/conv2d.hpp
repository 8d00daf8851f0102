// The convolution runtime: implicit-GEMM conv2d on the GEMM pipeline (issue 4, in progress:
// fprop today).
//
//   fprop  Y = act(alpha * conv(X, W) + beta * R + bias)
//
//   X  activations, NHWC: N x H x W x C, packed
//   W  filters, KRSC: K x R x S x (C / groups), packed
//   Y  outputs, NHWC: N x P x Q x K, packed; R (the residual, `residual`) likewise, read only
//      when beta != 0 and may be Y itself
//   bias  K values of the output type, or null
//
// Inputs f16 or bf16 (X and W the same), fp32 accumulation, outputs f16, bf16 or f32. Groups
// (depthwise included) run one GEMM per group. Channels per group that are not multiples of
// 8 (C = 3, odd C), or tensors not 16-byte aligned, take the narrow (element-wise) path.
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

}  // namespace tessel
