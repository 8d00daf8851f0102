// What the compile target can execute, and what happens when it cannot.
//
// Every PTX wrapper in arch/ has the shape
//
//   #if defined(TESSEL_ARCH_SM80_ENABLED)
//     asm volatile("mma.sync...");
//   #else
//     arch_unsupported("SM80_16x8x16_F32F16F16F32_TN needs sm_80", d, a, b, c);
//   #endif
//
// so that one header compiles everywhere: under g++ (no CUDA: TESSEL_HOST_DEVICE is empty and
// the functions are plain host functions that abort if called), in nvcc's host pass, and in
// device passes for every architecture. Only executing an instruction the target lacks is an
// error, and it says which instruction and which architecture it needs.
#pragma once

#include <cstdio>
#if !defined(__CUDA_ARCH__)
#include <cstdlib>
#endif

#include "tessel/layout/config.hpp"  // TESSEL_HOST_DEVICE

// Defined in device passes for sm_80 and newer (sm_80, sm_86, sm_89, sm_90a, ...): cp.async,
// ldmatrix and mma.sync m16n8k16 / m16n8k8 with f16 and bf16 inputs are available.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TESSEL_ARCH_SM80_ENABLED 1
#endif
// Defined in the sm_90a device pass (the architecture-specific target; plain sm_90 lacks
// them): wgmma and fence.proxy.async.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TESSEL_ARCH_SM90A_ENABLED 1
#endif

namespace tessel {

// The target cannot execute the wrapped instruction. On the device: prints `what` and traps
// (the kernel fails with cudaErrorLaunchFailure or similar); on the host: prints `what` and
// aborts. The extra arguments are the wrapper's operands, accepted only so that the fallback
// branch uses them (no unused-parameter warnings).
template <class... Operands>
[[noreturn]] TESSEL_HOST_DEVICE inline void arch_unsupported(const char* what, Operands const&...) {
#if defined(__CUDA_ARCH__)
  printf("tessel: %s (this kernel was compiled for sm_%d)\n", what, __CUDA_ARCH__ / 10);
  __trap();
#else
  std::fprintf(stderr, "tessel: %s (called from host code, which cannot execute it)\n", what);
  std::abort();
#endif
}

}  // namespace tessel
