// conv2d_dgrad(): validation (conv2d_validate.cpp), planning (conv2d_plan.cpp), then one
// implicit GEMM per stride phase that has rows (include/tessel/conv/dgrad_operand_sm80.hpp
// explains the phases), each launched once for all groups, the groups as its batches; or, on
// the TMA kernel, every phase in one launch, the phases as its batches (DgradPlan::one_launch).
//   GEMM view of group g, phase (ph, pw):
//     D (N*rows*cols, C/G) = A (N*rows*cols, R'*S'*K/G) * B (C/G, R'*S'*K/G)^T
//   A  dY through fprop's activation iterator on the phase's stride-1 problem
//   B  the group's filters gathered as (c, (t, u, k))
//   D  the phase's rows of dX, columns g*C/G.. (RowScatter; with stride 1 simply ldd = C)
// Groups of 8 to 32 channels run as groups of 64 over a block-diagonal copy of W
// (conv/packed_groups.hpp); depthwise layers (C = K = G) and narrow groups (C/G = K/G <= 8)
// otherwise on a direct kernel, without phases (conv/depthwise_direct.hpp). On an H100 the
// ungrouped phases run on
// the TMA kernel instead (dgrad_operand_sm90.hpp). Strided layers with few channels (the RGB
// stem) run as the stride-1 dgrad of their space-to-depth form (conv/space_to_depth.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "conv/conv2d_common.hpp"
#include "conv/conv_instances_sm90.hpp"
#include "conv/depthwise_instances.hpp"
#include "conv/dgrad_instances_sm80.hpp"
#include "conv/space_to_depth.hpp"
#include "runtime/pad_rows.hpp"
#include "runtime/tma_encoder.hpp"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel {

using conv_detail::aligned;

namespace {

struct PhaseTma {
  ConvFpropTmaA a{};
  ConvDgradFilterTmaB b{};
};

// The TMA maps of every phase on the TMA kernel; false when the driver refuses one.
bool encode_phases(const conv_detail::DgradPlan& plan, const void* dy, const void* w, std::vector<PhaseTma>& out) {
  out.assign(plan.phases.size(), PhaseTma{});
  for (std::size_t i = 0; i < plan.phases.size(); ++i) {
    const conv_detail::ConvGemm& g = plan.phases[i].gemm;
    if (!g.tile.tma) continue;
    if (!sm90::encode_tma_map(g.tma.a, dy, &out[i].a.map) || !sm90::encode_tma_map(g.tma.b, w, &out[i].b.map))
      return false;
    out[i].a.g = g.tma.walk;
    out[i].b.g = g.tma.b_dgrad;
  }
  return true;
}

// Every phase in one launch (plan.one_launch): phase i's A map, geometry, rows, K tiles and row
// scatter as batch i; a phase without taps keeps a zero map that is never read. False when the
// driver refuses a map.
bool encode_one_launch(const conv_detail::DgradPlan& plan, const Conv2dProblem& pb, const void* dy, const void* w,
                       ConvDgradPhasesTmaA* a, ConvDgradPhasesTmaB* b) {
  *a = ConvDgradPhasesTmaA{};
  *b = ConvDgradPhasesTmaB{};
  bool b_encoded = false;
  for (std::size_t i = 0; i < plan.phases.size(); ++i) {
    const conv_detail::ConvGemm& g = plan.phases[i].gemm;
    a->rows[i] = g.m;
    a->scatter[i] = dgrad_row_scatter(pb, plan.phases[i].phase);
    if (!g.tile.tma) continue;  // no taps: K = 0
    if (!sm90::encode_tma_map(g.tma.a, dy, &a->map[i])) return false;
    if (!b_encoded && !sm90::encode_tma_map(g.tma.b, w, &b->map)) return false;  // one filter map for all
    b_encoded = true;
    a->g[i] = g.tma.walk;
    a->k_tiles[i] = g.k / g.tile.k;
    b->g[i] = g.tma.b_dgrad;
  }
  return true;
}

// plan.space_to_depth: dX' (N, H', W', C') in fp32 as the stride-1 dgrad of the layer's
// space-to-depth form, over dY and W', then dX from dX' with the caller's epilogue.
Status run_space_to_depth(const Conv2dDgradArguments& args, const conv_detail::DgradPlan& plan, cudaStream_t stream) {
  StreamBuffer copies(stream);
  if (Status s = copies.allocate(plan.dx_copy_bytes + plan.w_copy_bytes, "conv2d: dgrad", "the space-to-depth copies"); !s)
    return s;
  float* dx_copy = copies.get<float>();
  char* w_copy = copies.get<char>() + plan.dx_copy_bytes;  // 16-byte aligned: whole vectors of C'
  if (cudaError_t e = space_to_depth_filter(args.w, args.problem, w_copy, stream); e != cudaSuccess)
    return conv_detail::launch_error("dgrad", e);
  Conv2dDgradArguments copy;  // alpha 1, beta 0, no bias, no activation: those come after
  copy.problem = plan.space_to_depth_problem;
  copy.input_type = args.input_type, copy.output_type = DataType::kF32;
  copy.dy = args.dy, copy.w = w_copy, copy.dx = dx_copy;
  if (Status s = conv2d_dgrad(copy, stream); !s) return s;
  if (cudaError_t e = depth_to_space_gradient(dx_copy, args.problem, args.dx, args.beta != 0.0f ? args.residual : nullptr,
                                              args.bias, args.alpha, args.beta, args.activation, args.output_type, stream);
      e != cudaSuccess) {
    return conv_detail::launch_error("dgrad", e);
  }
  return {};
}

}  // namespace

Status conv2d_dgrad(const Conv2dDgradArguments& args, cudaStream_t stream) {
  if (Status s = validate(args); !s) return s;
  DeviceInfo device;
  if (Status s = current_device("conv2d: dgrad", &device); !s) return s;
  conv_detail::DgradPlan plan = conv_detail::plan_dgrad(args, device);
  const Conv2dProblem& pb = args.problem;
  if (plan.packed_groups)
    return conv_detail::run_packed_groups("dgrad", args, plan.filter, plan.w_copy_bytes, &conv2d_dgrad, stream);
  if (plan.depthwise.direct) {
    const DepthwiseArgs a{plan.depthwise.problem, args.dy, args.w, args.dx, args.beta != 0.0f ? args.residual : nullptr,
                          args.bias, args.alpha, args.beta, args.activation, args.output_type, 0, 0, true};
    const cudaError_t e = plan.depthwise.as_fprop
                              ? sm80::run_depthwise_fprop(args.input_type, plan.depthwise, a, stream)
                              : sm80::run_depthwise_dgrad(args.input_type, plan.depthwise, a, stream);
    if (e != cudaSuccess) return conv_detail::launch_error("dgrad", e);
    return {};
  }
  if (GemmArguments g; conv_detail::dgrad_as_gemm(args, device, &g)) return conv_detail::run_as_gemm("dgrad", g, stream);
  if (plan.space_to_depth) return run_space_to_depth(args, plan, stream);
  const int cg = pb.channels_per_group();
  const int ob = data_type_bytes(args.output_type);

  const void* w = args.w;
  StreamBuffer padded_filter(stream);
  if (plan.pad_filter) {
    if (Status s = padded_filter.allocate(plan.w_copy_bytes, "conv2d: dgrad", "the channel-padded filter"); !s) return s;
    if (cudaError_t e = pad_rows(args.w, pb.c, 0, padded_filter.get(), plan.filter.c, (long long)pb.k * pb.r * pb.s, pb.c, 1,
                                       stream);
        e != cudaSuccess) {
      return conv_detail::launch_error("dgrad", e);
    }
    w = padded_filter.get();
  }
  std::vector<PhaseTma> tma;
  ConvDgradPhasesTmaA phases_a;
  ConvDgradPhasesTmaB phases_b;
  if (plan.one_launch ? !encode_one_launch(plan, pb, args.dy, w, &phases_a, &phases_b)
                      : !encode_phases(plan, args.dy, w, tma)) {  // the driver refused a map: the cp.async kernels
    device.tma_encoder = false;
    plan = conv_detail::plan_dgrad(args, device);
    tma.assign(plan.phases.size(), PhaseTma{});
  }
  StreamBuffer workspace(stream);
  if (Status s = workspace.allocate(plan.workspace_bytes, "conv2d: dgrad", "the split-K workspace"); !s) return s;

  const int kg = pb.filters_per_group(), ib = data_type_bytes(args.input_type), vec = 16 / ob;
  const bool c_read = args.beta != 0.0f;
  const bool strided = pb.stride_h > 1 || pb.stride_w > 1;
  const void* c = c_read ? args.residual : nullptr;
  // 16-byte runs of dX (and the residual) in every group: aligned bases, C and C/G multiples of a run.
  const bool vector_ok =
      pb.c % vec == 0 && (pb.groups == 1 || cg % vec == 0) && aligned(args.dx, 16) && (!c_read || aligned(c, 16));
  const EpilogueParams output = conv_detail::output_epilogue(args.dx, c, args.bias, pb.c, args.alpha, args.beta,
                                                             args.activation, args.output_type, vector_ok);
  if (plan.one_launch) {  // ungrouped: no batch strides; each phase's rows scatter as its own
    const conv_detail::ConvGemm& gemm = plan.one_launch_gemm;
    const GemmParams params{args.dy, w, gemm.m, gemm.n, gemm.k, 0, 0, 0, 0, 1, 1 << 30, output};
    if (cudaError_t e = sm90::run_conv_dgrad_phases_tma(args.input_type, gemm.tile, params, gemm.groups, phases_a,
                                                        phases_b, stream);
        e != cudaSuccess) {
      return conv_detail::launch_error("dgrad", e);
    }
    return {};
  }
  for (std::size_t i = 0; i < plan.phases.size(); ++i) {
    const DgradPhase& phase = plan.phases[i].phase;
    const conv_detail::ConvGemm& gemm = plan.phases[i].gemm;
    EpilogueParams epilogue = output;
    if (strided) epilogue.scatter = dgrad_row_scatter(pb, phase);
    epilogue.d_batch_stride = epilogue.c_batch_stride = epilogue.bias_batch_stride = cg;
    // Group g: filters g*K/G.. of dY and of W (K/G * R*S*C/G elements of the filter as the kernels see it).
    const std::int64_t w_stride = std::int64_t(kg) * plan.filter.r * plan.filter.s * plan.filter.channels_per_group();
    // K = 0 for a phase with no taps: the epilogue alone.
    const GemmParams params{args.dy, w, gemm.m, gemm.n, gemm.k, 0, 0, kg, w_stride, 1, 1 << 30, epilogue};
    auto launch = [&](GemmParams const& p, int groups) {
      if (gemm.tile.tma)
        return sm90::run_conv_dgrad_tma(args.input_type, gemm.tile, p, groups, tma[i].a, tma[i].b, stream);
      return sm80::run_conv_dgrad(args.input_type, plan.narrow, gemm.optimized, gemm.tile, p, plan.filter, phase,
                                  groups, stream);
    };
    if (cudaError_t e = conv_detail::run_groups(params, gemm, ib, ob, workspace.get<float>(), stream, launch);
        e != cudaSuccess) {
      return conv_detail::launch_error("dgrad", e);
    }
  }
  return {};
}

}  // namespace tessel
