// One conv2d problem as the profiler states it: tessel's Conv2dProblem (NHWC activations and
// outputs, KRSC filters) with the pass, the types and the epilogue, and every derived quantity
// (tensor sizes, FLOPs, the text of a row) in one place so tessel, cuDNN and the reference
// agree.
//
//   X  (N, H, W, C)      input_type      Y, R (residual)  (N, P, Q, K)   output_type
//   W  (K, R, S, C/G)    input_type      bias             (K)            output_type
//
// FLOPs: 2 N P Q K R S C/G (one multiply-add per filter tap and channel of each output).
#pragma once

#include <cstdint>
#include <string>

#include "tessel/conv/problem.hpp"
#include "tessel/runtime/conv2d.hpp"

namespace tessel::prof {

// The pass: fprop computes Y from X and W; dgrad dX from dY and W; wgrad dW from dY and X.
enum class ConvPass { kFprop, kDgrad, kWgrad };
const char* conv_pass_name(ConvPass p);  // "fprop", "dgrad", "wgrad"

struct ConvProblem {
  Conv2dProblem shape;
  ConvPass pass = ConvPass::kFprop;
  DataType input_type = DataType::kF16;
  DataType output_type = DataType::kF32;
  float alpha = 1.0f, beta = 0.0f;
  bool bias = false;
  Activation activation = Activation::kNone;

  std::int64_t x_elements() const;  // N H W C
  std::int64_t w_elements() const;  // K R S C/G
  std::int64_t y_elements() const;  // N P Q K
  std::int64_t reduction() const;   // R S C/G: the multiply-adds behind one output
  bool reads_residual() const { return beta != 0.0f; }

  double flops() const { return 2.0 * double(y_elements()) * double(reduction()); }
  // "32x56x56x64 -> 64 3x3 pad 1 stride 2 dil 2 g 2 conv": N x H x W x C -> K, R x S, and
  // whichever of pad, stride, dilation, groups and true convolution differ from the default.
  std::string shape_text() const;
};

// "1" when both sides agree, else "1x2" (height x width).
std::string pair_text(int h, int w);

// tessel's arguments over the given buffers.
Conv2dArguments make_conv_arguments(const ConvProblem& p, const void* x, const void* w,
                                    const void* residual, void* y, const void* bias);

}  // namespace tessel::prof
