// The profiler's own small kernels: random inputs, conversions to f32, the reference
// epilogue and the error reduction. Host-callable; each checks its launch and throws
// ProfError. Element counts are whole buffers (all batches, all rotation copies).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "tessel/runtime/gemm.hpp"

namespace tessel::prof {

// dst[i] = round_to_t(uniform value in [-1, 1) from a hash of (seed, i)): fresh, reproducible
// data without a host copy. Example: fill_uniform(a, DataType::kF16, m * k, 1, s).
void fill_uniform(void* dst, DataType t, std::size_t count, std::uint64_t seed,
                  cudaStream_t stream);

// dst[i] = float(src[i]), or |float(src[i])| when `absolute`; exact for f16, bf16 and f32.
void convert_to_float(const void* src, DataType t, std::size_t count, float* dst, bool absolute,
                      cudaStream_t stream);

// dst[i] = |src[i]| for 16-bit floats (clears the sign bit: exact for f16 and bf16).
void abs_16bit(const void* src, std::size_t count, void* dst, cudaStream_t stream);

// The part of the reference cuBLAS cannot do, over column-major (M,N,batch) f32 buffers:
//   ref(m,n,b) = act(ref(m,n,b) + bias[n]),   scale(m,n,b) += |bias[n]|
// `bias` holds N values of `bias_type`, or is null (then only act is applied).
void apply_reference_epilogue(float* ref, float* scale, const void* bias, DataType bias_type, int m,
                              int n, int batch, Activation act, cudaStream_t stream);

// max_i (|d[i] - ref[i]| - f) / scale[i] (0/0 counts as 0), f the half-spacing of d's
// subnormals that rounding to its type may lose (f16: 2^-25); NaN or Inf in d gives +inf.
// Synchronises `stream`.
float max_scaled_error(const void* d, DataType d_type, const float* ref, const float* scale,
                       std::size_t count, cudaStream_t stream);

}  // namespace tessel::prof
