// conv2d_fprop(): validation (conv2d_validate.cpp), then one implicit GEMM per group on the sm80
// pipeline. Channels that rule out 16-byte loads are padded first (see conv2d_fprop below).
//   GEMM view of group g:  D (N*P*Q, K/G) = A (N*P*Q, R*S*C/G) * B (K/G, R*S*C/G)^T
//   A  the activations through ConvFpropA (zero-filled padding; the optimized iterator where
//      R, S <= 32, else the analytic one), B the group's KRSC filters
//      (a K-major matrix, ldb = R*S*C/G), D the group's K/G columns of Y (ldd = K).
// On an H100, ungrouped layers of 64 or more channels run on the TMA kernel instead: the same
// GEMM with A loaded in the engine's im2col mode, K rounded up per tap to 64-channel tiles
// (conv/fprop_operand_sm90.hpp).
#include <cstdint>
#include <string>

#include "conv/channel_pad.hpp"
#include "conv/conv2d_common.hpp"
#include "conv/conv_instances_sm90.hpp"
#include "conv/conv_tma_sm90.hpp"
#include "conv/fprop_instances_sm80.hpp"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel {

using conv_detail::aligned;

namespace {

// The GEMMs of every group, X and W as given (or padded) for `pb`.
Status run_groups(const Conv2dArguments& args, const Conv2dProblem& pb, const void* x,
                  const void* w, cudaStream_t stream) {
  const int cg = pb.channels_per_group(), kg = pb.filters_per_group();
  const int rsc = pb.r * pb.s * cg, npq = pb.n * pb.p() * pb.q();
  const int ib = data_type_bytes(args.input_type), ob = data_type_bytes(args.output_type);
  // 16-byte loads: eight channels of one tap in one vector, both tensors 16-byte aligned.
  const bool narrow = !(cg % 8 == 0 && pb.c % 8 == 0 && aligned(x, 16) && aligned(w, 16));
  // The optimized iterator keeps a 32-bit tap mask per row: filters up to 32 x 32.
  const bool optimized = ActivationIteratorOptimized<1>::supports(pb);
  const int vec = 16 / ob;
  const bool c_read = args.beta != 0.0f;
  sm80::ConvTile tile = sm80::conv_tile_n(kg, narrow, optimized, conv_detail::wgmma_available());
  // On the wgmma kernels, layers of at least 64 channels take the TMA kernel when the engine
  // can describe them; its K runs over whole 64-channel tiles of each tap.
  ConvFpropTmaA tma_a;
  ConvFilterTmaB tma_b;
  int gemm_k = rsc;
  if (tile.wgmma && pb.c >= sm80::kConvTileKTma &&
      sm90::make_fprop_tma_operands(pb, x, w, tile.m, tile.n, sm80::kConvTileKTma, tma_a, tma_b)) {
    tile.tma = true;
    tile.k = sm80::kConvTileKTma;
    gemm_k = pb.r * pb.s * tma_a.g.c_blocks * sm80::kConvTileKTma;
  }
  const conv_detail::Split split =
      conv_detail::choose_split(npq, kg, gemm_k, tile, conv_detail::device_sms());
  conv_detail::StreamBuffer workspace(stream);
  if (Status s =
          workspace.allocate(split.workspace_bytes(npq, kg), "fprop", "the split-K workspace");
      !s)
    return s;
  for (int g = 0; g < pb.groups; ++g) {
    void* d = static_cast<char*>(args.y) + std::size_t(g) * kg * ob;
    const void* c =
        c_read ? static_cast<const char*>(args.residual) + std::size_t(g) * kg * ob : nullptr;
    const void* bias =
        args.bias ? static_cast<const char*>(args.bias) + std::size_t(g) * kg * ob : nullptr;
    const bool vector_ok = pb.k % vec == 0 && aligned(d, 16) && (!c_read || aligned(c, 16));
    GemmParamsSm80 params{
        x,
        static_cast<const char*>(w) + std::size_t(g) * kg * rsc * ib,
        npq,
        kg,
        gemm_k,
        0,
        rsc,
        0,
        0,
        1,
        1 << 30,
        conv_detail::output_epilogue(d, c, bias, pb.k, args.alpha, args.beta, args.activation,
                                     args.output_type, vector_ok)};
    auto launch = [&](GemmParamsSm80 const& p) {
      if (tile.tma) return sm90::run_conv_fprop_tma(args.input_type, tile, p, tma_a, tma_b, stream);
      return sm80::run_conv_fprop(args.input_type, narrow, optimized, tile, p, pb, g, stream);
    };
    if (cudaError_t e =
            conv_detail::run_split(params, split, workspace.get<float>(), stream, launch);
        e != cudaSuccess) {
      return conv_detail::launch_error("fprop", g, e);
    }
  }
  return {};
}

}  // namespace

// Ungrouped layers whose channels (or pointers) rule out 16-byte loads, such as the RGB stem
// (C = 3), are run on zero-padded copies: X and W padded to C8 = C rounded up to 8 channels
// in a stream-ordered workspace. The reduction grows by C8/C, but every load is a 16-byte
// cp.async instead of eight 2-byte loads. Grouped layers (and padded copies past 2^31
// elements) take the narrow path instead.
Status conv2d_fprop(const Conv2dArguments& args, cudaStream_t stream) {
  if (Status s = validate(args); !s) return s;
  const Conv2dProblem& pb = args.problem;
  if (Status s = conv_detail::check_device("fprop"); !s) return s;
  const bool wide = pb.c % 8 == 0 && aligned(args.x, 16) && aligned(args.w, 16);
  Conv2dProblem padded = pb;
  padded.c = (pb.c + 7) / 8 * 8;
  const long long x_rows = (long long)pb.n * pb.h * pb.w, w_rows = (long long)pb.k * pb.r * pb.s;
  if (wide || pb.groups != 1 || x_rows * padded.c > kMaxConvTensorElements) {
    return run_groups(args, pb, args.x, args.w, stream);
  }
  const int ib = data_type_bytes(args.input_type);
  const std::size_t x_bytes = std::size_t(x_rows) * padded.c * ib,
                    w_bytes = std::size_t(w_rows) * padded.c * ib;
  conv_detail::StreamBuffer copies(stream);
  if (Status s = copies.allocate(x_bytes + w_bytes, "fprop", "the channel-padded copies"); !s)
    return s;
  char* x = copies.get<char>();
  cudaError_t e = sm80::pad_channels(args.x, x, x_rows, pb.c, padded.c, stream);
  if (e == cudaSuccess) e = sm80::pad_channels(args.w, x + x_bytes, w_rows, pb.c, padded.c, stream);
  if (e != cudaSuccess) return conv_detail::launch_error("fprop", 0, e);
  return run_groups(args, padded, x, x + x_bytes, stream);
}

}  // namespace tessel
