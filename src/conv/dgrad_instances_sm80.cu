#include "conv/dgrad_instances_sm80.hpp"
#include "tessel/gemm/launch_sm80.hpp"
#include "tessel/gemm/launch_sm90.hpp"

namespace tessel::sm80 {
namespace {

template <class Element, ConvIterator Family>
cudaError_t run(bool narrow, ConvTile tile, GemmParams const& p, int groups, ConvFpropA<Family> const& a,
                ConvDgradFilterB const& b, cudaStream_t stream) {
  if (narrow) return launch_gemm_sm80<DgradConfig<Element, 1>, true>(p, groups, stream, a, b);
  if constexpr (Family == ConvIterator::kOptimized) {
#if defined(TESSEL_HAS_SM90A)
    if (tile.wgmma && tile.small())
      return launch_gemm_sm90<DgradConfigSm90<Element, kConvSmallTile>, true>(p, groups, stream, a, b);
    if (tile.wgmma) return launch_gemm_sm90<DgradConfigSm90<Element>, true>(p, groups, stream, a, b);
#endif
    if (tile.small())
      return launch_gemm_sm80<DgradConfig<Element, 8, kConvSmallTile>, true>(p, groups, stream, a, b);
  }
  return launch_gemm_sm80<DgradConfig<Element, 8>, true>(p, groups, stream, a, b);
}

template <ConvIterator Family>
cudaError_t run(DataType input, bool narrow, ConvTile tile, GemmParams const& p, int groups,
                ConvFpropA<Family> const& a, ConvDgradFilterB const& b, cudaStream_t stream) {
  return input == DataType::kF16 ? run<Half>(narrow, tile, p, groups, a, b, stream)
                                 : run<BFloat16>(narrow, tile, p, groups, a, b, stream);
}

}  // namespace

cudaError_t run_conv_dgrad(DataType input, bool narrow, bool optimized, ConvTile tile,
                           GemmParams const& p, Conv2dProblem const& filter,
                           DgradPhase const& phase, int groups, cudaStream_t stream) {
  const ActivationParams params = make_dgrad_activation_params(phase, tile.k);
  const ConvDgradFilterB b = ConvDgradFilterB::make(filter, phase, tile.k);
  if (optimized) {
    return run(input, narrow, tile, p, groups,
               ConvFpropA<ConvIterator::kOptimized>{phase.fprop, params, phase.rows, phase.cols}, b, stream);
  }
  return run(input, narrow, tile, p, groups,
             ConvFpropA<ConvIterator::kAnalytic>{phase.fprop, params, phase.rows, phase.cols}, b, stream);
}

}  // namespace tessel::sm80
