// The precompiled conv fprop kernels: the GEMM kernel of the 128x128x32_s4 configuration with
// the implicit activation operand (ConvFpropA), for each input type and access width.
#pragma once

#include <cuda_runtime_api.h>

#include "tessel/conv/fprop_operand_sm80.hpp"
#include "tessel/gemm/kernel_sm80.hpp"
#include "tessel/runtime/types.hpp"

namespace tessel::sm80 {

// Launches one group's fprop GEMM. Input: kF16 or kBF16; narrow: element-wise loads.
cudaError_t run_conv_fprop(DataType input, bool narrow, GemmParamsSm80 const& params, ConvFpropA const& a,
                           cudaStream_t stream);

}  // namespace tessel::sm80
