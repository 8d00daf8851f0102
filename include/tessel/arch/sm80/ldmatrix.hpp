// ldmatrix: a warp loads one, two or four 8x8 matrices of 16-bit elements from shared memory
// into registers, in the layout mma.sync expects (available since sm_75; guarded here with
// the rest of sm80/).
//
//   ldmatrix.sync.aligned.m8n8.x{1,2,4}{,.trans}.shared.b16
//
// Addresses: each row of a matrix is 16 contiguous bytes (8 elements); lane t supplies the
// address of row t%8 of matrix t/8, for t < 8 * num (lanes beyond are ignored: .x1 reads
// lanes 0-7, .x2 lanes 0-15, .x4 all 32). Rows need not be contiguous with one another; each
// must be 16-byte aligned.
//
// Result: register j of every lane holds matrix j. Without .trans, lane l gets row l/4,
// columns 2*(l%4) (low half) and 2*(l%4)+1 (high half); with .trans it gets the transposed
// matrix: column l/4, rows 2*(l%4) (low) and 2*(l%4)+1 (high).
//
// CuTe calls these SM75_U32x{1,2,4}_LDSM_N and SM75_U16x{2,4,8}_LDSM_T (seed 004).
#pragma once

#include <cstdint>

#include "tessel/arch/address.hpp"
#include "tessel/arch/config.hpp"
#include "tessel/arch/numeric_types.hpp"

namespace tessel {

// ldmatrix .x1: one 8x8 matrix; lanes 0-7 address its rows. Example:
//   uint32_t r[1]; SM80_LDMATRIX_X1::copy(*(Uint128 const*)&smem[lane % 8 * pitch], r);
struct SM80_LDMATRIX_X1 {
  using SRegisters = Uint128[1];
  using DRegisters = std::uint32_t[1];
  TESSEL_HOST_DEVICE static void copy(Uint128 const& smem_row, std::uint32_t (&d)[1]) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n"
                 : "=r"(d[0])
                 : "r"(detail::smem_address(&smem_row))
                 : "memory");
#else
    arch_unsupported("ldmatrix.x1 needs sm_80 in tessel (sm_75 in PTX)", smem_row, d);
#endif
  }
};

// ldmatrix .x2: two 8x8 matrices; lanes 0-7 address matrix 0, lanes 8-15 matrix 1.
struct SM80_LDMATRIX_X2 {
  using SRegisters = Uint128[1];
  using DRegisters = std::uint32_t[2];
  TESSEL_HOST_DEVICE static void copy(Uint128 const& smem_row, std::uint32_t (&d)[2]) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(detail::smem_address(&smem_row))
                 : "memory");
#else
    arch_unsupported("ldmatrix.x2 needs sm_80 in tessel (sm_75 in PTX)", smem_row, d);
#endif
  }
};

// ldmatrix .x4: four 8x8 matrices; lanes 8j..8j+7 address matrix j. A 16x16 A-operand tile of
// mma.m16n8k16 in one instruction.
struct SM80_LDMATRIX_X4 {
  using SRegisters = Uint128[1];
  using DRegisters = std::uint32_t[4];
  TESSEL_HOST_DEVICE static void copy(Uint128 const& smem_row, std::uint32_t (&d)[4]) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(detail::smem_address(&smem_row))
                 : "memory");
#else
    arch_unsupported("ldmatrix.x4 needs sm_80 in tessel (sm_75 in PTX)", smem_row, d);
#endif
  }
};

// ldmatrix .x1.trans: one 8x8 matrix, transposed on the way (a row-major tile read as the
// column-major operand, or the reverse).
struct SM80_LDMATRIX_X1_TRANS {
  using SRegisters = Uint128[1];
  using DRegisters = std::uint32_t[1];
  TESSEL_HOST_DEVICE static void copy(Uint128 const& smem_row, std::uint32_t (&d)[1]) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n"
                 : "=r"(d[0])
                 : "r"(detail::smem_address(&smem_row))
                 : "memory");
#else
    arch_unsupported("ldmatrix.x1.trans needs sm_80 in tessel (sm_75 in PTX)", smem_row, d);
#endif
  }
};

// ldmatrix .x2.trans: two 8x8 matrices, each transposed.
struct SM80_LDMATRIX_X2_TRANS {
  using SRegisters = Uint128[1];
  using DRegisters = std::uint32_t[2];
  TESSEL_HOST_DEVICE static void copy(Uint128 const& smem_row, std::uint32_t (&d)[2]) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(detail::smem_address(&smem_row))
                 : "memory");
#else
    arch_unsupported("ldmatrix.x2.trans needs sm_80 in tessel (sm_75 in PTX)", smem_row, d);
#endif
  }
};

// ldmatrix .x4.trans: four 8x8 matrices, each transposed.
struct SM80_LDMATRIX_X4_TRANS {
  using SRegisters = Uint128[1];
  using DRegisters = std::uint32_t[4];
  TESSEL_HOST_DEVICE static void copy(Uint128 const& smem_row, std::uint32_t (&d)[4]) {
#if defined(TESSEL_ARCH_SM80_ENABLED)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(detail::smem_address(&smem_row))
                 : "memory");
#else
    arch_unsupported("ldmatrix.x4.trans needs sm_80 in tessel (sm_75 in PTX)", smem_row, d);
#endif
  }
};

}  // namespace tessel
