#include "conv/conv_instances_sm90.hpp"

#include "tessel/gemm/kernel_sm90_tma.hpp"

namespace tessel::sm90 {
namespace {

template <class Element, int TileN, bool Persistent>
using FpropConfig = sm80::FpropConfigTma<Element, TileN, Persistent>;
template <class Element, int TileN, bool Persistent>
using DgradConfig = sm80::DgradConfigTma<Element, TileN, Persistent>;

#if defined(TESSEL_HAS_SM90A)

template <template <class, int, bool> class Config, class Element, class BSource>
cudaError_t run(sm80::ConvTile tile, GemmParams const& p, ConvFpropTmaA const& a, BSource const& b,
                cudaStream_t stream) {
  using sm80::kConvSmallTile, sm80::kConvTile;
  if (tile.persistent) {  // planned: conv2d_plan.cpp
    return tile.small() ? launch_gemm_sm90_tma<Config<Element, kConvSmallTile, true>, true>(p, 1, stream, a, b)
                        : launch_gemm_sm90_tma<Config<Element, kConvTile, true>, true>(p, 1, stream, a, b);
  }
  return tile.small() ? launch_gemm_sm90_tma<Config<Element, kConvSmallTile, false>, false>(p, 1, stream, a, b)
                      : launch_gemm_sm90_tma<Config<Element, kConvTile, false>, false>(p, 1, stream, a, b);
}
#endif

template <template <class, int, bool> class Config, class BSource>
cudaError_t run(DataType input, sm80::ConvTile tile, GemmParams const& p, ConvFpropTmaA const& a,
                BSource const& b, cudaStream_t stream) {
#if defined(TESSEL_HAS_SM90A)
  return input == DataType::kF16 ? run<Config, Half>(tile, p, a, b, stream)
                                 : run<Config, BFloat16>(tile, p, a, b, stream);
#else
  (void)input, (void)tile, (void)p, (void)a, (void)b, (void)stream;
  return cudaErrorNotSupported;  // planned only where DeviceInfo::wgmma()
#endif
}

}  // namespace

cudaError_t run_conv_fprop_tma(DataType input, sm80::ConvTile tile, GemmParams const& p, ConvFpropTmaA const& a,
                               ConvFilterTmaB const& b, cudaStream_t stream) {
  return run<FpropConfig>(input, tile, p, a, b, stream);
}

cudaError_t run_conv_dgrad_tma(DataType input, sm80::ConvTile tile, GemmParams const& p, ConvFpropTmaA const& a,
                               ConvDgradFilterTmaB const& b, cudaStream_t stream) {
  return run<DgradConfig>(input, tile, p, a, b, stream);
}

}  // namespace tessel::sm90
