// conv fprop's TMA operands (tessel/conv/fprop_operand_sm90.hpp) against the definition of
// convolution, on the host: the engine's im2col walk and tiled boxes are emulated as the CUDA
// driver and PTX documents describe them (start pixel, bounding box [lower, extent + upper)
// stepped by the traversal strides, wrapping into the next row and image; the tap's offsets
// added to each pixel; zeros outside the tensor), and the GEMM that the TMA kernel computes
// from those boxes, K tile by K tile, must equal a direct convolution exactly (small integers).
// dgrad's stride phases likewise, against dX's definition, and wgrad's activation boxes against
// dW's. The device tests (Conv2dFprop.*, Conv2dDgrad.*, Conv2dWgrad.*) then check the engine
// itself.
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tessel/conv/dgrad_operand_sm90.hpp"
#include "tessel/conv/fprop_operand_sm90.hpp"
#include "tessel/conv/wgrad_operand_sm90.hpp"
#include "conv/conv_tma_maps.hpp"
#include "tessel/runtime/conv2d_problem_check.hpp"

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

// Row i of the box that starts at pixel (w, h, n) walks i steps through the bounding box of
// the (extent_h, extent_w) tensor.
void walk(int extent_h, int extent_w, const Im2colWalk& wk, int& w, int& h, int& n) {
  w += wk.traversal[0];
  if (w >= extent_w + wk.upper[0]) {
    w = wk.lower[0];
    h += wk.traversal[1];
    if (h >= extent_h + wk.upper[1]) h = wk.lower[1], ++n;
  }
}

// The (tile_m x tile_k) A box of K tile k_tile for the rows from m0, as the engine would load
// it from the tensor that pixel(n, h, w, c) reads (zero outside), the walk of problem `pb` over
// the (out_p, out_q) grid.
template <class Pixel>
std::vector<int> box_rows(Pixel const& pixel, const Conv2dProblem& pb, int out_p, int out_q, const ConvTmaGeometry& g,
                          int tile_m, const Im2colBox& b) {
  const Im2colWalk wk = make_im2col_walk(pb, out_p, out_q);
  std::vector<int> box(std::size_t(tile_m) * g.tile_k);
  int w = b.w, h = b.h, n = b.n;
  for (int i = 0; i < tile_m; ++i) {
    for (int c = 0; c < g.tile_k; ++c) box[i * g.tile_k + c] = pixel(n, h + b.dh, w + b.dw, b.c + c);
    walk(pb.h, pb.w, wk, w, h, n);
  }
  return box;
}
template <class Pixel>
std::vector<int> a_box(Pixel const& pixel, const Conv2dProblem& pb, int out_p, int out_q, const ConvTmaGeometry& g,
                       int tile_m, int m0, int k_tile, int group = 0) {
  return box_rows(pixel, pb, out_p, out_q, g, tile_m, im2col_box(g, im2col_origin(g, m0), k_tile, group));
}

// Y (N*P*Q, K) through the TMA kernel's GEMM, group by group (the launch's batches), and
// directly. Filter columns past a group's C/G channels are zeros of the (C/G, R*S, K) map.
void check(const Tensors& t, int tile_m, int tile_k) {
  const Conv2dProblem& pb = t.pb;
  const int cg = pb.channels_per_group(), kg = pb.filters_per_group();
  const ConvTmaGeometry g = make_conv_tma_geometry(pb, tile_k);
  const int m = pb.n * pb.p() * pb.q(), k_tiles = pb.r * pb.s * g.c_blocks;
  std::vector<long long> gemm(std::size_t(m) * pb.k, 0);
  for (int group = 0; group < pb.groups; ++group) {
    for (int m0 = 0; m0 < m; m0 += tile_m) {
      for (int kt = 0; kt < k_tiles; ++kt) {
        const std::vector<int> a = a_box([&](int n, int h, int w, int c) { return t.xv(n, h, w, c); }, pb, pb.p(),
                                         pb.q(), g, tile_m, m0, kt, group);
        const FilterBox fb = filter_box(g, 0, kt, group);  // box (tile_k, 1, K/G): the group's filters here
        for (int k = 0; k < kg; ++k) {
          for (int i = 0; i < tile_m && m0 + i < m; ++i) {
            long long sum = 0;
            for (int c = 0; c < tile_k; ++c) {
              const int cc = fb.c + c;
              const int wv = cc < cg ? t.w[(std::size_t(fb.k + k) * pb.r * pb.s + fb.tap) * cg + cc] : 0;
              sum += (long long)a[i * tile_k + c] * wv;
            }
            gemm[std::size_t(m0 + i) * pb.k + group * kg + k] += sum;
          }
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
          for (int c = 0; c < cg; ++c)
            y += (long long)t.xv(n, h, w, k / kg * cg + c) * t.w[((std::size_t(k) * pb.r + r) * pb.s + s) * cg + c];
        }
      ASSERT_EQ(gemm[std::size_t(i) * pb.k + k], y) << "row " << i << " (n " << n << ", p " << p << ", q " << q
                                                   << ") channel " << k;
    }
  }
}

// A valid problem: up to max_n images of up to max_hw pixels a side, filters up to max_rs taps a
// side, pads 0-3, strides and dilations 1-3, both modes; `channels(pb)` draws C and K.
template <class Channels>
Conv2dProblem random_problem(std::mt19937& rng, int max_n, int max_hw, int max_rs, Channels const& channels) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Conv2dProblem pb;
  do {
    pb.n = pick(1, max_n), pb.h = pick(1, max_hw), pb.w = pick(1, max_hw);
    channels(pb);
    pb.r = pick(1, max_rs), pb.s = pick(1, max_rs), pb.pad_h = pick(0, 3), pb.pad_w = pick(0, 3);
    pb.stride_h = pick(1, 3), pb.stride_w = pick(1, 3), pb.dilation_h = pick(1, 3), pb.dilation_w = pick(1, 3);
    pb.mode = pick(0, 3) == 0 ? ConvMode::kConvolution : ConvMode::kCrossCorrelation;
  } while (!validate(pb));
  return pb;
}

// Case i's problem, for SCOPED_TRACE.
std::string describe(int i, const Conv2dProblem& pb) {
  std::ostringstream s;
  s << "case " << i << ": N" << pb.n << " H" << pb.h << " W" << pb.w << " C" << pb.c << " K" << pb.k << " R" << pb.r
    << " S" << pb.s << " pad " << pb.pad_h << "," << pb.pad_w << " stride " << pb.stride_h << "," << pb.stride_w
    << " dil " << pb.dilation_h << "," << pb.dilation_w << (pb.mode == ConvMode::kConvolution ? " conv" : "");
  return s.str();
}

// groups > 1: that many groups of a random multiple of tile_k channels and 1-3 filters each.
Tensors random_tensors(std::mt19937& rng, int groups = 1, int tile_k = 64) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Tensors t;
  Conv2dProblem& pb = t.pb;
  pb = random_problem(rng, 3, 12, 5, [&](Conv2dProblem& q) {
    if (groups == 1) {
      q.c = 8 * pick(1, 10), q.k = pick(1, 4);
    } else {
      q.groups = groups, q.c = groups * tile_k * pick(1, 2), q.k = groups * pick(1, 3);
    }
  });
  t.x.resize(std::size_t(pb.n) * pb.h * pb.w * pb.c);
  t.w.resize(std::size_t(pb.k) * pb.r * pb.s * pb.channels_per_group());
  for (int& v : t.x) v = pick(-3, 3);
  for (int& v : t.w) v = pick(-3, 3);
  return t;
}

TEST(ConvTmaBoxes, EmulatedImplicitGemmIsTheConvolution) {
  std::mt19937 rng(11);
  for (int i = 0; i < 300; ++i) {
    const Tensors t = random_tensors(rng);
    const Conv2dProblem& pb = t.pb;
    SCOPED_TRACE(describe(i, pb));
    // Small tiles so that boxes wrap rows and images; the kernel's 128 rows, 32 and 64 channels.
    check(t, i % 3 == 0 ? 128 : 8 + 8 * (i % 5), i % 2 == 0 ? 64 : 32);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Groups as the launch's batches: group g's boxes start at channel g*C/G of X and filter
// g*K/G of W, and the GEMMs together are the grouped convolution.
TEST(ConvTmaBoxes, GroupsAsBatchesAreTheGroupedConvolution) {
  std::mt19937 rng(12);
  for (int i = 0; i < 60; ++i) {
    const int tile_k = i % 2 == 0 ? 64 : 32;
    const Tensors t = random_tensors(rng, 2 + i % 3, tile_k);
    SCOPED_TRACE(describe(i, t.pb) + " groups " + std::to_string(t.pb.groups));
    check(t, i % 3 == 0 ? 128 : 8 + 8 * (i % 5), tile_k);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// dgrad by stride phases (dgrad_operand_sm90.hpp): each phase's GEMM from emulated boxes (A:
// im2col over dY on the phase's grid; B: the filter's (64 c, TileK k) boxes at the phase's
// taps), its rows scattered to dX, equals dX's definition exactly. Cases from 200 on are
// grouped, each group a batch of the launch (K/G whole K tiles: group g reads dY's channels and
// W's filters from g*K/G, and writes dX's channels from g*C/G).
TEST(ConvTmaBoxes, DgradPhasesEmulatedAreTheDefinition) {
  std::mt19937 rng(23);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 260; ++i) {
    const int tile_m = i % 2 == 0 ? 128 : 16, tile_k = i % 3 == 0 ? 32 : 64;
    const Conv2dProblem pb = random_problem(rng, 2, 11, 4, [&](Conv2dProblem& q) {
      if (i < 200) {
        q.c = 8 * pick(1, 9), q.k = 8 * pick(1, 10);
      } else {
        q.groups = 2 + i % 2, q.c = q.groups * 8 * pick(1, 4), q.k = q.groups * tile_k * pick(1, 2);
      }
    });
    const int P = pb.p(), Q = pb.q(), cg = pb.channels_per_group(), kg = pb.filters_per_group();
    SCOPED_TRACE(describe(i, pb) + " groups " + std::to_string(pb.groups));
    std::vector<int> dy(std::size_t(pb.n) * P * Q * pb.k), w(std::size_t(pb.k) * pb.r * pb.s * cg);
    for (int& v : dy) v = pick(-3, 3);
    for (int& v : w) v = pick(-3, 3);
    auto dy_at = [&](int n, int p, int q, int k) {
      if (n >= pb.n || p < 0 || p >= P || q < 0 || q >= Q || k >= pb.k) return 0;
      return dy[((std::size_t(n) * P + p) * Q + q) * pb.k + k];
    };
    auto w_at = [&](int k, int r, int s, int c) { return w[((std::size_t(k) * pb.r + r) * pb.s + s) * cg + c]; };
    std::vector<long long> direct(std::size_t(pb.n) * pb.h * pb.w * pb.c, 0), emulated(direct.size(), 0);
    const bool flip = pb.mode == ConvMode::kConvolution;
    for (int n = 0; n < pb.n; ++n)
      for (int p = 0; p < P; ++p)
        for (int q = 0; q < Q; ++q)
          for (int r = 0; r < pb.r; ++r)
            for (int s = 0; s < pb.s; ++s) {
              const int h = p * pb.stride_h - pb.pad_h + (flip ? pb.r - 1 - r : r) * pb.dilation_h;
              const int x = q * pb.stride_w - pb.pad_w + (flip ? pb.s - 1 - s : s) * pb.dilation_w;
              if (h < 0 || h >= pb.h || x < 0 || x >= pb.w) continue;
              for (int c = 0; c < pb.c; ++c)
                for (int k = c / cg * kg; k < (c / cg + 1) * kg; ++k)
                  direct[((std::size_t(n) * pb.h + h) * pb.w + x) * pb.c + c] +=
                      (long long)dy_at(n, p, q, k) * w_at(k, r, s, c % cg);
            }
    for (int ph = 0; ph < pb.stride_h; ++ph)
      for (int pw = 0; pw < pb.stride_w; ++pw) {
        const DgradPhase phase = make_dgrad_phase(pb, ph, pw);
        if (phase.rows == 0 || phase.cols == 0 || phase.taps_r == 0 || phase.taps_s == 0) continue;
        const ConvTmaGeometry g = make_conv_tma_geometry(phase.fprop, tile_k, phase.rows, phase.cols);
        const DgradFilterTmaGeometry fg = make_dgrad_filter_tma_geometry(pb, phase, 64, tile_k);
        ASSERT_EQ(fg.k_blocks, g.c_blocks);
        const int m = pb.n * phase.rows * phase.cols, k_tiles = phase.taps_r * phase.taps_s * g.c_blocks;
        for (int group = 0; group < pb.groups; ++group)
          for (int m0 = 0; m0 < m; m0 += tile_m)
            for (int kt = 0; kt < k_tiles; ++kt) {
              const std::vector<int> a = a_box(dy_at, phase.fprop, phase.rows, phase.cols, g, tile_m, m0, kt, group);
              const DgradFilterBox fb = dgrad_filter_box(fg, 0, kt, group);
              ASSERT_TRUE(fb.r >= 0 && fb.r < pb.r && fb.s >= 0 && fb.s < pb.s) << "K tile " << kt;
              for (int row = 0; row < tile_m && m0 + row < m; ++row) {
                const int gm = m0 + row, n = gm / (phase.rows * phase.cols);
                const int ii = gm / phase.cols % phase.rows, jj = gm % phase.cols;
                const int h = ph + ii * pb.stride_h, x = pw + jj * pb.stride_w;
                for (int c = 0; c < cg; ++c) {
                  long long sum = 0;
                  for (int kk = 0; kk < tile_k; ++kk) {
                    const int k = fb.k + kk;
                    if (k < pb.k) sum += (long long)a[row * tile_k + kk] * w_at(k, fb.r, fb.s, c);
                  }
                  emulated[((std::size_t(n) * pb.h + h) * pb.w + x) * pb.c + group * cg + c] += sum;
                }
              }
            }
      }
    for (std::size_t e = 0; e < direct.size(); ++e) {
      ASSERT_EQ(emulated[e], direct[e]) << "dX element " << e << " (c " << e % pb.c << ", pixel " << e / pb.c << ")";
    }
  }
}

// The producers' TapWalk steps through the K tiles in order: from any start, next() reaches
// the walk of every later K tile (fprop's (channel block, s, r) and dgrad's (filter block, u,
// t) alike), without a division.
TEST(ConvTmaBoxes, TapWalkStepsAsItDivides) {
  for (int blocks = 1; blocks <= 5; ++blocks)
    for (int cols = 1; cols <= 4; ++cols)
      for (int start = 0; start < 3 * blocks * cols; ++start) {
        TapWalk w = TapWalk::at(start, blocks, cols);
        for (int t = start; t < start + 2 * blocks * cols + 3; ++t, w.next()) {
          const TapWalk want = TapWalk::at(t, blocks, cols);
          ASSERT_TRUE(w.block == want.block && w.col == want.col && w.row == want.row)
              << "blocks " << blocks << ", cols " << cols << ", from " << start << ": K tile " << t;
          ASSERT_EQ((w.row * cols + w.col) * blocks + w.block, t);
        }
      }
}

// The box at `at` (innermost first) of the tiled map m over the 16-bit tensor `data`, element
// by element, dim 0 fastest, as the engine writes it into shared memory before the swizzle;
// zeros outside the map's dims.
std::vector<int> tiled_box(const sm90::TmaMapParams& m, const std::vector<int>& data, const int (&at)[4]) {
  std::size_t count = 1;
  for (int d = 0; d < m.rank; ++d) count *= m.box[d];
  std::vector<int> box(count, 0);
  for (std::size_t e = 0; e < count; ++e) {
    std::size_t rest = e, byte = 0;
    bool inside = true;
    for (int d = 0; d < m.rank; ++d) {
      const long long x = at[d] + (long long)(rest % m.box[d]);
      rest /= m.box[d];
      inside = inside && x >= 0 && x < (long long)m.dims[d];
      byte += std::size_t(x) * (d == 0 ? 2 : m.strides[d - 1]);
    }
    if (inside) box[e] = data[byte / 2];
  }
  return box;
}

// dgrad's filter loads (plan_dgrad_tma's map, dgrad_filter_load's coordinates) fill each K
// tile's stage with W[k0.., r, s, c0..] in blocks of (64 c, TileK k), block i at element
// i * 64 * TileK, zeros past K and past the group's channels: one 4-d box where C/G is a
// multiple of 64, else a 3-d box a block. Tiles 64 to 256 wide, strides up to 3, groups.
TEST(ConvTmaBoxes, DgradFilterLoadsFillTheStage) {
  std::mt19937 rng(41);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  constexpr int kTileK = 64;
  int one_box = 0, boxes = 0;
  for (int i = 0; i < 120; ++i) {
    const int tile_n = 64 << (i % 3);
    const Conv2dProblem pb = random_problem(rng, 2, 9, 4, [&](Conv2dProblem& q) {
      q.groups = i < 80 ? 1 : 2 + i % 2;
      const int cg = i % 4 == 0 ? 8 * pick(1, 20) : 64 * pick(1, 3);
      q.c = q.groups * cg, q.k = q.groups == 1 ? 8 * pick(1, 24) : q.groups * kTileK * pick(1, 2);
    });
    SCOPED_TRACE(describe(i, pb) + " groups " + std::to_string(pb.groups) + " tile_n " + std::to_string(tile_n));
    const int cg = pb.channels_per_group();
    std::vector<int> w(std::size_t(pb.k) * pb.r * pb.s * cg);
    for (int& v : w) v = pick(-1000, 1000);
    for (int ph = 0; ph < pb.stride_h; ++ph)
      for (int pw = 0; pw < pb.stride_w; ++pw) {
        const DgradPhase phase = make_dgrad_phase(pb, ph, pw);
        if (phase.rows == 0 || phase.cols == 0 || phase.taps_r == 0 || phase.taps_s == 0) continue;
        sm90::ConvTmaMaps maps;
        ASSERT_TRUE(sm90::plan_dgrad_tma(pb, phase, true, 128, tile_n, kTileK, &maps)) << "phase " << ph << "," << pw;
        const DgradFilterTmaGeometry& g = maps.b_dgrad;
        ASSERT_EQ(g.one_box, cg % 64 == 0);
        ASSERT_EQ(maps.b.rank, g.one_box ? 4 : 3);
        (g.one_box ? one_box : boxes) += 1;
        const int k_tiles = phase.taps_r * phase.taps_s * g.k_blocks;
        for (int group = 0; group < pb.groups; ++group)
          for (int c0 = 0; c0 < cg; c0 += tile_n)
            for (int kt = 0; kt < k_tiles; ++kt) {
              const DgradFilterBox b = dgrad_filter_box(g, c0, kt, group);
              std::vector<int> stage;
              for (int l = 0; l < dgrad_filter_loads(g); ++l) {
                const std::vector<int> box = tiled_box(maps.b, w, dgrad_filter_load(g, b, l).coord);
                stage.insert(stage.end(), box.begin(), box.end());
              }
              ASSERT_EQ(stage.size(), std::size_t(tile_n) * kTileK);
              for (int e = 0; e < tile_n * kTileK; ++e) {
                const int block = e / (64 * kTileK), k = b.k + e / 64 % kTileK, c = c0 + 64 * block + e % 64;
                const int want = k < pb.k && c < cg ? w[((std::size_t(k) * pb.r + b.r) * pb.s + b.s) * cg + c] : 0;
                ASSERT_EQ(stage[e], want) << "group " << group << ", c0 " << c0 << ", K tile " << kt << ": filter "
                                          << k << ", channel " << c;
              }
            }
      }
  }
  EXPECT_GT(one_box, 50);
  EXPECT_GT(boxes, 10);
}

// wgrad's producer steps its boxes from K tile to K tile (WgradActivationBoxes: each block's
// tap once, the pixels by a PixelWalk): from any start, the boxes of every later K tile are
// wgrad_activation_box's, including grids smaller than a K tile (a step of whole images).
TEST(ConvTmaBoxes, WgradBoxesStepAsTheyDivide) {
  std::mt19937 rng(43);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 300; ++i) {
    const Conv2dProblem pb = random_problem(rng, 4, i % 3 == 0 ? 40 : 9, 4, [&](Conv2dProblem& q) {
      q.groups = i < 200 ? 1 : 2 + i % 2;
      q.c = q.groups * 64 * pick(1, 3), q.k = q.groups * 8;
    });
    SCOPED_TRACE(describe(i, pb) + " groups " + std::to_string(pb.groups));
    const ConvTmaGeometry g = make_conv_tma_geometry(pb, 64, pb.p(), pb.q());
    const int k_tiles = (pb.n * pb.p() * pb.q() + 63) / 64 + 2, blocks = pb.r * pb.s * g.c_blocks;
    const int boxes = 1 + i % 2, start = pick(0, k_tiles - 1), j0 = boxes * pick(0, (blocks - 1) / boxes);
    const int group = pick(0, pb.groups - 1);
    WgradActivationBoxes w = WgradActivationBoxes::at(g, j0, boxes, start, group);
    for (int t = start; t < start + 12; ++t, w.walk.next()) {
      for (int b = 0; b < boxes; ++b) {
        const Im2colBox got = w.box(g, b), want = wgrad_activation_box(g, j0 + b, t, group);
        ASSERT_TRUE(got.c == want.c && got.w == want.w && got.h == want.h && got.n == want.n && got.dw == want.dw &&
                    got.dh == want.dh)
            << "K tile " << t << " (from " << start << "), box " << b << ": (n, h, w) (" << got.n << ", " << got.h
            << ", " << got.w << ") against (" << want.n << ", " << want.h << ", " << want.w << ")";
      }
    }
  }
}

// wgrad (wgrad_operand_sm90.hpp): dW (K, R*S*C) from emulated boxes, K tile by K tile of 64
// output pixels (dY's rows past N*P*Q zeros, as the engine reads them) and column block by
// column block of 64 channels, including the blocks past dW's last that a 128-wide tile loads
// (they must lie inside the map), equals dW's definition exactly. Cases from 150 on are
// grouped, each group a batch (whole 64-channel blocks: group g's boxes start at channel
// g*C/G, its A is dY's filters g*K/G..), dW (K, R*S*C/G).
TEST(ConvTmaBoxes, WgradActivationBoxesAreTheDefinition) {
  std::mt19937 rng(37);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 200; ++i) {
    Tensors t;
    Conv2dProblem& pb = t.pb;
    pb = random_problem(rng, 3, 11, 4, [&](Conv2dProblem& q) {
      q.groups = i < 150 ? 1 : 2 + i % 2;
      q.c = q.groups * 64 * pick(1, 2), q.k = q.groups * pick(1, 3);
    });
    SCOPED_TRACE(describe(i, pb) + " groups " + std::to_string(pb.groups));
    const int cg = pb.channels_per_group(), kg = pb.filters_per_group();
    const int P = pb.p(), Q = pb.q(), pixels = pb.n * P * Q, rsc = pb.r * pb.s * cg;
    t.x.resize(std::size_t(pb.n) * pb.h * pb.w * pb.c);
    std::vector<int> dy(std::size_t(pixels) * pb.k);
    for (int& v : t.x) v = pick(-3, 3);
    for (int& v : dy) v = pick(-3, 3);
    const ConvTmaGeometry g = make_conv_tma_geometry(pb, 64, P, Q);
    const int blocks = rsc / 64;
    std::vector<long long> emulated(std::size_t(pb.k) * rsc, 0), direct(emulated.size(), 0);
    for (int group = 0; group < pb.groups; ++group) {
      for (int kt = 0; kt * 64 < pixels; ++kt) {
        for (int j = 0; j < blocks + 1; ++j) {  // one block past the end, as a 128-wide tile may load
          const Im2colBox b = wgrad_activation_box(g, j, kt, group);
          ASSERT_TRUE(b.c >= 0 && b.c + 64 <= pb.c && b.dh <= (pb.r - 1) * pb.dilation_h &&
                      b.dw <= (pb.s - 1) * pb.dilation_w)
              << "column block " << j << " of K tile " << kt << " lies outside the map";
          if (j == blocks) continue;
          const std::vector<int> box =
              box_rows([&](int n, int h, int w, int c) { return t.xv(n, h, w, c); }, pb, P, Q, g, 64, b);
          for (int k = group * kg; k < (group + 1) * kg; ++k)
            for (int row = 0; row < 64 && kt * 64 + row < pixels; ++row)
              for (int c = 0; c < 64; ++c)
                emulated[std::size_t(k) * rsc + j * 64 + c] +=
                    (long long)dy[std::size_t(kt * 64 + row) * pb.k + k] * box[row * 64 + c];
        }
      }
    }
    const bool flip = pb.mode == ConvMode::kConvolution;
    for (int m = 0; m < pixels; ++m) {
      const int n = m / (P * Q), p = m / Q % P, q = m % Q;
      for (int r = 0; r < pb.r; ++r)
        for (int s = 0; s < pb.s; ++s) {
          const int h = p * pb.stride_h - pb.pad_h + (flip ? pb.r - 1 - r : r) * pb.dilation_h;
          const int x = q * pb.stride_w - pb.pad_w + (flip ? pb.s - 1 - s : s) * pb.dilation_w;
          for (int k = 0; k < pb.k; ++k)
            for (int c = 0; c < cg; ++c)
              direct[std::size_t(k) * rsc + (r * pb.s + s) * cg + c] +=
                  (long long)dy[std::size_t(m) * pb.k + k] * t.xv(n, h, x, k / kg * cg + c);
        }
    }
    for (std::size_t e = 0; e < direct.size(); ++e) {
      ASSERT_EQ(emulated[e], direct[e]) << "dW element " << e << " (k " << e / rsc << ", column " << e % rsc << ")";
    }
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
