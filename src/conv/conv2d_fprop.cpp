// conv2d_fprop(): validation (conv2d_validate.cpp), then one implicit GEMM per group on the sm80 pipeline.
//   GEMM view of group g:  D (N*P*Q, K/G) = A (N*P*Q, R*S*C/G) * B (K/G, R*S*C/G)^T
//   A  the activations through ConvFpropA (zero-filled padding; the optimized iterator where
//      R, S <= 32, else the analytic one), B the group's KRSC filters
//      (a K-major matrix, ldb = R*S*C/G), D the group's K/G columns of Y (ldd = K).
#include <cstdint>
#include <string>

#include "conv/conv2d_common.hpp"
#include "conv/fprop_instances_sm80.hpp"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel {

using conv_detail::aligned;

Status conv2d_fprop(const Conv2dArguments& args, cudaStream_t stream) {
  if (Status s = validate(args); !s) return s;
  const Conv2dProblem& pb = args.problem;
  if (Status s = conv_detail::check_device("fprop"); !s) return s;

  const int cg = pb.channels_per_group(), kg = pb.filters_per_group();
  const int rsc = pb.r * pb.s * cg, npq = pb.n * pb.p() * pb.q();
  const int ib = data_type_bytes(args.input_type), ob = data_type_bytes(args.output_type);
  // 16-byte loads: eight channels of one tap in one vector, both tensors 16-byte aligned.
  const bool narrow = !(cg % 8 == 0 && pb.c % 8 == 0 && aligned(args.x, 16) && aligned(args.w, 16));
  // The optimized iterator keeps a 32-bit tap mask per row: filters up to 32 x 32.
  const bool optimized = ActivationIteratorOptimized<1>::supports(pb);
  const int vec = 16 / ob;
  const bool c_read = args.beta != 0.0f;
  for (int g = 0; g < pb.groups; ++g) {
    void* d = static_cast<char*>(args.y) + std::size_t(g) * kg * ob;
    const void* c = c_read ? static_cast<const char*>(args.residual) + std::size_t(g) * kg * ob : nullptr;
    const void* bias = args.bias ? static_cast<const char*>(args.bias) + std::size_t(g) * kg * ob : nullptr;
    const bool vector_ok = pb.k % vec == 0 && aligned(d, 16) && (!c_read || aligned(c, 16));
    GemmParamsSm80 params{args.x, static_cast<const char*>(args.w) + std::size_t(g) * kg * rsc * ib,
                          npq, kg, rsc, 0, rsc, 0, 0, 1, 1 << 30,
                          EpilogueParams{d, c, bias, pb.k, pb.k, 0, 0, args.alpha, args.beta,
                                         bias ? BiasMode::kPerColumn : BiasMode::kNone, args.activation,
                                         args.output_type, vector_ok}};
    if (cudaError_t e = sm80::run_conv_fprop(args.input_type, narrow, optimized, params, pb, g, stream);
        e != cudaSuccess) {
      return conv_detail::launch_error("fprop", g, e);
    }
  }
  return {};
}

}  // namespace tessel
