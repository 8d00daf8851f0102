// conv2d_fprop(): validation (conv2d_validate.cpp), planning (conv2d_plan.cpp), then the
// implicit GEMM of every group in one launch, the groups as its batches.
//   GEMM view of group g:  D (N*P*Q, K/G) = A (N*P*Q, R*S*C/G) * B (K/G, R*S*C/G)^T
//   A  the activations through ConvFpropA (zero-filled padding; the optimized iterator where
//      R, S <= 32, else the analytic one), B the group's KRSC filters
//      (a K-major matrix, ldb = R*S*C/G), D the group's K/G columns of Y (ldd = K).
// Groups of 8 to 32 channels run as groups of 64 over a block-diagonal copy of W
// (conv/packed_groups.hpp); depthwise layers (C = K = G) and narrow groups (C/G = K/G <= 8)
// otherwise on a direct kernel (conv/depthwise_direct.hpp). Strided layers with few channels
// (the RGB stem) run as
// the stride-1 layer of their space-to-depth copies (conv/space_to_depth.hpp).
// On an H100, ungrouped layers of 64 or more channels run on the TMA kernel instead: the same
// GEMM with A loaded in the engine's im2col mode, K rounded up per tap to 64-channel tiles
// (conv/fprop_operand_sm90.hpp).
#include <cstdint>
#include <string>

#include "conv/conv2d_common.hpp"
#include "conv/conv_instances_sm90.hpp"
#include "conv/depthwise_instances.hpp"
#include "conv/fprop_instances_sm80.hpp"
#include "conv/space_to_depth.hpp"
#include "runtime/pad_rows.hpp"
#include "runtime/tma_encoder.hpp"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel {

using conv_detail::aligned;

namespace {

// The GEMM of every group in one grid, X and W as the plan has them (given or padded): group g
// reads channels g*C/G.. of X and filters g*K/G.. of W, and writes columns g*K/G.. of Y.
Status run(const Conv2dArguments& args, const conv_detail::FpropPlan& plan, const void* x, const void* w,
           const ConvFpropTmaA& tma_a, const ConvFilterTmaB& tma_b, cudaStream_t stream) {
  const Conv2dProblem& pb = plan.problem;
  const conv_detail::ConvGemm& gemm = plan.gemm;
  const int cg = pb.channels_per_group(), kg = pb.filters_per_group(), rsc = pb.r * pb.s * cg;
  const int ib = data_type_bytes(args.input_type), ob = data_type_bytes(args.output_type);
  const int vec = 16 / ob;
  const bool c_read = args.beta != 0.0f;
  StreamBuffer workspace(stream);
  if (Status s = workspace.allocate(gemm.workspace_bytes(), "conv2d: fprop", "the split-K workspace"); !s) return s;
  const void* c = c_read ? args.residual : nullptr;
  // 16-byte runs of Y (and the residual) in every group: aligned bases, K and K/G multiples of a run.
  const bool vector_ok =
      pb.k % vec == 0 && (pb.groups == 1 || kg % vec == 0) && aligned(args.y, 16) && (!c_read || aligned(c, 16));
  GemmParams params{x, w, gemm.m, gemm.n, gemm.k, 0, rsc, cg, std::int64_t(kg) * rsc, 1, 1 << 30,
                    conv_detail::output_epilogue(args.y, c, args.bias, pb.k, args.alpha, args.beta, args.activation,
                                                 args.output_type, vector_ok)};
  params.epilogue.d_batch_stride = params.epilogue.c_batch_stride = params.epilogue.bias_batch_stride = kg;
  auto launch = [&](GemmParams const& p, int groups) {
    if (gemm.tile.tma) return sm90::run_conv_fprop_tma(args.input_type, gemm.tile, p, groups, tma_a, tma_b, stream);
    return sm80::run_conv_fprop(args.input_type, plan.narrow, gemm.optimized, gemm.tile, p, pb, groups, stream);
  };
  if (cudaError_t e = conv_detail::run_groups(params, gemm, ib, ob, workspace.get<float>(), stream, launch);
      e != cudaSuccess) {
    return conv_detail::launch_error("fprop", e);
  }
  return {};
}

}  // namespace

Status conv2d_fprop(const Conv2dArguments& args, cudaStream_t stream) {
  if (Status s = validate(args); !s) return s;
  DeviceInfo device;
  if (Status s = current_device("conv2d: fprop", &device); !s) return s;
  conv_detail::FpropPlan plan = conv_detail::plan_fprop(args, device);
  const Conv2dProblem& pb = args.problem;
  if (plan.packed_groups)
    return conv_detail::run_packed_groups("fprop", args, plan.problem, plan.w_copy_bytes, &conv2d_fprop, stream);
  if (plan.depthwise.direct) {
    const DepthwiseArgs a{plan.depthwise.problem, args.x,     args.w,     args.y,          args.beta != 0.0f ? args.residual : nullptr,
                          args.bias,   args.alpha, args.beta,  args.activation, args.output_type, 0, 0};
    if (cudaError_t e = sm80::run_depthwise_fprop(args.input_type, plan.depthwise, a, stream); e != cudaSuccess)
      return conv_detail::launch_error("fprop", e);
    return {};
  }
  if (GemmArguments g; conv_detail::fprop_as_gemm(args, device, &g)) return conv_detail::run_as_gemm("fprop", g, stream);

  StreamBuffer copies(stream);
  const void* x = args.x;
  const void* w = args.w;
  if (plan.pad_channels || plan.space_to_depth) {
    const char* what = plan.space_to_depth ? "the space-to-depth copies" : "the channel-padded copies";
    if (Status s = copies.allocate(plan.x_copy_bytes + plan.w_copy_bytes, "conv2d: fprop", what); !s) return s;
    char* xc = copies.get<char>();
    char* wc = xc + plan.x_copy_bytes;  // 16-byte aligned: x_copy_bytes is whole vectors
    cudaError_t e;
    if (plan.space_to_depth) {
      e = space_to_depth_activations(args.x, pb, xc, stream);
      if (e == cudaSuccess) e = space_to_depth_filter(args.w, pb, wc, stream);
    } else {
      const long long x_rows = (long long)pb.n * pb.h * pb.w, w_rows = (long long)pb.k * pb.r * pb.s;
      const PadRowsCopy both[] = {{args.x, pb.c, 0, xc, plan.problem.c, x_rows, x_rows, pb.c, 1},
                                  {args.w, pb.c, 0, wc, plan.problem.c, w_rows, w_rows, pb.c, 1}};
      e = pad_rows(both, 2, stream);
    }
    if (e != cudaSuccess) return conv_detail::launch_error("fprop", e);
    x = xc, w = wc;
  }
  ConvFpropTmaA tma_a{};
  ConvFilterTmaB tma_b{};
  if (plan.gemm.tile.tma) {
    if (sm90::encode_tma_map(plan.gemm.tma.a, x, &tma_a.map) && sm90::encode_tma_map(plan.gemm.tma.b, w, &tma_b.map)) {
      tma_a.g = tma_b.g = plan.gemm.tma.walk;
    } else {  // the driver refused a map the planner built: the cp.async kernels (same copies)
      device.tma_encoder = false;
      plan = conv_detail::plan_fprop(args, device);
    }
  }
  return run(args, plan, x, w, tma_a, tma_b, stream);
}

}  // namespace tessel
