// conv2d_wgrad(): validation (conv2d_validate.cpp), then one implicit GEMM per group,
// split-K over N*P*Q when the output has few tiles.
//   GEMM view of group g:  D (K/G, R*S*C/G) = A (K/G, N*P*Q) * B (R*S*C/G, N*P*Q)^T
//   A  dY^T: the MN-major matrix dY + g*K/G, lda = K
//   B  the activations through ConvWgradActivationB (zero-filled padding)
//   D  the group's K/G filters of dW (ldd = R*S*C/G); with split-K (conv2d_common.hpp), first
//      fp32 slices in a stream-ordered workspace, then split_k_reduce applies alpha/beta in a
//      fixed order
#include <cstdint>
#include <string>

#include "conv/channel_pad.hpp"
#include "conv/conv2d_common.hpp"
#include "conv/wgrad_instances_sm80.hpp"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel {

using conv_detail::aligned;

namespace {

// An ungrouped layer whose activations rule out 16-byte loads (the RGB stem, C = 3) while dY
// allows them: X is padded with zero channels to C8 = C rounded up to 8 (a copy), the GEMM
// computes (K, R*S*C8) into an fp32 workspace (split or not), and the reduction keeps the
// first C of every C8 columns: dW (K, R*S*C).
Status wgrad_on_padded_channels(const Conv2dWgradArguments& args, cudaStream_t stream) {
  const Conv2dProblem& pb = args.problem;
  Conv2dProblem padded = pb;
  padded.c = (pb.c + 7) / 8 * 8;
  const long long x_rows = (long long)pb.n * pb.h * pb.w;
  const int crs = pb.r * pb.s * pb.c, crs8 = pb.r * pb.s * padded.c, npq = pb.n * pb.p() * pb.q();
  const sm80::ConvTile tile = sm80::conv_tile_m(pb.k, false, conv_detail::wgmma_available());
  conv_detail::Split split =
      conv_detail::choose_split(pb.k, crs8, npq, tile, conv_detail::device_sms());
  split.columns = {padded.c, pb.c};
  conv_detail::StreamBuffer x(stream), workspace(stream);
  const std::size_t x_bytes = std::size_t(x_rows) * padded.c * data_type_bytes(args.input_type);
  if (Status s = x.allocate(x_bytes, "wgrad", "the channel-padded activations"); !s) return s;
  if (Status s = workspace.allocate(split.workspace_bytes(pb.k, crs8), "wgrad", "the partial sums");
      !s) {
    return s;
  }
  if (cudaError_t e = sm80::pad_channels(args.x, x.get(), x_rows, pb.c, padded.c, stream);
      e != cudaSuccess) {
    return conv_detail::launch_error("wgrad", 0, e);
  }
  // The real epilogue, on D = dW (K, R*S*C); the GEMM's (K, R*S*C8) stays in the workspace.
  const GemmParamsSm80 params{
      args.dy,
      x.get(),
      pb.k,
      crs8,
      npq,
      pb.k,
      0,
      0,
      0,
      1,
      1 << 30,
      conv_detail::output_epilogue(args.dw, args.beta != 0.0f ? args.residual : nullptr, nullptr,
                                   crs, args.alpha, args.beta, Activation::kNone, args.output_type,
                                   false)};
  auto launch = [&](GemmParamsSm80 const& p) {
    return sm80::run_conv_wgrad(args.input_type, false, tile, p, padded, 0, stream);
  };
  if (cudaError_t e = conv_detail::run_split(params, split, workspace.get<float>(), stream, launch);
      e != cudaSuccess) {
    return conv_detail::launch_error("wgrad", 0, e);
  }
  return {};
}

}  // namespace

Status conv2d_wgrad(const Conv2dWgradArguments& args, cudaStream_t stream) {
  if (Status s = validate(args); !s) return s;
  const Conv2dProblem& pb = args.problem;
  if (Status s = conv_detail::check_device("wgrad"); !s) return s;

  const int cg = pb.channels_per_group(), kg = pb.filters_per_group();
  const int crs = pb.r * pb.s * cg, npq = pb.n * pb.p() * pb.q();
  const int ib = data_type_bytes(args.input_type), ob = data_type_bytes(args.output_type);
  // 16-byte loads: eight filters of dY (A) and eight channels of X (B) per vector.
  const bool narrow = !(kg % 8 == 0 && pb.k % 8 == 0 && cg % 8 == 0 && pb.c % 8 == 0 &&
                        aligned(args.dy, 16) && aligned(args.x, 16));
  const int vec = 16 / ob;
  const bool c_read = args.beta != 0.0f;
  const long long padded_x = (long long)pb.n * pb.h * pb.w * ((pb.c + 7) / 8 * 8);
  if (narrow && kg % 8 == 0 && pb.k % 8 == 0 && aligned(args.dy, 16) && pb.groups == 1 &&
      padded_x <= kMaxConvTensorElements) {
    return wgrad_on_padded_channels(args, stream);
  }
  const sm80::ConvTile tile = sm80::conv_tile_m(kg, narrow, conv_detail::wgmma_available());
  const conv_detail::Split split =
      conv_detail::choose_split(kg, crs, npq, tile, conv_detail::device_sms());
  conv_detail::StreamBuffer workspace(stream);
  if (Status s =
          workspace.allocate(split.workspace_bytes(kg, crs), "wgrad", "the split-K workspace");
      !s)
    return s;
  const std::int64_t per_matrix = std::int64_t(kg) * crs;
  for (int g = 0; g < pb.groups; ++g) {
    void* d = static_cast<char*>(args.dw) + std::size_t(g) * per_matrix * ob;
    const void* c = c_read
                        ? static_cast<const char*>(args.residual) + std::size_t(g) * per_matrix * ob
                        : nullptr;
    const EpilogueParams out = conv_detail::output_epilogue(
        d, c, nullptr, crs, args.alpha, args.beta, Activation::kNone, args.output_type,
        crs % vec == 0 && aligned(d, 16) && (!c_read || aligned(c, 16)));
    const GemmParamsSm80 params{static_cast<const char*>(args.dy) + std::size_t(g) * kg * ib,
                                args.x,
                                kg,
                                crs,
                                npq,
                                pb.k,
                                0,
                                0,
                                0,
                                1,
                                1 << 30,
                                out};
    auto launch = [&](GemmParamsSm80 const& p) {
      return sm80::run_conv_wgrad(args.input_type, narrow, tile, p, pb, g, stream);
    };
    if (cudaError_t e =
            conv_detail::run_split(params, split, workspace.get<float>(), stream, launch);
        e != cudaSuccess) {
      return conv_detail::launch_error("wgrad", g, e);
    }
  }
  return {};
}

}  // namespace tessel
