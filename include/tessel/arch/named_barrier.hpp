// Named barriers: bar.sync on barrier `id` (1-15; 0 is __syncthreads') for `Threads` threads
// (whole warps), so a group of warps (an epilogue's warpgroups) synchronizes among itself
// while the block's other warps (a producer) go on.
#pragma once

namespace tessel {

#if defined(__CUDACC__)
template <int Threads>
__device__ inline void named_barrier(int id) {
  static_assert(Threads % 32 == 0, "named_barrier: whole warps");
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(Threads) : "memory");
}
#endif

}  // namespace tessel
