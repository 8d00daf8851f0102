// What the three conv2d directions share when they execute a plan (conv2d_plan.hpp): the
// launch-error status, the epilogue, the groups' grid with split-K's two passes, and
// stream-ordered buffers.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "conv/conv2d_plan.hpp"
#include "conv/packed_groups.hpp"
#include "gemm/split_k_reduce.hpp"
#include "runtime/stream_buffer.hpp"
#include "tessel/gemm/kernel_sm80.hpp"
#include "tessel/runtime/gemm.hpp"
#include "tessel/runtime/status.hpp"

namespace tessel::conv_detail {

// kCudaError for a failed launch (clearing CUDA's sticky-free last error).
inline Status launch_error(const char* direction, cudaError_t e) {
  cudaGetLastError();
  return {StatusCode::kCudaError, std::string("conv2d: ") + direction + " launch failed: " + cudaGetErrorString(e)};
}

// fprop's and dgrad's packed groups (plan.packed_groups): `entry` (conv2d_fprop or
// conv2d_dgrad) runs the layer of 64-channel groups `packed` over a block-diagonal copy of W,
// w_bytes of stream-ordered memory (conv/packed_groups.hpp).
template <class Args>
Status run_packed_groups(const char* direction, Args args, const Conv2dProblem& packed, std::size_t w_bytes,
                         Status (*entry)(const Args&, cudaStream_t), cudaStream_t stream) {
  StreamBuffer filter(stream);
  const std::string who = std::string("conv2d: ") + direction;
  if (Status s = filter.allocate(w_bytes, who.c_str(), "the block-diagonal filter"); !s) return s;
  if (cudaError_t e = block_diagonal_filter(args.w, args.problem, filter.get(), stream); e != cudaSuccess)
    return launch_error(direction, e);
  args.problem = packed, args.w = filter.get();
  return entry(args, stream);
}

// A layer that is a plain GEMM (conv2d_plan.hpp's *_as_gemm) through tessel::gemm; its errors
// (none are expected once the layer validated) keep the direction's prefix.
inline Status run_as_gemm(const char* direction, const GemmArguments& g, cudaStream_t stream) {
  Status s = gemm(g, stream);
  if (s) return s;
  return {s.code(), std::string("conv2d: ") + direction + ": as a GEMM: " + s.message()};
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

// The GEMM of every group in one grid: params describes group 0, its batch strides (elements of
// the input type for A and B, of the output type for D, C and bias) step to the next group, and
// `launch(p, batches)` runs p over that many grid layers (z = group * splits + split). Split as
// gemm.split says: with partials, the slices first write fp32 partial sums to `workspace`
// (gemm.workspace_bytes()), then split_k_reduce sums them in a fixed order through the real
// epilogue, keeping split.columns. Groups beyond the grid's 65535 layers take further launches.
template <class Launch>
cudaError_t run_groups(GemmParams params, ConvGemm const& gemm, int input_bytes, int output_bytes, float* workspace,
                       cudaStream_t stream, Launch&& launch) {
  constexpr int kMaxGridLayers = 65535;
  const Split& split = gemm.split;
  const int per_launch = kMaxGridLayers / split.splits;
  const EpilogueParams out = params.epilogue;
  for (int g0 = 0; g0 < gemm.groups; g0 += per_launch) {
    const int groups = gemm.groups - g0 < per_launch ? gemm.groups - g0 : per_launch;
    auto shift = [&](const void* p, std::int64_t stride, int bytes) -> const char* {
      return p ? static_cast<const char*>(p) + g0 * stride * bytes : nullptr;
    };
    GemmParams p = params;
    p.a = shift(params.a, params.a_batch_stride, input_bytes);
    p.b = shift(params.b, params.b_batch_stride, input_bytes);
    EpilogueParams e = out;
    e.d = const_cast<char*>(shift(out.d, out.d_batch_stride, output_bytes));
    e.c = shift(out.c, out.c_batch_stride, output_bytes);
    e.bias = shift(out.bias, out.bias_batch_stride, output_bytes);
    if (!split.partials()) {
      p.epilogue = e;
      if (cudaError_t err = launch(p, groups); err != cudaSuccess) return err;
      continue;
    }
    p.splits = split.splits;
    p.k_tiles_per_split = split.k_tiles_per_split;
    p.epilogue = output_epilogue(workspace, nullptr, nullptr, p.n, 1.0f, 0.0f, Activation::kNone, DataType::kF32,
                                 p.n % 4 == 0);
    p.epilogue.d_batch_stride = std::int64_t(p.m) * p.n;  // layer z (group * splits + split) at z * M * N
    if (cudaError_t err = launch(p, groups); err != cudaSuccess) return err;
    if (cudaError_t err = sm80::split_k_reduce(workspace, split.splits, p.m, p.n, groups, e, split.columns, stream);
        err != cudaSuccess) {
      return err;
    }
  }
  return cudaSuccess;
}

}  // namespace tessel::conv_detail
