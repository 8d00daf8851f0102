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

// The first output pixel (n, p, q) of K tile t, pixel t * TileK of the (N, P, Q) grid, stepped
// from K tile to K tile without a division (the producer walks its K tiles in order; four
// divisions a box were on its path, as fprop_operand_sm90.hpp's TapWalk explains).
struct PixelWalk {
  int n, p, q;
  int dn, dp, dq;  // TileK pixels as whole images, then rows (< P), then columns (< Q)
  int rows, cols;  // P, Q
  TESSEL_HOST_DEVICE static PixelWalk at(ConvTmaGeometry const& g, int k_tile) {
    const int pq = g.p * g.q, m0 = k_tile * g.tile_k;
    const int n = m0 / pq, rest = m0 - n * pq, p = rest / g.q;
    const int dn = g.tile_k / pq, step = g.tile_k - dn * pq, dp = step / g.q;
    return {n, p, rest - p * g.q, dn, dp, step - dp * g.q, g.p, g.q};
  }
  TESSEL_HOST_DEVICE void next() {
    q += dq;
    if (q >= cols) q -= cols, ++p;
    p += dp;
    if (p >= rows) p -= rows, ++n;
    n += dn;
  }
  TESSEL_HOST_DEVICE Im2colOrigin origin(ConvTmaGeometry const& g) const { return im2col_origin(g, n, p, q); }
};

// The boxes of wgrad's B for the column blocks j0.. of one tile, K tile after K tile: each
// block's channel and tap offsets once, the pixels from a PixelWalk.
struct WgradActivationBoxes {
  static constexpr int kMaxBoxes = 4;
  Im2colBox tap[kMaxBoxes];  // block i's c, dw, dh
  PixelWalk walk;            // the next K tile's first pixel
  TESSEL_HOST_DEVICE static WgradActivationBoxes at(ConvTmaGeometry const& g, int j0, int boxes, int k_tile,
                                                    int group) {
    WgradActivationBoxes w;
    for (int i = 0; i < boxes && i < kMaxBoxes; ++i) w.tap[i] = wgrad_activation_box(g, j0 + i, 0, group);
    w.walk = PixelWalk::at(g, k_tile);
    return w;
  }
  TESSEL_HOST_DEVICE Im2colBox box(ConvTmaGeometry const& g, int i) const {
    const Im2colOrigin o = walk.origin(g);
    return {tap[i].c, o.w, o.h, o.n, tap[i].dw, tap[i].dh};
  }
};

// wgrad's B: the im2col map of X (C, W, H, N), box 64 channels x 64 pixels; `boxes` = TileN / 64
// per K tile (at most WgradActivationBoxes::kMaxBoxes).
struct ConvWgradActivationTmaB {
  CUtensorMap map;
  ConvTmaGeometry g;
  int boxes = 2;
#if defined(__CUDACC__)
  struct Tiles {
    CUtensorMap const* map;
    ConvTmaGeometry g;
    int boxes;
    WgradActivationBoxes w;
    __device__ void load(void* stage, std::uint64_t* bar) {
      for (int i = 0; i < boxes; ++i) {
        const Im2colBox b = w.box(g, i);
        tma_load_im2col_4d(static_cast<unsigned char*>(stage) + i * 64 * g.tile_k * 2, map, b.c, b.w, b.h, b.n,
                           std::uint16_t(b.dw), std::uint16_t(b.dh), bar);
      }
      w.walk.next();
    }
    // Half `part` (0 or 1) of the stage's boxes into every block of cta_mask (a cluster of two
    // shares B: kernel_sm90_tma.hpp), counted on bar there.
    __device__ void load_part(void* stage, std::uint64_t* bar, int part, std::uint16_t cta_mask) {
      for (int i = part * boxes / 2; i < (part + 1) * boxes / 2; ++i) {
        const Im2colBox b = w.box(g, i);
        tma_load_im2col_4d_multicast(static_cast<unsigned char*>(stage) + i * 64 * g.tile_k * 2, map, b.c, b.w, b.h,
                                     b.n, std::uint16_t(b.dw), std::uint16_t(b.dh), bar, cta_mask);
      }
      w.walk.next();
    }
  };
  // batch: the group
  __device__ Tiles tiles(int n0, int k_tile, int batch) const {
    return {&map, g, boxes, WgradActivationBoxes::at(g, n0 / 64, boxes, k_tile, batch)};
  }
#endif
};

}  // namespace tessel
