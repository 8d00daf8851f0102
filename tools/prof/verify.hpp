// Verification of one tessel result against cuBLAS (always) and an fp64 host GEMM (small
// problems), in one error measure with one tolerance.
//
// Error: the componentwise relative error, each element's difference over the magnitude of
// what was summed to make it,
//   err = max_{m,n,b} |d - ref| / (|alpha| (|A||B|)(m,n) + |beta C(m,n)| + |bias(n)|)
// so it does not depend on the data's scale or on cancellation, and an element whose true
// value is near 0 is judged like the others. |A||B| comes from a second cuBLAS GEMM over
// the inputs' absolute values.
//
// Tolerance (tolerance() below), with u32 = 2^-23:
//   tol = u32 (2 sqrt(K) + 8) + u_out + (GELU ? 2^-11 : 0)
//   - fp32 accumulation: tensor cores add with truncation, so one unit u32 (not half) per
//     rounding; rounding errors of a K-term sum grow like sqrt(K) with high probability
//     (Higham & Mary's probabilistic error analysis), against |A||B| which bounds the sum;
//     two such computations are compared (tessel and cuBLAS), hence 2 sqrt(K).
//   - 8 u32: the epilogue's fixed number of f32 roundings on both sides (alpha, beta C,
//     bias, the reference's own f32 result).
//   - u_out: D's final rounding, 0 for f32 (inside the 8), 2^-11 for f16, 2^-8 for bf16.
//   - GELU: tessel may evaluate tanh approximately (tanh.approx.f32: absolute error below
//     2^-10.99); |x| <= the denominator and GELU = x/2 (1 + tanh) gives at most 2^-11.
// For K = 4096, f32 out: tol = 1.6e-5; f16 out: 5.0e-4; bf16 out: 3.9e-3.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <optional>

#include "operands.hpp"
#include "problem.hpp"

namespace tessel::prof {

// Problems up to this many multiply-adds (M N K batch) also get the fp64 host reference.
inline constexpr double kHostReferenceMaxMacs = double(1 << 30);

struct Verification {
  double max_err = 0;              // against cuBLAS
  std::optional<double> fp64_err;  // against the fp64 host GEMM, for small problems
  double tolerance = 0;
  bool passed() const { return max_err <= tolerance && (!fp64_err || *fp64_err <= tolerance); }
};

double tolerance(const GemmProblem& p);

// Checks D of copy 0 (tessel's result, already computed and synchronised) against the
// references built from the same copy's A, B, C and bias. Throws ProfError on CUDA/cuBLAS
// failures.
Verification verify_gemm(const GemmProblem& p, const RotatingOperands& ops, cublasHandle_t cublas,
                         cudaStream_t stream);

}  // namespace tessel::prof
