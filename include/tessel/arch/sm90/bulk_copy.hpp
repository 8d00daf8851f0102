// Bulk copies from shared to global memory (sm_90): one thread hands the copy engine a
// contiguous run of bytes and goes on; the engine reads shared memory, then writes global
// memory, while the threads do other work. Completion is tracked per thread in bulk groups:
//
//   fence_proxy_async();                        // each thread that wrote the source (wgmma.hpp)
//   <barrier>                                   // the source is complete
//   bulk_copy_to_global(gmem, smem, bytes);     // one thread per run; 16-byte aligned, bytes % 16 == 0
//   bulk_commit_group();                        // closes this thread's group
//   bulk_wait_group_read<0>();                  // before the source is written again: read out
//   bulk_wait_group<0>();                       // before the block exits: written
#pragma once

#include <cstdint>

#include "tessel/arch/address.hpp"
#include "tessel/arch/config.hpp"

namespace tessel {

TESSEL_HOST_DEVICE inline void bulk_copy_to_global(void* gmem_dst, void const* smem_src, std::uint32_t bytes) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(detail::gmem_address(gmem_dst)),
               "r"(detail::smem_address(smem_src)), "r"(bytes)
               : "memory");
#else
  arch_unsupported("cp.async.bulk (shared to global) is used on sm_90a only", gmem_dst, smem_src, bytes);
#endif
}

TESSEL_HOST_DEVICE inline void bulk_commit_group() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#else
  arch_unsupported("cp.async.bulk.commit_group is used on sm_90a only");
#endif
}

// Until at most Pending of this thread's bulk groups still read their shared-memory source.
template <int Pending>
TESSEL_HOST_DEVICE inline void bulk_wait_group_read() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(Pending) : "memory");
#else
  arch_unsupported("cp.async.bulk.wait_group.read is used on sm_90a only");
#endif
}

// Until at most Pending of this thread's bulk groups are incomplete (written).
template <int Pending>
TESSEL_HOST_DEVICE inline void bulk_wait_group() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(Pending) : "memory");
#else
  arch_unsupported("cp.async.bulk.wait_group is used on sm_90a only");
#endif
}

}  // namespace tessel
