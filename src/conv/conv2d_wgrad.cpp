// conv2d_wgrad(): validation (conv2d_validate.cpp), planning (conv2d_plan.cpp), then the
// implicit GEMM of every group in one launch (the groups as its batches), split-K over N*P*Q
// when the output has few tiles; on an H100, ungrouped layers of whole 64-channel blocks and
// filters larger than 1x1 run on the TMA kernel (conv/wgrad_operand_sm90.hpp), persistent with
// stream-K in clusters of two (gemm/stream_k_workspace.hpp) where its tiles leave SMs idle and
// the reduction is deep; with 512 filters or more and a copy no larger than X, tessel::gemm
// over an explicit im2col copy of X (conv/im2col.hpp) instead. Groups of 4 to
// 16 channels run as groups of 64 (conv/packed_groups.hpp), whose split-K reduction writes dW
// from the block diagonal (split.columns). Depthwise layers (C = K = G) and narrow groups (C/G = K/G <= 4) otherwise run
// on a direct kernel (conv/depthwise_direct.hpp): partial sums per block of slices, then their
// sum in a fixed order.
// Strided layers with few channels (the RGB stem) run as the stride-1 wgrad of their
// space-to-depth form (conv/space_to_depth.hpp).
//   GEMM view of group g:  D (K/G, R*S*C/G) = A (K/G, N*P*Q) * B (R*S*C/G, N*P*Q)^T
//   A  dY^T: the MN-major matrix dY + g*K/G, lda = K
//   B  the activations through ConvWgradActivationB (zero-filled padding)
//   D  the group's K/G filters of dW (ldd = R*S*C/G); with split-K (conv2d_plan.hpp), first
//      fp32 slices in a stream-ordered workspace, then split_k_reduce applies alpha/beta in a
//      fixed order
#include <cstdint>
#include <string>

#include "conv/conv2d_common.hpp"
#include "conv/conv_instances_sm90.hpp"
#include "conv/depthwise_instances.hpp"
#include "conv/im2col.hpp"
#include "conv/space_to_depth.hpp"
#include "conv/wgrad_instances_sm80.hpp"
#include "gemm/stream_k_workspace.hpp"
#include "runtime/pad_rows.hpp"
#include "runtime/tma_encoder.hpp"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel {

using conv_detail::aligned;

namespace {

// plan.space_to_depth: dW' (K, R', S', C') in fp32 as the stride-1 wgrad of the layer's
// space-to-depth form, over dY and X', then dW from dW' with the caller's alpha and beta.
Status run_space_to_depth(const Conv2dWgradArguments& args, const conv_detail::WgradPlan& plan, cudaStream_t stream) {
  StreamBuffer copies(stream);
  if (Status s = copies.allocate(plan.dw_copy_bytes + plan.x_copy_bytes, "conv2d: wgrad", "the space-to-depth copies"); !s)
    return s;
  float* dw_copy = copies.get<float>();
  char* x_copy = copies.get<char>() + plan.dw_copy_bytes;  // 16-byte aligned: whole vectors of C'
  if (cudaError_t e = space_to_depth_activations(args.x, args.problem, x_copy, stream); e != cudaSuccess)
    return conv_detail::launch_error("wgrad", e);
  Conv2dWgradArguments copy;  // alpha 1, beta 0: those come after
  copy.problem = plan.space_to_depth_problem;
  copy.input_type = args.input_type, copy.output_type = DataType::kF32;
  copy.dy = args.dy, copy.x = x_copy, copy.dw = dw_copy;
  if (Status s = conv2d_wgrad(copy, stream); !s) return s;
  if (cudaError_t e = depth_to_space_filter_gradient(dw_copy, args.problem, args.dw,
                                                     args.beta != 0.0f ? args.residual : nullptr, args.alpha,
                                                     args.beta, args.output_type, stream);
      e != cudaSuccess) {
    return conv_detail::launch_error("wgrad", e);
  }
  return {};
}

}  // namespace

Status conv2d_wgrad(const Conv2dWgradArguments& args, cudaStream_t stream) {
  if (Status s = validate(args); !s) return s;
  DeviceInfo device;
  if (Status s = current_device("conv2d: wgrad", &device); !s) return s;
  conv_detail::WgradPlan plan = conv_detail::plan_wgrad(args, device);
  const Conv2dProblem& pb = args.problem;
  if (plan.depthwise.direct) {
    StreamBuffer partials(stream);
    if (Status s = partials.allocate(plan.depthwise.workspace_bytes, "conv2d: wgrad", "the depthwise partial sums"); !s)
      return s;
    const DepthwiseArgs a{pb,      args.dy,    args.x,    args.dw,           args.beta != 0.0f ? args.residual : nullptr,
                          nullptr, args.alpha, args.beta, Activation::kNone, args.output_type, 0, 0};
    if (cudaError_t e = sm80::run_depthwise_wgrad(args.input_type, plan.depthwise, a, partials.get<float>(), stream);
        e != cudaSuccess)
      return conv_detail::launch_error("wgrad", e);
    return {};
  }
  if (GemmArguments g; conv_detail::wgrad_as_gemm(args, device, &g)) return conv_detail::run_as_gemm("wgrad", g, stream);
  if (plan.space_to_depth) return run_space_to_depth(args, plan, stream);
  if (plan.im2col_gemm) {
    // Without the memory for the copy, the TMA kernel's plan runs instead.
    StreamBuffer im2col(stream);
    if (im2col.allocate(plan.im2col_bytes, "conv2d: wgrad", "the im2col copy")) {
      if (cudaError_t e = im2col_activations(args.x, pb, im2col.get(), stream); e != cudaSuccess)
        return conv_detail::launch_error("wgrad", e);
      return conv_detail::run_as_gemm("wgrad", conv_detail::wgrad_im2col_gemm(args, plan, im2col.get()), stream);
    }
  }
  TmaMatrix tma_dy{};
  ConvWgradActivationTmaB tma_x{};
  if (plan.gemm.tile.tma) {
    if (sm90::encode_tma_map(plan.gemm.tma.a, args.dy, &tma_dy.map) &&
        sm90::encode_tma_map(plan.gemm.tma.b, args.x, &tma_x.map)) {
      tma_x.g = plan.gemm.tma.walk;
      tma_x.boxes = plan.gemm.tile.n / 64;
    } else {  // the driver refused a map the planner built: the cp.async kernels
      device.tma_encoder = false;
      plan = conv_detail::plan_wgrad(args, device);
    }
  }
  const conv_detail::ConvGemm& gemm = plan.gemm;

  const void* x = args.x;
  StreamBuffer padded_x(stream);
  if (plan.pad_channels) {
    if (Status s = padded_x.allocate(plan.x_copy_bytes, "conv2d: wgrad", "the channel-padded activations"); !s) return s;
    if (cudaError_t e = pad_rows(args.x, pb.c, 0, padded_x.get(), plan.problem.c, (long long)pb.n * pb.h * pb.w, pb.c, 1, stream);
        e != cudaSuccess) {
      return conv_detail::launch_error("wgrad", e);
    }
    x = padded_x.get();
  }
  StreamBuffer workspace(stream), stream_k(stream);
  if (Status s = workspace.allocate(gemm.workspace_bytes(), "conv2d: wgrad", "the split-K workspace"); !s) return s;
  StreamKParams sk;
  if (gemm.stream_k.sk_items > 0) {
    if (Status s = stream_k_workspace(gemm.stream_k, gemm.tile.m, gemm.tile.n, gemm.tile.cluster, "conv2d: wgrad", stream,
                                      &stream_k, &sk);
        !s) {
      return s;
    }
  }

  const int kg = plan.problem.filters_per_group();         // the GEMM's rows (packed groups: 64)
  const int crs = pb.r * pb.s * pb.channels_per_group();  // dW's columns (the GEMM's N unless compacted)
  const int ib = data_type_bytes(args.input_type), ob = data_type_bytes(args.output_type);
  const int vec = 16 / ob;
  const bool c_read = args.beta != 0.0f;
  const void* c = c_read ? args.residual : nullptr;
  const std::int64_t per_matrix = std::int64_t(kg) * crs;  // one group's filters in dW
  // With compacted columns the reduction writes D, never the kernel.
  const bool vector_ok = gemm.split.columns.block == 0 && crs % vec == 0 && (pb.groups == 1 || per_matrix % vec == 0) &&
                         aligned(args.dw, 16) && (!c_read || aligned(c, 16));
  EpilogueParams out = conv_detail::output_epilogue(args.dw, c, nullptr, crs, args.alpha, args.beta, Activation::kNone,
                                                    args.output_type, vector_ok);
  out.d_batch_stride = out.c_batch_stride = per_matrix;
  // Group g: filters g*K/G.. of dY, channels g*C/G.. of X.
  const GemmParams params{args.dy, x, gemm.m, gemm.n, gemm.k, pb.k, 0, kg, plan.problem.channels_per_group(), 1,
                          1 << 30, out};
  auto launch = [&](GemmParams const& p, int groups) {
    if (gemm.tile.tma) return sm90::run_conv_wgrad_tma(args.input_type, gemm.tile, p, groups, tma_dy, tma_x, sk, stream);
    return sm80::run_conv_wgrad(args.input_type, plan.narrow, gemm.tile, p, plan.problem, groups, stream);
  };
  if (cudaError_t e = conv_detail::run_groups(params, gemm, ib, ob, workspace.get<float>(), stream, launch);
      e != cudaSuccess) {
    return conv_detail::launch_error("wgrad", e);
  }
  return {};
}

}  // namespace tessel
