// ConvProblem: sizes and text (conv_problem.hpp).
#include "conv_problem.hpp"

namespace tessel::prof {

const char* conv_pass_name(ConvPass p) {
  switch (p) {
    case ConvPass::kFprop:
      return "fprop";
    case ConvPass::kDgrad:
      return "dgrad";
    case ConvPass::kWgrad:
      return "wgrad";
  }
  return "?";
}

std::int64_t ConvProblem::x_elements() const {
  return std::int64_t{shape.n} * shape.h * shape.w * shape.c;
}

std::int64_t ConvProblem::w_elements() const {
  return std::int64_t{shape.k} * shape.r * shape.s * shape.channels_per_group();
}

std::int64_t ConvProblem::y_elements() const {
  return std::int64_t{shape.n} * shape.p() * shape.q() * shape.k;
}

std::int64_t ConvProblem::reduction() const {
  return std::int64_t{shape.r} * shape.s * shape.channels_per_group();
}

std::string pair_text(int h, int w) {
  return h == w ? std::to_string(h) : std::to_string(h) + "x" + std::to_string(w);
}

std::string ConvProblem::shape_text() const {
  const Conv2dProblem& s = shape;
  std::string text = std::to_string(s.n) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w) +
                     "x" + std::to_string(s.c) + " -> " + std::to_string(s.k) + " " +
                     std::to_string(s.r) + "x" + std::to_string(s.s);
  if (s.pad_h != 0 || s.pad_w != 0) text += " pad " + pair_text(s.pad_h, s.pad_w);
  if (s.stride_h != 1 || s.stride_w != 1) text += " stride " + pair_text(s.stride_h, s.stride_w);
  if (s.dilation_h != 1 || s.dilation_w != 1) {
    text += " dil " + pair_text(s.dilation_h, s.dilation_w);
  }
  if (s.groups != 1) text += " g " + std::to_string(s.groups);
  if (s.mode == ConvMode::kConvolution) text += " conv";
  return text;
}

Conv2dArguments make_conv_arguments(const ConvProblem& p, const void* x, const void* w,
                                    const void* residual, void* y, const void* bias) {
  Conv2dArguments args;
  args.problem = p.shape;
  args.input_type = p.input_type;
  args.output_type = p.output_type;
  args.x = x;
  args.w = w;
  args.residual = p.reads_residual() ? residual : nullptr;
  args.y = y;
  args.alpha = p.alpha;
  args.beta = p.beta;
  args.bias = bias;
  args.activation = p.activation;
  return args;
}

}  // namespace tessel::prof
