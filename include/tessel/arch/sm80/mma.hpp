// mma.sync: one warp computes D = A * B + C on tensor cores (sm_80), with every operand held
// in registers spread over the 32 lanes (which lane holds which element: atom/mma_traits_sm80.hpp).
//
//   mma.sync.aligned.m16n8k16.row.col.{dtype}.{atype}.{btype}.{ctype}
//   mma.sync.aligned.m16n8k8.row.col.{dtype}.{atype}.{btype}.{ctype}
//
// A is MxK, B is KxN, C and D are MxN. ".row.col" (CuTe's "TN"): A is indexed by rows of K,
// B by columns of K, the only form 16-bit inputs have. Names follow CuTe:
// SM80_{M}x{N}x{K}_{D}{A}{B}{C}_TN, e.g. SM80_16x8x16_F32F16F16F32_TN = f32 D, f16 A and B,
// f32 C. 16-bit elements travel two per 32-bit register, the lower-numbered element in the
// low half (a0 in bits 0-15 of register 0, a1 in bits 16-31).
//
// Per lane:          A regs        B regs        C/D regs
//   m16n8k16 f32     4 x f16x2     2 x f16x2     4 x f32
//   m16n8k16 f16     4 x f16x2     2 x f16x2     2 x f16x2
//   m16n8k8  f32     2 x f16x2     1 x f16x2     4 x f32
#pragma once

#include <cstdint>

#include "tessel/arch/config.hpp"

namespace tessel {

// D(16x8, f32) = A(16x16, f16) * B(16x8, f16) + C(16x8, f32). Example:
//   float d[4], c[4]; uint32_t a[4], b[2];  SM80_16x8x16_F32F16F16F32_TN::fma(d, a, b, c);
struct SM80_16x8x16_F32F16F16F32_TN {
  using DRegisters = float[4];
  using ARegisters = std::uint32_t[4];
  using BRegisters = std::uint32_t[2];
  using CRegisters = float[4];

  TESSEL_HOST_DEVICE static void fma(float (&d)[4], std::uint32_t const (&a)[4],
                                     std::uint32_t const (&b)[2], float const (&c)[4]) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
          "f"(c[2]), "f"(c[3]));
#else
    arch_unsupported("mma.sync.m16n8k16.f32.f16.f16.f32 needs sm_80 or newer", d, a, b, c);
#endif
  }
};

// D(16x8, f32) = A(16x16, bf16) * B(16x8, bf16) + C(16x8, f32).
struct SM80_16x8x16_F32BF16BF16F32_TN {
  using DRegisters = float[4];
  using ARegisters = std::uint32_t[4];
  using BRegisters = std::uint32_t[2];
  using CRegisters = float[4];

  TESSEL_HOST_DEVICE static void fma(float (&d)[4], std::uint32_t const (&a)[4],
                                     std::uint32_t const (&b)[2], float const (&c)[4]) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
          "f"(c[2]), "f"(c[3]));
#else
    arch_unsupported("mma.sync.m16n8k16.f32.bf16.bf16.f32 needs sm_80 or newer", d, a, b, c);
#endif
  }
};

// D(16x8, f16) = A(16x16, f16) * B(16x8, f16) + C(16x8, f16); C and D two f16 per register
// (c0,c1 in register 0, c2,c3 in register 1).
struct SM80_16x8x16_F16F16F16F16_TN {
  using DRegisters = std::uint32_t[2];
  using ARegisters = std::uint32_t[4];
  using BRegisters = std::uint32_t[2];
  using CRegisters = std::uint32_t[2];

  TESSEL_HOST_DEVICE static void fma(std::uint32_t (&d)[2], std::uint32_t const (&a)[4],
                                     std::uint32_t const (&b)[2], std::uint32_t const (&c)[2]) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
        "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};\n"
        : "=r"(d[0]), "=r"(d[1])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
#else
    arch_unsupported("mma.sync.m16n8k16.f16.f16.f16.f16 needs sm_80 or newer", d, a, b, c);
#endif
  }
};

// D(16x8, f32) = A(16x8, f16) * B(8x8, f16) + C(16x8, f32).
struct SM80_16x8x8_F32F16F16F32_TN {
  using DRegisters = float[4];
  using ARegisters = std::uint32_t[2];
  using BRegisters = std::uint32_t[1];
  using CRegisters = float[4];

  TESSEL_HOST_DEVICE static void fma(float (&d)[4], std::uint32_t const (&a)[2],
                                     std::uint32_t const (&b)[1], float const (&c)[4]) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
#else
    arch_unsupported("mma.sync.m16n8k8.f32.f16.f16.f32 needs sm_80 or newer", d, a, b, c);
#endif
  }
};

// D(16x8, f32) = A(16x8, bf16) * B(8x8, bf16) + C(16x8, f32).
struct SM80_16x8x8_F32BF16BF16F32_TN {
  using DRegisters = float[4];
  using ARegisters = std::uint32_t[2];
  using BRegisters = std::uint32_t[1];
  using CRegisters = float[4];

  TESSEL_HOST_DEVICE static void fma(float (&d)[4], std::uint32_t const (&a)[2],
                                     std::uint32_t const (&b)[1], float const (&c)[4]) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
#else
    arch_unsupported("mma.sync.m16n8k8.f32.bf16.bf16.f32 needs sm_80 or newer", d, a, b, c);
#endif
  }
};

}  // namespace tessel
