#include "conv/fprop_instances_sm80.hpp"
#include "tessel/gemm/launch_sm80.hpp"

namespace tessel::sm80 {

template <class Element, int Access>
using FpropConfig = GemmConfigSm80<128, 128, 32, 4, 2, 2, Element, Major::kK, Major::kK, Access>;

cudaError_t run_conv_fprop(DataType input, bool narrow, GemmParamsSm80 const& p, ConvFpropA const& a,
                           cudaStream_t stream) {
  if (input == DataType::kF16) {
    return narrow ? launch_gemm_sm80<FpropConfig<Half, 1>, true>(p, 1, stream, a)
                  : launch_gemm_sm80<FpropConfig<Half, 8>, true>(p, 1, stream, a);
  }
  return narrow ? launch_gemm_sm80<FpropConfig<BFloat16, 1>, true>(p, 1, stream, a)
                : launch_gemm_sm80<FpropConfig<BFloat16, 8>, true>(p, 1, stream, a);
}

}  // namespace tessel::sm80
