#include "conv/fprop_instances_sm80.hpp"
#include "tessel/gemm/launch_sm80.hpp"
#include "tessel/gemm/launch_sm90.hpp"

namespace tessel::sm80 {
namespace {

template <class Element, ConvIterator Family>
cudaError_t run(bool narrow, ConvTile tile, GemmParams const& p, int groups, ConvFpropA<Family> const& a,
                cudaStream_t stream) {
  if (narrow) return launch_gemm_sm80<FpropConfig<Element, 1>, true>(p, groups, stream, a);
  if constexpr (Family == ConvIterator::kOptimized) {
#if defined(TESSEL_HAS_SM90A)
    if (tile.wgmma && tile.small())
      return launch_gemm_sm90<FpropConfigSm90<Element, kConvSmallTile>, true>(p, groups, stream, a);
    if (tile.wgmma) return launch_gemm_sm90<FpropConfigSm90<Element>, true>(p, groups, stream, a);
#endif
    if (tile.small())
      return launch_gemm_sm80<FpropConfig<Element, 8, kConvSmallTile>, true>(p, groups, stream, a);
  }
  return launch_gemm_sm80<FpropConfig<Element, 8>, true>(p, groups, stream, a);
}

template <ConvIterator Family>
cudaError_t run(DataType input, bool narrow, ConvTile tile, GemmParams const& p, int groups,
                ConvFpropA<Family> const& a, cudaStream_t stream) {
  return input == DataType::kF16 ? run<Half>(narrow, tile, p, groups, a, stream)
                                 : run<BFloat16>(narrow, tile, p, groups, a, stream);
}

}  // namespace

cudaError_t run_conv_fprop(DataType input, bool narrow, bool optimized, ConvTile tile,
                           GemmParams const& p, Conv2dProblem const& problem, int groups,
                           cudaStream_t stream) {
  const ActivationParams params = make_activation_params(problem, tile.k);
  if (optimized) {
    return run(input, narrow, tile, p, groups, ConvFpropA<ConvIterator::kOptimized>{problem, params}, stream);
  }
  return run(input, narrow, tile, p, groups, ConvFpropA<ConvIterator::kAnalytic>{problem, params}, stream);
}

}  // namespace tessel::sm80
