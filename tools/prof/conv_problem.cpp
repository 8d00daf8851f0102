// ConvProblem: sizes, text and tessel's arguments for each pass (conv_problem.hpp).
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

ConvPass conv_pass_from(const std::string& name) {
  if (name == "dgrad") return ConvPass::kDgrad;
  if (name == "wgrad") return ConvPass::kWgrad;
  return ConvPass::kFprop;
}

const char* conv_role_name(ConvRole r, ConvPass p) {
  switch (r) {
    case ConvRole::kX:
      return p == ConvPass::kDgrad ? "dX" : "X";
    case ConvRole::kW:
      return p == ConvPass::kWgrad ? "dW" : "W";
    case ConvRole::kY:
      return p == ConvPass::kFprop ? "Y" : "dY";
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

std::int64_t ConvProblem::elements(ConvRole r) const {
  switch (r) {
    case ConvRole::kX:
      return x_elements();
    case ConvRole::kW:
      return w_elements();
    case ConvRole::kY:
      return y_elements();
  }
  return 0;
}

ConvRole ConvProblem::output_role() const {
  switch (pass) {
    case ConvPass::kFprop:
      return ConvRole::kY;
    case ConvPass::kDgrad:
      return ConvRole::kX;
    case ConvPass::kWgrad:
      return ConvRole::kW;
  }
  return ConvRole::kY;
}

std::int64_t ConvProblem::bias_elements() const {
  if (!bias) return 0;
  switch (pass) {
    case ConvPass::kFprop:
      return shape.k;
    case ConvPass::kDgrad:
      return shape.c;
    case ConvPass::kWgrad:
      return 0;
  }
  return 0;
}

std::int64_t ConvProblem::reduction() const {
  switch (pass) {
    case ConvPass::kFprop:
      return std::int64_t{shape.r} * shape.s * shape.channels_per_group();
    case ConvPass::kDgrad:
      return std::int64_t{shape.r} * shape.s * shape.filters_per_group();
    case ConvPass::kWgrad:
      return std::int64_t{shape.n} * shape.p() * shape.q();
  }
  return 0;
}

double ConvProblem::flops() const {
  const double taps = double(shape.r) * shape.s * shape.channels_per_group();  // R S C/G
  return 2.0 * double(y_elements()) * taps;
}

ConvProblem ConvProblem::plain() const {
  ConvProblem p = *this;
  p.beta = 0.0f;
  p.bias = false;
  p.activation = Activation::kNone;
  return p;
}

std::optional<std::string> epilogue_error(ConvPass pass, bool bias, Activation activation) {
  if (pass != ConvPass::kWgrad) return std::nullopt;
  if (bias) {
    return "--bias does not apply to --mode wgrad (dW = alpha wgrad(dY, X) + beta dW has no "
           "bias)";
  }
  if (activation != Activation::kNone) {
    return "--activation does not apply to --mode wgrad (dW = alpha wgrad(dY, X) + beta dW has "
           "no activation)";
  }
  return std::nullopt;
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

Conv2dArguments make_fprop_arguments(const ConvProblem& p, const ConvBuffers& b) {
  Conv2dArguments args;
  args.problem = p.shape;
  args.input_type = p.input_type;
  args.output_type = p.output_type;
  args.x = b.x;
  args.w = b.w;
  args.residual = p.reads_residual() ? b.residual : nullptr;
  args.y = b.y;
  args.alpha = p.alpha;
  args.beta = p.beta;
  args.bias = p.bias ? b.bias : nullptr;
  args.activation = p.activation;
  return args;
}

Conv2dDgradArguments make_dgrad_arguments(const ConvProblem& p, const ConvBuffers& b) {
  Conv2dDgradArguments args;
  args.problem = p.shape;
  args.input_type = p.input_type;
  args.output_type = p.output_type;
  args.dy = b.y;
  args.w = b.w;
  args.residual = p.reads_residual() ? b.x : nullptr;  // dX += ...
  args.dx = b.x;
  args.alpha = p.alpha;
  args.beta = p.beta;
  args.bias = p.bias ? b.bias : nullptr;
  args.activation = p.activation;
  return args;
}

Conv2dWgradArguments make_wgrad_arguments(const ConvProblem& p, const ConvBuffers& b) {
  Conv2dWgradArguments args;
  args.problem = p.shape;
  args.input_type = p.input_type;
  args.output_type = p.output_type;
  args.dy = b.y;
  args.x = b.x;
  args.residual = p.reads_residual() ? b.w : nullptr;  // dW += ...
  args.dw = b.w;
  args.alpha = p.alpha;
  args.beta = p.beta;
  return args;
}

Status validate_tessel(const ConvProblem& p, const ConvBuffers& b) {
  switch (p.pass) {
    case ConvPass::kFprop:
      return validate(make_fprop_arguments(p, b));
    case ConvPass::kDgrad:
      return validate(make_dgrad_arguments(p, b));
    case ConvPass::kWgrad:
      return validate(make_wgrad_arguments(p, b));
  }
  return {StatusCode::kInvalidArgument, "tessel-prof: unknown conv2d pass"};
}

Status run_tessel(const ConvProblem& p, const ConvBuffers& b, cudaStream_t stream) {
  switch (p.pass) {
    case ConvPass::kFprop:
      return conv2d_fprop(make_fprop_arguments(p, b), stream);
    case ConvPass::kDgrad:
      return conv2d_dgrad(make_dgrad_arguments(p, b), stream);
    case ConvPass::kWgrad:
      return conv2d_wgrad(make_wgrad_arguments(p, b), stream);
  }
  return {StatusCode::kInvalidArgument, "tessel-prof: unknown conv2d pass"};
}

}  // namespace tessel::prof
