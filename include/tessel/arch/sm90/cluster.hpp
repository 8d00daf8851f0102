// Thread-block clusters (sm_90): blocks launched together on one GPC, which can read, write and
// arrive on each other's shared memory. The TMA kernel uses clusters of two blocks whose tiles
// share an operand: each block loads half of it and the engine multicasts each half into both
// blocks' rings (tma.hpp, tma_load_3d_multicast), so L2 serves that operand once per pair.
//
//   cluster_rank()                     this block's rank in its cluster (0 .. size - 1)
//   cluster_sync()                     every thread of every block of the cluster: a barrier
//                                      that also orders their shared-memory writes (release /
//                                      acquire), e.g. barriers initialized before a peer
//                                      arrives on them, or a block kept alive until its peer
//                                      no longer touches its shared memory
//   mbarrier_arrive_cluster(bar, r)    an arrival on the mbarrier at `bar`'s offset in the
//                                      shared memory of the cluster's block r. Its ordering is
//                                      the CTA's (as mbarrier_arrive's): enough when what the
//                                      barrier guards was read by wgmma, already complete. A
//                                      .release.cluster arrive costs a GPU-wide MEMBAR: with two
//                                      a K tile in the mainloop, 4096^3 ran 3.6x slower
#pragma once

#include <cstdint>

#include "tessel/arch/address.hpp"
#include "tessel/arch/config.hpp"

namespace tessel {

TESSEL_HOST_DEVICE inline int cluster_rank() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  std::uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return int(rank);
#else
  arch_unsupported("%cluster_ctarank is used on sm_90a only");
#endif
}

TESSEL_HOST_DEVICE inline void cluster_sync() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
#else
  arch_unsupported("barrier.cluster is used on sm_90a only");
#endif
}

TESSEL_HOST_DEVICE inline void mbarrier_arrive_cluster(std::uint64_t* bar, int rank) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(detail::smem_address(bar)),
      "r"(rank)
      : "memory");
#else
  arch_unsupported("mbarrier.arrive.shared::cluster is used on sm_90a only", bar, rank);
#endif
}

}  // namespace tessel
