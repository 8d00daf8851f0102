// The precompiled sm80 GEMM kernels, one entry point per (element, A major, B major):
// instances_sm80.cuh defines it; each instance_sm80_*.cu (generated from
// instance_sm80.cu.in) compiles one combination, so the eight build in parallel.
#pragma once

#include <cuda_runtime_api.h>

#include "tessel/gemm/kernel_sm80.hpp"
#include "tessel/types.hpp"

namespace tessel::sm80 {

struct KernelChoice {
  int config;   // index into kTileConfigs (tile_configs_sm80.hpp)
  bool edges;   // the predicated variant
  int access;   // elements per global load: 8 (16-byte cp.async); or, with the narrow tile
                // configuration only, one of kNarrowAccesses (tile_configs_sm80.hpp)
};

// Launches the chosen kernel. Input is kF16 or kBF16 (an enum, not the element type: Half
// is __half in CUDA translation units and a placeholder in host-only ones).
template <DataType Input, Major A, Major B>
cudaError_t run_gemm(KernelChoice const& choice, GemmParams const& params, int batch, cudaStream_t stream);

}  // namespace tessel::sm80
