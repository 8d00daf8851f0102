// The direct depthwise and narrow-group kernels (tessel/conv/depthwise_direct.hpp), for f16 and
// bf16 inputs, both vector widths and the group widths planned, launched as a DepthwisePlan says (conv2d_plan.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include "conv/conv2d_plan.hpp"
#include "tessel/conv/depthwise_direct.hpp"

namespace tessel::sm80 {

// args: the tensors and epilogue; its vectors_per_block and wgrad's slicing are the plan's.
cudaError_t run_depthwise_fprop(DataType input, conv_detail::DepthwisePlan const& plan, DepthwiseArgs args,
                                cudaStream_t stream);
cudaError_t run_depthwise_dgrad(DataType input, conv_detail::DepthwisePlan const& plan, DepthwiseArgs args,
                                cudaStream_t stream);
// The blocks of the kernel that run_depthwise_fprop (fprop) or run_depthwise_dgrad launches for
// `plan` that fit one SM of the current device (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
cudaError_t depthwise_blocks_per_sm(DataType input, bool fprop, conv_detail::DepthwisePlan const& plan, int* blocks);
// wgrad: the slices' partial sums into `workspace` (plan.workspace_bytes), then their sum in a
// fixed order: dw = alpha * sum + beta * residual, of args.out_type.
cudaError_t run_depthwise_wgrad(DataType input, conv_detail::DepthwisePlan const& plan, DepthwiseArgs args,
                                float* workspace, cudaStream_t stream);

}  // namespace tessel::sm80
