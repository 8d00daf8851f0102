// One conv2d problem as the profiler states it: tessel's Conv2dProblem (NHWC activations and
// outputs, KRSC filters) with the pass, the types and the epilogue, and every derived quantity
// (tensor sizes, the reduction, FLOPs, the text of a row) in one place so tessel, cuDNN and the
// reference agree. Tensors are named by their fprop roles; the pass says which one is written:
//
//   role  shape            fprop          dgrad           wgrad
//   X     (N, H, W, C)     in             out (dX)        in
//   W     (K, R, S, C/G)   in             in              out (dW)
//   Y     (N, P, Q, K)     out            in (dY)         in (dY)
//
// Inputs are input_type, the output, its residual and the bias output_type. The residual is a
// tensor of its own for fprop (R, read when beta != 0) and the output itself for dgrad and
// wgrad (dX += ..., dW += ...: gradients accumulate in place). The bias has K values (fprop),
// C values (dgrad) or none (wgrad, which has no bias and no activation).
//
// FLOPs: 2 N P Q K R S C/G for every pass (the multiply-adds that connect X, W and Y; an
// implicit GEMM may also multiply padding or stride gaps, which are not counted).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tessel/conv/problem.hpp"
#include "tessel/runtime/conv2d.hpp"

namespace tessel::prof {

// The pass: fprop computes Y from X and W; dgrad dX from dY and W; wgrad dW from dY and X.
enum class ConvPass { kFprop, kDgrad, kWgrad };
const char* conv_pass_name(ConvPass p);  // "fprop", "dgrad", "wgrad"
// The command line's name back: "dgrad" -> kDgrad, "wgrad" -> kWgrad, anything else kFprop
// (CLI11 checks the names first).
ConvPass conv_pass_from(const std::string& name);

// A tensor by its fprop role (the table above).
enum class ConvRole { kX, kW, kY };
const char* conv_role_name(ConvRole r, ConvPass p);  // "X", "dX", "W", "dW", "Y", "dY"

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
  std::int64_t elements(ConvRole r) const;

  ConvRole output_role() const;  // Y, X or W (fprop, dgrad, wgrad)
  bool writes(ConvRole r) const { return r == output_role(); }
  DataType type_of(ConvRole r) const { return writes(r) ? output_type : input_type; }
  std::int64_t output_elements() const { return elements(output_role()); }
  std::int64_t bias_elements() const;  // K (fprop), C (dgrad), 0 (wgrad or no bias)

  // The length of the sum behind one output: R S C/G (fprop), R S K/G (dgrad: every tap and
  // filter of the group; with stride > 1 some taps meet no output), N P Q (wgrad).
  std::int64_t reduction() const;
  bool reads_residual() const { return beta != 0.0f; }
  bool residual_is_output() const { return pass != ConvPass::kFprop; }

  // This problem with only alpha: beta 0, no bias, no activation (what cuDNN computes).
  ConvProblem plain() const;
  bool is_plain() const { return plain_epilogue(*this); }
  static bool plain_epilogue(const ConvProblem& p) {
    return !p.reads_residual() && !p.bias && p.activation == Activation::kNone;
  }

  double flops() const;  // 2 N P Q K R S C/G, whatever the pass
  // "32x56x56x64 -> 64 3x3 pad 1 stride 2 dil 2 g 2 conv": N x H x W x C -> K, R x S, and
  // whichever of pad, stride, dilation, groups and true convolution differ from the default.
  std::string shape_text() const;
};

// The reason a pass cannot take this epilogue, for the command line; nullopt when it can.
// wgrad has neither bias nor activation:
//   epilogue_error(kWgrad, true, kNone) == "--bias does not apply to --mode wgrad (...)"
std::optional<std::string> epilogue_error(ConvPass pass, bool bias, Activation activation);

// "1" when both sides agree, else "1x2" (height x width).
std::string pair_text(int h, int w);

// tessel's arguments over buffers given by role (the output's among them); `residual` is used
// for fprop only (dgrad and wgrad read their output) and `bias` is ignored by wgrad.
struct ConvBuffers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  void* residual = nullptr;
  void* bias = nullptr;
  void* at(ConvRole r) const { return r == ConvRole::kX ? x : (r == ConvRole::kW ? w : y); }
};
Conv2dArguments make_fprop_arguments(const ConvProblem& p, const ConvBuffers& b);
Conv2dDgradArguments make_dgrad_arguments(const ConvProblem& p, const ConvBuffers& b);
Conv2dWgradArguments make_wgrad_arguments(const ConvProblem& p, const ConvBuffers& b);

// validate() of the pass's arguments, then (run_tessel) the pass itself on `stream`.
Status validate_tessel(const ConvProblem& p, const ConvBuffers& b);
Status run_tessel(const ConvProblem& p, const ConvBuffers& b, cudaStream_t stream);

}  // namespace tessel::prof
