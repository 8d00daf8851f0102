// The precompiled conv fprop kernels: the GEMM kernel of the 128x128x32_s4 configuration with
// the implicit activation operand (ConvFpropA), for each input type, access width and
// iterator family.
#pragma once

#include <cuda_runtime_api.h>

#include "conv/conv_configs_sm80.hpp"
#include "tessel/conv/fprop_operand_sm80.hpp"
#include "tessel/gemm/kernel_sm80.hpp"
#include "tessel/types.hpp"

namespace tessel::sm80 {

// Launches the fprop GEMM of `groups` groups (grid layers; params' batch strides step from
// one group to the next). input: kF16 or kBF16; narrow: element-wise loads; optimized: the
// precomputed-offset iterator (R, S <= 32), else the analytic one; tile: conv_tile_n().
cudaError_t run_conv_fprop(DataType input, bool narrow, bool optimized, ConvTile tile,
                           GemmParams const& params, Conv2dProblem const& problem, int groups,
                           cudaStream_t stream);

}  // namespace tessel::sm80
