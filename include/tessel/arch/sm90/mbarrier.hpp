// mbarrier: a barrier object in shared memory (8 bytes) that counts arrivals and expected
// transaction bytes per phase, so one group of threads can wait for another (or for the TMA
// engine, tma.hpp) without stopping the whole block.
//
//   mbarrier_init(bar, count)                once, by one thread; then mbarrier_init_fence() and a
//                                            block barrier before anyone (or the TMA) uses it
//   mbarrier_arrive(bar)                     this thread's arrival in the current phase
//   mbarrier_arrive_expect_tx(bar, bytes)    an arrival that also expects `bytes` from bulk
//                                            copies before the phase can complete
//   mbarrier_wait(bar, parity)               until the phase of that parity has completed
//
// A barrier starts in phase 0; phase k completes when `count` arrivals (and every expected
// byte) have been made in it, and the barrier moves to phase k + 1. Waiting for parity k % 2
// therefore waits for the (k+1)-th completion, as long as the waiter is never two phases behind.
#pragma once

#include <cstdint>

#include "tessel/arch/address.hpp"
#include "tessel/arch/config.hpp"

namespace tessel {

TESSEL_HOST_DEVICE inline void mbarrier_init(std::uint64_t* bar, int count) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(detail::smem_address(bar)), "r"(count) : "memory");
#else
  arch_unsupported("mbarrier.init is used on sm_90a only", bar, count);
#endif
}

// Makes the initialized barriers visible to the async proxy (the TMA engine's complete_tx).
TESSEL_HOST_DEVICE inline void mbarrier_init_fence() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#else
  arch_unsupported("fence.mbarrier_init is used on sm_90a only");
#endif
}

TESSEL_HOST_DEVICE inline void mbarrier_arrive(std::uint64_t* bar) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(detail::smem_address(bar)) : "memory");
#else
  arch_unsupported("mbarrier.arrive is used on sm_90a only", bar);
#endif
}

TESSEL_HOST_DEVICE inline void mbarrier_arrive_expect_tx(std::uint64_t* bar, int bytes) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(detail::smem_address(bar)), "r"(bytes)
               : "memory");
#else
  arch_unsupported("mbarrier.arrive.expect_tx is used on sm_90a only", bar, bytes);
#endif
}

TESSEL_HOST_DEVICE inline void mbarrier_wait(std::uint64_t* bar, int parity) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile(
      "{\n.reg .pred done;\n"
      "wait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n}\n" ::"r"(detail::smem_address(bar)),
      "r"(parity)
      : "memory");
#else
  arch_unsupported("mbarrier.try_wait.parity is used on sm_90a only", bar, parity);
#endif
}

}  // namespace tessel
