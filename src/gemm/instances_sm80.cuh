// Definition of run_gemm (instances_sm80.hpp): a switch over the compiled configurations.
#pragma once

#include <iterator>

#include "gemm/instances_sm80.hpp"
#include "gemm/tile_configs_sm80.hpp"
#include "tessel/gemm/launch_sm80.hpp"

namespace tessel::sm80 {

// Configuration Index, or the next ones; cudaErrorInvalidValue past the last (the caller
// checks the index first).
template <class Element, Major A, Major B, int Index = 0>
cudaError_t run_gemm_at(KernelChoice const& c, GemmParams const& p, int batch, cudaStream_t stream) {
  if constexpr (Index == kNumTileConfigs) {
    return cudaErrorInvalidValue;
  } else {
    if (c.config != Index) return run_gemm_at<Element, A, B, Index + 1>(c, p, batch, stream);
    using Config = typename TileConfigAt<Index>::template Config<Element, A, B, 8>;
    static_assert(kTileConfigs[Index].tile_m == Config::kTileM && kTileConfigs[Index].tile_n == Config::kTileN &&
                      kTileConfigs[Index].tile_k == Config::kTileK && kTileConfigs[Index].stages == Config::kStages &&
                      kTileConfigs[Index].warps_m == Config::kWarpsM && kTileConfigs[Index].warps_n == Config::kWarpsN &&
                      kTileConfigs[Index].smem_bytes() == Config::kSmemBytes,
                  "tile_configs_sm80: the table row and the shape type disagree");
    return c.edges ? launch_gemm_sm80<Config, true>(p, batch, stream) : launch_gemm_sm80<Config, false>(p, batch, stream);
  }
}

// The narrow tile with access kNarrowAccesses[Index], or the next ones; cudaErrorInvalidValue
// past the last.
template <class Element, Major A, Major B, int Index = 0>
cudaError_t run_narrow_gemm(int access, GemmParams const& p, int batch, cudaStream_t stream) {
  if constexpr (Index == int(std::size(kNarrowAccesses))) {
    return cudaErrorInvalidValue;
  } else {
    if (access != kNarrowAccesses[Index]) return run_narrow_gemm<Element, A, B, Index + 1>(access, p, batch, stream);
    using Config = typename NarrowTile::template Config<Element, A, B, kNarrowAccesses[Index]>;
    return launch_gemm_sm80<Config, true>(p, batch, stream);
  }
}

template <DataType Input, Major A, Major B>
cudaError_t run_gemm(KernelChoice const& c, GemmParams const& p, int batch, cudaStream_t stream) {
  using Element = std::conditional_t<Input == DataType::kF16, Half, BFloat16>;
  if (c.access != 8) return run_narrow_gemm<Element, A, B>(c.access, p, batch, stream);
  return run_gemm_at<Element, A, B>(c, p, batch, stream);
}

}  // namespace tessel::sm80
