#include "conv/conv2d_common.hpp"
#include "conv/fprop_instances_sm80.hpp"
#include "tessel/gemm/kernel_sm90_tma.hpp"

namespace tessel::sm90 {
namespace {

#if defined(TESSEL_HAS_SM90A)
template <class Element>
cudaError_t run(sm80::ConvTile tile, bool persistent, GemmParamsSm80 const& p, ConvFpropTmaA const& a,
                ConvFilterTmaB const& b, cudaStream_t stream) {
  using sm80::FpropConfigTma, sm80::kConvSmallTile, sm80::kConvTile;
  if (persistent) {
    return tile.small() ? launch_gemm_sm90_tma<FpropConfigTma<Element, kConvSmallTile, true>, true>(p, 1, stream, a, b)
                        : launch_gemm_sm90_tma<FpropConfigTma<Element, kConvTile, true>, true>(p, 1, stream, a, b);
  }
  return tile.small() ? launch_gemm_sm90_tma<FpropConfigTma<Element, kConvSmallTile>, false>(p, 1, stream, a, b)
                      : launch_gemm_sm90_tma<FpropConfigTma<Element>, false>(p, 1, stream, a, b);
}
#endif

}  // namespace

cudaError_t run_conv_fprop_tma(DataType input, sm80::ConvTile tile, GemmParamsSm80 const& p, ConvFpropTmaA const& a,
                               ConvFilterTmaB const& b, cudaStream_t stream) {
#if defined(TESSEL_HAS_SM90A)
  // Persistent for short reductions with more work items than two blocks per SM could hold.
  const int k_tiles = (p.k + sm80::kConvTileKTma - 1) / sm80::kConvTileKTma;
  const long long items = (long long)((p.m + tile.m - 1) / tile.m) * ((p.n + tile.n - 1) / tile.n) * p.splits;
  const bool persistent = (k_tiles < p.k_tiles_per_split ? k_tiles : p.k_tiles_per_split) <=
                              sm80::kConvPersistentMaxKTiles &&
                          items > 2LL * conv_detail::device_sms();
  return input == DataType::kF16 ? run<Half>(tile, persistent, p, a, b, stream)
                                 : run<BFloat16>(tile, persistent, p, a, b, stream);
#else
  (void)input, (void)tile, (void)p, (void)a, (void)b, (void)stream;
  return cudaErrorNotSupported;  // the caller asks only when wgmma_available()
#endif
}

}  // namespace tessel::sm90
