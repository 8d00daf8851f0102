// cp.async: asynchronous copies from global to shared memory (sm_80), one thread, one access.
//
//   global ──cp.async.{ca,cg}──► shared        (no registers in between; the copy completes
//                                                asynchronously, see the group functions)
//
// Each copy is issued into the thread's current group; cp_async_commit_group() closes the
// group, and cp_async_wait_group<N>() waits until at most N of the thread's committed groups
// are still pending (all older ones are complete and their shared-memory writes visible to the
// thread). Other threads see the data only after a barrier (__syncthreads()), as usual.
//
//   .ca   cache at all levels (L1 and L2): 4, 8 or 16 bytes.
//   .cg   cache in L2 only, bypass L1: 16 bytes only.
//   _ZFILL  the same with the src-size operand: `pred == false` gives src-size 0, so global
//           memory is not read and all cp-size destination bytes are written with zeros.
//           This is how tiles are loaded past the edges of a matrix.
//
// Both addresses must be aligned to the access size. The ops take the storage units by
// reference, as the rest of the library passes "registers": UintBytes<N> (see
// arch/numeric_types.hpp), the source in global memory, the destination in shared memory.
#pragma once

#include <cstdint>

#include "tessel/arch/address.hpp"
#include "tessel/arch/config.hpp"
#include "tessel/arch/numeric_types.hpp"

namespace tessel {

// cp.async.ca.shared.global [dst], [src], Bytes;   Bytes = 4, 8 or 16.
// Example: SM80_CP_ASYNC_CA<16>::copy(*(Uint128 const*)gptr, *(Uint128*)sptr);
template <int Bytes>
struct SM80_CP_ASYNC_CA {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16,
                "cp.async.ca copies 4, 8 or 16 bytes per thread");
  static constexpr int kBytes = Bytes;
  using SRegisters = UintBytes<Bytes>[1];
  using DRegisters = UintBytes<Bytes>[1];

  TESSEL_HOST_DEVICE static void copy(UintBytes<Bytes> const& gmem_src,
                                      UintBytes<Bytes>& smem_dst) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    asm volatile(
        "cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(detail::smem_address(&smem_dst)),
        "l"(detail::gmem_address(&gmem_src)), "n"(Bytes)
        : "memory");
#else
    arch_unsupported("cp.async.ca needs sm_80 or newer", gmem_src, smem_dst);
#endif
  }
};

// cp.async.cg.shared.global [dst], [src], 16;   only 16 bytes exist for .cg.
template <int Bytes>
struct SM80_CP_ASYNC_CG {
  static_assert(Bytes == 16,
                "cp.async.cg copies exactly 16 bytes; use SM80_CP_ASYNC_CA for 4 or 8 bytes");
  static constexpr int kBytes = Bytes;
  using SRegisters = UintBytes<Bytes>[1];
  using DRegisters = UintBytes<Bytes>[1];

  TESSEL_HOST_DEVICE static void copy(UintBytes<Bytes> const& gmem_src,
                                      UintBytes<Bytes>& smem_dst) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    asm volatile(
        "cp.async.cg.shared.global [%0], [%1], %2;\n" ::"r"(detail::smem_address(&smem_dst)),
        "l"(detail::gmem_address(&gmem_src)), "n"(Bytes)
        : "memory");
#else
    arch_unsupported("cp.async.cg needs sm_80 or newer", gmem_src, smem_dst);
#endif
  }
};

// cp.async.ca.shared.global [dst], [src], Bytes, src_size;  src_size = pred ? Bytes : 0.
// With pred == false the Bytes destination bytes become 0 and `gmem_src` is not read (it
// must still be a well-formed global address: pass the tile's base, not a wild pointer).
template <int Bytes>
struct SM80_CP_ASYNC_CA_ZFILL {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16,
                "cp.async.ca copies 4, 8 or 16 bytes per thread");
  static constexpr int kBytes = Bytes;
  using SRegisters = UintBytes<Bytes>[1];
  using DRegisters = UintBytes<Bytes>[1];

  TESSEL_HOST_DEVICE static void copy(UintBytes<Bytes> const& gmem_src, UintBytes<Bytes>& smem_dst,
                                      bool pred) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    int src_size = pred ? Bytes : 0;
    asm volatile(
        "cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(detail::smem_address(&smem_dst)),
        "l"(detail::gmem_address(&gmem_src)), "n"(Bytes), "r"(src_size)
        : "memory");
#else
    arch_unsupported("cp.async.ca (zero-fill) needs sm_80 or newer", gmem_src, smem_dst, pred);
#endif
  }
};

// cp.async.cg.shared.global [dst], [src], 16, src_size;  src_size = pred ? 16 : 0.
template <int Bytes>
struct SM80_CP_ASYNC_CG_ZFILL {
  static_assert(Bytes == 16,
                "cp.async.cg copies exactly 16 bytes; use SM80_CP_ASYNC_CA_ZFILL for 4 or 8 bytes");
  static constexpr int kBytes = Bytes;
  using SRegisters = UintBytes<Bytes>[1];
  using DRegisters = UintBytes<Bytes>[1];

  TESSEL_HOST_DEVICE static void copy(UintBytes<Bytes> const& gmem_src, UintBytes<Bytes>& smem_dst,
                                      bool pred) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    int src_size = pred ? Bytes : 0;
    asm volatile(
        "cp.async.cg.shared.global [%0], [%1], %2, %3;\n" ::"r"(detail::smem_address(&smem_dst)),
        "l"(detail::gmem_address(&gmem_src)), "n"(Bytes), "r"(src_size)
        : "memory");
#else
    arch_unsupported("cp.async.cg (zero-fill) needs sm_80 or newer", gmem_src, smem_dst, pred);
#endif
  }
};

// cp.async.commit_group: closes the thread's current group of cp.async copies (an empty group
// is allowed and completes at once). Seed 002 calls it cp_async_fence.
TESSEL_HOST_DEVICE inline void cp_async_commit_group() {
#if defined(TESSEL_ARCH_SM80_ENABLED)
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#else
  arch_unsupported("cp.async.commit_group needs sm_80 or newer");
#endif
}

// cp.async.wait_group N: waits until at most N of the thread's committed groups are pending.
// cp_async_wait_group<1>() after committing stages s and s+1 guarantees stage s has landed.
// The "memory" clobber keeps the compiler from hoisting shared-memory reads above the wait.
template <int N>
TESSEL_HOST_DEVICE inline void cp_async_wait_group() {
  static_assert(N >= 0, "cp_async_wait_group<N>: N counts pending groups, N >= 0");
#if defined(TESSEL_ARCH_SM80_ENABLED)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#else
  arch_unsupported("cp.async.wait_group needs sm_80 or newer");
#endif
}

// cp.async.wait_all: waits for every cp.async of the thread, committed or not (= commit_group
// followed by wait_group 0).
TESSEL_HOST_DEVICE inline void cp_async_wait_all() {
#if defined(TESSEL_ARCH_SM80_ENABLED)
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#else
  arch_unsupported("cp.async.wait_all needs sm_80 or newer");
#endif
}

}  // namespace tessel
