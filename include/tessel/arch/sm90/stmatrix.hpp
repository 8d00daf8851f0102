// stmatrix: a warp stores four 8x8 matrices of 16-bit elements from registers into shared
// memory, the inverse of ldmatrix (sm80/ldmatrix.hpp); new in sm_90.
//
//   stmatrix.sync.aligned.m8n8.x4.shared.b16
//
// Registers: register j of lane l holds row l/4, columns 2*(l%4) (low half) and 2*(l%4)+1
// (high half) of matrix j: the layout of mma.sync's and wgmma's accumulators packed in pairs.
// Addresses: lane t supplies the address of row t%8 of matrix t/8, 16 contiguous bytes,
// 16-byte aligned; rows need not be contiguous with one another.
#pragma once

#include <cstdint>

#include "tessel/arch/config.hpp"

namespace tessel {

// smem_row: this lane's row (a .shared address, detail::smem_address); every lane of the warp
// executes it.
TESSEL_HOST_DEVICE inline void stmatrix_x4(std::uint32_t smem_row, std::uint32_t const (&r)[4]) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_row), "r"(r[0]),
               "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
#else
  arch_unsupported("stmatrix needs sm_90 (tessel's sm90 kernels: sm_90a)", smem_row, r);
#endif
}

}  // namespace tessel
