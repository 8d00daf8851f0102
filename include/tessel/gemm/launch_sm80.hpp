// Launching the sm80 GEMM kernel: one block per output tile (rasterized along x), one grid
// layer per batch and K split (z = batch * p.splits), Config::kSmemBytes of dynamic shared
// memory.
//   launch_gemm_sm80<GemmConfigSm80<128, 128, 32, 4>, true>(params, batch, stream)
#pragma once

#include <cuda_runtime_api.h>

#include "kernel_sm80.hpp"

namespace tessel {

#if defined(__CUDACC__)
namespace detail {
// One block per tile of Config, one grid layer per batch and split, Config::kSmemBytes.
template <class Config, class Kernel, class ASource, class BSource>
cudaError_t launch_tiles(Kernel kernel, GemmParams const& p, int batch, cudaStream_t stream, ASource const& a,
                         BSource const& b) {
  // Above 48 KiB dynamic shared memory must be asked for, once per kernel (and per device:
  // the attribute is per context, so it is set on every call; it is cheap).
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Config::kSmemBytes);
      e != cudaSuccess) {
    return e;
  }
  const int tiles_m = (p.m + Config::kTileM - 1) / Config::kTileM;
  const int tiles_n = (p.n + Config::kTileN - 1) / Config::kTileN;
  dim3 grid(unsigned(tiles_m) * unsigned(tiles_n), 1, unsigned(batch) * unsigned(p.splits));
  kernel<<<grid, Config::kThreads, Config::kSmemBytes, stream>>>(p, a, b);
  return cudaGetLastError();
}
}  // namespace detail

template <class Config, bool Edges, class ASource = MatrixOperand, class BSource = MatrixOperand>
cudaError_t launch_gemm_sm80(GemmParams const& p, int batch, cudaStream_t stream, ASource const& a = {},
                             BSource const& b = {}) {
  return detail::launch_tiles<Config>(gemm_kernel_sm80<Config, Edges, ASource, BSource>, p, batch, stream, a, b);
}
#endif

}  // namespace tessel
