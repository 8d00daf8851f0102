// TMA: the sm_90 bulk tensor copy engine. One thread asks it to copy a box of a tensor, which
// a tensor map (CUtensorMap, encoded on the host) describes, from global into shared memory;
// the engine swizzles the box as the map says, fills what lies outside the tensor with zeros,
// and counts the box's bytes on an mbarrier (mbarrier.hpp):
//
//   mbarrier_arrive_expect_tx(&bar, box_bytes);        // one thread
//   tma_load_3d(smem_box, &map, {c0, c1, c2}, &bar);   // the same thread
//   mbarrier_wait(&bar, parity);                       // every reader
//
// Coordinates are innermost (contiguous) first and may be negative or past the end (zeros).
// Two modes:
//   tiled   the box is a dense (c0.., c1.., ...) block of the tensor
//   im2col  (4-d NHWC tensors: c, w, h, n) the box is `pixels` pixels x `channels` channels:
//           starting at pixel (w, h, n), the engine walks the pixels of the map's bounding box
//           (w fastest, by the map's traversal strides, wrapping into the next row and image)
//           and reads each one moved by the offsets (dw, dh): a tile of fprop's implicit A
//           (conv/fprop_operand_sm90.hpp)
// The map must live in parameter, constant or global memory (a __grid_constant__ kernel
// parameter) and the destination be 128-byte aligned (1024 with the 128-byte swizzle).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "tessel/arch/address.hpp"
#include "tessel/arch/config.hpp"

namespace tessel {

TESSEL_HOST_DEVICE inline void tma_load_3d(void* smem_dst, CUtensorMap const* map, int c0, int c1, int c2,
                                           std::uint64_t* bar) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(detail::smem_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(detail::smem_address(bar))
      : "memory");
#else
  arch_unsupported("cp.async.bulk.tensor is used on sm_90a only", smem_dst, map, c0, c1, c2, bar);
#endif
}

// A 4-d tiled box (conv/dgrad_operand_sm90.hpp: a K tile's filter blocks as one box).
TESSEL_HOST_DEVICE inline void tma_load_4d(void* smem_dst, CUtensorMap const* map, int c0, int c1, int c2, int c3,
                                           std::uint64_t* bar) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(detail::smem_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(detail::smem_address(bar))
      : "memory");
#else
  arch_unsupported("cp.async.bulk.tensor is used on sm_90a only", smem_dst, map, c0, c1, c2, c3, bar);
#endif
}

// The same box, written at smem_dst's offset into the shared memory of every block of the
// cluster whose bit is set in cta_mask (bit r: rank r, cluster.hpp), and its bytes counted on
// the mbarrier at bar's offset in each of them.
TESSEL_HOST_DEVICE inline void tma_load_3d_multicast(void* smem_dst, CUtensorMap const* map, int c0, int c1, int c2,
                                                     std::uint64_t* bar, std::uint16_t cta_mask) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::"
      "cluster"
      " [%0], [%1, {%2, %3, %4}], [%5], %6;\n" ::"r"(detail::smem_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(detail::smem_address(bar)),
      "h"(cta_mask)
      : "memory");
#else
  arch_unsupported("cp.async.bulk.tensor (multicast) is used on sm_90a only", smem_dst, map, c0, c1, c2, bar, cta_mask);
#endif
}

TESSEL_HOST_DEVICE inline void tma_load_im2col_4d(void* smem_dst, CUtensorMap const* map, int c, int w, int h, int n,
                                                  std::uint16_t dw, std::uint16_t dh, std::uint64_t* bar) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};\n" ::"r"(detail::smem_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c), "r"(w), "r"(h), "r"(n), "r"(detail::smem_address(bar)),
      "h"(dw), "h"(dh)
      : "memory");
#else
  arch_unsupported("cp.async.bulk.tensor (im2col) is used on sm_90a only", smem_dst, map, c, w, h, n, dw, dh, bar);
#endif
}

// The same im2col box into every block of the cluster whose bit is set in cta_mask, as
// tma_load_3d_multicast.
TESSEL_HOST_DEVICE inline void tma_load_im2col_4d_multicast(void* smem_dst, CUtensorMap const* map, int c, int w,
                                                            int h, int n, std::uint16_t dw, std::uint16_t dh,
                                                            std::uint64_t* bar, std::uint16_t cta_mask) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8}, %9;\n" ::"r"(detail::smem_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c), "r"(w), "r"(h), "r"(n), "r"(detail::smem_address(bar)),
      "h"(dw), "h"(dh), "h"(cta_mask)
      : "memory");
#else
  arch_unsupported("cp.async.bulk.tensor (im2col, multicast) is used on sm_90a only", smem_dst, map, c, w, h, n, dw, dh,
                   bar, cta_mask);
#endif
}

// ---- stores: shared -> global (the epilogue, gemm/epilogue_tma_store_sm90.hpp). One thread
// asks the engine to write a box of shared memory, laid out (swizzled) as the map says, into
// the tensor; what lies outside the tensor is not written. The stores are bulk async-groups of
// the issuing thread:
//   fence_proxy_async_shared();            // every writer: its st.shared / stmatrix are seen
//   ... barrier ...                        //   by the engine (the async proxy)
//   tma_store_3d(&map, smem_box, c0, c1, c2);   // one thread
//   tma_store_commit();                    // the same thread: its stores so far, one group
//   tma_store_wait_read<N>();              // at most N groups still read their shared memory
//   tma_store_wait<0>();                   // every group's writes are done (before exit)

TESSEL_HOST_DEVICE inline void tma_store_3d(CUtensorMap const* map, void const* smem_src, int c0, int c1, int c2) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(detail::smem_address(smem_src)), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
#else
  arch_unsupported("cp.async.bulk.tensor (store) is used on sm_90a only", map, smem_src, c0, c1, c2);
#endif
}

TESSEL_HOST_DEVICE inline void tma_store_commit() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#endif
}

template <int N>
TESSEL_HOST_DEVICE inline void tma_store_wait_read() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
#endif
}

template <int N>
TESSEL_HOST_DEVICE inline void tma_store_wait() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// This thread's writes to shared memory (the generic proxy) become visible to the TMA engine.
TESSEL_HOST_DEVICE inline void fence_proxy_async_shared() {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

}  // namespace tessel
