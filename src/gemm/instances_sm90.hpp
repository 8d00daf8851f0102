// The precompiled sm_90a GEMM kernels (the warp-specialized TMA kernel), one entry point per
// (element, A major, B major): instances_sm90.cuh defines it; each instance_sm90_*.cu (generated
// from instance_sm90.cu.in) compiles one combination.
#pragma once

#include <cuda_runtime_api.h>

#include "tessel/gemm/epilogue_tma_store_sm90.hpp"
#include "tessel/gemm/matrix_operand_sm90.hpp"
#include "tessel/gemm/stream_k.hpp"
#include "tessel/gemm/tile_loader.hpp"
#include "tessel/types.hpp"

namespace tessel::sm90 {

// Launches configuration `config` (an index into kTmaTileConfigs) on A and B's maps (encoded
// for that configuration's tile: gemm_plan.hpp), with stream-K when sk has stream-K items.
// TmaEpilogue: the kernel that stores 16-bit D through the TMA engine, on D's map d (d.on;
// planned for that configuration's boxes, never for the store warps' configuration); else the
// kernel that stores from the registers (d unused). cudaErrorNotSupported where libtessel has
// no sm_90a code.
template <DataType Input, Major A, Major B, bool TmaEpilogue>
cudaError_t run_gemm_tma(int config, GemmParams const& params, int batch, cudaStream_t stream, TmaMatrix const& a,
                         TmaMatrix const& b, StreamKParams const& sk, TmaStoreD const& d);

}  // namespace tessel::sm90
