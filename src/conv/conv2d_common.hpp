// What the three conv2d directions share when they execute a plan (conv2d_plan.hpp): the
// launch-error status, the epilogue, split-K's two passes and stream-ordered buffers.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "conv/conv2d_plan.hpp"
#include "gemm/split_k_reduce.hpp"
#include "runtime/stream_buffer.hpp"
#include "tessel/gemm/kernel_sm80.hpp"
#include "tessel/runtime/status.hpp"

namespace tessel::conv_detail {

// kCudaError for a failed launch of group g (clearing CUDA's sticky-free last error).
inline Status launch_error(const char* direction, int group, cudaError_t e) {
  cudaGetLastError();
  return {StatusCode::kCudaError, std::string("conv2d: ") + direction + " launch failed (group " +
                                      std::to_string(group) + "): " + cudaGetErrorString(e)};
}

// The epilogue of a row-major output D (and residual C) with rows `ld` elements apart:
// D = act(alpha * acc + beta * C + bias), bias per column or null.
inline EpilogueParams output_epilogue(void* d, const void* c, const void* bias, std::int64_t ld,
                                      float alpha, float beta, Activation act, DataType out,
                                      bool vector_ok) {
  return {d,   c,   bias,     ld,   ld,
          0,   0,   alpha,    beta, bias ? BiasMode::kPerColumn : BiasMode::kNone,
          act, out, vector_ok};
}

// Runs params (its epilogue the real one) through `launch`, split as `split` says. With
// partials, the slices first write fp32 partial sums to `workspace`
// (split.workspace_bytes(m, n) bytes), then split_k_reduce sums them in a fixed order through
// the real epilogue, keeping split.columns.
template <class Launch>
cudaError_t run_split(GemmParams params, Split split, float* workspace, cudaStream_t stream,
                      Launch&& launch) {
  if (!split.partials()) return launch(params);
  const EpilogueParams out = params.epilogue;
  params.splits = split.splits;
  params.k_tiles_per_split = split.k_tiles_per_split;
  params.epilogue = output_epilogue(workspace, nullptr, nullptr, params.n, 1.0f, 0.0f,
                                    Activation::kNone, DataType::kF32, params.n % 4 == 0);
  params.epilogue.d_batch_stride = std::int64_t(params.m) * params.n;  // slice z at z * M * N
  cudaError_t e = launch(params);
  if (e == cudaSuccess) {
    e = sm80::split_k_reduce(workspace, split.splits, params.m, params.n, 1, out, split.columns,
                             stream);
  }
  return e;
}

}  // namespace tessel::conv_detail
