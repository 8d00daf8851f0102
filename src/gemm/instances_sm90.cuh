// Definition of run_gemm_tma (instances_sm90.hpp): a switch over the compiled configurations.
#pragma once

#include "gemm/instances_sm90.hpp"
#include "gemm/tile_configs_sm90.hpp"
#include "tessel/gemm/kernel_sm90_tma.hpp"

namespace tessel::sm90 {

#if defined(TESSEL_HAS_SM90A)
template <class Element, Major A, Major B, bool TmaEpilogue, int Index = 0>
cudaError_t run_gemm_tma_at(int config, GemmParams const& p, int batch, cudaStream_t stream, TmaMatrix const& a,
                            TmaMatrix const& b, StreamKParams const& sk, TmaStoreD const& d) {
  if constexpr (Index == kNumTmaTileConfigs) {
    return cudaErrorInvalidValue;
  } else {
    if (config != Index) {
      return run_gemm_tma_at<Element, A, B, TmaEpilogue, Index + 1>(config, p, batch, stream, a, b, sk, d);
    }
    using Config = typename TmaTileConfigAt<Index>::template Config<Element, A, B>;
    static_assert(kTmaTileConfigs[Index].tile_m == Config::kTileM && kTmaTileConfigs[Index].tile_n == Config::kTileN &&
                      kTmaTileConfigs[Index].tile_k == Config::kTileK &&
                      kTmaTileConfigs[Index].stages == Config::kStages &&
                      kTmaTileConfigs[Index].ping_pong == Config::kPingPong &&
                      kTmaTileConfigs[Index].cluster_m == Config::kClusterM &&
                      kTmaTileConfigs[Index].store_warps == Config::kStoreWarps &&
                      kTmaTileConfigs[Index].smem_bytes() == kTmaKernelSmemBytes<Config, true>,
                  "tile_configs_sm90: the table row and the shape type disagree");
    if constexpr (TmaEpilogue && Config::kStoreWarps > 0) {
      return cudaErrorInvalidValue;  // the store warps store their tiles themselves: never planned
    } else {
      return launch_gemm_sm90_tma<Config, true, TmaEpilogue>(
          p, batch, stream, MatrixTmaSource<A, Config::kTileM, Config::kTileK>{a},
          MatrixTmaSource<B, Config::kTileN, Config::kTileK, Config::kClusterM>{b}, sk, d);
    }
  }
}
#endif

template <DataType Input, Major A, Major B, bool TmaEpilogue>
cudaError_t run_gemm_tma(int config, GemmParams const& p, int batch, cudaStream_t stream, TmaMatrix const& a,
                         TmaMatrix const& b, StreamKParams const& sk, TmaStoreD const& d) {
#if defined(TESSEL_HAS_SM90A)
  using Element = std::conditional_t<Input == DataType::kF16, Half, BFloat16>;
  return run_gemm_tma_at<Element, A, B, TmaEpilogue>(config, p, batch, stream, a, b, sk, d);
#else
  (void)config, (void)p, (void)batch, (void)stream, (void)a, (void)b, (void)sk, (void)d;
  return cudaErrorNotSupported;  // planned only where DeviceInfo::wgmma()
#endif
}

}  // namespace tessel::sm90
