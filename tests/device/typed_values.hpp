// Host helpers of the runtime's device tests: values in a tessel DataType (round, encode to
// bytes, decode), the output type's rounding, and the reference activation in double.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "tessel/runtime/gemm.hpp"

namespace tessel::test {

// x rounded to type t (what the device will hold), back in float.
inline float round_to(DataType t, float x) {
  if (t == DataType::kF16) return __half2float(__float2half_rn(x));
  if (t == DataType::kBF16) return __bfloat162float(__float2bfloat16_rn(x));
  return x;
}

// The bytes of `values` in type t.
inline std::vector<unsigned char> encode(DataType t, std::vector<float> const& values) {
  std::vector<unsigned char> bytes(values.size() * data_type_bytes(t));
  for (size_t i = 0; i < values.size(); ++i) {
    if (t == DataType::kF16) {
      __half h = __float2half_rn(values[i]);
      std::memcpy(&bytes[2 * i], &h, 2);
    } else if (t == DataType::kBF16) {
      __nv_bfloat16 h = __float2bfloat16_rn(values[i]);
      std::memcpy(&bytes[2 * i], &h, 2);
    } else {
      std::memcpy(&bytes[4 * i], &values[i], 4);
    }
  }
  return bytes;
}

// The value of type t at p.
inline float decode(DataType t, unsigned char const* p) {
  if (t == DataType::kF16) {
    __half h;
    std::memcpy(&h, p, 2);
    return __half2float(h);
  }
  if (t == DataType::kBF16) {
    __nv_bfloat16 h;
    std::memcpy(&h, p, 2);
    return __bfloat162float(h);
  }
  float f;
  std::memcpy(&f, p, 4);
  return f;
}

// The output type's rounding, doubled for the epilogue's own fp32 arithmetic (alpha, beta, GELU):
// 2^-23 (f32), 2^-10 (f16), 2^-7 (bf16).
inline double output_eps(DataType t) {
  return t == DataType::kF32 ? 0x1p-23 : t == DataType::kF16 ? 0x1p-10 : 0x1p-7;
}

// The activation as tessel defines it, in double (GELU: the tanh approximation).
inline double activate(double x, Activation act) {
  if (act == Activation::kReLU) return std::max(x, 0.0);
  if (act == Activation::kGELU)
    return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  return x;
}

}  // namespace tessel::test
