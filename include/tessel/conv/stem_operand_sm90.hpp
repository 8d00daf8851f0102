// Convolution fprop of 8 channels (the RGB stem after channel padding: 224x224x3 -> 8) on the
// TMA kernel (gemm/kernel_sm90_tma.hpp). fprop's own operands would spend a 64-channel K tile
// on one tap; here a K tile is TileK/8 taps of 8 channels:
//   A  (N*P*Q, taps8 * 8)  one im2col box of 8 channels x TileM pixels per tap (16-byte rows,
//      unswizzled), the tile's boxes side by side: GmmaLayout::kKColumns. Taps past R*S
//      (the last tile's) load a box wholly outside the tensor, i.e. zeros.
//   B  (K, R*S*8)          the filter as a plain K-major matrix: ConvFilterTmaB over the
//      (R*S*8, 1, K) map, whose K tile t is columns t * TileK ...
// K index = tap * 8 + c, tap = r * S + s, in both.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "tessel/arch/sm90/tma.hpp"
#include "tessel/conv/fprop_operand_sm90.hpp"

namespace tessel {

inline constexpr int kStemChannels = 8;  // channels per tap, per im2col box

// The im2col operands of tap j of K tile t (j < TileK/8) for the rows from `origin`; a tap
// past R*S gets the first pixel of image n_images (every pixel of the box outside the tensor).
TESSEL_HOST_DEVICE inline Im2colBox stem_im2col_box(ConvTmaGeometry const& g, Im2colOrigin o, int n_images,
                                                    int k_tile, int j) {
  const int tap = k_tile * (g.tile_k / kStemChannels) + j;
  if (tap >= g.r * g.s) return {0, 0, 0, n_images, 0, 0};
  int r = tap / g.s, s = tap - r * g.s;
  if (g.flipped) r = g.r - 1 - r, s = g.s - 1 - s;
  return {0, o.w, o.h, o.n, s * g.dilation_w, r * g.dilation_h};
}

struct ConvStemTmaA {
  CUtensorMap map;  // im2col of X (8, W, H, N), box 8 channels x TileM pixels, no swizzle
  ConvTmaGeometry g;
  int n_images;
  int tile_m;
#if defined(__CUDACC__)
  struct Tiles {
    ConvStemTmaA const* a;
    Im2colOrigin origin;
    int t;
    __device__ void load(void* stage, std::uint64_t* bar) {
      for (int j = 0; j < a->g.tile_k / kStemChannels; ++j) {
        const Im2colBox b = stem_im2col_box(a->g, origin, a->n_images, t, j);
        tma_load_im2col_4d(static_cast<unsigned char*>(stage) + j * a->tile_m * 16, &a->map, b.c, b.w, b.h, b.n,
                           std::uint16_t(b.dw), std::uint16_t(b.dh), bar);
      }
      ++t;
    }
  };
  __device__ Tiles tiles(int m0, int k_tile) const { return {this, im2col_origin(g, m0), k_tile}; }
#endif
};

}  // namespace tessel
