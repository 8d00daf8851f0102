// conv2d_wgrad(): validation (conv2d_validate.cpp), planning (conv2d_plan.cpp), then one
// implicit GEMM per group, split-K over N*P*Q when the output has few tiles.
//   GEMM view of group g:  D (K/G, R*S*C/G) = A (K/G, N*P*Q) * B (R*S*C/G, N*P*Q)^T
//   A  dY^T: the MN-major matrix dY + g*K/G, lda = K
//   B  the activations through ConvWgradActivationB (zero-filled padding)
//   D  the group's K/G filters of dW (ldd = R*S*C/G); with split-K (conv2d_plan.hpp), first
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

Status conv2d_wgrad(const Conv2dWgradArguments& args, cudaStream_t stream) {
  if (Status s = validate(args); !s) return s;
  DeviceInfo device;
  if (Status s = current_device("conv2d: wgrad", &device); !s) return s;
  const conv_detail::WgradPlan plan = conv_detail::plan_wgrad(args, device);
  const Conv2dProblem& pb = args.problem;
  const conv_detail::ConvGemm& gemm = plan.gemm;

  const void* x = args.x;
  StreamBuffer padded_x(stream);
  if (plan.pad_channels) {
    if (Status s = padded_x.allocate(plan.x_copy_bytes, "conv2d: wgrad", "the channel-padded activations"); !s) return s;
    if (cudaError_t e = sm80::pad_channels(args.x, padded_x.get(), (long long)pb.n * pb.h * pb.w, pb.c,
                                           plan.problem.c, stream);
        e != cudaSuccess) {
      return conv_detail::launch_error("wgrad", 0, e);
    }
    x = padded_x.get();
  }
  StreamBuffer workspace(stream);
  if (Status s = workspace.allocate(gemm.workspace_bytes(), "conv2d: wgrad", "the split-K workspace"); !s) return s;

  const int kg = pb.filters_per_group();
  const int crs = pb.r * pb.s * pb.channels_per_group();  // dW's columns (the GEMM's N unless padded)
  const int ib = data_type_bytes(args.input_type), ob = data_type_bytes(args.output_type);
  const int vec = 16 / ob;
  const bool c_read = args.beta != 0.0f;
  const std::int64_t per_matrix = std::int64_t(kg) * crs;
  for (int g = 0; g < pb.groups; ++g) {
    void* d = static_cast<char*>(args.dw) + std::size_t(g) * per_matrix * ob;
    const void* c = c_read ? static_cast<const char*>(args.residual) + std::size_t(g) * per_matrix * ob : nullptr;
    // On padded channels the reduction writes D (the GEMM's columns compacted), never the kernel.
    const bool vector_ok = !plan.pad_channels && crs % vec == 0 && aligned(d, 16) && (!c_read || aligned(c, 16));
    const EpilogueParams out = conv_detail::output_epilogue(d, c, nullptr, crs, args.alpha, args.beta,
                                                            Activation::kNone, args.output_type, vector_ok);
    const GemmParams params{
        static_cast<const char*>(args.dy) + std::size_t(g) * kg * ib, x, gemm.m, gemm.n, gemm.k, pb.k, 0, 0, 0, 1,
        1 << 30, out};
    auto launch = [&](GemmParams const& p) {
      return sm80::run_conv_wgrad(args.input_type, plan.narrow, gemm.tile, p, plan.problem, g, stream);
    };
    if (cudaError_t e = conv_detail::run_split(params, gemm.split, workspace.get<float>(), stream, launch);
        e != cudaSuccess) {
      return conv_detail::launch_error("wgrad", g, e);
    }
  }
  return {};
}

}  // namespace tessel
