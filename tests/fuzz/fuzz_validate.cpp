// libFuzzer target for the argument validators of every entry point (gemm, conv2d fprop,
// dgrad, wgrad) and the planning behind them: arbitrary argument structs (any int, pointer,
// enum value or float, absurd sizes and products that overflow) must be accepted or refused
// with a status and a message, never crash, hang or trip ASan or UBSan
// (tests/fuzz/run_fuzz.sh). Accepted arguments are planned for an arbitrary device. The binary
// links no CUDA library: validation and planning cannot touch a GPU.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "conv/conv2d_plan.hpp"
#include "gemm/gemm_plan.hpp"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

namespace {

using namespace tessel;

// Small values, boundary values or anything: the boundaries are where overflow hides.
template <class T>
T any_integer(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: return in.ConsumeIntegralInRange<T>(-2, 70);
    case 1: return in.PickValueInArray<T>({T(0), T(1), T(7), T(8), T(64), T(1 << 15), T(46341), T(65535),
                                           std::numeric_limits<T>::max(), std::numeric_limits<T>::min(),
                                           T(std::numeric_limits<T>::max() / 2 + 1)});
    default: return in.ConsumeIntegral<T>();
  }
}
const void* any_pointer(FuzzedDataProvider& in) {
  if (in.ConsumeBool()) return nullptr;
  const std::uintptr_t slot = in.ConsumeIntegralInRange<std::uintptr_t>(0, 7) << 40;
  return reinterpret_cast<const void*>(in.ConsumeBool() ? in.ConsumeIntegral<std::uintptr_t>()
                                                        : slot + in.ConsumeIntegralInRange<std::uintptr_t>(0, 4096));
}
template <class E>
E any_enum(FuzzedDataProvider& in) {
  return E(in.ConsumeBool() ? in.ConsumeIntegralInRange<int>(0, 2) : in.ConsumeIntegral<int>());
}
float any_float(FuzzedDataProvider& in) {
  return in.ConsumeBool() ? float(in.ConsumeIntegralInRange<int>(-2, 2)) : in.ConsumeFloatingPoint<float>();
}

DeviceInfo any_device(FuzzedDataProvider& in) {
  DeviceInfo d;
  d.sms = in.ConsumeIntegralInRange<int>(1, 4096);
  d.cc_major = in.ConsumeIntegralInRange<int>(8, 12), d.cc_minor = in.ConsumeIntegralInRange<int>(0, 9);
  d.sm90_kernels = in.ConsumeBool(), d.tma_encoder = in.ConsumeBool();
  return d;
}

Conv2dProblem any_problem(FuzzedDataProvider& in) {
  Conv2dProblem p;
  for (int* f : {&p.n, &p.h, &p.w, &p.c, &p.k, &p.r, &p.s, &p.pad_h, &p.pad_w, &p.stride_h, &p.stride_w,
                 &p.dilation_h, &p.dilation_w, &p.groups})
    *f = any_integer<int>(in);
  p.mode = any_enum<ConvMode>(in);
  return p;
}

// A refusal names its reason; success has no message.
void check(const Status& s) {
  const int code = int(s.code());
  if (code < 0 || code > int(StatusCode::kInternal)) std::abort();
  if (s.ok() != s.message().empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: {
      GemmArguments g;
      g.m = any_integer<int>(in), g.n = any_integer<int>(in), g.k = any_integer<int>(in);
      g.batch = any_integer<int>(in);
      g.input_type = any_enum<DataType>(in), g.output_type = any_enum<DataType>(in);
      g.a = any_pointer(in), g.b = any_pointer(in), g.c = any_pointer(in);
      g.d = const_cast<void*>(in.ConsumeBool() ? g.c : any_pointer(in));
      g.bias = any_pointer(in);
      g.a_layout = any_enum<MatrixLayout>(in), g.b_layout = any_enum<MatrixLayout>(in);
      g.d_layout = any_enum<MatrixLayout>(in);
      for (std::int64_t* f : {&g.lda, &g.ldb, &g.ldc, &g.ldd, &g.a_batch_stride, &g.b_batch_stride,
                              &g.c_batch_stride, &g.d_batch_stride})
        *f = any_integer<std::int64_t>(in);
      g.alpha = any_float(in), g.beta = any_float(in);
      g.activation = any_enum<Activation>(in);
      if (in.ConsumeBool()) g.config = in.ConsumeRandomLengthString(32);
      const Status s = validate(g);
      check(s);
      if (s.ok()) {
        gemm_detail::Choice choice;
        const Status planned = gemm_detail::choose(g, any_device(in), &choice);
        check(planned);
        if (planned.ok()) (void)gemm_detail::describe(choice);
      }
      break;
    }
    case 1: {
      Conv2dArguments a;
      a.problem = any_problem(in);
      a.input_type = any_enum<DataType>(in), a.output_type = any_enum<DataType>(in);
      a.x = any_pointer(in), a.w = any_pointer(in), a.residual = any_pointer(in), a.bias = any_pointer(in);
      a.y = const_cast<void*>(in.ConsumeBool() ? a.residual : any_pointer(in));
      a.alpha = any_float(in), a.beta = any_float(in), a.activation = any_enum<Activation>(in);
      const Status s = validate(a);
      check(s);
      if (s.ok()) (void)conv_detail::plan_fprop(a, any_device(in));
      break;
    }
    case 2: {
      Conv2dDgradArguments a;
      a.problem = any_problem(in);
      a.input_type = any_enum<DataType>(in), a.output_type = any_enum<DataType>(in);
      a.dy = any_pointer(in), a.w = any_pointer(in), a.residual = any_pointer(in), a.bias = any_pointer(in);
      a.dx = const_cast<void*>(in.ConsumeBool() ? a.residual : any_pointer(in));
      a.alpha = any_float(in), a.beta = any_float(in), a.activation = any_enum<Activation>(in);
      const Status s = validate(a);
      check(s);
      if (s.ok()) (void)conv_detail::plan_dgrad(a, any_device(in));
      break;
    }
    default: {
      Conv2dWgradArguments a;
      a.problem = any_problem(in);
      a.input_type = any_enum<DataType>(in), a.output_type = any_enum<DataType>(in);
      a.dy = any_pointer(in), a.x = any_pointer(in), a.residual = any_pointer(in);
      a.dw = const_cast<void*>(in.ConsumeBool() ? a.residual : any_pointer(in));
      a.alpha = any_float(in), a.beta = any_float(in);
      const Status s = validate(a);
      check(s);
      if (s.ok()) (void)conv_detail::plan_wgrad(a, any_device(in));
      break;
    }
  }
  return 0;
}
