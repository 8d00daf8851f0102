#include "conv/wgrad_instances_sm80.hpp"
#include "tessel/gemm/launch_sm80.hpp"
#include "tessel/gemm/launch_sm90.hpp"

namespace tessel::sm80 {
namespace {

template <class Element>
cudaError_t run(bool narrow, ConvTile tile, GemmParams const& p, int groups, ConvWgradActivationB const& b,
                cudaStream_t stream) {
  if (narrow)
    return launch_gemm_sm80<WgradConfig<Element, 1>, true>(p, groups, stream, MatrixOperand{}, b);
#if defined(TESSEL_HAS_SM90A)
  if (tile.wgmma && tile.small()) {
    return launch_gemm_sm90<WgradConfigSm90<Element, kConvSmallTile>, true>(p, groups, stream, MatrixOperand{}, b);
  }
  if (tile.wgmma) return launch_gemm_sm90<WgradConfigSm90<Element>, true>(p, groups, stream, MatrixOperand{}, b);
#endif
  if (tile.small()) {
    return launch_gemm_sm80<WgradConfig<Element, 8, kConvSmallTile>, true>(p, groups, stream,
                                                                           MatrixOperand{}, b);
  }
  return launch_gemm_sm80<WgradConfig<Element, 8>, true>(p, groups, stream, MatrixOperand{}, b);
}

}  // namespace

cudaError_t run_conv_wgrad(DataType input, bool narrow, ConvTile tile, GemmParams const& p,
                           Conv2dProblem const& problem, int groups, cudaStream_t stream) {
  const ConvWgradActivationB b = ConvWgradActivationB::make(problem, tile.k);
  return input == DataType::kF16 ? run<Half>(narrow, tile, p, groups, b, stream)
                                 : run<BFloat16>(narrow, tile, p, groups, b, stream);
}

}  // namespace tessel::sm80
