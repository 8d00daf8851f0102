#include "conv/conv_tma_sm90.hpp"

#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include <cstdint>

namespace tessel::sm90 {
namespace {

// The driver's encoders, through the runtime (libtessel links no libcuda); null when absent.
template <class Fn>
Fn driver_entry(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<Fn>(fn);
}

PFN_cuTensorMapEncodeIm2col_v12000 im2col_encoder() {
  static const auto fn = driver_entry<PFN_cuTensorMapEncodeIm2col_v12000>("cuTensorMapEncodeIm2col");
  return fn;
}
PFN_cuTensorMapEncodeTiled_v12000 tiled_encoder() {
  static const auto fn = driver_entry<PFN_cuTensorMapEncodeTiled_v12000>("cuTensorMapEncodeTiled");
  return fn;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }
CUtensorMapSwizzle swizzle_for(int tile_k) {
  return tile_k == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;
}
constexpr cuuint64_t kElementBytes = 2;
constexpr int kMaxIm2colOffset = 127;

// The im2col map of the NHWC tensor at x (pb's N, H, W, C), walked over the (out_p, out_q)
// grid of pb's padding, stride and filter; boxes of tile_k channels x tile_m pixels.
bool encode_im2col(const Conv2dProblem& pb, int out_p, int out_q, const void* x, int tile_m, int tile_k,
                   ConvFpropTmaA& a) {
  const auto encode = im2col_encoder();
  if (encode == nullptr || pb.c % 8 != 0 || !aligned16(x) || pb.stride_h > 8 || pb.stride_w > 8) return false;
  // The taps' offsets travel as 16-bit operands; the engine's own range is narrower for 4-d
  // maps (its corners are 8-bit), so offsets past 127 keep the cp.async kernels.
  if ((pb.r - 1) * pb.dilation_h > kMaxIm2colOffset || (pb.s - 1) * pb.dilation_w > kMaxIm2colOffset) return false;
  const cuuint64_t e = kElementBytes;
  const cuuint64_t dims[4] = {cuuint64_t(pb.c), cuuint64_t(pb.w), cuuint64_t(pb.h), cuuint64_t(pb.n)};
  const cuuint64_t strides[3] = {pb.c * e, cuuint64_t(pb.w) * pb.c * e, cuuint64_t(pb.h) * pb.w * pb.c * e};
  const Im2colWalk walk = make_im2col_walk(pb, out_p, out_q);
  const cuuint32_t traversal[4] = {1, cuuint32_t(walk.traversal[0]), cuuint32_t(walk.traversal[1]), 1};
  if (encode(&a.map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 4, const_cast<void*>(x), dims, strides, walk.lower, walk.upper,
             cuuint32_t(tile_k), cuuint32_t(tile_m), traversal, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_for(tile_k),
             CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return false;
  a.g = make_conv_tma_geometry(pb, tile_k, out_p, out_q);
  return true;
}

// A tiled map of `rank` dims (innermost first) of 16-bit elements.
template <int Rank>
bool encode_tiled(CUtensorMap& map, const void* ptr, const cuuint64_t (&dims)[Rank],
                  const cuuint64_t (&strides)[Rank - 1], const cuuint32_t (&box)[Rank], int tile_k) {
  const auto encode = tiled_encoder();
  if (encode == nullptr || !aligned16(ptr)) return false;
  cuuint32_t traversal[Rank];
  for (auto& t : traversal) t = 1;
  return encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, Rank, const_cast<void*>(ptr), dims, strides, box, traversal,
                CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_for(tile_k), CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace

bool make_fprop_tma_operands(const Conv2dProblem& pb, const void* x, const void* w, int tile_m, int tile_n,
                             int tile_k, ConvFpropTmaA& a, ConvFilterTmaB& b) {
  if (pb.groups != 1 || (tile_k != 32 && tile_k != 64)) return false;
  if (!encode_im2col(pb, pb.p(), pb.q(), x, tile_m, tile_k, a)) return false;
  // W as (C, R*S, K), boxes (tile_k, 1, tile_n).
  const cuuint64_t e = kElementBytes;
  const cuuint64_t dims[3] = {cuuint64_t(pb.c), cuuint64_t(pb.r) * pb.s, cuuint64_t(pb.k)};
  const cuuint64_t strides[2] = {pb.c * e, cuuint64_t(pb.r) * pb.s * pb.c * e};
  const cuuint32_t box[3] = {cuuint32_t(tile_k), 1, cuuint32_t(tile_n)};
  if (!encode_tiled(b.map, w, dims, strides, box, tile_k)) return false;
  b.g = a.g;
  return true;
}

bool make_dgrad_tma_operands(const Conv2dProblem& pb, const DgradPhase& phase, const void* dy, const void* w,
                             int tile_m, int tile_n, int tile_k, ConvFpropTmaA& a, ConvDgradFilterTmaB& b) {
  if (pb.groups != 1 || tile_k != 64 || tile_n % 64 != 0 || pb.c % 8 != 0 || phase.taps_r == 0 ||
      phase.taps_s == 0)
    return false;
  if (!encode_im2col(phase.fprop, phase.rows, phase.cols, dy, tile_m, tile_k, a)) return false;
  // W as (C, S, R, K), boxes (64, 1, 1, tile_k): 64 channels of tile_k filters at one tap.
  const cuuint64_t e = kElementBytes;
  const cuuint64_t dims[4] = {cuuint64_t(pb.c), cuuint64_t(pb.s), cuuint64_t(pb.r), cuuint64_t(pb.k)};
  const cuuint64_t strides[3] = {pb.c * e, cuuint64_t(pb.s) * pb.c * e, cuuint64_t(pb.r) * pb.s * pb.c * e};
  const cuuint32_t box[4] = {64, 1, 1, cuuint32_t(tile_k)};
  if (!encode_tiled(b.map, w, dims, strides, box, tile_k)) return false;
  b.g = make_dgrad_filter_tma_geometry(pb, phase, tile_n, tile_k);
  return true;
}

}  // namespace tessel::sm90
