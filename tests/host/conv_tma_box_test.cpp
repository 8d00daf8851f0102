// conv fprop's TMA operands (tessel/conv/fprop_operand_sm90.hpp) against the definition of
// convolution, on the host: the engine's im2col walk and tiled boxes are emulated as the CUDA
// driver and PTX documents describe them (start pixel, bounding box [lower, extent + upper)
// stepped by the traversal strides, wrapping into the next row and image; the tap's offsets
// added to each pixel; zeros outside the tensor), and the GEMM that the TMA kernel computes
// from those boxes, K tile by K tile, must equal a direct convolution exactly (small integers).
// The device tests (Conv2dFprop.*) then check the engine itself.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tessel/conv/fprop_operand_sm90.hpp"

namespace tessel {
namespace {

struct Tensors {
  Conv2dProblem pb;
  std::vector<int> x, w;  // NHWC, KRSC
  int xv(int n, int h, int wi, int c) const {
    if (n >= pb.n || h < 0 || h >= pb.h || wi < 0 || wi >= pb.w || c >= pb.c) return 0;
    return x[((std::size_t(n) * pb.h + h) * pb.w + wi) * pb.c + c];
  }
};

// Row i of the box that starts at pixel (w, h, n) walks i steps through the bounding box.
void walk(const Conv2dProblem& pb, const Im2colWalk& wk, int& w, int& h, int& n) {
  w += wk.traversal[0];
  if (w >= pb.w + wk.upper[0]) {
    w = wk.lower[0];
    h += wk.traversal[1];
    if (h >= pb.h + wk.upper[1]) h = wk.lower[1], ++n;
  }
}

// The (tile_m x tile_k) A box of K tile t for the rows from m0, as the engine would load it.
std::vector<int> a_box(const Tensors& t, const ConvTmaGeometry& g, int tile_m, int m0, int k_tile) {
  const Im2colWalk wk = make_im2col_walk(t.pb);
  const Im2colBox b = im2col_box(g, im2col_origin(g, m0), k_tile);
  std::vector<int> box(std::size_t(tile_m) * g.tile_k);
  int w = b.w, h = b.h, n = b.n;
  for (int i = 0; i < tile_m; ++i) {
    for (int c = 0; c < g.tile_k; ++c) box[i * g.tile_k + c] = t.xv(n, h + b.dh, w + b.dw, b.c + c);
    walk(t.pb, wk, w, h, n);
  }
  return box;
}

// Y (N*P*Q, K) through the TMA kernel's GEMM, and directly.
void check(const Tensors& t, int tile_m, int tile_k) {
  const Conv2dProblem& pb = t.pb;
  const ConvTmaGeometry g = make_conv_tma_geometry(pb, tile_k);
  const int m = pb.n * pb.p() * pb.q(), k_tiles = pb.r * pb.s * g.c_blocks;
  std::vector<long long> gemm(std::size_t(m) * pb.k, 0);
  for (int m0 = 0; m0 < m; m0 += tile_m) {
    for (int kt = 0; kt < k_tiles; ++kt) {
      const std::vector<int> a = a_box(t, g, tile_m, m0, kt);
      for (int k = 0; k < pb.k; ++k) {
        const FilterBox fb = filter_box(g, 0, kt);  // box (tile_k, 1, K): the whole K here
        for (int i = 0; i < tile_m && m0 + i < m; ++i) {
          long long sum = 0;
          for (int c = 0; c < tile_k; ++c) {
            const int cc = fb.c + c;
            const int wv = cc < pb.c ? t.w[(std::size_t(fb.k + k) * pb.r * pb.s + fb.tap) * pb.c + cc] : 0;
            sum += (long long)a[i * tile_k + c] * wv;
          }
          gemm[std::size_t(m0 + i) * pb.k + k] += sum;
        }
      }
    }
  }
  const bool flip = pb.mode == ConvMode::kConvolution;
  for (int i = 0; i < m; ++i) {
    const int n = i / (pb.p() * pb.q()), p = i / pb.q() % pb.p(), q = i % pb.q();
    for (int k = 0; k < pb.k; ++k) {
      long long y = 0;
      for (int r = 0; r < pb.r; ++r)
        for (int s = 0; s < pb.s; ++s) {
          const int ra = flip ? pb.r - 1 - r : r, sa = flip ? pb.s - 1 - s : s;
          const int h = p * pb.stride_h - pb.pad_h + ra * pb.dilation_h;
          const int w = q * pb.stride_w - pb.pad_w + sa * pb.dilation_w;
          for (int c = 0; c < pb.c; ++c)
            y += (long long)t.xv(n, h, w, c) * t.w[((std::size_t(k) * pb.r + r) * pb.s + s) * pb.c + c];
        }
      ASSERT_EQ(gemm[std::size_t(i) * pb.k + k], y) << "row " << i << " (n " << n << ", p " << p << ", q " << q
                                                   << ") channel " << k;
    }
  }
}

Tensors random_tensors(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Tensors t;
  Conv2dProblem& pb = t.pb;
  for (;;) {
    pb.n = pick(1, 3), pb.h = pick(1, 12), pb.w = pick(1, 12), pb.c = 8 * pick(1, 10), pb.k = pick(1, 4);
    pb.r = pick(1, 5), pb.s = pick(1, 5), pb.pad_h = pick(0, 3), pb.pad_w = pick(0, 3);
    pb.stride_h = pick(1, 3), pb.stride_w = pick(1, 3), pb.dilation_h = pick(1, 3), pb.dilation_w = pick(1, 3);
    pb.mode = pick(0, 3) == 0 ? ConvMode::kConvolution : ConvMode::kCrossCorrelation;
    if (validate(pb)) break;
  }
  t.x.resize(std::size_t(pb.n) * pb.h * pb.w * pb.c);
  t.w.resize(std::size_t(pb.k) * pb.r * pb.s * pb.c);
  for (int& v : t.x) v = pick(-3, 3);
  for (int& v : t.w) v = pick(-3, 3);
  return t;
}

TEST(ConvTmaBoxes, EmulatedImplicitGemmIsTheConvolution) {
  std::mt19937 rng(11);
  for (int i = 0; i < 300; ++i) {
    const Tensors t = random_tensors(rng);
    const Conv2dProblem& pb = t.pb;
    SCOPED_TRACE(::testing::Message() << "case " << i << ": N" << pb.n << " H" << pb.h << " W" << pb.w << " C"
                                      << pb.c << " K" << pb.k << " R" << pb.r << " S" << pb.s << " pad " << pb.pad_h
                                      << "," << pb.pad_w << " stride " << pb.stride_h << "," << pb.stride_w
                                      << " dil " << pb.dilation_h << "," << pb.dilation_w
                                      << (pb.mode == ConvMode::kConvolution ? " conv" : ""));
    // Small tiles so that boxes wrap rows and images; the kernel's 128 rows, 32 and 64 channels.
    check(t, i % 3 == 0 ? 128 : 8 + 8 * (i % 5), i % 2 == 0 ? 64 : 32);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(ConvTmaBoxes, KTilesNeverStraddleTaps) {
  // C = 72 with 64-channel tiles: two tiles per tap, the second 8 channels then zeros.
  Conv2dProblem pb;
  pb.c = 72, pb.r = 3, pb.s = 3;
  const ConvTmaGeometry g = make_conv_tma_geometry(pb, 64);
  EXPECT_EQ(g.c_blocks, 2);
  const Im2colOrigin o{0, 0, 0};
  EXPECT_EQ(im2col_box(g, o, 3).c, 64);  // tap 1's second tile
  EXPECT_EQ(im2col_box(g, o, 3).dw, 1);
  EXPECT_EQ(filter_box(g, 0, 3).tap, 1);
  EXPECT_EQ(filter_box(g, 0, 17).tap, 8);
  EXPECT_EQ(filter_box(g, 0, 17).c, 64);
}

}  // namespace
}  // namespace tessel
