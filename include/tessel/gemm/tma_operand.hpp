// A GEMM operand loaded by the TMA engine (arch/sm90/tma.hpp) instead of per-thread cp.async:
// the sm_90a kernel's B source (kernel_sm90.hpp) for a K-major (N,K) matrix of 16-bit
// elements, e.g. convolution fprop's KRSC filter. One thread issues each K tile's box; the
// threads then only wait for it. The map's box is the kernel's (TileN, TileK) B stage, with the
// 64-byte swizzle of its ring (TileK = 32; operand_sm80.hpp), and zero fill past N and K.
//
//   TmaMatrixOperand b;
//   if (cudaError_t e = make_tma_matrix_operand(b, ptr, n, k, ldb, Config::kTileN, Config::kTileK); ...)
//   launch_gemm_sm90<Config, true>(params, 1, stream, a_source, b);   // batch 1: p.b is unused
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include <cstdint>

#include "tile_loader.hpp"

namespace tessel {

struct TmaMatrixOperand {
  CUtensorMap map;  // (K, N) 16-bit elements, box (TileK, TileN)
};
template <>
struct LoadedByTma<TmaMatrixOperand> : std::true_type {};

// Encodes the map of the (mn, k) K-major matrix at ptr with rows ld elements apart, for boxes of
// (tile_mn, tile_k). cudaErrorInvalidValue when the engine cannot describe it (ptr not 16-byte
// aligned, ld * 2 not a multiple of 16, a box wider than the 64-byte swizzle), or the driver's
// encoder is unavailable.
inline cudaError_t make_tma_matrix_operand(TmaMatrixOperand& out, void const* ptr, int mn, int k, std::int64_t ld,
                                           int tile_mn, int tile_k) {
  if (reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0 || (ld * 2) % 16 != 0 || tile_k * 2 > 64 || mn < 1 || k < 1)
    return cudaErrorInvalidValue;
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      fn = nullptr;
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  if (encode == nullptr) return cudaErrorInvalidValue;
  const cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(mn)};
  const cuuint64_t strides[1] = {cuuint64_t(ld) * 2};  // bytes between rows
  const cuuint32_t box[2] = {cuuint32_t(tile_k), cuuint32_t(tile_mn)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode(&out.map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, const_cast<void*>(ptr), dims, strides, box,
                            element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_64B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

}  // namespace tessel
