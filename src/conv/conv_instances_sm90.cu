#include "conv/conv_instances_sm90.hpp"

#include "tessel/gemm/kernel_sm90_tma.hpp"

namespace tessel::sm90 {
namespace {

template <class Element, int TileN, bool Persistent, bool Deep, int TileM>
using FpropConfig = sm80::FpropConfigTma<Element, TileN, Persistent, Deep, TileM>;
template <class Element, int TileN, bool Persistent, bool Deep, int TileM>
using DgradConfig = sm80::DgradConfigTma<Element, TileN, Persistent, Deep, TileM>;

#if defined(TESSEL_HAS_SM90A)

template <template <class, int, bool, bool, int> class Config, class Element, class ASource, class BSource>
cudaError_t run(sm80::ConvTile tile, GemmParams const& p, int batches, ASource const& a, BSource const& b,
                cudaStream_t stream) {
  using sm80::kConvSmallTile, sm80::kConvTile, sm80::kConvWideTile;
  if (tile.deep && (tile.persistent || tile.small())) return cudaErrorInvalidValue;  // planned: conv2d_plan.cpp
  if (tile.m == kConvWideTile) {  // 256x64, persistent only
    if (!tile.persistent || tile.n != kConvSmallTile) return cudaErrorInvalidValue;
    return launch_gemm_sm90_tma<Config<Element, kConvSmallTile, true, false, kConvWideTile>, true>(p, batches, stream,
                                                                                                     a, b);
  }
  if (tile.persistent) {
    return tile.small()
               ? launch_gemm_sm90_tma<Config<Element, kConvSmallTile, true, false, kConvTile>, true>(p, batches, stream,
                                                                                                    a, b)
               : launch_gemm_sm90_tma<Config<Element, kConvTile, true, false, kConvTile>, true>(p, batches, stream, a, b);
  }
  if (tile.deep) {
    return launch_gemm_sm90_tma<Config<Element, kConvTile, false, true, kConvTile>, false>(p, batches, stream, a, b);
  }
  if (tile.small()) {
    return launch_gemm_sm90_tma<Config<Element, kConvSmallTile, false, false, kConvTile>, false>(p, batches, stream, a,
                                                                                                b);
  }
  return launch_gemm_sm90_tma<Config<Element, kConvTile, false, false, kConvTile>, false>(p, batches, stream, a, b);
}
#endif

template <template <class, int, bool, bool, int> class Config, class ASource, class BSource>
cudaError_t run(DataType input, sm80::ConvTile tile, GemmParams const& p, int batches, ASource const& a,
                BSource const& b, cudaStream_t stream) {
#if defined(TESSEL_HAS_SM90A)
  return input == DataType::kF16 ? run<Config, Half>(tile, p, batches, a, b, stream)
                                 : run<Config, BFloat16>(tile, p, batches, a, b, stream);
#else
  (void)input, (void)tile, (void)p, (void)batches, (void)a, (void)b, (void)stream;
  return cudaErrorNotSupported;  // planned only where DeviceInfo::wgmma()
#endif
}

#if defined(TESSEL_HAS_SM90A)
template <class Element, int TileM, bool Persistent, int ClusterM = 1>
cudaError_t run_wgrad(GemmParams const& p, int groups, TmaMatrix const& dy, ConvWgradActivationTmaB const& x,
                      StreamKParams const& sk, cudaStream_t stream) {
  const MatrixTmaSource<Major::kMN, TileM, sm80::kConvTileKTma> a{dy};
  using Config = sm80::WgradConfigTma<Element, TileM, Persistent, ClusterM>;
  static_assert(Config::kTileN / 64 <= WgradActivationBoxes::kMaxBoxes,
                "run_wgrad: more column blocks a tile than WgradActivationBoxes holds");
  return launch_gemm_sm90_tma<Config, Persistent>(p, groups, stream, a, x, sk);
}
template <class Element>
cudaError_t run_wgrad(sm80::ConvTile tile, GemmParams const& p, int groups, TmaMatrix const& dy,
                      ConvWgradActivationTmaB const& x, StreamKParams const& sk, cudaStream_t stream) {
  if (tile.persistent) return run_wgrad<Element, sm80::kConvTile, true, 2>(p, groups, dy, x, sk, stream);
  return tile.m < sm80::kConvTile ? run_wgrad<Element, sm80::kConvSmallTile, false>(p, groups, dy, x, {}, stream)
                                  : run_wgrad<Element, sm80::kConvTile, false>(p, groups, dy, x, {}, stream);
}
#endif

}  // namespace

cudaError_t run_conv_fprop_tma(DataType input, sm80::ConvTile tile, GemmParams const& p, int groups,
                               ConvFpropTmaA const& a, ConvFilterTmaB const& b, cudaStream_t stream) {
  return run<FpropConfig>(input, tile, p, groups, a, b, stream);
}

cudaError_t run_conv_dgrad_tma(DataType input, sm80::ConvTile tile, GemmParams const& p, int groups,
                               ConvFpropTmaA const& a, ConvDgradFilterTmaB const& b, cudaStream_t stream) {
  return run<DgradConfig>(input, tile, p, groups, a, b, stream);
}

static_assert(BatchShapedSource<ConvDgradPhasesTmaA> && !BatchShapedSource<ConvFpropTmaA>,
              "the phases' A source gives each batch its shape; the others do not");

cudaError_t run_conv_dgrad_phases_tma(DataType input, sm80::ConvTile tile, GemmParams const& params, int phases,
                                      ConvDgradPhasesTmaA const& a, ConvDgradPhasesTmaB const& b, cudaStream_t stream) {
  return run<DgradConfig>(input, tile, params, phases, a, b, stream);
}

cudaError_t run_conv_wgrad_tma(DataType input, sm80::ConvTile tile, GemmParams const& params, int groups,
                               TmaMatrix const& dy, ConvWgradActivationTmaB const& x, StreamKParams const& sk,
                               cudaStream_t stream) {
#if defined(TESSEL_HAS_SM90A)
  // planned: conv2d_plan.cpp (persistent: 128x128 in clusters of two, one K slice, a stream-K schedule)
  if (tile.deep || tile.n != sm80::kConvTile || tile.persistent != (sk.schedule.sk_items > 0) ||
      (tile.persistent && (tile.small() || tile.cluster != 2)) || (!tile.persistent && tile.cluster != 1))
    return cudaErrorInvalidValue;
  return input == DataType::kF16 ? run_wgrad<Half>(tile, params, groups, dy, x, sk, stream)
                                 : run_wgrad<BFloat16>(tile, params, groups, dy, x, sk, stream);
#else
  (void)input, (void)tile, (void)params, (void)groups, (void)dy, (void)x, (void)sk, (void)stream;
  return cudaErrorNotSupported;  // planned only where DeviceInfo::wgmma()
#endif
}

}  // namespace tessel::sm90
