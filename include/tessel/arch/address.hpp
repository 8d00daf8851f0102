// State-space addresses for PTX operands. Instructions such as cp.async and ldmatrix name a
// state space (.shared, .global) and want an address in it, not a generic (C++) pointer.
//
//   smem_address(p): 32-bit .shared address of a generic pointer into shared memory
//   gmem_address(p): 64-bit .global address of a generic pointer into global memory
//
// Device code only (defined in device passes; the wrappers use them inside their
// architecture guards).
#pragma once

#include <cstdint>

namespace tessel::detail {

#if defined(__CUDA_ARCH__)
__device__ inline std::uint32_t smem_address(void const* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
__device__ inline std::uint64_t gmem_address(void const* p) {
  return static_cast<std::uint64_t>(__cvta_generic_to_global(p));
}
#endif

}  // namespace tessel::detail
