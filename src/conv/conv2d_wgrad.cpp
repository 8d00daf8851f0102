// conv2d_wgrad(): validation (conv2d_validate.cpp), then one implicit GEMM per group,
// split-K over N*P*Q when the output has few tiles.
//   GEMM view of group g:  D (K/G, R*S*C/G) = A (K/G, N*P*Q) * B (R*S*C/G, N*P*Q)^T
//   A  dY^T: the MN-major matrix dY + g*K/G, lda = K
//   B  the activations through ConvWgradActivationB (zero-filled padding)
//   D  the group's K/G filters of dW (ldd = R*S*C/G); with split-K, first fp32 slices in a
//      stream-ordered workspace, then split_k_reduce applies alpha/beta in a fixed order
#include <algorithm>
#include <cstdint>
#include <string>

#include "conv/conv2d_common.hpp"
#include "conv/wgrad_instances_sm80.hpp"
#include "gemm/split_k_reduce.hpp"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel {

using conv_detail::aligned;

namespace {

// Slices of N*P*Q: when the (K/G x RSC/G) tiles fill less than half the SMs, as many slices as
// fill them about twice, each of at least 8 K tiles, at most 64. E.g. 64 -> 64 3x3 at N = 32,
// 56x56: 5 tiles, 3136 K tiles on 132 SMs -> 52 slices of 61 tiles.
void choose_splits(long long tiles, int k_tiles, int sms, int* splits, int* per_split) {
  *splits = 1, *per_split = k_tiles;
  if (2 * tiles > sms) return;
  const long long n = std::min<long long>({(2LL * sms + tiles - 1) / tiles, k_tiles / 8, 64});
  if (n < 2) return;
  *per_split = int((k_tiles + n - 1) / n);
  *splits = (k_tiles + *per_split - 1) / *per_split;
}

}  // namespace

Status conv2d_wgrad(const Conv2dWgradArguments& args, cudaStream_t stream) {
  if (Status s = validate(args); !s) return s;
  const Conv2dProblem& pb = args.problem;
  if (Status s = conv_detail::check_device("wgrad"); !s) return s;
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);

  const int cg = pb.channels_per_group(), kg = pb.filters_per_group();
  const int crs = pb.r * pb.s * cg, npq = pb.n * pb.p() * pb.q();
  const int ib = data_type_bytes(args.input_type), ob = data_type_bytes(args.output_type);
  // 16-byte loads: eight filters of dY (A) and eight channels of X (B) per vector.
  const bool narrow = !(kg % 8 == 0 && pb.k % 8 == 0 && cg % 8 == 0 && pb.c % 8 == 0 && aligned(args.dy, 16) &&
                        aligned(args.x, 16));
  const int vec = 16 / ob;
  const bool c_read = args.beta != 0.0f;
  const long long tiles = (long long)((kg + 127) / 128) * ((crs + 127) / 128);
  int splits = 1, per_split = 1;
  choose_splits(tiles, (npq + sm80::kConvTileK - 1) / sm80::kConvTileK, sms, &splits, &per_split);

  const std::int64_t per_matrix = std::int64_t(kg) * crs;
  float* workspace = nullptr;
  if (splits > 1) {
    if (cudaError_t e = cudaMallocAsync(reinterpret_cast<void**>(&workspace),
                                        std::size_t(per_matrix) * splits * sizeof(float), stream);
        e != cudaSuccess) {
      cudaGetLastError();
      return {StatusCode::kCudaError,
              std::string("conv2d: wgrad: allocating the split-K workspace failed: ") + cudaGetErrorString(e)};
    }
  }
  Status status;
  for (int g = 0; g < pb.groups && status.ok(); ++g) {
    void* d = static_cast<char*>(args.dw) + std::size_t(g) * per_matrix * ob;
    const void* c = c_read ? static_cast<const char*>(args.residual) + std::size_t(g) * per_matrix * ob : nullptr;
    const EpilogueParams out{d, c, nullptr, crs, crs, 0, 0, args.alpha, args.beta, BiasMode::kNone,
                             Activation::kNone, args.output_type, crs % vec == 0 && aligned(d, 16) &&
                                                                      (!c_read || aligned(c, 16))};
    GemmParamsSm80 params{static_cast<const char*>(args.dy) + std::size_t(g) * kg * ib, args.x, kg, crs, npq,
                          pb.k, 0, 0, 0, splits, per_split, out};
    if (splits > 1) {  // raw fp32 slices: (splits, K/G, RSC/G)
      params.epilogue = EpilogueParams{workspace, nullptr, nullptr, crs, 0, per_matrix, 0, 1.0f, 0.0f,
                                       BiasMode::kNone, Activation::kNone, DataType::kF32, crs % 4 == 0};
    }
    cudaError_t e = sm80::run_conv_wgrad(args.input_type, narrow, params, pb, g, stream);
    if (e == cudaSuccess && splits > 1) e = sm80::split_k_reduce(workspace, splits, kg, crs, 1, out, stream);
    if (e != cudaSuccess) status = conv_detail::launch_error("wgrad", g, e);
  }
  if (workspace != nullptr) cudaFreeAsync(workspace, stream);
  return status;
}

}  // namespace tessel
