// Named barriers: bar.sync over a subset of a block's warps. Barrier 0 is __syncthreads's; the
// kernels number the others (kernel_sm90_tma.hpp: 1 and 2 for stream-K's fix-up, 3 and 4 for
// the TMA epilogue's warpgroups, gemm/epilogue_tma_store_sm90.hpp).
#pragma once

namespace tessel::detail {

#if defined(__CUDACC__)
// Named barrier `id` over `Threads` threads (whole warps).
template <int Threads>
__device__ inline void named_barrier(int id) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(Threads) : "memory");
}
#endif

}  // namespace tessel::detail
