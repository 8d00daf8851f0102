#include "conv/depthwise_instances.hpp"

namespace tessel::sm80 {
namespace {

using DirectKernel = void (*)(DepthwiseArgs);

// fprop's kernel for the filter width and stride (depthwise_strip), else the per-pixel one;
// dgrad's per-pixel kernel.
template <class T, int Vec, int CG>
DirectKernel direct_kernel(bool fprop, conv_detail::DepthwisePlan const& plan) {
  if (!fprop) return depthwise_dgrad_kernel<T, Vec, CG>;
  if (plan.strip) {
    const Conv2dProblem& pb = plan.problem;
    const bool s1 = pb.stride_w == 1;
    if (pb.s == 3)
      return s1 ? depthwise_fprop_strip_kernel<T, Vec, CG, 3, 1> : depthwise_fprop_strip_kernel<T, Vec, CG, 3, 2>;
    if (pb.s == 5)
      return s1 ? depthwise_fprop_strip_kernel<T, Vec, CG, 5, 1> : depthwise_fprop_strip_kernel<T, Vec, CG, 5, 2>;
    return depthwise_fprop_strip_kernel<T, Vec, CG, 7, 1>;
  }
  return depthwise_fprop_kernel<T, Vec, CG>;
}

// The instance for the plan's vector width and group width: one channel a thread only for
// depthwise layers (planned so: conv2d_plan.cpp).
template <class T>
DirectKernel direct_kernel(bool fprop, conv_detail::DepthwisePlan const& plan) {
  if (plan.vec == 1) return direct_kernel<T, 1, 1>(fprop, plan);
  switch (plan.cg) {
    case 2: return direct_kernel<T, 8, 2>(fprop, plan);
    case 4: return direct_kernel<T, 8, 4>(fprop, plan);
    case 8: return direct_kernel<T, 8, 8>(fprop, plan);
    default: return direct_kernel<T, 8, 1>(fprop, plan);
  }
}

DirectKernel direct_kernel(DataType input, bool fprop, conv_detail::DepthwisePlan const& plan) {
  return input == DataType::kF16 ? direct_kernel<Half>(fprop, plan) : direct_kernel<BFloat16>(fprop, plan);
}

// fprop's and dgrad's filter taps in shared memory: R*S * the block's channels * CG floats.
std::size_t taps_bytes(conv_detail::DepthwisePlan const& plan) {
  return std::size_t(plan.problem.r) * plan.problem.s * plan.vectors * plan.vec * plan.cg * sizeof(float);
}

cudaError_t fprop_or_dgrad(DataType input, bool fprop, conv_detail::DepthwisePlan const& plan, DepthwiseArgs args,
                           cudaStream_t stream) {
  const Conv2dProblem& pb = plan.problem;
  args.vectors_per_block = plan.vectors, args.vectors = FastDivmod(plan.vectors), args.filter_s = FastDivmod(pb.s);
  if (fprop) {
    const int strip = plan.strip ? depthwise_strip(pb) : 1;
    args.columns = FastDivmod((pb.q() + strip - 1) / strip), args.rows = FastDivmod(pb.p());
  } else {
    args.columns = FastDivmod(pb.w), args.rows = FastDivmod(pb.h);
    args.walk_h = detail::TapWalk(pb.stride_h, pb.dilation_h), args.walk_w = detail::TapWalk(pb.stride_w, pb.dilation_w);
  }
  const dim3 grid(unsigned(plan.blocks_x), unsigned(plan.blocks_y));
  direct_kernel(input, fprop, plan)<<<grid, kDepthwiseThreads, taps_bytes(plan), stream>>>(args);
  return cudaGetLastError();
}

template <class T, int Vec, int CG, bool RowTaps = false>
cudaError_t wgrad_partials(conv_detail::DepthwisePlan const& plan, DepthwiseArgs const& args, cudaStream_t stream) {
  const dim3 grid(unsigned(plan.blocks_x), unsigned(plan.blocks_y));
  const int threads = plan.slice_lanes * args.pb.r * (plan.row_taps ? 1 : args.pb.s) * plan.vectors;
  const std::size_t lane_sums = plan.slice_lanes > 1 ? std::size_t(threads) * Vec * CG * sizeof(float) : 0;
  depthwise_wgrad_kernel<T, Vec, CG, RowTaps><<<grid, threads, lane_sums, stream>>>(args);
  return cudaGetLastError();
}

template <class T, int S, int Vec = slide_vec(S)>  // Vec: the plan's (conv2d_plan.cpp)
cudaError_t wgrad_slide(conv_detail::DepthwisePlan const& plan, DepthwiseArgs const& args, cudaStream_t stream) {
  const dim3 grid(unsigned(plan.blocks_x), unsigned(plan.blocks_y));
  const int threads = plan.slice_lanes * args.pb.r * plan.vectors;
  // every tap's lane sums at once (store_wgrad_sums<.., AllTaps>): 7x7 at 512 threads, 56 KiB
  const std::size_t lane_sums = plan.slice_lanes > 1 ? std::size_t(threads) * S * Vec * sizeof(float) : 0;
  auto kernel = depthwise_wgrad_slide_kernel<T, S, Vec>;
  if (lane_sums > 48 * 1024) {
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(lane_sums));
    if (e != cudaSuccess) return e;
  }
  kernel<<<grid, threads, lane_sums, stream>>>(args);
  return cudaGetLastError();
}

template <class T>
cudaError_t wgrad_partials(conv_detail::DepthwisePlan const& plan, DepthwiseArgs const& args, cudaStream_t stream) {
  static_assert(conv_detail::kDirectWgradMaxGroupWidth == 4, "the instances below: groups of 1, 2 and 4");
  if (plan.slide) {
    switch (args.pb.s) {
      case 3: return wgrad_slide<T, 3>(plan, args, stream);
      case 5: return wgrad_slide<T, 5>(plan, args, stream);
      case 7: return wgrad_slide<T, 7>(plan, args, stream);
      default: return cudaErrorInvalidValue;  // not planned (conv2d_plan.cpp)
    }
  }
  if (plan.cg == 1 && plan.row_taps) {
    return plan.vec == 8 ? wgrad_partials<T, 8, 1, true>(plan, args, stream)
                         : wgrad_partials<T, 1, 1, true>(plan, args, stream);
  }
  if (plan.vec == 1) return plan.cg == 1 ? wgrad_partials<T, 1, 1>(plan, args, stream) : cudaErrorInvalidValue;
  switch (plan.cg) {
    case 1: return wgrad_partials<T, 8, 1>(plan, args, stream);
    case 2: return wgrad_partials<T, 8, 2>(plan, args, stream);
    case 4: return wgrad_partials<T, 8, 4>(plan, args, stream);
    default: return cudaErrorInvalidValue;  // not planned (conv2d_plan.cpp)
  }
}

template <class Out>
cudaError_t wgrad_reduce(conv_detail::DepthwisePlan const& plan, DepthwiseArgs const& args, float const* partials,
                         void* dw, cudaStream_t stream) {
  const long long count = (long long)args.pb.k * args.pb.r * args.pb.s * plan.cg;
  const dim3 blocks(unsigned((count + 31) / 32)), threads(32, kReduceGroups);
  depthwise_wgrad_reduce_kernel<Out><<<blocks, threads, 0, stream>>>(partials, plan.blocks_x, args.pb, dw,
                                                                      args.residual, args.alpha, args.beta);
  return cudaGetLastError();
}

}  // namespace

cudaError_t run_depthwise_fprop(DataType input, conv_detail::DepthwisePlan const& plan, DepthwiseArgs args,
                                cudaStream_t stream) {
  return fprop_or_dgrad(input, true, plan, args, stream);
}

cudaError_t run_depthwise_dgrad(DataType input, conv_detail::DepthwisePlan const& plan, DepthwiseArgs args,
                                cudaStream_t stream) {
  return fprop_or_dgrad(input, false, plan, args, stream);
}

cudaError_t depthwise_blocks_per_sm(DataType input, bool fprop, conv_detail::DepthwisePlan const& plan, int* blocks) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, direct_kernel(input, fprop, plan), kDepthwiseThreads,
                                                       taps_bytes(plan));
}

cudaError_t run_depthwise_wgrad(DataType input, conv_detail::DepthwisePlan const& plan, DepthwiseArgs args,
                                float* workspace, cudaStream_t stream) {
  void* dw = args.out;
  args.out = workspace, args.vectors_per_block = plan.vectors, args.pixels_per_slice = plan.pixels_per_slice;
  args.slices = plan.slices, args.slice_lanes = plan.slice_lanes;
  args.row_pieces = plan.row_pieces, args.pieces_per_slice = plan.pieces_per_slice, args.slide_down = plan.slide_down;
  if (plan.slide) args.rows = FastDivmod(args.pb.p());
  const cudaError_t e = input == DataType::kF16 ? wgrad_partials<Half>(plan, args, stream)
                                                 : wgrad_partials<BFloat16>(plan, args, stream);
  if (e != cudaSuccess) return e;
  switch (args.out_type) {
    case DataType::kF32: return wgrad_reduce<float>(plan, args, workspace, dw, stream);
    case DataType::kF16: return wgrad_reduce<Half>(plan, args, workspace, dw, stream);
    case DataType::kBF16: return wgrad_reduce<BFloat16>(plan, args, workspace, dw, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace tessel::sm80
