// Programmatic dependent launch (sm_90): a kernel launched with
// cudaLaunchAttributeProgrammaticStreamSerialization may start before the kernel ahead of it in
// the stream has finished, so that its launch and prologue overlap that kernel's last blocks.
//
//   grid_dependency_wait()      blocks until the kernels this one depends on have completed
//                               and their memory operations are visible: before this, touch
//                               no global memory (kernel parameters, tensor maps in them, and
//                               shared memory are fine). A no-op in a kernel launched without
//                               the attribute.
//   grid_dependency_launch()    lets the next kernel (if it was launched with the attribute)
//                               be scheduled once every block of this grid has called it or
//                               exited; the next kernel still waits for this one's completion
//                               in its own grid_dependency_wait
#pragma once

#include "tessel/arch/config.hpp"

namespace tessel {

TESSEL_HOST_DEVICE inline void grid_dependency_wait() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#else
  arch_unsupported("griddepcontrol is used on sm_90a only");
#endif
}

TESSEL_HOST_DEVICE inline void grid_dependency_launch() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#else
  arch_unsupported("griddepcontrol is used on sm_90a only");
#endif
}

}  // namespace tessel
