// conv2d_dgrad(): validation (conv2d_validate.cpp), planning (conv2d_plan.cpp), then one
// implicit GEMM per group and stride phase that has rows (include/tessel/conv/dgrad_operand_sm80.hpp
// explains the phases).
//   GEMM view of group g, phase (ph, pw):
//     D (N*rows*cols, C/G) = A (N*rows*cols, R'*S'*K/G) * B (C/G, R'*S'*K/G)^T
//   A  dY through fprop's activation iterator on the phase's stride-1 problem
//   B  the group's filters gathered as (c, (t, u, k))
//   D  the phase's rows of dX, columns g*C/G.. (RowScatter; with stride 1 simply ldd = C)
// On an H100 the ungrouped phases run on the TMA kernel instead (dgrad_operand_sm90.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "conv/channel_pad.hpp"
#include "conv/conv2d_common.hpp"
#include "conv/conv_instances_sm90.hpp"
#include "conv/dgrad_instances_sm80.hpp"
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
    out[i].a.g = g.tma.a_geometry;
    out[i].b.g = g.tma.b_dgrad;
  }
  return true;
}

}  // namespace

Status conv2d_dgrad(const Conv2dDgradArguments& args, cudaStream_t stream) {
  if (Status s = validate(args); !s) return s;
  DeviceInfo device;
  if (Status s = current_device("conv2d: dgrad", &device); !s) return s;
  conv_detail::DgradPlan plan = conv_detail::plan_dgrad(args, device);
  const Conv2dProblem& pb = args.problem;
  const int cg = pb.channels_per_group();
  const int ob = data_type_bytes(args.output_type);

  const void* w = args.w;
  StreamBuffer padded_filter(stream);
  if (plan.pad_filter) {
    if (Status s = padded_filter.allocate(plan.w_copy_bytes, "conv2d: dgrad", "the channel-padded filter"); !s) return s;
    if (cudaError_t e = sm80::pad_channels(args.w, padded_filter.get(), (long long)pb.k * pb.r * pb.s, pb.c,
                                           plan.filter.c, stream);
        e != cudaSuccess) {
      return conv_detail::launch_error("dgrad", 0, e);
    }
    w = padded_filter.get();
  }
  std::vector<PhaseTma> tma;
  if (!encode_phases(plan, args.dy, w, tma)) {  // the driver refused a map: the cp.async kernels
    device.tma_encoder = false;
    plan = conv_detail::plan_dgrad(args, device);
    tma.assign(plan.phases.size(), PhaseTma{});
  }
  StreamBuffer workspace(stream);
  if (Status s = workspace.allocate(plan.workspace_bytes, "conv2d: dgrad", "the split-K workspace"); !s) return s;

  const int vec = 16 / ob;
  const bool c_read = args.beta != 0.0f;
  const bool strided = pb.stride_h > 1 || pb.stride_w > 1;
  for (int g = 0; g < pb.groups; ++g) {
    void* d = static_cast<char*>(args.dx) + std::size_t(g) * cg * ob;
    const void* c = c_read ? static_cast<const char*>(args.residual) + std::size_t(g) * cg * ob : nullptr;
    const void* bias = args.bias ? static_cast<const char*>(args.bias) + std::size_t(g) * cg * ob : nullptr;
    const bool vector_ok = pb.c % vec == 0 && aligned(d, 16) && (!c_read || aligned(c, 16));
    for (std::size_t i = 0; i < plan.phases.size(); ++i) {
      const DgradPhase& phase = plan.phases[i].phase;
      const conv_detail::ConvGemm& gemm = plan.phases[i].gemm;
      EpilogueParams epilogue = conv_detail::output_epilogue(d, c, bias, pb.c, args.alpha, args.beta,
                                                             args.activation, args.output_type, vector_ok);
      if (strided) epilogue.scatter = dgrad_row_scatter(pb, phase);
      // K = 0 for a phase with no taps: the epilogue alone.
      const GemmParams params{args.dy, w, gemm.m, gemm.n, gemm.k, 0, 0, 0, 0, 1, 1 << 30, epilogue};
      auto launch = [&](GemmParams const& p) {
        if (gemm.tile.tma) return sm90::run_conv_dgrad_tma(args.input_type, gemm.tile, p, tma[i].a, tma[i].b, stream);
        return sm80::run_conv_dgrad(args.input_type, plan.narrow, gemm.optimized, gemm.tile, p, plan.filter, phase, g,
                                    stream);
      };
      if (cudaError_t e = conv_detail::run_split(params, gemm.split, workspace.get<float>(), stream, launch);
          e != cudaSuccess) {
        return conv_detail::launch_error("dgrad", g, e);
      }
    }
  }
  return {};
}

}  // namespace tessel
