#include "conv/conv2d_plan.hpp"

#include <algorithm>
#include <cstdint>

#include "conv/packed_groups.hpp"
#include "gemm/gemm_plan.hpp"
#include "tessel/conv/activation_iterator.hpp"
#include "tessel/conv/dgrad_operand_sm80.hpp"
#include "tessel/conv/space_to_depth.hpp"
#include "tessel/runtime/conv2d_problem_check.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel::conv_detail {

bool aligned(const void* p, int bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

Split choose_split(int m, int n, int k, sm80::ConvTile tile, int sms, int batches, int blocks_per_sm) {
  Split s;
  if (m <= 0 || n <= 0 || sms <= 0) return s;  // nothing to compute, or nothing to fill
  const long long tiles = ceil_div((long long)m, tile.m) * ceil_div((long long)n, tile.n) * batches;
  const long long k_tiles = ceil_div((long long)k, tile.k);
  const int min_slice = tile.wgmma ? 1024 / tile.k : 16;  // K tiles per slice: 1024 K on wgmma
  // The fewest slices, 2 to 8 of at least min_slice K tiles each, for which `gains` holds; else 1.
  auto fewest_slices = [&](auto gains) {
    for (long long n = 2; n <= std::min<long long>(8, k_tiles / min_slice); ++n) {
      if (gains(n)) return n;
    }
    return 1LL;
  };
  long long slices = 1;
  if (2 * tiles <= sms) {
    // At most as many items as blocks_per_sm blocks per SM hold: one item more leaves a second
    // wave of one slice's length (ceil(264 / 5) = 53 slices of 5 tiles ran 265 items on an H100).
    slices = std::min<long long>({(long long)blocks_per_sm * sms / tiles, k_tiles / min_slice, 64});
  } else if (tiles > sms && tiles < 2 * sms) {
    // Between one and two tiles per SM, the SMs with two take twice as long as the others
    // (wgrad 7x7x512 at N = 128: 144 tiles on 132 SMs ran at 0.47 of cuDNN). The fewest
    // slices (at most 8) whose busiest SM holds at most 1.3 tiles' work: 144 tiles -> 4
    // slices, 576 items, at most 5 an SM (measured 0.47 -> 0.53, docs/PERFORMANCE.md).
    slices = fewest_slices([&](long long n) { return 10 * ceil_div(tiles * n, (long long)sms) <= 13 * n; });
  } else if (tiles <= sms && batches > 1 && !tile.tma) {
    // Groups between half a wave and one on the cp.async kernels, whose blocks share an SM at
    // about the rate of one: ResNeXt's 7x7x1024 g32 wgrad at N = 128, 96 tiles of 196 K tiles,
    // split in 1, 2, 3, 4, 6 took 57.7, 54.3, 53.6, 42.4, 48.2 us, as the busiest SM's K tiles
    // say: 196, 196, 198, 147, 165 (H200, twenty-seventh session). The fewest slices, at most
    // 8, that cut the busiest SM's K tiles by a fifth or more.
    slices = fewest_slices(
        [&](long long n) { return 5 * ceil_div(tiles * n, (long long)sms) * ceil_div(k_tiles, n) <= 4 * k_tiles; });
  }
  if (slices < 2) return s;
  s.k_tiles_per_split = int((k_tiles + slices - 1) / slices);
  s.splits = int((k_tiles + s.k_tiles_per_split - 1) / s.k_tiles_per_split);
  return s;
}

namespace {

// pb with its channels padded to a multiple of 8, when that problem is still valid (its
// tensors below 2^31 elements).
bool padded_channels(const Conv2dProblem& pb, Conv2dProblem* out) {
  Conv2dProblem padded = pb;
  padded.c = int((pb.c + 7LL) / 8 * 8);
  if ((pb.c + 7LL) / 8 * 8 > kMaxConvTensorElements || !validate(padded).ok()) return false;
  *out = padded;
  return true;
}

// The space-to-depth form of pb where it is valid and its reduction is shorter than that of pb
// with its channels padded to 8 (never for C a multiple of 8: then it is at least R*S*C).
bool shorter_as_space_to_depth(const Conv2dProblem& pb, Conv2dProblem* out) {
  if (pb.groups != 1 || pb.dilation_h != 1 || pb.dilation_w != 1 || (pb.stride_h == 1 && pb.stride_w == 1)) return false;
  const Conv2dProblem s = space_to_depth_problem(pb);
  const long long padded = (long long)pb.r * pb.s * ((pb.c + 7LL) / 8 * 8);
  if ((long long)s.r * s.s * s.c >= padded || !validate(s).ok()) return false;
  *out = s;
  return true;
}

// Split-K, then (TMA kernel) its form: persistent for short reductions with more work items
// than two blocks per SM hold; deep (one block per SM, seven stages) for 128x128 grids that
// leave every SM at most one block, where three stages do not cover the loads' latency.
// deep_split (fprop, dgrad by phase): an ungrouped 128x128 TMA GEMM splits into at most one
// block an SM, so that it runs deep. ResNet-50's 3x3 layers of 512 channels at N = 32 (52
// tiles, 72 K tiles) took 2 slices deep against 4 at two blocks an SM: fprop 14x14x512/2
// 24.2, 24.7 -> 22.4 us, 7x7x512 24.1, 23.6 -> 22.3; dgrad 7x7x512 24.4, 24.2 -> 23.0 (H200,
// thirty-sixth session). (Stream-K ranges over every SM on persistent 128x128 tiles lost on
// every such layer: 23.7 -> 29.5 us on 7x7x512, the fix-up as costly as the mainloop.)
void finish(ConvGemm& g, int sms, bool deep_split) {
  const bool deep_tile = deep_split && g.tile.tma && !g.tile.small() && g.groups == 1;  // (256-row tiles are 64 wide)
  g.split = choose_split(g.m, g.n, g.k, g.tile, sms, g.groups, deep_tile ? 1 : 2);
  if (!g.tile.tma) return;
  const long long k_tiles = ceil_div((long long)g.k, g.tile.k);
  const long long items =
      ceil_div((long long)g.m, g.tile.m) * ceil_div((long long)g.n, g.tile.n) * g.split.splits * g.groups;
  g.tile.persistent =
      std::min<long long>(k_tiles, g.split.k_tiles_per_split) <= sm80::kConvPersistentMaxKTiles && items > 2LL * sms;
  if (g.tile.m == sm80::kConvWideTile) g.tile.persistent = true;  // 256x64 is instantiated persistent only
  g.tile.deep = !g.tile.persistent && !g.tile.small() && items <= sms;
}

// 256x64 persistent tiles (two warpgroups of 128 rows, one block an SM) for 64-filter TMA
// layers: cuDNN runs ResNet-50's 56x56x64 3x3 so, where 128x64 tiles two blocks an SM kept the
// tensor pipe at 33% against its 60%. They measured faster from 98 of them (three quarters of a
// wave on 132 SMs) up: 56x56x64 3x3 at N = 128, 1568 tiles, 98.4 -> 82.3 us fprop, 102.2 ->
// 83.4 us dgrad; at N = 8, 98 tiles, 9.89 -> 9.62 and 10.36 -> 9.70 us (docs/PERFORMANCE.md,
// thirty-first session). Fewer went unmeasured and keep 128x64. `pixels` are the rows of one
// launch (dgrad's ungrouped phases: all of dX's).
bool wide_tile(const sm80::ConvTile& t, long long pixels, int groups, int sms) {
  if (!t.wgmma || t.n != sm80::kConvSmallTile) return false;
  return 10 * ceil_div(pixels, (long long)sm80::kConvWideTile) * groups >= 7LL * sms;
}

// DgradPlan::one_launch: the phases' GEMMs as the batches of one TMA launch, where they allow it.
void plan_dgrad_one_launch(DgradPlan& plan, int sms) {
  const int phases = int(plan.phases.size());
  // (the launch's batches are the phases: groups run a launch per phase, the groups its batches)
  if (phases < 2 || phases > kDgradTmaMaxPhases || plan.filter.groups != 1) return;
  ConvGemm one;
  bool any_taps = false;
  for (const DgradPhasePlan& ph : plan.phases) {
    const ConvGemm& g = ph.gemm;
    const bool taps = ph.phase.taps_r > 0 && ph.phase.taps_s > 0;
    if (taps && !g.tile.tma) return;  // a phase on the cp.async kernels
    if (!taps) continue;              // K = 0: the epilogue alone, on any tile
    if (any_taps && (g.tile.m != one.tile.m || g.tile.n != one.tile.n)) return;
    if (!any_taps) one = g;
    any_taps = true;
    one.k = std::max(one.k, g.k);
  }
  if (!any_taps) return;
  one.m = 0;
  for (const DgradPhasePlan& ph : plan.phases) one.m = std::max(one.m, ph.gemm.m);
  one.groups = phases;
  finish(one, sms, false);
  if (one.split.partials()) return;  // few tiles and deep reductions: split phase by phase
  plan.one_launch = true;
  plan.one_launch_gemm = one;
  plan.workspace_bytes = 0;
}

// The sliding wgrad's slices: runs of row pieces. Each output row is cut into 1 to 8 pieces of at
// least 2S columns (none empty); a block has as many lanes (slices) as kSlideThreads allow; the
// grid comes in whole waves of kSlideBlocksPerSm blocks an SM. A thread's time is about its
// pieces' unrolled pixels plus S each (the window's first columns) and one row more (the block's
// sum), so of every cut and 1 to 4 waves take the fewest waves * that; on a tie the fewest
// blocks (partial sums). Whole rows alone (the fourteenth session's rule, waves * (rows a slice
// + 1)) left MobileNetV2's 112x112x32 layer 86 blocks of 2 rows for 132 SMs; the first rule (8
// blocks of 256 threads an SM) left ConvNeXt-T's 28x28x192 layer 336 blocks on 264 slots
// (docs/PERFORMANCE.md, fourteenth and sixteenth sessions).
void plan_slide_slices(DepthwisePlan& d, int sms) {
  const Conv2dProblem& pb = d.problem;
  const long long rows = (long long)pb.n * pb.p(), q = pb.q(), s = pb.s, slots = (long long)kSlideBlocksPerSm * sms;
  auto pixels = [&](long long columns) { return ceil_div(columns, s) * s + s; };  // a piece's time
  const long long lanes = std::max(1, kSlideThreads / (pb.r * d.vectors));
  struct Cut {
    long long pieces = 1, per_slice = 0, blocks = 0;
  };
  // The cheapest cut into `first` to `last` pieces.
  auto cheapest = [&](long long first, long long last) {
    Cut best;
    long long best_cost = 0;
    for (long long pieces = first; pieces <= last; ++pieces) {
      const long long length = ceil_div(q, pieces);
      if (pieces > 1 && (length < 2 * s || ceil_div(q, length) != pieces)) continue;
      const long long units = rows * pieces;
      for (long long waves = 1; waves <= 4; ++waves) {
        const long long most = std::max(1LL, waves * slots / d.blocks_y);  // blocks along x
        const long long per_slice = ceil_div(units, most * lanes);
        const long long blocks = ceil_div(ceil_div(units, per_slice), lanes);
        const long long cost = ceil_div(blocks * d.blocks_y, slots) * (per_slice * pixels(length) + pixels(q));
        if (best_cost == 0 || cost < best_cost || (cost == best_cost && blocks < best.blocks)) {
          best_cost = cost, best = {pieces, per_slice, blocks};
        }
      }
    }
    return best;
  };
  Cut cut = cheapest(1, 8);
  // Rows of 56 columns or more, 3-wide filters: four pieces walked down the rows, unless that
  // leaves a twentieth of the blocks idle. Whole rows left a block's filter-row threads
  // re-reading about 450 KiB of rows (56x56x144 at N = 128), which fell out of L1 and L2
  // between their uses (448 MB of DRAM read for 231 MB of X and dY). Measured (us, the cut
  // above along the rows against four pieces down; docs/PERFORMANCE.md, twenty-ninth session):
  // N = 128 56x56x144 140.6 against 125.7, 112x112x32 126.5 against 108.2 (128 blocks against
  // 125); N = 32 56x56x144 39.4 against 38.2, but 112x112x32 29.5 against 33.4 (128 blocks
  // against 114). Eight pieces (7 columns) lost, and so did rows of 28 (28x28x192 at N = 128
  // in two pieces down, TFLOPS: 8.18 against 7.60).
  if (q >= 56 && s == 3) {
    const Cut down = cheapest(4, 4);
    if (down.blocks > 0 && 20 * down.blocks >= 19 * cut.blocks) cut = down, d.slide_down = true;
  }
  d.row_pieces = int(cut.pieces), d.pieces_per_slice = int(cut.per_slice);
  d.slices = int(ceil_div(rows * d.row_pieces, (long long)d.pieces_per_slice));
  d.slice_lanes = int(std::min<long long>(lanes, d.slices));
  d.blocks_x = int(ceil_div((long long)d.slices, (long long)d.slice_lanes));
}

}  // namespace

Conv2dProblem dgrad_as_fprop(const Conv2dProblem& pb) {
  Conv2dProblem f = pb;
  f.h = pb.p(), f.w = pb.q();
  f.pad_h = (pb.r - 1) * pb.dilation_h - pb.pad_h, f.pad_w = (pb.s - 1) * pb.dilation_w - pb.pad_w;
  f.mode = pb.mode == ConvMode::kConvolution ? ConvMode::kCrossCorrelation : ConvMode::kConvolution;
  return f;
}

DepthwisePlan plan_depthwise(ConvDirection direction, const Conv2dProblem& layer, bool aligned, int sms) {
  DepthwisePlan d;
  const int taps = layer.r * layer.s, cg = layer.channels_per_group();
  if (layer.k != layer.c || !direct_group_width(cg) || taps * cg > kDepthwiseMaxTaps) return d;
  // A thread's eight channels are whole groups: wider groups need 16-byte loads of them.
  if (cg > 1 && !(layer.c % 8 == 0 && aligned)) return d;
  // wgrad of groups of 8 ran 2.2-2.4x faster as grouped GEMMs (docs/PERFORMANCE.md, 2026-11-25).
  if (direction == ConvDirection::kWgrad && cg > kDirectWgradMaxGroupWidth) return d;
  d.direct = true;
  d.cg = cg;
  d.problem = layer;
  if (direction == ConvDirection::kDgrad && layer.stride_h == 1 && layer.stride_w == 1) {
    d.problem = dgrad_as_fprop(layer), d.as_fprop = true;
    direction = ConvDirection::kFprop;
  }
  const Conv2dProblem& pb = d.problem;
  d.vec = pb.c % 8 == 0 && aligned ? 8 : 1;
  // wgrad of rows 3, 5 or 7 wide at stride 1 along w: a window of input columns slides along
  // whole output rows, slide_vec(S) channels a thread (depthwise_wgrad_slide_kernel). On ConvNeXt-T's
  // 7x7 layers 1.1-1.9x faster than a thread per filter row (thirteenth session); on
  // MobileNetV2's 3x3 layers, with blocks sized in whole waves, 1.0-1.6x faster than a thread
  // per tap (docs/PERFORMANCE.md, fourteenth session).
  d.slide = direction == ConvDirection::kWgrad && cg == 1 && d.vec == 8 && pb.stride_w == 1 && pb.dilation_w == 1 &&
            (pb.s == 3 || pb.s == 5 || pb.s == 7);
  if (d.slide) d.vec = slide_vec(pb.s);
  // Blocks of at most 8 channel vectors, as even as they divide: C = 144 is 3 blocks of 6, not
  // 8, 8 and 2 (where a warp of the third issues for 8 threads' work).
  const int channel_vectors = pb.c / d.vec;
  d.blocks_y = int(ceil_div((long long)channel_vectors, 8LL));
  d.vectors = int(ceil_div((long long)channel_vectors, (long long)d.blocks_y));
  if (d.blocks_y > 65535) return {};  // past the grid's y: the grouped GEMMs, which take any G
  sms = std::max(sms, 1);
  if (direction == ConvDirection::kWgrad) {
    // A thread per filter row (sliding, or rows of 5 to 7 taps: it loads dY once for them), else
    // per tap. Sliding: plan_slide_slices. Otherwise a block of several slices (lanes) where one
    // slice's threads are few, about 8 blocks of 256 threads per SM over all channel blocks, and
    // partial sums (one per block: blocks * R*S * C * C/G floats) of at most a quarter of dY's
    // bytes unless that leaves fewer than 2 blocks per SM; slices of at least 16 pixels.
    d.row_taps = d.slide || (cg == 1 && pb.s >= kWgradRowTapsMin && pb.s <= kWgradRowTaps);
    if (d.slide) {
      plan_slide_slices(d, sms);
      d.workspace_bytes = std::size_t(d.blocks_x) * taps * pb.c * cg * sizeof(float);
      return d;
    }
    const int per_slice = (d.row_taps ? pb.r : taps) * d.vectors;
    const long long pixels = (long long)pb.n * pb.p() * pb.q();
    const long long lanes = std::max(1, kDepthwiseThreads / per_slice);
    const long long blocks = std::max(
        1LL, std::min(ceil_div(8LL * sms, d.blocks_y), std::max(pixels / (8LL * taps * cg), ceil_div(2LL * sms, d.blocks_y))));
    const long long slices = std::max(1LL, std::min(blocks * lanes, ceil_div(pixels, 16LL)));
    d.pixels_per_slice = int(ceil_div(pixels, slices));
    d.slices = int(ceil_div(pixels, (long long)d.pixels_per_slice));
    d.slice_lanes = int(std::min<long long>(lanes, d.slices));
    d.blocks_x = int(ceil_div((long long)d.slices, (long long)d.slice_lanes));
    d.workspace_bytes = std::size_t(d.blocks_x) * taps * pb.c * cg * sizeof(float);
    return d;
  }
  // The grid in whole waves of the blocks an SM fits: of 1 to 8 pixels (or strips) a thread,
  // the fewest waves * (units a thread + 1), the +1 for the block's filter taps and a wave's
  // tail; ties take fewer units. Against "at most 4 units, at least 4 blocks an SM" (which left
  // 2.27 waves of the 7x7 strip kernel at 56x56x96) 1.0-1.25x faster on the suites' depthwise
  // fprop and dgrad layers but one (docs/PERFORMANCE.md, fifteenth session); without the +1,
  // slower on most, up to 1.5x.
  const int strip = direction == ConvDirection::kFprop ? depthwise_strip(pb) : 0;
  d.strip = strip > 0;
  const long long units = direction == ConvDirection::kDgrad ? (long long)pb.n * pb.h * pb.w
                          : d.strip ? (long long)pb.n * pb.p() * ceil_div((long long)pb.q(), (long long)strip)
                                    : (long long)pb.n * pb.p() * pb.q();
  const int lanes = kDepthwiseThreads / d.vectors;
  const long long one = ceil_div(units, (long long)lanes);  // a thread's units in one block
  d.blocks_per_sm = direct_blocks_per_sm(d.strip);
  const long long wave = (long long)d.blocks_per_sm * sms;
  long long best_cost = -1;
  for (long long per_thread = 1; per_thread <= kDirectUnitsPerThread; ++per_thread) {
    const long long blocks = ceil_div(one, per_thread);
    const long long cost = ceil_div(blocks * d.blocks_y, wave) * (ceil_div(one, blocks) + 1);
    if (best_cost < 0 || cost < best_cost) d.blocks_x = int(blocks), best_cost = cost;
  }
  return d;
}

// Which group widths pack: measured on ResNeXt-50's grouped 3x3 layers at N = 32 on the H100
// (docs/PERFORMANCE.md, twelfth and thirteenth sessions), packed against the grouped GEMMs or
// direct kernels:
//   groups of 4:  fprop and dgrad 1.4-1.6x slower (16 times the multiply-adds); wgrad 2.0x faster;
//   groups of 8 and 16: 1.15-2.6x faster in every direction;
//   groups of 32: fprop 1.2-1.4x and dgrad 1.3-1.5x faster now that the packed layer runs on the
//                 TMA kernel (on the cp.async wgmma kernel fprop and stride-1 dgrad were even:
//                 the 2-3 us copy of W cost what packing gained); wgrad 0.83x (measured when
//                 dW' went through fp32 and a gather pass; not measured since the reduction
//                 writes dW).
bool packs_groups(ConvDirection direction, const Conv2dProblem& pb, bool aligned, const DeviceInfo& device) {
  const int cg = pb.channels_per_group();
  const int narrowest = direction == ConvDirection::kWgrad ? 4 : 8;
  const int widest = direction == ConvDirection::kWgrad ? 16 : 32;
  return device.packed_groups && aligned && pb.groups > 1 && pb.c == pb.k && pb.c % kPackedGroupWidth == 0 &&
         cg >= narrowest && cg <= widest && kPackedGroupWidth % cg == 0 &&
         (long long)pb.k * pb.r * pb.s * kPackedGroupWidth <= kMaxConvTensorElements;
}

namespace {

bool is_gemm(const Conv2dProblem& pb, const DeviceInfo& device) {
  return device.conv_as_gemm && pb.groups == 1 && pb.r == 1 && pb.s == 1 && pb.stride_h == 1 && pb.stride_w == 1 &&
         pb.pad_h == 0 && pb.pad_w == 0;
}

// The GEMM's shape and epilogue; the caller sets A, B and D.
GemmArguments gemm_of(int m, int n, int k, DataType in, DataType out, float alpha, float beta, const void* residual,
                      const void* bias, Activation act) {
  GemmArguments g;
  g.m = m, g.n = n, g.k = k;
  g.input_type = in, g.output_type = out;
  g.alpha = alpha, g.beta = beta, g.bias = bias, g.activation = act;
  g.c = beta != 0.0f ? residual : nullptr, g.ldc = n;
  g.d_layout = MatrixLayout::kRowMajor, g.ldd = n;
  return g;
}

// wgrad as a GEMM over a row-major activation matrix B (N*P*Q, R*S*C): X itself for a 1x1
// layer (wgrad_as_gemm), else its im2col copy (wgrad_im2col_gemm):
//   dW (K, R*S*C) = dY^T (K, N*P*Q) . B   dY^T a column-major A, lda = K
GemmArguments wgrad_gemm(const Conv2dWgradArguments& args, const void* b) {
  const Conv2dProblem& pb = args.problem;
  const int crs = pb.r * pb.s * pb.c;
  GemmArguments g = gemm_of(pb.k, crs, pb.n * pb.p() * pb.q(), args.input_type, args.output_type, args.alpha,
                            args.beta, args.residual, nullptr, Activation::kNone);
  g.a = args.dy, g.a_layout = MatrixLayout::kColumnMajor, g.lda = pb.k;
  g.b = b, g.b_layout = MatrixLayout::kRowMajor, g.ldb = crs;
  g.d = args.dw;
  return g;
}

}  // namespace

bool fprop_as_gemm(const Conv2dArguments& args, const DeviceInfo& device, GemmArguments* out) {
  const Conv2dProblem& pb = args.problem;
  if (!is_gemm(pb, device)) return false;
  GemmArguments g = gemm_of(pb.n * pb.h * pb.w, pb.k, pb.c, args.input_type, args.output_type, args.alpha, args.beta,
                            args.residual, args.bias, args.activation);
  g.a = args.x, g.a_layout = MatrixLayout::kRowMajor, g.lda = pb.c;
  g.b = args.w, g.b_layout = MatrixLayout::kColumnMajor, g.ldb = pb.c;
  g.d = args.y;
  *out = g;
  return true;
}

bool dgrad_as_gemm(const Conv2dDgradArguments& args, const DeviceInfo& device, GemmArguments* out) {
  const Conv2dProblem& pb = args.problem;
  if (!is_gemm(pb, device)) return false;
  GemmArguments g = gemm_of(pb.n * pb.h * pb.w, pb.c, pb.k, args.input_type, args.output_type, args.alpha, args.beta,
                            args.residual, args.bias, args.activation);
  g.a = args.dy, g.a_layout = MatrixLayout::kRowMajor, g.lda = pb.k;
  g.b = args.w, g.b_layout = MatrixLayout::kRowMajor, g.ldb = pb.c;
  g.d = args.dx;
  *out = g;
  return true;
}

bool wgrad_as_gemm(const Conv2dWgradArguments& args, const DeviceInfo& device, GemmArguments* out) {
  const Conv2dProblem& pb = args.problem;
  if (!is_gemm(pb, device)) return false;
  *out = wgrad_gemm(args, args.x);
  return true;
}

FpropPlan plan_fprop(const Conv2dArguments& args, const DeviceInfo& device) {
  const Conv2dProblem& pb = args.problem;
  FpropPlan plan;
  plan.problem = pb;
  if (packs_groups(ConvDirection::kFprop, pb, aligned(args.x, 16), device)) {
    plan.packed_groups = true;
    plan.problem = packed_groups_problem(pb);
    plan.w_copy_bytes = std::size_t(pb.k) * pb.r * pb.s * kPackedGroupWidth * data_type_bytes(args.input_type);
    return plan;
  }
  plan.depthwise = plan_depthwise(ConvDirection::kFprop, pb,
                                  aligned(args.x, 16) && aligned(args.y, 16) && (args.beta == 0.0f || aligned(args.residual, 16)),
                                  device.sms);
  if (plan.depthwise.direct) return plan;
  const bool wide = pb.c % 8 == 0 && aligned(args.x, 16) && aligned(args.w, 16);
  if (!wide && pb.groups == 1) {
    plan.space_to_depth = shorter_as_space_to_depth(pb, &plan.problem);
    plan.pad_channels = !plan.space_to_depth && padded_channels(pb, &plan.problem);
  }
  const Conv2dProblem& kp = plan.problem;
  if (plan.space_to_depth || plan.pad_channels) {  // the copies, as the kernels see X and W
    const int ib = data_type_bytes(args.input_type);
    plan.x_copy_bytes = std::size_t(kp.n) * kp.h * kp.w * kp.c * ib;
    plan.w_copy_bytes = std::size_t(kp.k) * kp.r * kp.s * kp.c * ib;
  }
  const int cg = kp.channels_per_group(), kg = kp.filters_per_group();
  // 16-byte loads: eight channels of one tap in one vector, both tensors 16-byte aligned (the
  // copies are).
  const bool operands_aligned =
      plan.space_to_depth || plan.pad_channels || (aligned(args.x, 16) && aligned(args.w, 16));
  plan.narrow = !(cg % 8 == 0 && kp.c % 8 == 0 && operands_aligned);
  ConvGemm& g = plan.gemm;
  // The optimized iterator keeps a 32-bit tap mask per row: filters up to 32 x 32.
  g.optimized = ActivationIteratorOptimized<1>::supports(kp);
  g.tile = sm80::conv_tile_n(kg, plan.narrow, g.optimized, device.wgmma());
  g.m = kp.n * kp.p() * kp.q(), g.n = kg, g.k = kp.r * kp.s * cg, g.groups = kp.groups;
  // On the wgmma kernels, layers of at least 64 channels (a group) take the TMA kernel when the
  // engine can describe them; its K runs over whole 64-channel tiles of each tap. Groups are
  // its batches, all in one launch: at most 65535 grid layers of groups and K splits (64 at most).
  const int tma_m = wide_tile(g.tile, g.m, kp.groups, device.sms) ? sm80::kConvWideTile : g.tile.m;
  if (g.tile.wgmma && device.tma_encoder && cg >= sm80::kConvTileKTma && kp.groups <= 65535 / 64 &&
      sm90::plan_fprop_tma(kp, operands_aligned, tma_m, g.tile.n, sm80::kConvTileKTma, &g.tma)) {
    g.tile.tma = true;
    g.tile.m = tma_m;
    g.tile.k = sm80::kConvTileKTma;
    g.k = g.tma.gemm_k;
  }
  finish(g, device.sms, true);
  return plan;
}

DgradPlan plan_dgrad(const Conv2dDgradArguments& args, const DeviceInfo& device) {
  const Conv2dProblem& pb = args.problem;
  DgradPlan plan;
  plan.filter = pb;
  if (packs_groups(ConvDirection::kDgrad, pb, aligned(args.dy, 16), device)) {
    plan.packed_groups = true;
    plan.filter = packed_groups_problem(pb);
    plan.w_copy_bytes = std::size_t(pb.k) * pb.r * pb.s * kPackedGroupWidth * data_type_bytes(args.input_type);
    return plan;
  }
  plan.depthwise = plan_depthwise(
      ConvDirection::kDgrad, pb,
      aligned(args.dy, 16) && aligned(args.dx, 16) && (args.beta == 0.0f || aligned(args.residual, 16)), device.sms);
  if (plan.depthwise.direct) return plan;
  const int cg = pb.channels_per_group(), kg = pb.filters_per_group();
  // 16-byte loads: eight filters of dY (A) and eight channels of W (B) per vector.
  const bool a_wide = kg % 8 == 0 && pb.k % 8 == 0 && aligned(args.dy, 16);
  bool b_wide = cg % 8 == 0 && aligned(args.w, 16);
  if (a_wide && !b_wide && shorter_as_space_to_depth(pb, &plan.space_to_depth_problem)) {
    const Conv2dProblem& s = plan.space_to_depth_problem;
    plan.space_to_depth = true;
    plan.w_copy_bytes = std::size_t(s.k) * s.r * s.s * s.c * data_type_bytes(args.input_type);
    plan.dx_copy_bytes = std::size_t(s.n) * s.h * s.w * s.c * sizeof(float);
    return plan;
  }
  if (a_wide && !b_wide && pb.groups == 1 && padded_channels(pb, &plan.filter)) {
    plan.pad_filter = true;
    plan.w_copy_bytes = std::size_t(pb.k) * pb.r * pb.s * plan.filter.c * data_type_bytes(args.input_type);
    b_wide = true;
  }
  plan.narrow = !(a_wide && b_wide);
  // Only phases ph < H (pw < W) have rows: H < stride_h leaves the others empty.
  const int phases_h = std::min(pb.stride_h, pb.h), phases_w = std::min(pb.stride_w, pb.w);
  plan.phases.reserve(std::size_t(phases_h) * phases_w);
  for (int ph = 0; ph < phases_h; ++ph) {
    for (int pw = 0; pw < phases_w; ++pw) {
      DgradPhasePlan& pl = plan.phases.emplace_back();
      pl.phase = make_dgrad_phase(pb, ph, pw);
      ConvGemm& g = pl.gemm;
      const DgradPhase& phase = pl.phase;
      const int taps = phase.taps_r * phase.taps_s;
      g.optimized = ActivationIteratorOptimized<1>::supports(phase.fprop);
      g.tile = sm80::conv_tile_n(cg, plan.narrow, g.optimized, device.wgmma());
      g.m = pb.n * phase.rows * phase.cols, g.n = cg, g.k = taps * kg, g.groups = pb.groups;
      // On the wgmma kernels, phases whose dY has 64 or more channels (a group) take the TMA
      // kernel when the engine can describe them: A is the phase's im2col over dY, its K whole
      // 64-filter tiles per tap; groups are the batches of the phase's launch (as fprop's).
      // (ungrouped phases run in one launch, plan_dgrad_one_launch: their tiles count together)
      const bool one_launch = pb.groups == 1 && phases_h * phases_w <= kDgradTmaMaxPhases;
      const long long launch_pixels = one_launch ? (long long)pb.n * pb.h * pb.w : g.m;
      const int tma_m = wide_tile(g.tile, launch_pixels, pb.groups, device.sms) ? sm80::kConvWideTile : g.tile.m;
      if (g.tile.wgmma && device.tma_encoder && taps > 0 && kg >= sm80::kConvTileKTma && pb.groups <= 65535 / 64 &&
          sm90::plan_dgrad_tma(plan.filter, phase, !plan.narrow, tma_m, g.tile.n, sm80::kConvTileKTma, &g.tma)) {
        g.tile.tma = true;
        g.tile.m = tma_m;
        g.tile.k = sm80::kConvTileKTma;
        g.k = g.tma.gemm_k;
      }
      finish(g, device.sms, true);
      plan.workspace_bytes = std::max(plan.workspace_bytes, g.workspace_bytes());
    }
  }
  plan_dgrad_one_launch(plan, device.sms);
  return plan;
}

WgradPlan plan_wgrad(const Conv2dWgradArguments& args, const DeviceInfo& device) {
  const Conv2dProblem& pb = args.problem;
  WgradPlan plan;
  plan.problem = pb;
  if (packs_groups(ConvDirection::kWgrad, pb, aligned(args.dy, 16) && aligned(args.x, 16), device)) {
    // The layer of 64-channel groups, through the workspace: the reduction keeps filter k's own
    // cg channels of each tap's 64 and writes dW itself.
    Conv2dWgradArguments packed = args;
    packed.problem = packed_groups_problem(pb);
    WgradPlan p = plan_wgrad(packed, device);
    p.packed_groups = true;
    p.gemm.split.columns = {kPackedGroupWidth, pb.channels_per_group(), pb.channels_per_group()};
    return p;
  }
  plan.depthwise = plan_depthwise(ConvDirection::kWgrad, pb, aligned(args.dy, 16) && aligned(args.x, 16), device.sms);
  if (plan.depthwise.direct) return plan;
  const int kg = pb.filters_per_group();
  // 16-byte loads: eight filters of dY (A) and eight channels of X (B) per vector.
  const bool a_wide = kg % 8 == 0 && pb.k % 8 == 0 && aligned(args.dy, 16);
  const bool b_wide = pb.channels_per_group() % 8 == 0 && pb.c % 8 == 0 && aligned(args.x, 16);
  if (a_wide && !b_wide && shorter_as_space_to_depth(pb, &plan.space_to_depth_problem)) {
    const Conv2dProblem& s = plan.space_to_depth_problem;
    plan.space_to_depth = true;
    plan.x_copy_bytes = std::size_t(s.n) * s.h * s.w * s.c * data_type_bytes(args.input_type);
    plan.dw_copy_bytes = std::size_t(s.k) * s.r * s.s * s.c * sizeof(float);
    return plan;
  }
  if (a_wide && !b_wide && pb.groups == 1 && padded_channels(pb, &plan.problem)) {
    plan.pad_channels = true;
    plan.x_copy_bytes = std::size_t(pb.n) * pb.h * pb.w * plan.problem.c * data_type_bytes(args.input_type);
  }
  const Conv2dProblem& kp = plan.problem;
  plan.narrow = !(a_wide && (b_wide || plan.pad_channels));
  ConvGemm& g = plan.gemm;
  g.tile = sm80::conv_tile_m(kg, plan.narrow, device.wgmma());
  g.m = kg, g.n = kp.r * kp.s * kp.channels_per_group(), g.k = kp.n * kp.p() * kp.q(), g.groups = kp.groups;
  // On the wgmma kernels, 64-row tiles where 128-row ones would leave SMs idle and K is too
  // short to split: ResNet-50's 7x7x512->2048 1x1 at N = 32 (64 tiles of 128 on 132 SMs, 49 K
  // tiles) ran 20.2 -> 17.4-18.3 us. Where K splits, the split fills the SMs better (a 3x3
  // layer of 36 such tiles: 30 us split, 70 on 72 whole 64-row tiles), and on fprop's and
  // dgrad's TMA kernel 64-row tiles were slower (docs/PERFORMANCE.md, ninth session).
  if (g.tile.wgmma && g.tile.m == sm80::kConvTile &&
      ceil_div((long long)g.m, (long long)g.tile.m) * ceil_div((long long)g.n, (long long)g.tile.n) * g.groups <
          device.sms &&
      choose_split(g.m, g.n, g.k, g.tile, device.sms, g.groups).splits == 1) {
    g.tile.m = sm80::kConvSmallTile;
  }
  // On the wgmma kernels, layers of whole 64-channel blocks (a group's; the groups as its
  // batches) take the TMA kernel when the engine can describe them (conv_tma_maps.hpp); K tiles
  // of 64 pixels. Not 1x1 layers: on ResNet-50's
  // five at N = 32 the cp.async kernel was 7-17% faster, on its eight larger filters 3-45%
  // slower (docs/PERFORMANCE.md, 2026-11-26, ninth session).
  if (g.tile.wgmma && device.tma_encoder && !plan.pad_channels && kp.r * kp.s > 1 && kp.groups <= 65535 / 64 &&
      sm90::plan_wgrad_tma(kp, aligned(args.dy, 16) && aligned(args.x, 16), &g.tma)) {
    g.tile.tma = true;
    g.tile.k = sm80::kConvTileKTma;
  }
  finish(g, device.sms, false);
  g.tile.persistent = g.tile.deep = false;
  // Where the 128x128 tiles leave SMs idle and the reduction is deep, the persistent kernel
  // shares the last tiles' K tiles out as stream-K ranges, by tessel::gemm's rule, in clusters
  // of two tile rows that share B: each block issues one of a K tile's two im2col boxes, which
  // the engine delivers to a block at about 0.28 us a box (tools/device/tma_load_bench.cu).
  // Wgrad 7x7x512 3x3 at N = 128 (144 tiles of 98 K tiles): 91 us split in 4, 91 as stream-K
  // without clusters, 83 with (docs/PERFORMANCE.md, twentieth session).
  if (g.tile.tma && !g.tile.small() && g.m > g.tile.m && device.sms >= 2) {
    DeviceInfo clusters = device;
    clusters.sms = device.sms / 2;
    const StreamKSchedule s =
        gemm_detail::choose_stream_k(g.m, g.n, g.k, g.groups, 2 * g.tile.m, g.tile.n, g.tile.k, clusters);
    if (s.sk_items > 0) g.stream_k = s, g.split = Split{}, g.tile.persistent = true, g.tile.cluster = 2;
  }
  if (plan.pad_channels) g.split.columns = {kp.c, pb.c};
  // An explicit im2col copy of X writes N*P*Q*R*S*C elements, the GEMM's FLOPs / 2K, and
  // gemm then reads them: with many filters, and a copy no larger than X (filters that do not
  // overlap, as in a patchify layer), it costs less than the TMA kernel's im2col boxes. H200,
  // us, TMA kernel -> copy and GEMM: ConvNeXt-T's 14x14x384->768 2x2/2 (copy = X) at N = 32
  // 19.8 -> 15.9, at N = 128 56.9 -> 45.7; ResNet-50's 3x3 layers of 512 filters (copies 2.25
  // and 9 times X) lost at N = 32 23.6 -> 28.1 (14x14x512/2) and 23.0 -> 26.5 (7x7x512), at N =
  // 128 65.1 -> 78.4 and 63.3 -> 74.9 (thirty-fourth session, since the producers' walks; they
  // had won by 4-10% before them). With 384 filters or fewer the copy lost even where it equals
  // X: 28x28x192->384 2x2/2 42.2 -> 59.5 (twenty-sixth session).
  if (g.tile.tma && device.wgrad_im2col && pb.groups == 1 && pb.k >= kWgradIm2colMinFilters &&
      (long long)pb.p() * pb.q() * pb.r * pb.s <= (long long)pb.h * pb.w) {
    const long long elements = (long long)g.k * g.n;  // B (N*P*Q, R*S*C): 32-bit indices, as tessel::gemm's
    if (elements < (1LL << 31)) {
      plan.im2col_gemm = true;
      plan.im2col_bytes = std::size_t(elements) * data_type_bytes(args.input_type);
      // Where gemm's 128x128 tiles fill the SMs and it shares them out as stream-K ranges
      // (ResNet-50's at N = 128: 144 tiles of 98 K tiles), clusters of two tiles along R*S*C
      // (in the kernel's view, M) share dY's boxes: 83.7, 83.4 -> 78.0, 78.7 us (14x14x512/2)
      // and 79.2, 79.8 -> 74.2, 74.4 (7x7x512). With fewer tiles they lost: ConvNeXt-T's
      // 14x14x384->768 (72 tiles) 45.3, 45.2 -> 46.9, 46.7 (H200, twenty-sixth session).
      const StreamKSchedule ranges = gemm_detail::choose_stream_k(pb.k, g.n, g.k, 1, 128, 128, 64, device);
      if (device.sms >= 2 && ranges.sk_items > 0 && ranges.items >= device.sms)
        plan.im2col_gemm_config = "sm90_128x128x64_s5_c2";
    }
  }
  return plan;
}

GemmArguments wgrad_im2col_gemm(const Conv2dWgradArguments& args, const WgradPlan& plan, const void* im2col) {
  GemmArguments g = wgrad_gemm(args, im2col);
  if (plan.im2col_gemm_config != nullptr) g.config = plan.im2col_gemm_config;
  return g;
}

}  // namespace tessel::conv_detail
