#include "runtime/tma_encoder.hpp"

#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

namespace tessel::sm90 {
namespace {

// The driver's encoders, through the runtime; null when absent.
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

}  // namespace

bool tma_encoders_available() { return im2col_encoder() != nullptr && tiled_encoder() != nullptr; }

bool encode_tma_map(const TmaMapParams& p, const void* ptr, CUtensorMap* map) {
  if (!tma_encoders_available()) return false;
  cuuint64_t dims[4], strides[3];
  for (int i = 0; i < 4; ++i) dims[i] = p.dims[i];
  for (int i = 0; i < 3; ++i) strides[i] = p.strides[i];
  const CUtensorMapSwizzle swizzle = p.swizzle_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;
  void* address = const_cast<void*>(ptr);
  if (p.im2col) {
    return im2col_encoder()(map, CU_TENSOR_MAP_DATA_TYPE_UINT16, cuuint32_t(p.rank), address, dims, strides, p.lower,
                            p.upper, p.channels, p.pixels, p.traversal, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
  }
  return tiled_encoder()(map, CU_TENSOR_MAP_DATA_TYPE_UINT16, cuuint32_t(p.rank), address, dims, strides, p.box,
                         p.traversal, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace tessel::sm90
