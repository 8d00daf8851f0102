// validate() for the three conv2d directions. Each names its tensors and who reads or writes
// them, then one check runs over that list: the problem, types, null pointers, element
// alignment, and that the output overlaps no input (the residual may be the output itself).
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "conv/conv2d_plan.hpp"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel::conv_detail {

namespace {

struct Range {
  std::uintptr_t begin, end;
};
Range bytes_of(const void* p, long long elements, int elem_bytes) {
  auto b = reinterpret_cast<std::uintptr_t>(p);
  return {b, b + std::uintptr_t(elements) * std::uintptr_t(elem_bytes)};
}
bool overlap(Range a, Range b) { return a.begin < b.end && b.begin < a.end; }

struct TensorArg {
  const char* name;
  const void* ptr;
  long long elements;
  bool is_input;  // of the input type; else of the output type
  bool used;      // false: not touched by this call (a residual with beta == 0, no bias)
};

// `reads`: the tensors the call reads; `out`: the one it writes. The problem is valid.
Status check(const char* direction, DataType input_type, DataType output_type,
             Activation activation, std::initializer_list<TensorArg> reads, TensorArg out) {
  auto type_ok = [](DataType t) {
    return t == DataType::kF16 || t == DataType::kBF16 || t == DataType::kF32;
  };
  for (auto [name, type] :
       {std::pair{"input_type", input_type}, std::pair{"output_type", output_type}}) {
    if (!type_ok(type)) {
      return invalid(std::string(direction) + ": " + name + " = " + std::to_string(int(type)) +
                     ": expected 0 (f16), 1 (bf16) or 2 (f32)");
    }
  }
  if (input_type == DataType::kF32) {
    return {StatusCode::kNotSupported,
            std::string("conv2d: ") + direction +
                ": input_type = f32 is not supported; expected f16 or bf16"};
  }
  if (int(activation) < 0 || int(activation) > 2) {
    return invalid(std::string(direction) + ": activation = " + std::to_string(int(activation)) +
                   ": expected 0 (none), 1 (relu), 2 (gelu)");
  }
  const int ib = data_type_bytes(input_type), ob = data_type_bytes(output_type);
  auto bytes = [&](const TensorArg& t) { return t.is_input ? ib : ob; };
  auto is_residual = [](const TensorArg& t) { return std::string(t.name) == "residual"; };
  std::vector<TensorArg> all(reads);
  all.push_back(out);
  for (const TensorArg& t : all) {
    if (!t.used) continue;
    if (t.ptr == nullptr) {
      return invalid(std::string(direction) + ": " + t.name + " is null" +
                     (is_residual(t) ? " but beta != 0 reads it" : ""));
    }
    if (!aligned(t.ptr, bytes(t))) {
      return {StatusCode::kMisaligned, std::string("conv2d: ") + direction + ": " + t.name +
                                           " is not aligned to its " + std::to_string(bytes(t)) +
                                           "-byte elements"};
    }
  }
  const Range o = bytes_of(out.ptr, out.elements, ob);
  for (const TensorArg& t : reads) {
    if (!t.used || (is_residual(t) && t.ptr == out.ptr)) continue;
    if (overlap(o, bytes_of(t.ptr, t.elements, bytes(t)))) {
      return invalid(std::string(direction) + ": " + out.name + " overlaps " + t.name +
                     (is_residual(t) ? std::string("; the residual must be ") + out.name +
                                           " itself or separate memory"
                                     : "; the output must be separate memory"));
    }
  }
  return {};
}

long long activation_elements(const Conv2dProblem& pb) {
  return (long long)pb.n * pb.h * pb.w * pb.c;
}
long long filter_elements(const Conv2dProblem& pb) {
  return (long long)pb.k * pb.r * pb.s * pb.channels_per_group();
}
long long output_elements(const Conv2dProblem& pb) {
  return (long long)pb.n * pb.p() * pb.q() * pb.k;
}

}  // namespace
}  // namespace tessel::conv_detail

namespace tessel {

using conv_detail::TensorArg;

Status validate(const Conv2dArguments& a) {
  const Conv2dProblem& pb = a.problem;
  if (Status s = validate(pb); !s) return s;  // first: the sizes below assume a valid problem
  const long long x = conv_detail::activation_elements(pb), w = conv_detail::filter_elements(pb),
                  y = conv_detail::output_elements(pb);
  return conv_detail::check("fprop", a.input_type, a.output_type, a.activation,
                            {TensorArg{"x", a.x, x, true, true}, TensorArg{"w", a.w, w, true, true},
                             TensorArg{"residual", a.residual, y, false, a.beta != 0.0f},
                             TensorArg{"bias", a.bias, pb.k, false, a.bias != nullptr}},
                            TensorArg{"y", a.y, y, false, true});
}

Status validate(const Conv2dDgradArguments& a) {
  const Conv2dProblem& pb = a.problem;
  if (Status s = validate(pb); !s) return s;  // first: the sizes below assume a valid problem
  const long long phases = dgrad_phases_with_rows(pb);
  if (phases > kMaxDgradPhases) {
    return {StatusCode::kNotSupported,
            "conv2d: dgrad: min(stride_h, H) * min(stride_w, W) = " + std::to_string(phases) +
                " stride phases have rows; dgrad runs one GEMM per phase and supports at most " +
                std::to_string(kMaxDgradPhases)};
  }
  const long long x = conv_detail::activation_elements(pb), w = conv_detail::filter_elements(pb),
                  y = conv_detail::output_elements(pb);
  return conv_detail::check(
      "dgrad", a.input_type, a.output_type, a.activation,
      {TensorArg{"dy", a.dy, y, true, true}, TensorArg{"w", a.w, w, true, true},
       TensorArg{"residual", a.residual, x, false, a.beta != 0.0f},
       TensorArg{"bias", a.bias, pb.c, false, a.bias != nullptr}},
      TensorArg{"dx", a.dx, x, false, true});
}

Status validate(const Conv2dWgradArguments& a) {
  const Conv2dProblem& pb = a.problem;
  if (Status s = validate(pb); !s) return s;  // first: the sizes below assume a valid problem
  const long long x = conv_detail::activation_elements(pb), w = conv_detail::filter_elements(pb),
                  y = conv_detail::output_elements(pb);
  return conv_detail::check(
      "wgrad", a.input_type, a.output_type, Activation::kNone,
      {TensorArg{"dy", a.dy, y, true, true}, TensorArg{"x", a.x, x, true, true},
       TensorArg{"residual", a.residual, w, false, a.beta != 0.0f}},
      TensorArg{"dw", a.dw, w, false, true});
}

}  // namespace tessel
