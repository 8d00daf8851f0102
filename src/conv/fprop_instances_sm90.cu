#include "conv/fprop_instances_sm80.hpp"
#include "tessel/gemm/kernel_sm90_tma.hpp"

namespace tessel::sm90 {

cudaError_t run_conv_fprop_tma(DataType input, sm80::ConvTile tile, GemmParamsSm80 const& p, ConvFpropTmaA const& a,
                               ConvFilterTmaB const& b, cudaStream_t stream) {
#if defined(TESSEL_HAS_SM90A)
  using sm80::FpropConfigTma;
  if (input == DataType::kF16) {
    return tile.small() ? launch_gemm_sm90_tma<FpropConfigTma<Half, sm80::kConvSmallTile>>(p, 1, stream, a, b)
                        : launch_gemm_sm90_tma<FpropConfigTma<Half>>(p, 1, stream, a, b);
  }
  return tile.small() ? launch_gemm_sm90_tma<FpropConfigTma<BFloat16, sm80::kConvSmallTile>>(p, 1, stream, a, b)
                      : launch_gemm_sm90_tma<FpropConfigTma<BFloat16>>(p, 1, stream, a, b);
#else
  (void)input, (void)tile, (void)p, (void)a, (void)b, (void)stream;
  return cudaErrorNotSupported;  // the caller asks only when wgmma_available()
#endif
}

}  // namespace tessel::sm90
