// The conv2d reference of each pass: a direct convolution on the GPU accumulated in fp64, with
// tessel's epilogue, and the denominator of the error measure. For one output element o,
//
//   ref(o)   = act(alpha sum + beta R(o) + bias)         sum = the pass's sum of products
//   scale(o) = |alpha| sum |products| + |beta R(o)| + |bias|
//
// both rounded once to f32, where the sums are (conv/problem.hpp's index relations, taps
// outside the image reading zero, g the group of the output's channel):
//
//   fprop  Y[n,p,q,k]  = sum_{r,s,c in g} X[n,h(p,r),w(q,s),c] W[k,r,s,c]      bias[k]
//   dgrad  dX[n,h,w,c] = sum_{r,s,k in g} dY[n,p,q,k] W[k,r,s,c] over the (p, q) with
//                        h = p stride_h - pad_h + r' dilation_h (likewise w)      bias[c]
//   wgrad  dW[k,r,s,c] = sum_{n,p,q} dY[n,p,q,k] X[n,h(p,r),w(q,s),g C/G + c]    no bias
//
// One thread per output element for fprop and dgrad; wgrad's sum over N P Q (long: 100352
// terms for 32x56x56) is cut into slices summed in order by a second kernel. The error is
// then max |out - ref| / scale (device_kernels.hpp's max_scaled_error), as for the GEMM.
#pragma once

#include <cuda_runtime_api.h>

#include "conv_problem.hpp"

namespace tessel::prof {

// ref and scale hold p.output_elements() floats each. The inputs are read from `b` by role;
// the residual (when p.beta != 0) from b.residual for fprop and from the output tensor itself
// for dgrad and wgrad, so call this before the output is overwritten; the bias from b.bias
// when p.bias. Asynchronous on `stream` except for wgrad's slices (synchronised before their
// buffer is freed); throws ProfError on a launch failure.
void conv2d_reference(const ConvProblem& p, const ConvBuffers& b, float* ref, float* scale,
                      cudaStream_t stream);

}  // namespace tessel::prof
