// Convolution wgrad's operands for the TMA kernel (gemm/kernel_sm90_tma.hpp). The GEMM is
//   dW (K, R*S*C) = dY^T (K, N*P*Q) * im2col(X)^T, reduced over the N*P*Q output pixels:
//   A  (K, N*P*Q)    MN-major: dY itself, the (K, N*P*Q) matrix of gemm/matrix_operand_sm90.hpp
//                    (MatrixTmaSource<Major::kMN, ...>), boxes of (64 filters, 64 pixels)
//   B  (R*S*C, N*P*Q) MN-major: X in the engine's im2col mode, fprop's A box turned on its side.
//                    K tile t is output pixels 64t .. 64t+63; column block j of dW (64 columns:
//                    tap j / (C/64), channels (j % (C/64)) * 64 ..) is one im2col box of 64
//                    channels x those 64 pixels at that tap: exactly fprop's A box of K tile j
//                    for rows 64t.. (fprop_operand_sm90.hpp, with tile_k 64), each pixel's 64
//                    channels one 128-byte swizzled row, which is GmmaLayout::kMnBoxes
//                    (config_sm90.hpp)
// C must be a multiple of 64, so that no column block straddles two taps. Pixels past N*P*Q
// read as zeros in both operands (the walk runs into image N; dY's rows end). Groups of whole
// 64-channel blocks (C/G a multiple of 64) are the batches of one launch: group g's A is dY's
// filters g*K/G.. (the map's third dimension, filters past K/G read as zeros) and its B X's
// channels g*C/G.. (the box's channel offset); dW is (K, R*S*C/G).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "tessel/conv/fprop_operand_sm90.hpp"

namespace tessel {

// The box of wgrad's B for column block j of dW, K tile t: fprop's im2col box of its K tile j
// and rows 64t.. (g: tile_k 64). Column blocks past dW's last (the tile's columns past R*S*C,
// never stored) load its last block again, so that every box lies inside the map.
TESSEL_HOST_DEVICE inline Im2colBox wgrad_activation_box(ConvTmaGeometry const& g, int j, int k_tile, int group = 0) {
  const int last = g.r * g.s * g.c_blocks - 1;
  return im2col_box(g, im2col_origin(g, k_tile * g.tile_k), j < last ? j : last, group);
}

// wgrad's B: the im2col map of X (C, W, H, N), box 64 channels x 64 pixels; `boxes` = TileN / 64
// per K tile.
struct ConvWgradActivationTmaB {
  CUtensorMap map;
  ConvTmaGeometry g;
  int boxes = 2;
#if defined(__CUDACC__)
  struct Tiles {
    CUtensorMap const* map;
    ConvTmaGeometry g;
    int j0, boxes, t, group;
    __device__ void load(void* stage, std::uint64_t* bar) {
      for (int i = 0; i < boxes; ++i) {
        const Im2colBox b = wgrad_activation_box(g, j0 + i, t, group);
        tma_load_im2col_4d(static_cast<unsigned char*>(stage) + i * 64 * g.tile_k * 2, map, b.c, b.w, b.h, b.n,
                           std::uint16_t(b.dw), std::uint16_t(b.dh), bar);
      }
      ++t;
    }
    // Half `part` (0 or 1) of the stage's boxes into every block of cta_mask (a cluster of two
    // shares B: kernel_sm90_tma.hpp), counted on bar there.
    __device__ void load_part(void* stage, std::uint64_t* bar, int part, std::uint16_t cta_mask) {
      for (int i = part * boxes / 2; i < (part + 1) * boxes / 2; ++i) {
        const Im2colBox b = wgrad_activation_box(g, j0 + i, t, group);
        tma_load_im2col_4d_multicast(static_cast<unsigned char*>(stage) + i * 64 * g.tile_k * 2, map, b.c, b.w, b.h,
                                     b.n, std::uint16_t(b.dw), std::uint16_t(b.dh), bar, cta_mask);
      }
      ++t;
    }
  };
  // batch: the group
  __device__ Tiles tiles(int n0, int k_tile, int batch) const { return {&map, g, n0 / 64, boxes, k_tile, batch}; }
#endif
};

}  // namespace tessel
