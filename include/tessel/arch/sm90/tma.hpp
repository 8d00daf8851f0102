// TMA: the sm_90 bulk tensor copy engine. One thread asks it to copy a box of a tensor, which
// a tensor map (CUtensorMap, built on the host: gemm/tma_operand.hpp) describes, from global
// into shared memory; the engine swizzles the box as the map says, fills what lies outside the
// tensor with zeros, and signals the box's bytes on an mbarrier (mbarrier.hpp):
//
//   mbarrier_arrive_expect_tx(&bar, box_bytes);           // one thread
//   tma_load_2d(smem_box, &map, c0, c1, &bar);            // the same thread
//   mbarrier_wait(&bar, parity);                          // every reader
//
// c0 is the innermost (contiguous) coordinate. The map must live in parameter, constant or
// global memory (a __grid_constant__ kernel parameter).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "tessel/arch/address.hpp"
#include "tessel/arch/config.hpp"

namespace tessel {

TESSEL_HOST_DEVICE inline void tma_load_2d(void* smem_dst, CUtensorMap const* map, int c0, int c1, std::uint64_t* bar) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          detail::smem_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(detail::smem_address(bar))
      : "memory");
#else
  arch_unsupported("cp.async.bulk.tensor is used on sm_90a only", smem_dst, map, c0, c1, bar);
#endif
}

}  // namespace tessel
