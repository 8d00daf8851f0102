// The precompiled conv wgrad kernels: the GEMM kernel of WgradConfig with dY^T as a plain
// MN-major A and the activation gather as B, for each input type and access width.
#pragma once

#include <cuda_runtime_api.h>

#include "conv/conv_configs_sm80.hpp"
#include "tessel/conv/wgrad_operand_sm80.hpp"
#include "tessel/gemm/kernel_sm80.hpp"
#include "tessel/types.hpp"

namespace tessel::sm80 {

// Launches the wgrad GEMM of `groups` groups (grid layers; params' batch strides step from one
// group to the next; with params.splits > 1 each group's split-K slices, each into its own
// fp32 matrix of the workspace). input: kF16 or kBF16; narrow: element-wise loads; tile:
// conv_tile_m().
cudaError_t run_conv_wgrad(DataType input, bool narrow, ConvTile tile, GemmParams const& params,
                           Conv2dProblem const& problem, int groups, cudaStream_t stream);

}  // namespace tessel::sm80
