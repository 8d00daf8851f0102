// wgmma: the sm_90a warpgroup MMA. Four consecutive warps (a warpgroup, 128 threads, starting
// at a warp index divisible by 4) compute together
//
//   D (64 x N, fp32) += A (64 x 16) * B (16 x N)     A and B read from shared memory
//
// asynchronously: each operand is named by a 64-bit matrix descriptor (GmmaDescriptor) that
// says where its swizzled tile starts and how its 8x16-byte core matrices are spaced, the
// accumulators stay in the threads' registers, and the instruction returns before it is done.
//
//   wgmma_fence()          before the first wgmma that reads accumulators written otherwise
//   Wgmma64xNx16::mma(..)  issue one m64nNk16 (any number, into the open group)
//   wgmma_commit()         close the group
//   wgmma_wait<G>()        wait until at most G of this warpgroup's groups are pending
//
// Accumulator layout (per warpgroup; thread t = 32 w + l): register 4 j + i holds
//   row 16 w + l / 4 + 8 (i / 2),  column 8 j + 2 (l % 4) + i % 2       (j < N / 8, i < 4)
// i.e. each warp owns 16 rows, laid out per 8 columns as mma.sync m16n8's C fragment.
//
// Shared memory written by the generic proxy (cp.async, st.shared) must be fenced
// (fence_proxy_async()) by each writing thread before the barrier that precedes the wgmma.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessel/arch/address.hpp"
#include "tessel/arch/config.hpp"
#include "tessel/arch/numeric_types.hpp"

namespace tessel {

// The descriptor's swizzle field: how the 16-byte chunks of a row are XOR-permuted, by the
// width of the swizzled row (Swizzle<3,4,3> on byte addresses is 128 B, <2,4,3> 64 B, <1,4,3> 32 B).
enum class GmmaSwizzle : int { kNone = 0, k128B = 1, k64B = 2, k32B = 3 };

// Matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address, leading- and
// stride-dimension byte offsets, each in 16-byte units in 14 bits; swizzle in bits 62-63.
// The base-offset field (bits 49-51) stays 0: every tile starts on a swizzle-pattern boundary.
//   K-major:  core-matrix rows are the MN index; sbo = bytes between groups of 8 rows (the
//             leading offset is unused with a swizzle)
//   MN-major: lbo = bytes between swizzle atoms along MN, sbo = bytes between groups of 8 K
TESSEL_HOST_DEVICE constexpr std::uint64_t make_gmma_descriptor(std::uint32_t smem_byte_address,
                                                                std::uint32_t lbo_bytes, std::uint32_t sbo_bytes,
                                                                GmmaSwizzle swizzle) {
  return std::uint64_t((smem_byte_address & 0x3FFFF) >> 4) | (std::uint64_t((lbo_bytes >> 4) & 0x3FFF) << 16) |
         (std::uint64_t((sbo_bytes >> 4) & 0x3FFF) << 32) | (std::uint64_t(swizzle) << 62);
}

TESSEL_HOST_DEVICE inline void wgmma_fence() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#else
  arch_unsupported("wgmma.fence needs sm_90a");
#endif
}

TESSEL_HOST_DEVICE inline void wgmma_commit() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#else
  arch_unsupported("wgmma.commit_group needs sm_90a");
#endif
}

template <int Pending>
TESSEL_HOST_DEVICE inline void wgmma_wait() {
  static_assert(Pending >= 0 && Pending <= 7, "wgmma.wait_group takes 0 to 7");
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
#else
  arch_unsupported("wgmma.wait_group needs sm_90a");
#endif
}

// Makes this thread's generic-proxy shared-memory writes (cp.async, st.shared) visible to the
// async proxy (wgmma's operand reads), once they are complete.
TESSEL_HOST_DEVICE inline void fence_proxy_async() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#else
  arch_unsupported("fence.proxy.async needs sm_90");
#endif
}

// Keeps the compiler from moving accesses of the accumulators across an asynchronous wgmma
// (it does not know that the registers are still being written).
template <int N>
TESSEL_HOST_DEVICE inline void wgmma_fence_operands(float (&d)[N]) {
#if defined(__CUDA_ARCH__)
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
#else
  (void)d;
#endif
}

// The asm operands of one wgmma: the accumulators (32, 64, 96 or 128 registers), then the two
// descriptors, the accumulate flag and the two transposes, numbered after them.
#define TESSEL_WGMMA_D0_31 \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define TESSEL_WGMMA_D32_63 \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define TESSEL_WGMMA_R0_31 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define TESSEL_WGMMA_R32_63 ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define TESSEL_WGMMA_D64_95 \
    "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
    "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
    "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
    "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
#define TESSEL_WGMMA_D96_127 \
    "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
    "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
    "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
    "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
#define TESSEL_WGMMA_R64_95 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define TESSEL_WGMMA_R96_127 ", %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
// SHAPE, TYPE: the instruction's; REGS: its accumulator list; S, A, B, TA, TB: the operand
// numbers of the accumulate flag, the descriptors and the transposes.
#define TESSEL_WGMMA(SHAPE, TYPE, REGS, S, A, B, TA, TB, ...)                                     \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" S ", 0;\n"                               \
               "wgmma.mma_async.sync.aligned." SHAPE ".f32." TYPE "." TYPE " {" REGS "}, %" A \
               ", %" B ", p, 1, 1, %" TA ", %" TB ";\n}\n"                                     \
               : __VA_ARGS__                                                                   \
               : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)), "n"(int(TransA)), "n"(int(TransB)))

// D (64 x N) (+)= A (64 x 16) * B (16 x N); accumulate == false ignores D's old value.
// TransA / TransB: the operand is MN-major in shared memory (false: K-major).
template <int N, class Element, bool TransA, bool TransB>
struct Wgmma64xNx16 {
  static_assert(N == 64 || N == 128 || N == 192 || N == 256,
                "Wgmma64xNx16: N is 64, 128, 192 or 256 (the instances tessel uses)");
  static_assert(std::is_same_v<Element, Half> || std::is_same_v<Element, BFloat16>,
                "Wgmma64xNx16: f16 or bf16 inputs");

  TESSEL_HOST_DEVICE static void mma(std::uint64_t desc_a, std::uint64_t desc_b, float (&d)[N / 2], bool accumulate) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
    constexpr bool kHalf = std::is_same_v<Element, Half>;
    if constexpr (N == 64 && kHalf) {
      TESSEL_WGMMA("m64n64k16", "f16", TESSEL_WGMMA_R0_31, "34", "32", "33", "35", "36", TESSEL_WGMMA_D0_31);
    } else if constexpr (N == 64) {
      TESSEL_WGMMA("m64n64k16", "bf16", TESSEL_WGMMA_R0_31, "34", "32", "33", "35", "36", TESSEL_WGMMA_D0_31);
    } else if constexpr (N == 256 && kHalf) {
      TESSEL_WGMMA("m64n256k16", "f16", TESSEL_WGMMA_R0_31 TESSEL_WGMMA_R32_63 TESSEL_WGMMA_R64_95 TESSEL_WGMMA_R96_127,
                   "130", "128", "129", "131", "132", TESSEL_WGMMA_D0_31, TESSEL_WGMMA_D32_63, TESSEL_WGMMA_D64_95,
                   TESSEL_WGMMA_D96_127);
    } else if constexpr (N == 256) {
      TESSEL_WGMMA("m64n256k16", "bf16", TESSEL_WGMMA_R0_31 TESSEL_WGMMA_R32_63 TESSEL_WGMMA_R64_95 TESSEL_WGMMA_R96_127,
                   "130", "128", "129", "131", "132", TESSEL_WGMMA_D0_31, TESSEL_WGMMA_D32_63, TESSEL_WGMMA_D64_95,
                   TESSEL_WGMMA_D96_127);
    } else if constexpr (N == 192 && kHalf) {
      TESSEL_WGMMA("m64n192k16", "f16", TESSEL_WGMMA_R0_31 TESSEL_WGMMA_R32_63 TESSEL_WGMMA_R64_95, "98", "96", "97", "99",
                   "100", TESSEL_WGMMA_D0_31, TESSEL_WGMMA_D32_63, TESSEL_WGMMA_D64_95);
    } else if constexpr (N == 192) {
      TESSEL_WGMMA("m64n192k16", "bf16", TESSEL_WGMMA_R0_31 TESSEL_WGMMA_R32_63 TESSEL_WGMMA_R64_95, "98", "96", "97",
                   "99", "100", TESSEL_WGMMA_D0_31, TESSEL_WGMMA_D32_63, TESSEL_WGMMA_D64_95);
    } else if constexpr (kHalf) {
      TESSEL_WGMMA("m64n128k16", "f16", TESSEL_WGMMA_R0_31 TESSEL_WGMMA_R32_63, "66", "64", "65", "67", "68",
                   TESSEL_WGMMA_D0_31, TESSEL_WGMMA_D32_63);
    } else {
      TESSEL_WGMMA("m64n128k16", "bf16", TESSEL_WGMMA_R0_31 TESSEL_WGMMA_R32_63, "66", "64", "65", "67", "68",
                   TESSEL_WGMMA_D0_31, TESSEL_WGMMA_D32_63);
    }
#else
    arch_unsupported("wgmma.mma_async m64nNk16 needs sm_90a", desc_a, desc_b, d, accumulate);
#endif
  }
};

#undef TESSEL_WGMMA
#undef TESSEL_WGMMA_R96_127
#undef TESSEL_WGMMA_R64_95
#undef TESSEL_WGMMA_R32_63
#undef TESSEL_WGMMA_R0_31
#undef TESSEL_WGMMA_D96_127
#undef TESSEL_WGMMA_D64_95
#undef TESSEL_WGMMA_D32_63
#undef TESSEL_WGMMA_D0_31

}  // namespace tessel
