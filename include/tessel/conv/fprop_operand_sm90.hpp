// Convolution fprop's operands for the TMA kernel (gemm/kernel_sm90_tma.hpp): the TMA engine
// loads both, so no thread computes an address or a predicate.
//   A  (N*P*Q, R*S*C8)  the activations in the engine's im2col mode: a K tile is one filter tap
//      (r, s) and TileK channels of it, and one instruction loads TileM output pixels' input
//      pixels for it (out-of-image pixels, channels past C and rows past N*P*Q read as zeros)
//   B  (K, R*S*C8)      the KRSC filter as a 3-d (C, R*S, K) tensor: box (TileK, 1, TileN)
// C8 = c_blocks * TileK: each tap's channels rounded up to whole K tiles, so no K tile straddles
// two taps (the rounded-up channels are zeros in both operands). K tile t is
//   tap t / c_blocks (r = tap / S, s = tap % S), channels (t % c_blocks) * TileK ...
// (the producers step from tile to tile with a TapWalk, below, not by dividing).
// Groups whose channels are whole K tiles (C/G a multiple of TileK) are the batches of one
// launch: group g's GEMM reads channels g*C/G.. of X and filters g*K/G.. of W (C/G channels
// each), so C8 above is C/G rounded up and the filter map is (C/G, R*S, K).
// The maps are encoded on the host (src/runtime/tma_encoder.cpp); conv_tma_box_test checks
// these coordinates against the definition through an emulation of the engine's walk.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "tessel/arch/sm90/tma.hpp"
#include "tessel/conv/problem.hpp"

namespace tessel {

// What the producer needs to place a tile's boxes.
struct ConvTmaGeometry {
  int p = 1, q = 1;  // output grid of one image
  int stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;
  int s = 1;             // filter width (taps are r * S + s)
  int r = 1;             // filter height
  bool flipped = false;  // ConvMode::kConvolution: the activation tap is (R-1-r, S-1-s)
  int c_blocks = 1;      // K tiles per tap (of one group's channels)
  int tile_k = 64;       // channels per K tile
  int group_c = 0, group_k = 0;  // a group's channels and filters: group g starts at g*group_c, g*group_k
};

// out_p, out_q: the output grid (0: the problem's P, Q).
inline ConvTmaGeometry make_conv_tma_geometry(const Conv2dProblem& pb, int tile_k, int out_p = 0, int out_q = 0) {
  ConvTmaGeometry g;
  g.p = out_p > 0 ? out_p : pb.p(), g.q = out_q > 0 ? out_q : pb.q();
  g.stride_h = pb.stride_h, g.stride_w = pb.stride_w, g.pad_h = pb.pad_h, g.pad_w = pb.pad_w;
  g.dilation_h = pb.dilation_h, g.dilation_w = pb.dilation_w;
  g.r = pb.r, g.s = pb.s;
  g.flipped = pb.mode == ConvMode::kConvolution;
  g.c_blocks = int((pb.channels_per_group() + (long long)tile_k - 1) / tile_k);  // 64-bit: C may be near 2^31
  g.tile_k = tile_k;
  g.group_c = pb.channels_per_group(), g.group_k = pb.filters_per_group();
  return g;
}

// The im2col map's walk over X: the bounding box of start pixels [lower, extent + upper) in
// (w, h), stepped by the traversal strides, so that it visits the out_q x out_p start pixels
// q * stride_w - pad_w (p * stride_h - pad_h), then the next image. The output grid is the
// problem's (P, Q) for fprop, a stride phase's for dgrad (dgrad_operand_sm90.hpp).
struct Im2colWalk {
  int lower[2], upper[2];  // (w, h)
  int traversal[2];        // (w, h)
};
inline Im2colWalk make_im2col_walk(const Conv2dProblem& pb, int out_p, int out_q) {
  // The last start pixel is lower + (out - 1) * stride: the box ends just past it.
  return {{-pb.pad_w, -pb.pad_h},
          {(out_q - 1) * pb.stride_w + 1 - pb.w - pb.pad_w, (out_p - 1) * pb.stride_h + 1 - pb.h - pb.pad_h},
          {pb.stride_w, pb.stride_h}};
}

// The im2col instruction's operands: the first pixel (w, h, n) of the walk, the channel c and
// the tap's offsets (dw, dh).
struct Im2colBox {
  int c, w, h, n;
  int dw, dh;
};
// The first pixel of output row m0 (= n, p, q): the input pixel the filter's tap (0, 0) reads.
struct Im2colOrigin {
  int w, h, n;
};
TESSEL_HOST_DEVICE inline Im2colOrigin im2col_origin(ConvTmaGeometry const& g, int n, int p, int q) {
  return {q * g.stride_w - g.pad_w, p * g.stride_h - g.pad_h, n};
}
TESSEL_HOST_DEVICE inline Im2colOrigin im2col_origin(ConvTmaGeometry const& g, int m0) {
  const int pq = g.p * g.q;
  const int n = m0 / pq, rest = m0 - n * pq;
  const int p = rest / g.q;
  return im2col_origin(g, n, p, rest - p * g.q);
}
// A K tile as (block, col, row): K tile t = (row * cols + col) * blocks + block, with the
// block (of channels, or of filters for dgrad's B) fastest, then the tap's column, then its
// row. next() steps to K tile t + 1 without a division: the producers walk their K tiles in
// order, and two divisions a tile were on their path.
struct TapWalk {
  int block, col, row;
  int blocks, cols;
  TESSEL_HOST_DEVICE static TapWalk at(int k_tile, int blocks, int cols) {
    const int tap = k_tile / blocks, row = tap / cols;
    return {k_tile - tap * blocks, tap - row * cols, row, blocks, cols};
  }
  TESSEL_HOST_DEVICE void next() {
    if (++block < blocks) return;
    block = 0;
    if (++col < cols) return;
    col = 0, ++row;
  }
};
TESSEL_HOST_DEVICE inline TapWalk conv_tap_walk(ConvTmaGeometry const& g, int k_tile) {
  return TapWalk::at(k_tile, g.c_blocks, g.s);
}

TESSEL_HOST_DEVICE inline Im2colBox im2col_box(ConvTmaGeometry const& g, Im2colOrigin o, TapWalk const& w,
                                               int group = 0) {
  const int r = g.flipped ? g.r - 1 - w.row : w.row, s = g.flipped ? g.s - 1 - w.col : w.col;
  return {group * g.group_c + w.block * g.tile_k, o.w, o.h, o.n, s * g.dilation_w, r * g.dilation_h};
}
TESSEL_HOST_DEVICE inline Im2colBox im2col_box(ConvTmaGeometry const& g, Im2colOrigin o, int k_tile, int group = 0) {
  return im2col_box(g, o, conv_tap_walk(g, k_tile), group);
}
// The filter box of K tile k_tile for the group's output channels n0...: (c, tap, k) of the
// (C/G, R*S, K) map.
struct FilterBox {
  int c, tap, k;
};
TESSEL_HOST_DEVICE inline FilterBox filter_box(ConvTmaGeometry const& g, int n0, TapWalk const& w, int group = 0) {
  return {w.block * g.tile_k, w.row * g.s + w.col, group * g.group_k + n0};
}
TESSEL_HOST_DEVICE inline FilterBox filter_box(ConvTmaGeometry const& g, int n0, int k_tile, int group = 0) {
  return filter_box(g, n0, conv_tap_walk(g, k_tile), group);
}

// fprop's A: the im2col map of X (C, W, H, N), box TileK channels x TileM pixels.
struct ConvFpropTmaA {
  CUtensorMap map;
  ConvTmaGeometry g;
#if defined(__CUDACC__)
  struct Tiles {
    CUtensorMap const* map;
    ConvTmaGeometry g;
    Im2colOrigin origin;
    TapWalk walk;  // the next K tile
    int group;
    __device__ void load(void* stage, std::uint64_t* bar) {
      const Im2colBox b = im2col_box(g, origin, walk, group);
      walk.next();
      tma_load_im2col_4d(stage, map, b.c, b.w, b.h, b.n, std::uint16_t(b.dw), std::uint16_t(b.dh), bar);
    }
  };
  // batch: the group
  __device__ Tiles tiles(int m0, int k_tile, int batch) const {
    return {&map, g, im2col_origin(g, m0), conv_tap_walk(g, k_tile), batch};
  }
#endif
};

// fprop's B: the tiled map of W as (C/G, R*S, K), box (TileK, 1, TileN).
struct ConvFilterTmaB {
  CUtensorMap map;
  ConvTmaGeometry g;
#if defined(__CUDACC__)
  struct Tiles {
    CUtensorMap const* map;
    ConvTmaGeometry g;
    int n0;
    TapWalk walk;  // the next K tile
    int group;
    __device__ void load(void* stage, std::uint64_t* bar) {
      const FilterBox b = filter_box(g, n0, walk, group);
      walk.next();
      tma_load_3d(stage, map, b.c, b.tap, b.k, bar);
    }
  };
  // batch: the group
  __device__ Tiles tiles(int n0, int k_tile, int batch) const { return {&map, g, n0, conv_tap_walk(g, k_tile), batch}; }
#endif
};

}  // namespace tessel
