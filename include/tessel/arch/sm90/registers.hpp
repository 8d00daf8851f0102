// setmaxnreg: a warpgroup changes how many registers each of its threads holds, so a kernel
// can move registers from warpgroups that need few (a TMA producer) to those that need many
// (wgmma accumulators). Every thread of the warpgroup executes it; the count is a multiple of
// 8 in [24, 256]. The block's registers do not grow: what the consumers take, the producer
// must have released first (or the increase waits until it has).
#pragma once

#include "tessel/arch/config.hpp"

namespace tessel {

template <int Registers>
TESSEL_HOST_DEVICE inline void setmaxnreg_increase() {
  static_assert(Registers % 8 == 0 && Registers >= 24 && Registers <= 256, "setmaxnreg: a multiple of 8 in [24, 256]");
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Registers));
#else
  arch_unsupported("setmaxnreg needs sm_90a");
#endif
}

template <int Registers>
TESSEL_HOST_DEVICE inline void setmaxnreg_decrease() {
  static_assert(Registers % 8 == 0 && Registers >= 24 && Registers <= 256, "setmaxnreg: a multiple of 8 in [24, 256]");
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Registers));
#else
  arch_unsupported("setmaxnreg needs sm_90a");
#endif
}

}  // namespace tessel
