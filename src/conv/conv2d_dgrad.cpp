// conv2d_dgrad(): validation (conv2d_validate.cpp), then one implicit GEMM per group and
// stride phase (include/tessel/conv/dgrad_operand_sm80.hpp explains the phases).
//   GEMM view of group g, phase (ph, pw):
//     D (N*rows*cols, C/G) = A (N*rows*cols, R'*S'*K/G) * B (C/G, R'*S'*K/G)^T
//   A  dY through fprop's activation iterator on the phase's stride-1 problem
//   B  the group's filters gathered as (c, (t, u, k))
//   D  the phase's rows of dX, columns g*C/G.. (RowScatter; with stride 1 simply ldd = C)
// On an H100 the ungrouped phases run on the TMA kernel instead (dgrad_operand_sm90.hpp).
// A GEMM whose tiles fill less than half the GPU is split along K (conv2d_common.hpp).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "conv/channel_pad.hpp"
#include "conv/conv2d_common.hpp"
#include "conv/conv_instances_sm90.hpp"
#include "conv/conv_tma_sm90.hpp"
#include "conv/dgrad_instances_sm80.hpp"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel {

using conv_detail::aligned;

Status conv2d_dgrad(const Conv2dDgradArguments& args, cudaStream_t stream) {
  if (Status s = validate(args); !s) return s;
  const Conv2dProblem& pb = args.problem;
  if (Status s = conv_detail::check_device("dgrad"); !s) return s;

  const int cg = pb.channels_per_group(), kg = pb.filters_per_group();
  const int ib = data_type_bytes(args.input_type), ob = data_type_bytes(args.output_type);
  // 16-byte loads: eight filters of dY (A) and eight channels of W (B) per vector. An
  // ungrouped filter whose channels rule that out (the RGB stem, C = 3) is padded with zero
  // channels to a multiple of 8 (a small copy); the GEMM's N stays C, so the padding columns
  // are computed and never stored.
  const bool a_wide = kg % 8 == 0 && pb.k % 8 == 0 && aligned(args.dy, 16);
  bool b_wide = cg % 8 == 0 && aligned(args.w, 16);
  Conv2dProblem filter = pb;  // the filter's geometry (its channels padded)
  const void* w = args.w;
  conv_detail::StreamBuffer padded_filter(stream);
  if (a_wide && !b_wide && pb.groups == 1 &&
      (long long)pb.k * pb.r * pb.s * ((pb.c + 7) / 8 * 8) <= kMaxConvTensorElements) {
    filter.c = (pb.c + 7) / 8 * 8;
    const long long rows = (long long)pb.k * pb.r * pb.s;
    if (Status s = padded_filter.allocate(std::size_t(rows) * filter.c * ib, "dgrad",
                                          "the channel-padded filter");
        !s) {
      return s;
    }
    if (cudaError_t e =
            sm80::pad_channels(args.w, padded_filter.get(), rows, pb.c, filter.c, stream);
        e != cudaSuccess) {
      return conv_detail::launch_error("dgrad", 0, e);
    }
    w = padded_filter.get();
    b_wide = true;
  }
  const bool narrow = !(a_wide && b_wide);
  const int vec = 16 / ob;
  const bool c_read = args.beta != 0.0f;
  const bool strided = pb.stride_h > 1 || pb.stride_w > 1;
  // Each phase's kernel and split. On the wgmma kernels, phases whose dY has 64 or more
  // channels take the TMA kernel when the engine can describe them: A is the phase's im2col
  // over dY, its K whole 64-filter tiles per tap.
  const int sms = conv_detail::device_sms();
  const bool wgmma = conv_detail::wgmma_available();
  struct PhasePlan {
    DgradPhase phase;
    bool optimized;
    sm80::ConvTile tile;
    int k;  // GEMM K
    ConvFpropTmaA tma_a;
    ConvDgradFilterTmaB tma_b;
    conv_detail::Split split;
  };
  auto plan = [&](int ph, int pw) {
    PhasePlan pl;
    pl.phase = make_dgrad_phase(pb, ph, pw);
    const int taps = pl.phase.taps_r * pl.phase.taps_s;
    pl.optimized = ActivationIteratorOptimized<1>::supports(pl.phase.fprop);
    pl.tile = sm80::conv_tile_n(cg, narrow, pl.optimized, wgmma);
    pl.k = taps * kg;
    if (pl.tile.wgmma && taps > 0 && pb.groups == 1 && pb.k >= sm80::kConvTileKTma &&
        sm90::make_dgrad_tma_operands(filter, pl.phase, args.dy, w, pl.tile.m, pl.tile.n, sm80::kConvTileKTma,
                                      pl.tma_a, pl.tma_b)) {
      pl.tile.tma = true;
      pl.tile.k = sm80::kConvTileKTma;
      pl.k = taps * pl.tma_a.g.c_blocks * sm80::kConvTileKTma;
    }
    pl.split = conv_detail::choose_split(pb.n * pl.phase.rows * pl.phase.cols, cg, pl.k, pl.tile, sms);
    return pl;
  };
  // The phases' plans (the same for every group), in (ph, pw) order; split-K per phase, one
  // workspace for the largest.
  std::vector<PhasePlan> plans;
  std::size_t workspace_bytes = 0;
  for (int ph = 0; ph < pb.stride_h; ++ph) {
    for (int pw = 0; pw < pb.stride_w; ++pw) {
      const PhasePlan& pl = plans.emplace_back(plan(ph, pw));
      workspace_bytes =
          std::max(workspace_bytes, pl.split.workspace_bytes(pb.n * pl.phase.rows * pl.phase.cols, cg));
    }
  }
  conv_detail::StreamBuffer workspace(stream);
  if (Status s = workspace.allocate(workspace_bytes, "dgrad", "the split-K workspace"); !s)
    return s;
  for (int g = 0; g < pb.groups; ++g) {
    void* d = static_cast<char*>(args.dx) + std::size_t(g) * cg * ob;
    const void* c =
        c_read ? static_cast<const char*>(args.residual) + std::size_t(g) * cg * ob : nullptr;
    const void* bias =
        args.bias ? static_cast<const char*>(args.bias) + std::size_t(g) * cg * ob : nullptr;
    const bool vector_ok = pb.c % vec == 0 && aligned(d, 16) && (!c_read || aligned(c, 16));
    for (const PhasePlan& pl : plans) {
      const DgradPhase& phase = pl.phase;
      if (phase.rows == 0 || phase.cols == 0) continue;  // H < stride_h: no such rows
      EpilogueParams epilogue = conv_detail::output_epilogue(
          d, c, bias, pb.c, args.alpha, args.beta, args.activation, args.output_type, vector_ok);
      if (strided) epilogue.scatter = dgrad_row_scatter(pb, phase);
      // K = 0 for a phase with no taps: the epilogue alone.
      const GemmParamsSm80 params{
          args.dy, w,       pb.n * phase.rows * phase.cols, cg, pl.k, 0, 0, 0, 0, 1,
          1 << 30, epilogue};
      auto launch = [&](GemmParamsSm80 const& p) {
        if (pl.tile.tma)
          return sm90::run_conv_dgrad_tma(args.input_type, pl.tile, p, pl.tma_a, pl.tma_b, stream);
        return sm80::run_conv_dgrad(args.input_type, narrow, pl.optimized, pl.tile, p, filter, phase,
                                    g, stream);
      };
      if (cudaError_t e =
              conv_detail::run_split(params, pl.split, workspace.get<float>(), stream, launch);
          e != cudaSuccess) {
        return conv_detail::launch_error("dgrad", g, e);
      }
    }
  }
  return {};
}

}  // namespace tessel
