#include "conv/depthwise_instances.hpp"

namespace tessel::sm80 {
namespace {

// fprop's kernel for the filter width and stride (depthwise_strip), else the per-pixel one.
template <class T, int Vec, int CG>
auto fprop_kernel(Conv2dProblem const& pb, bool strip) {
  if (strip) {
    const bool s1 = pb.stride_w == 1;
    if (pb.s == 3)
      return s1 ? depthwise_fprop_strip_kernel<T, Vec, CG, 3, 1> : depthwise_fprop_strip_kernel<T, Vec, CG, 3, 2>;
    if (pb.s == 5)
      return s1 ? depthwise_fprop_strip_kernel<T, Vec, CG, 5, 1> : depthwise_fprop_strip_kernel<T, Vec, CG, 5, 2>;
    return depthwise_fprop_strip_kernel<T, Vec, CG, 7, 1>;
  }
  return depthwise_fprop_kernel<T, Vec, CG>;
}

template <class T, int Vec, int CG>
cudaError_t fprop_or_dgrad(bool fprop, conv_detail::DepthwisePlan const& plan, DepthwiseArgs const& args,
                           cudaStream_t stream) {
  const dim3 grid(unsigned(plan.blocks_x), unsigned(plan.blocks_y));
  const std::size_t smem = std::size_t(args.pb.r) * args.pb.s * plan.vectors * Vec * CG * sizeof(float);
  if (fprop) {
    fprop_kernel<T, Vec, CG>(args.pb, plan.strip)<<<grid, kDepthwiseThreads, smem, stream>>>(args);
  } else {
    depthwise_dgrad_kernel<T, Vec, CG><<<grid, kDepthwiseThreads, smem, stream>>>(args);
  }
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

// The instance for the plan's vector width and group width: one channel a thread only for
// depthwise layers (planned so: conv2d_plan.cpp).
template <class T>
cudaError_t fprop_or_dgrad(bool fprop, conv_detail::DepthwisePlan const& plan, DepthwiseArgs const& args,
                           cudaStream_t stream) {
  if (plan.vec == 1) return fprop_or_dgrad<T, 1, 1>(fprop, plan, args, stream);
  switch (plan.cg) {
    case 2: return fprop_or_dgrad<T, 8, 2>(fprop, plan, args, stream);
    case 4: return fprop_or_dgrad<T, 8, 4>(fprop, plan, args, stream);
    case 8: return fprop_or_dgrad<T, 8, 8>(fprop, plan, args, stream);
    default: return fprop_or_dgrad<T, 8, 1>(fprop, plan, args, stream);
  }
}

template <class T, int S>
cudaError_t wgrad_slide(conv_detail::DepthwisePlan const& plan, DepthwiseArgs const& args, cudaStream_t stream) {
  const dim3 grid(unsigned(plan.blocks_x), unsigned(plan.blocks_y));
  const int threads = plan.slice_lanes * args.pb.r * plan.vectors;
  const std::size_t lane_sums = plan.slice_lanes > 1 ? std::size_t(threads) * kSlideVec * sizeof(float) : 0;
  depthwise_wgrad_slide_kernel<T, S><<<grid, threads, lane_sums, stream>>>(args);
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
  args.vectors_per_block = plan.vectors;
  return input == DataType::kF16 ? fprop_or_dgrad<Half>(true, plan, args, stream)
                                 : fprop_or_dgrad<BFloat16>(true, plan, args, stream);
}

cudaError_t run_depthwise_dgrad(DataType input, conv_detail::DepthwisePlan const& plan, DepthwiseArgs args,
                                cudaStream_t stream) {
  args.vectors_per_block = plan.vectors;
  return input == DataType::kF16 ? fprop_or_dgrad<Half>(false, plan, args, stream)
                                 : fprop_or_dgrad<BFloat16>(false, plan, args, stream);
}

cudaError_t run_depthwise_wgrad(DataType input, conv_detail::DepthwisePlan const& plan, DepthwiseArgs args,
                                float* workspace, cudaStream_t stream) {
  void* dw = args.out;
  args.out = workspace, args.vectors_per_block = plan.vectors, args.pixels_per_slice = plan.pixels_per_slice;
  args.slices = plan.slices, args.slice_lanes = plan.slice_lanes;
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
