// The precompiled TMA conv kernels (gemm/kernel_sm90_tma.hpp): fprop, dgrad by phase and dgrad
// with every phase in one launch, each for f16 and bf16, the 128x128 and 128x64 tiles, two
// blocks per SM or persistent, and 128x128 in the deep form (ConvTile::deep); wgrad for f16
// and bf16, the 128x128 and 64x128 tiles, two blocks per SM, and 128x128 persistent in clusters of
// two (stream-K).
#pragma once

#include <cuda_runtime_api.h>

#include "conv/conv_configs_sm80.hpp"
#include "tessel/conv/dgrad_operand_sm90.hpp"
#include "tessel/conv/fprop_operand_sm90.hpp"
#include "tessel/conv/wgrad_operand_sm90.hpp"
#include "tessel/gemm/matrix_operand_sm90.hpp"
#include "tessel/gemm/stream_k.hpp"
#include "tessel/gemm/tile_loader.hpp"
#include "tessel/types.hpp"

namespace tessel::sm90 {

// Launch one GEMM (tile.tma; operands from conv_tma_maps.hpp, p.k a whole number of
// kConvTileKTma tiles per tap), persistent or deep as the tile says (conv2d_plan.cpp); fprop's
// and a dgrad phase's `groups` as its batches. cudaErrorNotSupported where libtessel has no sm_90a code.
cudaError_t run_conv_fprop_tma(DataType input, sm80::ConvTile tile, GemmParams const& params, int groups,
                               ConvFpropTmaA const& a, ConvFilterTmaB const& b, cudaStream_t stream);
cudaError_t run_conv_dgrad_tma(DataType input, sm80::ConvTile tile, GemmParams const& params, int groups,
                               ConvFpropTmaA const& a, ConvDgradFilterTmaB const& b, cudaStream_t stream);
// Every stride phase of a dgrad in one launch, phase b as batch b (params.m: the most rows of a
// phase; params.splits 1).
cudaError_t run_conv_dgrad_phases_tma(DataType input, sm80::ConvTile tile, GemmParams const& params, int phases,
                                      ConvDgradPhasesTmaA const& a, ConvDgradPhasesTmaB const& b, cudaStream_t stream);

// wgrad (tile.tma): dy the map of dY as the MN-major (K/G, N*P*Q) matrix of each of the
// `groups` (the batches), params.k = N*P*Q, split along it as params says (params.splits layers
// a group); persistent (128x128, unsplit, clusters of two) exactly when sk has a stream-K
// schedule (sk.schedule with stream-K items, its workspace: gemm/stream_k_workspace.hpp).
cudaError_t run_conv_wgrad_tma(DataType input, sm80::ConvTile tile, GemmParams const& params, int groups,
                               TmaMatrix const& dy, ConvWgradActivationTmaB const& x, StreamKParams const& sk,
                               cudaStream_t stream);

}  // namespace tessel::sm90
