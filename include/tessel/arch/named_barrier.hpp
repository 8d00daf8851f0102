// Named barriers: bar.sync over a subset of the block's warps, e.g. the MMA warpgroups of a
// warp-specialized kernel while its producer warp keeps loading. Barrier 0 is __syncthreads'.
#pragma once

#include "tessel/arch/config.hpp"

namespace tessel {

// Waits until `Threads` threads (whole warps) have arrived at barrier `id` (1 to 15).
template <int Threads>
TESSEL_HOST_DEVICE inline void named_barrier(int id) {
  static_assert(Threads % 32 == 0, "named_barrier: whole warps");
#if defined(__CUDA_ARCH__)
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(Threads) : "memory");
#else
  (void)id;
#endif
}

}  // namespace tessel
