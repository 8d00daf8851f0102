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

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

bool make_fprop_tma_operands(const Conv2dProblem& pb, const void* x, const void* w, int tile_m, int tile_n,
                             int tile_k, ConvFpropTmaA& a, ConvFilterTmaB& b) {
  if (pb.groups != 1 || pb.c % 8 != 0 || !aligned16(x) || !aligned16(w)) return false;
  if (tile_k != 32 && tile_k != 64) return false;
  if (pb.stride_h > 8 || pb.stride_w > 8) return false;  // the engine's traversal strides
  static const auto im2col = driver_entry<PFN_cuTensorMapEncodeIm2col_v12000>("cuTensorMapEncodeIm2col");
  static const auto tiled = driver_entry<PFN_cuTensorMapEncodeTiled_v12000>("cuTensorMapEncodeTiled");
  if (im2col == nullptr || tiled == nullptr) return false;
  const CUtensorMapSwizzle swizzle = tile_k == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;
  const cuuint64_t e = 2;  // bytes per element

  // X (C, W, H, N), walked over the output grid's start pixels.
  const cuuint64_t x_dims[4] = {cuuint64_t(pb.c), cuuint64_t(pb.w), cuuint64_t(pb.h), cuuint64_t(pb.n)};
  const cuuint64_t x_strides[3] = {pb.c * e, cuuint64_t(pb.w) * pb.c * e, cuuint64_t(pb.h) * pb.w * pb.c * e};
  const Im2colWalk walk = make_im2col_walk(pb);
  const cuuint32_t x_traversal[4] = {1, cuuint32_t(walk.traversal[0]), cuuint32_t(walk.traversal[1]), 1};
  if (im2col(&a.map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 4, const_cast<void*>(x), x_dims, x_strides, walk.lower, walk.upper,
             cuuint32_t(tile_k), cuuint32_t(tile_m), x_traversal, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
             CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return false;

  // W (C, R*S, K).
  const cuuint64_t w_dims[3] = {cuuint64_t(pb.c), cuuint64_t(pb.r) * pb.s, cuuint64_t(pb.k)};
  const cuuint64_t w_strides[2] = {pb.c * e, cuuint64_t(pb.r) * pb.s * pb.c * e};
  const cuuint32_t w_box[3] = {cuuint32_t(tile_k), 1, cuuint32_t(tile_n)};
  const cuuint32_t w_traversal[3] = {1, 1, 1};
  if (tiled(&b.map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 3, const_cast<void*>(w), w_dims, w_strides, w_box, w_traversal,
            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return false;
  a.g = b.g = make_conv_tma_geometry(pb, tile_k);
  return true;
}

}  // namespace tessel::sm90
