// Launching the sm_90a GEMM kernel (kernel_sm90.hpp): the same grid as the sm80 kernel's
// (launch_sm80.hpp). Only for devices of compute capability 9.0 and code built for sm_90a.
//   launch_gemm_sm90<GemmConfigSm90<128, 128, 32, 6>, true>(params, batch, stream)
#pragma once

#include "kernel_sm90.hpp"
#include "launch_sm80.hpp"

namespace tessel {

#if defined(__CUDACC__)
template <class Config, bool Edges, class ASource = MatrixOperand, class BSource = MatrixOperand>
cudaError_t launch_gemm_sm90(GemmParams const& p, int batch, cudaStream_t stream, ASource const& a = {},
                             BSource const& b = {}) {
  return detail::launch_tiles<Config>(gemm_kernel_sm90<Config, Edges, ASource, BSource>, p, batch, stream, a, b);
}
#endif

}  // namespace tessel
