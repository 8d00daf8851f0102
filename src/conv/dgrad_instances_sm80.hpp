// The precompiled conv dgrad kernels: the GEMM kernel of DgradConfig with fprop's activation
// operand over dY (one stride phase's rows) as A and the filter gather as B, for each input
// type, access width and iterator family.
#pragma once

#include <cuda_runtime_api.h>

#include "conv/conv_configs_sm80.hpp"
#include "tessel/conv/dgrad_operand_sm80.hpp"
#include "tessel/gemm/kernel_sm80.hpp"
#include "tessel/types.hpp"

namespace tessel::sm80 {

// Launches the GEMM of one phase for `groups` groups (grid layers; params' batch strides step
// from one group to the next; dgrad_operand_sm80.hpp). params.epilogue carries
// the phase's RowScatter. `filter`: the problem as the filter tensor has it (its C may be
// padded). input: kF16 or kBF16; narrow: element-wise loads; optimized: the
// precomputed-offset iterator (R', S' <= 32), else the analytic one; tile: conv_tile_n().
cudaError_t run_conv_dgrad(DataType input, bool narrow, bool optimized, ConvTile tile,
                           GemmParams const& params, Conv2dProblem const& filter,
                           DgradPhase const& phase, int groups, cudaStream_t stream);

}  // namespace tessel::sm80
