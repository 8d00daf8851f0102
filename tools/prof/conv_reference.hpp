// The conv2d reference: a direct convolution on the GPU accumulated in fp64, one thread per
// output element, with tessel's epilogue, and the denominator of the error measure.
//
//   ref(n,p,q,k)   = act(alpha sum_{r,s,c} X W + beta R(n,p,q,k) + bias(k))
//   scale(n,p,q,k) = |alpha| sum_{r,s,c} |X| |W| + |beta R(n,p,q,k)| + |bias(k)|
//
// both rounded once to f32; the sums run over the taps of the output's group, taps outside
// the image reading zero (conv/problem.hpp gives the index arithmetic). The error is then
// max |y - ref| / scale (device_kernels.hpp's max_scaled_error), as for the GEMM.
#pragma once

#include <cuda_runtime_api.h>

#include "conv_problem.hpp"

namespace tessel::prof {

// ref and scale hold N P Q K floats each; `residual` is read when p.beta != 0, `bias` when
// not null (both of p.output_type). Asynchronous on `stream`; throws ProfError on a launch
// failure.
void conv2d_reference(const ConvProblem& p, const void* x, const void* w, const void* residual,
                      const void* bias, float* ref, float* scale, cudaStream_t stream);

}  // namespace tessel::prof
