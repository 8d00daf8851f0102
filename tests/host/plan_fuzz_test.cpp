// The host-side planning of every entry point (validation, dgrad's stride phases, tile and
// kernel choice, split-K, the TMA maps' parameters) over random valid problems drawn from the
// whole input space (tests/common/random_problems.hpp), for random devices, built under
// AddressSanitizer and UBSan (a division by zero, an overflow or an out-of-range index fails
// the test). Each plan is also checked against what it must be: the GEMM extents of the
// definition, splits that leave no slice empty, dgrad's phases partitioning dX and each
// phase's taps those the definition gives, TMA maps that the encoder's documented rules accept
// and whose im2col walk visits exactly the output grid.
//   TESSEL_PLAN_FUZZ_SEED      the seed (default 20261123), printed with every failure
//   TESSEL_PLAN_FUZZ_PROBLEMS  problems per direction (default 100000)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>

#include "common/random_problems.hpp"
#include "conv/conv2d_plan.hpp"
#include "host/conv_test_util.hpp"
#include "gemm/gemm_plan.hpp"
#include "gemm/tile_configs_sm80.hpp"
#include "gemm/tile_configs_sm90.hpp"
#include "tessel/conv/space_to_depth.hpp"
#include "tessel/runtime/conv2d_problem_check.hpp"

namespace tessel {
namespace {

using testing::Rng;

using testing::env_or;
const std::uint64_t kSeed = env_or("TESSEL_PLAN_FUZZ_SEED", 20261123);
const int kProblems = int(env_or("TESSEL_PLAN_FUZZ_PROBLEMS", 100000));
const DeviceInfo kA100{.sms = 108, .cc_major = 8, .cc_minor = 0, .sm90_kernels = false, .tma_encoder = false,
                       .smem_per_block = 163 * 1024};

DeviceInfo random_device(Rng& rng) {
  DeviceInfo d;
  d.sms = testing::one_of(rng, {1, 2, 7, 46, 58, 108, 114, 132, 144, 1024});
  const int cc = testing::one_of(rng, {80, 86, 89, 90, 90, 90, 100, 120});
  d.cc_major = cc / 10, d.cc_minor = cc % 10;
  d.sm90_kernels = testing::chance(rng, 0.8);
  d.tma_encoder = d.wgmma() && testing::chance(rng, 0.9);
  d.stream_k = testing::chance(rng, 0.9);
  d.conv_as_gemm = testing::chance(rng, 0.8);
  d.packed_groups = testing::chance(rng, 0.8);
  d.wgrad_im2col = testing::chance(rng, 0.8);
  d.smem_per_block = (cc == 80 ? 163 : cc == 90 || cc == 100 ? 227 : 99) * 1024;  // opted-in, per block
  return d;
}
std::string describe(const DeviceInfo& d) {
  return std::to_string(d.sms) + " SMs, sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) + ", " +
         std::to_string(d.smem_per_block / 1024) + " KiB per block" +
         (d.sm90_kernels ? "" : ", TESSEL_DISABLE_SM90") + (d.tma_encoder ? "" : ", no TMA encoder") +
         (d.stream_k ? "" : ", TESSEL_DISABLE_STREAM_K") + (d.conv_as_gemm ? "" : ", TESSEL_DISABLE_CONV_AS_GEMM") +
         (d.packed_groups ? "" : ", TESSEL_DISABLE_PACKED_GROUPS") +
         (d.wgrad_im2col ? "" : ", TESSEL_DISABLE_WGRAD_IM2COL");
}

// A fake address (never dereferenced: planning only looks at alignment) in its own 64 GiB
// slot, so that no two tensors overlap, at an element offset that is sometimes not 16-byte
// aligned.
const void* address(Rng& rng, int slot, int element_bytes) {
  const std::uintptr_t base = std::uintptr_t(slot + 1) << 36;
  return reinterpret_cast<const void*>(base + std::uintptr_t(element_bytes) * testing::one_of(rng, {0, 0, 0, 1, 2, 4}));
}

// The split of a GEMM of k (its tile's K tiles): no slice empty, every K tile in one slice.
void check_split(const conv_detail::Split& s, long long k_tiles) {
  ASSERT_GE(s.splits, 1);
  if (s.splits == 1) return;
  EXPECT_LE(s.splits, 64);
  EXPECT_GE((long long)s.splits * s.k_tiles_per_split, k_tiles);
  EXPECT_LT((long long)(s.splits - 1) * s.k_tiles_per_split, k_tiles) << "an empty slice";
}

// The im2col walk of a map starts exactly out_q x out_p pixels per image.
void check_walk(const sm90::TmaMapParams& a, int out_p, int out_q) {
  const int out[2] = {out_q, out_p};
  for (int i = 0; i < 2; ++i) {
    const long long span = (long long)a.dims[1 + i] + a.upper[i] - a.lower[i];
    ASSERT_GE(span, 1);
    EXPECT_EQ((span - 1) / a.traversal[1 + i] + 1, out[i]) << "the walk along " << (i == 0 ? "w" : "h");
  }
}

// One implicit GEMM of a plan: (m, n) as given, k = k_definition (or on the TMA kernel, fprop
// and dgrad, each tap's channels rounded up to whole tiles: at least k_definition, whole tiles;
// wgrad's reduction over the pixels stays k_definition, its im2col walk in B).
void check_gemm(const conv_detail::ConvGemm& g, const DeviceInfo& device, const Conv2dProblem& pb, long long m,
                long long n, long long k_definition, int out_p, int out_q, bool wgrad = false) {
  EXPECT_EQ(g.m, m);
  EXPECT_EQ(g.n, n);
  // (256: fprop's and dgrad's 64-wide persistent TMA tiles)
  EXPECT_TRUE(g.tile.m == 64 || g.tile.m == 128 ||
              (g.tile.m == 256 && g.tile.n == 64 && g.tile.tma && g.tile.persistent && !wgrad))
      << g.tile.m;
  EXPECT_TRUE(g.tile.n == 64 || g.tile.n == 128) << g.tile.n;
  EXPECT_TRUE(g.tile.k == 32 || g.tile.k == 64) << g.tile.k;
  if (g.tile.wgmma) EXPECT_TRUE(device.wgmma());
  if (g.tile.persistent) EXPECT_TRUE(g.tile.tma);
  // The deep form: fprop's and dgrad's 128x128 TMA grids of at most one block per SM, and only those.
  const long long items =
      (g.m + g.tile.m - 1LL) / g.tile.m * ((g.n + g.tile.n - 1LL) / g.tile.n) * g.split.splits * g.groups;
  const bool one_wave = g.tile.tma && !g.tile.persistent && !wgrad && !g.tile.small() && items <= device.sms;
  EXPECT_EQ(g.tile.deep, one_wave) << items << " items";
  if (!g.tile.tma) {
    EXPECT_EQ(g.k, k_definition);
  } else {
    // (groups as batches: each group's channels, dgrad's phase: dY's, whole K tiles)
    EXPECT_TRUE(device.tma_encoder && g.tile.wgmma && (pb.groups == 1 || pb.channels_per_group() % g.tile.k == 0));
    EXPECT_EQ(g.tile.k, 64);
    EXPECT_EQ(sm90::tma_map_problem(g.tma.a), "");
    EXPECT_EQ(sm90::tma_map_problem(g.tma.b), "");
    if (wgrad) {  // A: dY as (K/G, N*P*Q, G); B: X's walk, whole 64-channel boxes
      EXPECT_EQ(g.k, k_definition);
      // persistent only to run stream-K: 128x128, unsplit, a valid schedule of every tile
      EXPECT_EQ(g.tile.persistent, g.stream_k.sk_items > 0);
      if (g.tile.persistent) {  // in clusters of two tile rows
        EXPECT_EQ(g.tile.m, 128);
        EXPECT_GT(g.m, 128);
        EXPECT_EQ(g.tile.cluster, 2);
        EXPECT_EQ(g.split.splits, 1);
        EXPECT_TRUE(g.stream_k.valid());
        EXPECT_EQ(g.stream_k.items, (g.m + 128LL * g.tile.cluster - 1) / (128 * g.tile.cluster) *
                                        ((g.n + 127LL) / 128) * g.groups);
        EXPECT_EQ(g.stream_k.k_tiles, (g.k + 63LL) / 64);
        EXPECT_LE(g.stream_k.blocks * g.tile.cluster, device.sms);
      } else {
        EXPECT_EQ(g.tile.cluster, 1);
      }
      EXPECT_EQ(g.tile.n, 128);
      EXPECT_EQ(pb.channels_per_group() % 64, 0);
      EXPECT_EQ(g.tma.a.dims[0], std::uint64_t(pb.filters_per_group()));
      EXPECT_EQ(g.tma.a.dims[1], std::uint64_t(k_definition));
      EXPECT_EQ(g.tma.a.dims[2], std::uint64_t(pb.groups));
      EXPECT_EQ(g.tma.a.strides[0], std::uint64_t(pb.k) * 2);  // a pixel's filters
      if (pb.groups > 1) EXPECT_EQ(g.tma.a.strides[1], std::uint64_t(pb.filters_per_group()) * 2);  // a group's
      EXPECT_TRUE(g.tma.b.im2col && g.tma.b.channels == 64 && g.tma.b.pixels == 64);
      check_walk(g.tma.b, out_p, out_q);
    } else {
      EXPECT_GE(g.k, k_definition);
      EXPECT_EQ(g.k % 64, 0);
      check_walk(g.tma.a, out_p, out_q);
    }
  }
  if (!wgrad || !g.tile.tma) EXPECT_EQ(g.stream_k.sk_items, 0);
  check_split(g.split, (g.k + g.tile.k - 1LL) / g.tile.k);
  if (g.m == 0 || g.n == 0) EXPECT_EQ(g.split.splits, 1);
}

// The direct kernels' plan: taken exactly for C = K and C/G in {1, 2, 4, 8} (wgrad: up to
// kDirectWgradMaxGroupWidth) with few enough weights a channel, wider groups only with 16-byte vectors (`aligned`: the tensors the kernel
// reads and writes); its grid covers every channel (and, in wgrad, every pixel in slices)
// within CUDA's limits.
bool check_depthwise(const conv_detail::DepthwisePlan& d, conv_detail::ConvDirection direction, const Conv2dProblem& pb,
                     bool aligned) {
  const int cg = pb.channels_per_group();
  const int widest = direction == conv_detail::ConvDirection::kWgrad ? conv_detail::kDirectWgradMaxGroupWidth : 8;
  const bool direct = pb.k == pb.c && (cg == 1 || cg == 2 || cg == 4 || cg == 8) && cg <= widest &&
                      pb.r * pb.s * cg <= kDepthwiseMaxTaps && (cg == 1 || (pb.c % 8 == 0 && aligned));
  if (!d.direct) {
    EXPECT_FALSE(direct && pb.c <= 65535) << "a depthwise or narrow-group layer on the GEMMs";
    return false;
  }
  EXPECT_TRUE(direct);
  EXPECT_EQ(d.cg, cg);
  // dgrad at stride 1 is an fprop over dY (P x Q) whose output is dX (H x W).
  const bool as_fprop = direction == conv_detail::ConvDirection::kDgrad && pb.stride_h == 1 && pb.stride_w == 1;
  EXPECT_EQ(d.as_fprop, as_fprop);
  if (as_fprop) {
    EXPECT_EQ(d.problem.h, pb.p());
    EXPECT_EQ(d.problem.w, pb.q());
    EXPECT_EQ(d.problem.p(), pb.h);
    EXPECT_EQ(d.problem.q(), pb.w);
    EXPECT_NE(d.problem.mode, pb.mode);
  } else {
    EXPECT_EQ(d.problem.h, pb.h);
    EXPECT_EQ(d.problem.pad_w, pb.pad_w);
  }
  EXPECT_EQ(d.strip, (direction == conv_detail::ConvDirection::kFprop || as_fprop) && depthwise_strip(d.problem) > 0);
  const bool slide = direction == conv_detail::ConvDirection::kWgrad && cg == 1 && pb.c % 8 == 0 && aligned &&
                     pb.stride_w == 1 && pb.dilation_w == 1 && (pb.s == 3 || pb.s == 5 || pb.s == 7);
  EXPECT_EQ(d.slide, slide);
  EXPECT_TRUE((d.vec == 1 && cg == 1) || (d.vec == 8 && pb.c % 8 == 0 && aligned && !slide) ||
              (slide && d.vec == slide_vec(pb.s)))
      << d.vec;
  const long long vectors = pb.c / d.vec;
  EXPECT_LE(d.vectors, 8);
  EXPECT_EQ(d.blocks_y, (vectors + 7) / 8) << "as few channel blocks as 8 vectors a block allow";
  EXPECT_GE((long long)d.blocks_y * d.vectors, vectors);
  EXPECT_LT((long long)d.blocks_y * (d.vectors - 1), vectors) << "a block's vectors could be fewer";
  EXPECT_LE(d.blocks_y, 65535);
  EXPECT_GE(d.blocks_x, 1);
  if (direction == conv_detail::ConvDirection::kWgrad) {
    const long long pixels = (long long)pb.n * pb.p() * pb.q(), taps = pb.r * pb.s;
    EXPECT_LE(taps * d.vectors, 1024) << "threads per block";
    // a slice: pixels, or (slide) pieces of rows of at least 2S columns, none empty
    const long long length = slide ? (pb.q() + d.row_pieces - 1) / d.row_pieces : 1;
    const long long units = slide ? (long long)pb.n * pb.p() * d.row_pieces : pixels;
    const long long per = slide ? d.pieces_per_slice : d.pixels_per_slice;
    EXPECT_GE((long long)d.slices * per, units);
    EXPECT_LT((long long)(d.slices - 1) * per, units) << "an empty slice";
    if (slide) {
      EXPECT_TRUE(d.row_pieces >= 1 && d.row_pieces <= 8) << d.row_pieces;
      EXPECT_TRUE(d.row_pieces == 1 || length >= 2 * pb.s) << "pieces of at least 2S columns";
      EXPECT_LT((d.row_pieces - 1) * length, pb.q()) << "an empty piece";
    } else {
      EXPECT_EQ(d.row_pieces, 1);
    }
    EXPECT_GE(d.slice_lanes, 1);
    EXPECT_EQ(d.row_taps, slide || (cg == 1 && pb.s >= kWgradRowTapsMin && pb.s <= kWgradRowTaps));
    EXPECT_LE(d.slice_lanes * (d.row_taps ? pb.r : taps) * d.vectors, 1024) << "threads per block";
    EXPECT_GE((long long)d.blocks_x * d.slice_lanes, d.slices);
    EXPECT_LT((long long)(d.blocks_x - 1) * d.slice_lanes, d.slices) << "an empty block";
    const long long per_slice = (d.row_taps ? pb.r : taps) * d.vectors;
    EXPECT_TRUE(d.slice_lanes == 1 || per_slice * d.slice_lanes <= (slide ? kSlideThreads : 256))
        << "lanes only where one slice's threads are few";
    EXPECT_EQ(d.workspace_bytes, std::size_t(d.blocks_x) * taps * pb.c * cg * sizeof(float));
  } else {
    EXPECT_EQ(d.workspace_bytes, 0u);
    EXPECT_FALSE(d.row_taps);
    EXPECT_EQ(d.blocks_per_sm, direct_blocks_per_sm(d.strip));
    // a thread's pixels (dgrad: dX's) or strips, at most kDirectUnitsPerThread, and no empty block
    const Conv2dProblem& f = d.problem;
    const long long columns = d.strip ? (f.q() + depthwise_strip(f) - 1) / depthwise_strip(f) : f.q();
    const long long units = direction == conv_detail::ConvDirection::kDgrad && !d.as_fprop
                                ? (long long)f.n * f.h * f.w
                                : (long long)f.n * f.p() * columns;
    const long long lanes = kDepthwiseThreads / d.vectors, rows = (units + lanes - 1) / lanes;
    EXPECT_LE(d.blocks_x, rows) << "an empty block";
    EXPECT_LE((rows + d.blocks_x - 1) / d.blocks_x, conv_detail::kDirectUnitsPerThread);
  }
  return true;
}

bool aligned16(std::initializer_list<const void*> pointers) {
  for (const void* p : pointers)
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) return false;
  return true;
}

// Groups packed into blocks of 64 channels (conv/packed_groups.hpp): taken exactly for C = K a
// multiple of 64 in groups of 8 to 32 channels (wgrad: 4 to 16), with
// `aligned` tensors and the block-diagonal filter within the tensor limit; the layer then
// planned is the same one in C/64 groups, valid, and never packed again.
bool check_packed_groups(bool packed, const Conv2dProblem& layer, conv_detail::ConvDirection direction,
                         const Conv2dProblem& pb, bool aligned, const DeviceInfo& device) {
  const int cg = pb.channels_per_group();
  const bool wgrad = direction == conv_detail::ConvDirection::kWgrad;
  const bool packs = device.packed_groups && aligned && pb.groups > 1 && pb.c == pb.k && pb.c % 64 == 0 &&
                     ((cg == 4 && wgrad) || cg == 8 || cg == 16 || (cg == 32 && !wgrad)) &&
                     (long long)pb.k * pb.r * pb.s * 64 <= kMaxConvTensorElements;
  EXPECT_EQ(packed, packs);
  if (!packed) return false;
  Conv2dProblem expected = pb;
  expected.groups = pb.c / 64;
  EXPECT_EQ(testing::describe(layer), testing::describe(expected));
  EXPECT_TRUE(validate(layer).ok()) << validate(layer).message();
  EXPECT_FALSE(conv_detail::packs_groups(direction, layer, true, device));
  return true;
}

// The taps r' (stored or flipped) that reach phase ph of one dimension, by the definition:
// h = ph + i*stride is reached by tap r' when h + pad - r'*dilation is a multiple of stride.
int taps_by_definition(int ph, int pad, int stride, int dilation, int taps) {
  int count = 0;
  for (int r = 0; r < taps; ++r) {
    const long long reach = (long long)ph + pad - (long long)r * dilation;
    if (((reach % stride) + stride) % stride == 0) ++count;
  }
  return count;
}

// conv2d_plan.hpp's rule for the space-to-depth form: an ungrouped strided layer without
// dilation whose form is valid and has a shorter reduction than its channels padded to 8.
bool space_to_depth_shortens(const Conv2dProblem& pb) {
  if (pb.groups != 1 || pb.dilation_h != 1 || pb.dilation_w != 1 || (pb.stride_h == 1 && pb.stride_w == 1)) return false;
  const Conv2dProblem s = space_to_depth_problem(pb);
  return (long long)s.r * s.s * s.c < (long long)pb.r * pb.s * ((pb.c + 7) / 8 * 8) && validate(s).ok();
}

// conv2d_plan.hpp's *_as_gemm: exactly the ungrouped 1x1 layers with stride 1 and no padding
// (where the device allows it), as a GEMM that validates.
void check_as_gemm(bool as_gemm, const GemmArguments& g, const Conv2dProblem& pb, const DeviceInfo& device) {
  EXPECT_EQ(as_gemm, device.conv_as_gemm && pb.groups == 1 && pb.r == 1 && pb.s == 1 && pb.stride_h == 1 &&
                         pb.stride_w == 1 && pb.pad_h == 0 && pb.pad_w == 0);
  if (as_gemm) EXPECT_TRUE(validate(g).ok()) << validate(g).message();
}

void check_fprop(Rng& rng, const Conv2dProblem& pb, const DeviceInfo& device) {
  Conv2dArguments args;
  args.problem = pb;
  args.input_type = DataType(testing::uniform(rng, 0, 1));
  args.output_type = DataType(testing::uniform(rng, 0, 2));
  const int ob = data_type_bytes(args.output_type);
  args.x = address(rng, 0, 2), args.w = address(rng, 1, 2), args.y = const_cast<void*>(address(rng, 2, ob));
  if (testing::chance(rng, 0.3)) args.bias = address(rng, 3, ob);
  ASSERT_TRUE(validate(args).ok()) << validate(args).message();
  GemmArguments g;
  check_as_gemm(conv_detail::fprop_as_gemm(args, device, &g), g, pb, device);
  const conv_detail::FpropPlan plan = conv_detail::plan_fprop(args, device);
  if (check_packed_groups(plan.packed_groups, plan.problem, conv_detail::ConvDirection::kFprop, pb, aligned16({args.x}),
                          device)) {
    EXPECT_EQ(plan.w_copy_bytes, std::size_t(pb.k) * pb.r * pb.s * 64 * data_type_bytes(args.input_type));
    return;
  }
  if (check_depthwise(plan.depthwise, conv_detail::ConvDirection::kFprop, pb, aligned16({args.x, args.y})))
    return;
  const Conv2dProblem& kp = plan.problem;
  EXPECT_TRUE(validate(kp).ok());
  const int ib = data_type_bytes(args.input_type);
  EXPECT_FALSE(plan.pad_channels && plan.space_to_depth);
  if (plan.pad_channels) {
    EXPECT_EQ(pb.groups, 1);
    EXPECT_EQ(kp.c % 8, 0);
    EXPECT_EQ(plan.x_copy_bytes, std::size_t(pb.n) * pb.h * pb.w * kp.c * ib);
  }
  // Space-to-depth exactly where the layer needs copies and it shortens the reduction.
  if (plan.pad_channels || plan.space_to_depth) EXPECT_EQ(plan.space_to_depth, space_to_depth_shortens(pb));
  if (plan.space_to_depth) {
    EXPECT_NE(pb.c % 8, 0);  // never shorter with whole vectors of channels
    const Conv2dProblem s = space_to_depth_problem(pb);
    EXPECT_TRUE(kp.n == s.n && kp.h == s.h && kp.w == s.w && kp.c == s.c && kp.k == s.k && kp.r == s.r && kp.s == s.s);
    EXPECT_EQ(kp.p(), pb.p());
    EXPECT_EQ(kp.q(), pb.q());
    EXPECT_EQ(plan.x_copy_bytes, std::size_t(kp.n) * kp.h * kp.w * kp.c * ib);
    EXPECT_EQ(plan.w_copy_bytes, std::size_t(kp.k) * kp.r * kp.s * kp.c * ib);
    EXPECT_FALSE(plan.narrow);
  }
  check_gemm(plan.gemm, device, kp, (long long)pb.n * pb.p() * pb.q(), kp.filters_per_group(),
             (long long)kp.r * kp.s * kp.channels_per_group(), pb.p(), pb.q());
}

// DgradPlan::one_launch is taken exactly where it may be: 2 to kDgradTmaMaxPhases phases, every
// phase with taps on the TMA kernel with one tile, and no split of the launch that holds them
// all; that launch's GEMM then covers each phase's (the most rows and K of a phase).
void check_dgrad_one_launch(const conv_detail::DgradPlan& plan, const DeviceInfo& device) {
  const int phases = int(plan.phases.size());
  bool fits = phases >= 2 && phases <= kDgradTmaMaxPhases, any_taps = false;
  sm80::ConvTile tile{};
  long long m = 0, k = 0;
  for (const conv_detail::DgradPhasePlan& pl : plan.phases) {
    m = std::max<long long>(m, pl.gemm.m);
    if (pl.phase.taps_r == 0 || pl.phase.taps_s == 0) continue;
    if (!pl.gemm.tile.tma || (any_taps && (pl.gemm.tile.m != tile.m || pl.gemm.tile.n != tile.n))) fits = false;
    if (!any_taps) tile = pl.gemm.tile;
    any_taps = true;
    k = std::max<long long>(k, pl.gemm.k);
  }
  fits = fits && any_taps && plan.filter.groups == 1;  // (groups: a launch per phase, the groups its batches)
  if (!fits) {
    EXPECT_FALSE(plan.one_launch);
    return;
  }
  const conv_detail::Split split = conv_detail::choose_split(int(m), plan.phases[0].gemm.n, int(k), tile, device.sms, phases);
  EXPECT_EQ(plan.one_launch, !split.partials());
  if (!plan.one_launch) return;
  const conv_detail::ConvGemm& g = plan.one_launch_gemm;
  EXPECT_EQ(g.m, m);
  EXPECT_EQ(g.n, plan.phases[0].gemm.n);
  EXPECT_EQ(g.k, k);
  EXPECT_EQ(g.groups, phases);
  EXPECT_TRUE(g.tile.tma && g.tile.m == tile.m && g.tile.n == tile.n);
  EXPECT_FALSE(g.split.partials());
}

void check_dgrad(Rng& rng, const Conv2dProblem& pb, const DeviceInfo& device) {
  Conv2dDgradArguments args;
  args.problem = pb;
  args.input_type = DataType(testing::uniform(rng, 0, 1));
  args.output_type = DataType(testing::uniform(rng, 0, 2));
  const int ob = data_type_bytes(args.output_type);
  args.dy = address(rng, 0, 2), args.w = address(rng, 1, 2), args.dx = const_cast<void*>(address(rng, 2, ob));
  if (dgrad_phases_with_rows(pb) > kMaxDgradPhases) {  // refused with a message, not planned
    EXPECT_EQ(validate(args).code(), StatusCode::kNotSupported);
    return;
  }
  ASSERT_TRUE(validate(args).ok()) << validate(args).message();
  GemmArguments g;
  check_as_gemm(conv_detail::dgrad_as_gemm(args, device, &g), g, pb, device);
  const conv_detail::DgradPlan plan = conv_detail::plan_dgrad(args, device);
  if (check_packed_groups(plan.packed_groups, plan.filter, conv_detail::ConvDirection::kDgrad, pb,
                          aligned16({args.dy}), device)) {
    EXPECT_EQ(plan.w_copy_bytes, std::size_t(pb.k) * pb.r * pb.s * 64 * data_type_bytes(args.input_type));
    return;
  }
  if (check_depthwise(plan.depthwise, conv_detail::ConvDirection::kDgrad, pb, aligned16({args.dy, args.dx})))
    return;
  // Space-to-depth where dY allows 16-byte loads, W does not, and the form shortens the
  // reduction: then the stride-1 dgrad of the copies runs (one phase, fp32 dX') instead.
  const bool dy_wide = pb.filters_per_group() % 8 == 0 && pb.k % 8 == 0 && aligned16({args.dy});
  const bool w_wide = pb.channels_per_group() % 8 == 0 && aligned16({args.w});
  EXPECT_EQ(plan.space_to_depth, dy_wide && !w_wide && space_to_depth_shortens(pb));
  if (plan.space_to_depth) {
    const Conv2dProblem& s = plan.space_to_depth_problem;
    EXPECT_EQ(plan.dx_copy_bytes, std::size_t(s.n) * s.h * s.w * s.c * 4);
    EXPECT_EQ(plan.w_copy_bytes, std::size_t(s.k) * s.r * s.s * s.c * data_type_bytes(args.input_type));
    Conv2dDgradArguments copy;
    copy.problem = s, copy.input_type = args.input_type, copy.output_type = DataType::kF32;
    copy.dy = args.dy, copy.w = address(rng, 3, 0), copy.dx = const_cast<void*>(address(rng, 4, 0));
    ASSERT_TRUE(validate(copy).ok()) << validate(copy).message();
    const conv_detail::DgradPlan inner = conv_detail::plan_dgrad(copy, device);
    EXPECT_FALSE(inner.space_to_depth);
    if (!inner.depthwise.direct) {  // (C' = K <= 8 may take the direct kernel)
      EXPECT_FALSE(inner.narrow);
      EXPECT_EQ(inner.phases.size(), 1u);
    }
    return;
  }
  // Every pixel of dX lies in exactly one phase that has rows.
  const long long phases_h = std::min(pb.stride_h, pb.h), phases_w = std::min(pb.stride_w, pb.w);
  ASSERT_EQ((long long)plan.phases.size(), phases_h * phases_w);
  long long pixels = 0;
  std::size_t workspace = 0;
  const bool flipped = pb.mode == ConvMode::kConvolution;
  for (const conv_detail::DgradPhasePlan& pl : plan.phases) {
    const DgradPhase& ph = pl.phase;
    SCOPED_TRACE("phase (" + std::to_string(ph.ph) + ", " + std::to_string(ph.pw) + ")");
    ASSERT_GE(ph.rows, 1);
    ASSERT_GE(ph.cols, 1);
    EXPECT_EQ(ph.rows, (pb.h - ph.ph + pb.stride_h - 1) / pb.stride_h);
    EXPECT_EQ(ph.cols, (pb.w - ph.pw + pb.stride_w - 1) / pb.stride_w);
    pixels += (long long)ph.rows * ph.cols;
    if (pb.r * plan.phases.size() <= 100000)  // (the definition's walk is quadratic)
      EXPECT_EQ(ph.taps_r, taps_by_definition(ph.ph, pb.pad_h, pb.stride_h, pb.dilation_h, pb.r));
    if (pb.s * plan.phases.size() <= 100000)
      EXPECT_EQ(ph.taps_s, taps_by_definition(ph.pw, pb.pad_w, pb.stride_w, pb.dilation_w, pb.s));
    for (int t = 0; t < ph.taps_r; ++t) {  // the stored filter rows it walks stay inside R
      const long long r = ph.r_first + (long long)t * ph.r_step;
      ASSERT_TRUE(r >= 0 && r < pb.r) << "tap " << t << " reads filter row " << r << (flipped ? " (flipped)" : "");
    }
    check_gemm(pl.gemm, device, ph.fprop, (long long)pb.n * ph.rows * ph.cols, pb.channels_per_group(),
               (long long)ph.taps_r * ph.taps_s * pb.filters_per_group(), ph.rows, ph.cols);
    workspace = std::max(workspace, pl.gemm.workspace_bytes());
  }
  EXPECT_EQ(pixels, (long long)pb.h * pb.w);
  check_dgrad_one_launch(plan, device);
  EXPECT_EQ(plan.workspace_bytes, plan.one_launch ? 0 : workspace);
}

void check_wgrad(Rng& rng, const Conv2dProblem& pb, const DeviceInfo& device) {
  Conv2dWgradArguments args;
  args.problem = pb;
  args.input_type = DataType(testing::uniform(rng, 0, 1));
  args.output_type = DataType(testing::uniform(rng, 0, 2));
  const int ob = data_type_bytes(args.output_type);
  args.dy = address(rng, 0, 2), args.x = address(rng, 1, 2), args.dw = const_cast<void*>(address(rng, 2, ob));
  ASSERT_TRUE(validate(args).ok()) << validate(args).message();
  GemmArguments g;
  check_as_gemm(conv_detail::wgrad_as_gemm(args, device, &g), g, pb, device);
  const conv_detail::WgradPlan plan = conv_detail::plan_wgrad(args, device);
  if (check_packed_groups(plan.packed_groups, plan.problem, conv_detail::ConvDirection::kWgrad, pb,
                          aligned16({args.dy, args.x}), device)) {
    // the layer of 64-channel groups as planned unpacked, its reduction keeping each filter's
    // own channels of every tap's 64
    Conv2dWgradArguments packed = args;
    packed.problem = plan.problem;
    const conv_detail::WgradPlan unpacked = conv_detail::plan_wgrad(packed, device);
    EXPECT_FALSE(unpacked.packed_groups);
    EXPECT_EQ(plan.gemm.m, 64);
    EXPECT_EQ(plan.gemm.n, unpacked.gemm.n);
    EXPECT_EQ(plan.gemm.groups, pb.c / 64);
    EXPECT_EQ(plan.gemm.split.splits, unpacked.gemm.split.splits);
    EXPECT_EQ(plan.gemm.split.columns.block, 64);
    EXPECT_EQ(plan.gemm.split.columns.keep, pb.channels_per_group());
    EXPECT_EQ(plan.gemm.split.columns.rows_per_run, pb.channels_per_group());
    EXPECT_TRUE(plan.gemm.split.partials());
    return;
  }
  if (check_depthwise(plan.depthwise, conv_detail::ConvDirection::kWgrad, pb, aligned16({args.dy, args.x})))
    return;
  // Space-to-depth where dY allows 16-byte loads, X does not, and the form shortens the
  // reduction: then the stride-1 wgrad of the copies runs (fp32 dW') instead.
  const bool dy_wide = pb.filters_per_group() % 8 == 0 && pb.k % 8 == 0 && aligned16({args.dy});
  const bool x_wide = pb.channels_per_group() % 8 == 0 && pb.c % 8 == 0 && aligned16({args.x});
  EXPECT_EQ(plan.space_to_depth, dy_wide && !x_wide && space_to_depth_shortens(pb));
  if (plan.space_to_depth) {
    const Conv2dProblem& s = plan.space_to_depth_problem;
    EXPECT_EQ(plan.x_copy_bytes, std::size_t(s.n) * s.h * s.w * s.c * data_type_bytes(args.input_type));
    EXPECT_EQ(plan.dw_copy_bytes, std::size_t(s.k) * s.r * s.s * s.c * 4);
    Conv2dWgradArguments copy;
    copy.problem = s, copy.input_type = args.input_type, copy.output_type = DataType::kF32;
    copy.dy = args.dy, copy.x = address(rng, 3, 0), copy.dw = const_cast<void*>(address(rng, 4, 0));
    ASSERT_TRUE(validate(copy).ok()) << validate(copy).message();
    const conv_detail::WgradPlan inner = conv_detail::plan_wgrad(copy, device);
    EXPECT_FALSE(inner.space_to_depth);
    EXPECT_FALSE(inner.pad_channels);
    if (!inner.depthwise.direct) EXPECT_FALSE(inner.narrow);
    return;
  }
  const Conv2dProblem& kp = plan.problem;
  check_gemm(plan.gemm, device, kp, pb.filters_per_group(), (long long)kp.r * kp.s * kp.channels_per_group(),
             (long long)pb.n * pb.p() * pb.q(), pb.p(), pb.q(), true);
  // The TMA kernel takes every layer but 1x1 ones that it can on a device that has it;
  // ResNet-like geometry (strides up to 2, pads up to 3, taps up to 7 wide) it always can.
  const bool tma_fits = device.wgmma() && device.tma_encoder && pb.channels_per_group() % 64 == 0 &&
                        pb.filters_per_group() % 8 == 0 && pb.k % 8 == 0 && pb.groups <= 1023 && !plan.pad_channels &&
                        pb.r * pb.s > 1 && aligned16({args.dy, args.x});
  if (!tma_fits) EXPECT_FALSE(plan.gemm.tile.tma);
  if (tma_fits && pb.stride_h <= 2 && pb.stride_w <= 2 && pb.pad_h <= 3 && pb.pad_w <= 3 &&
      (pb.r - 1) * pb.dilation_h <= 6 && (pb.s - 1) * pb.dilation_w <= 6)
    EXPECT_TRUE(plan.gemm.tile.tma);
  if (plan.pad_channels) {
    EXPECT_EQ(plan.gemm.split.columns.block, kp.c);
    EXPECT_EQ(plan.gemm.split.columns.keep, pb.c);
    EXPECT_GT(plan.gemm.workspace_bytes(), 0u);
  }
  // The explicit im2col copy replaces the TMA kernel for ungrouped layers of at least 512
  // filters whose copy B (N*P*Q, R*S*C) is no larger than X (N*H*W*C) and has fewer than 2^31
  // elements; its GEMM is valid.
  const long long npq = (long long)pb.n * pb.p() * pb.q(), crs = (long long)pb.r * pb.s * pb.c, b_elements = npq * crs;
  EXPECT_EQ(plan.im2col_gemm, plan.gemm.tile.tma && device.wgrad_im2col && pb.groups == 1 &&
                                  pb.k >= conv_detail::kWgradIm2colMinFilters &&
                                  b_elements <= (long long)pb.n * pb.h * pb.w * pb.c && b_elements < (1LL << 31));
  // Clusters of two where gemm's 128x128 tiles fill the SMs as stream-K ranges.
  bool clusters = false;
  if (plan.im2col_gemm) {  // then N*P*Q and R*S*C fit an int
    const StreamKSchedule ranges = gemm_detail::choose_stream_k(pb.k, int(crs), int(npq), 1, 128, 128, 64, device);
    clusters = device.sms >= 2 && ranges.sk_items > 0 && ranges.items >= device.sms;
  }
  EXPECT_EQ(plan.im2col_gemm_config != nullptr, clusters);
  if (plan.im2col_gemm) {
    EXPECT_EQ(plan.im2col_bytes, std::size_t(b_elements) * data_type_bytes(args.input_type));
    const GemmArguments gemm = conv_detail::wgrad_im2col_gemm(args, plan, address(rng, 3, 0));
    EXPECT_TRUE(validate(gemm).ok()) << validate(gemm).message();
    EXPECT_EQ(gemm.config, clusters ? "sm90_128x128x64_s5_c2" : "");
    gemm_detail::Choice choice;
    const Status s = gemm_detail::choose(gemm, device, &choice);  // the device runs it
    EXPECT_TRUE(s.ok()) << s.message();
  }
}

TEST(PlanFuzz, ConvAllDirections) {
  std::printf("seed %llu (TESSEL_PLAN_FUZZ_SEED), %d problems per direction\n", (unsigned long long)kSeed,
              kProblems);
  Rng rng(kSeed);
  for (int i = 0; i < kProblems; ++i) {
    const Conv2dProblem pb = testing::random_conv_problem(rng, testing::Scale::kHuge);
    const DeviceInfo device = random_device(rng);
    SCOPED_TRACE("problem " + std::to_string(i) + " of seed " + std::to_string(kSeed) + ": " + testing::describe(pb) +
                 " on " + describe(device));
    check_fprop(rng, pb, device);
    check_dgrad(rng, pb, device);
    check_wgrad(rng, pb, device);
    if (HasFailure()) return;
  }
}

// D of a GEMM's arguments by its definition, over integer operands at its pointers: A (M, K)
// and B (K, N) by their layouts and leading dimensions, D row-major (bias, C and the
// activation are the conv's own, checked on the GPU).
std::vector<long long> gemm_by_definition(const GemmArguments& g) {
  const long long* a = static_cast<const long long*>(g.a);
  const long long* b = static_cast<const long long*>(g.b);
  std::vector<long long> d(std::size_t(g.m) * g.n, 0);
  for (int m = 0; m < g.m; ++m)
    for (int n = 0; n < g.n; ++n)
      for (int k = 0; k < g.k; ++k)
        d[std::size_t(m) * g.n + n] += a[g.a_layout == MatrixLayout::kRowMajor ? m * g.lda + k : m + k * g.lda] *
                                       b[g.b_layout == MatrixLayout::kRowMajor ? k * g.ldb + n : k + n * g.ldb];
  return d;
}

// The GEMM each direction of a 1x1 layer runs is that direction by its definition (exact, in
// integers): fprop's Y, dgrad's dX and wgrad's dW from the terms of the convolution.
TEST(ConvAsGemm, OneByOneLayersAreTheirGemms) {
  Rng rng(kSeed + 2);
  for (int i = 0; i < 200; ++i) {
    Conv2dProblem pb;
    pb.n = testing::uniform(rng, 1, 3), pb.h = testing::uniform(rng, 1, 6), pb.w = testing::uniform(rng, 1, 6);
    pb.c = testing::uniform(rng, 1, 12), pb.k = testing::uniform(rng, 1, 12);
    pb.dilation_h = testing::uniform(rng, 1, 3);  // no effect on a 1x1 filter
    SCOPED_TRACE(conv_test::describe(pb));
    const conv_test::Tensors t = conv_test::random_tensors(pb, std::uint32_t(i));
    std::vector<long long> y(t.dy.size(), 0), dx(t.x.size(), 0), dw(t.f.size(), 0);
    conv_test::for_each_term(pb, [&](int n, int p, int q, int k, int, int, int c, int h, int w) {
      const std::size_t xi = ((std::size_t(n) * pb.h + h) * pb.w + w) * pb.c + c;
      const std::size_t yi = ((std::size_t(n) * pb.p() + p) * pb.q() + q) * pb.k + k;
      const std::size_t wi = std::size_t(k) * pb.c + c;
      y[yi] += t.x[xi] * t.f[wi];
      dx[xi] += t.dy[yi] * t.f[wi];
      dw[wi] += t.dy[yi] * t.x[xi];
    });
    Conv2dArguments f;
    f.problem = pb, f.x = t.x.data(), f.w = t.f.data(), f.y = y.data();
    Conv2dDgradArguments d;
    d.problem = pb, d.dy = t.dy.data(), d.w = t.f.data(), d.dx = dx.data();
    Conv2dWgradArguments w;
    w.problem = pb, w.dy = t.dy.data(), w.x = t.x.data(), w.dw = dw.data();
    GemmArguments g;
    ASSERT_TRUE(conv_detail::fprop_as_gemm(f, DeviceInfo{}, &g));
    EXPECT_EQ(gemm_by_definition(g), y);
    EXPECT_EQ(g.d, f.y);
    ASSERT_TRUE(conv_detail::dgrad_as_gemm(d, DeviceInfo{}, &g));
    EXPECT_EQ(gemm_by_definition(g), dx);
    EXPECT_EQ(g.d, d.dx);
    ASSERT_TRUE(conv_detail::wgrad_as_gemm(w, DeviceInfo{}, &g));
    EXPECT_EQ(gemm_by_definition(g), dw);
    EXPECT_EQ(g.d, w.dw);
    EXPECT_EQ(g.bias, nullptr);
  }
}

TEST(PlanFuzz, Gemm) {
  Rng rng(kSeed + 1);
  int planned = 0;
  while (planned < kProblems) {
    GemmArguments g = testing::random_gemm_shape(rng, testing::Scale::kHuge);
    const int ib = data_type_bytes(g.input_type), ob = data_type_bytes(g.output_type);
    g.a = address(rng, 0, ib), g.b = address(rng, 1, ib), g.d = const_cast<void*>(address(rng, 2, ob));
    g.c = g.ldc == g.ldd && g.c_batch_stride == g.d_batch_stride && testing::chance(rng, 0.5) ? g.d
                                                                                               : address(rng, 3, ob);
    if (g.bias != nullptr) g.bias = address(rng, 4, ob);
    if (!validate(g).ok()) continue;  // the shape's matrices past 2^31 elements: drawn again
    ++planned;
    const DeviceInfo device = random_device(rng);
    SCOPED_TRACE("gemm of seed " + std::to_string(kSeed + 1) + ": " + testing::describe(g) + " on " +
                 describe(device));
    // A third of the problems force a configuration of either kernel: it is planned, or
    // refused with a reason (an sm90 one without wgmma, a 16-byte one for a narrow problem).
    if (testing::chance(rng, 0.3)) {
      const std::vector<std::string> names = gemm_config_names();
      g.config = names[testing::uniform(rng, 0, int(names.size()) - 1)];
    }
    gemm_detail::Choice ch;
    if (Status s = gemm_detail::choose(g, device, &ch); !s) {
      EXPECT_FALSE(g.config.empty()) << s.message();
      EXPECT_EQ(s.code(), StatusCode::kNotSupported) << s.message();
      EXPECT_NE(s.message().find(g.config), std::string::npos) << s.message();
      continue;
    }
    if (!g.config.empty()) EXPECT_EQ(gemm_detail::describe(ch).config, g.config);
    EXPECT_EQ(ch.problem.swapped, g.d_layout == MatrixLayout::kColumnMajor);
    EXPECT_EQ(ch.problem.m, ch.problem.swapped ? g.n : g.m);
    int tile_k = 0;
    if (ch.kernel == gemm_detail::GemmKernel::kSm90Tma) {
      ASSERT_TRUE(device.wgmma() && device.tma_encoder);
      ASSERT_GE(ch.sm90.config, 0);
      ASSERT_LT(ch.sm90.config, sm90::kNumTmaTileConfigs);
      const sm90::TmaTileConfigInfo& c = sm90::kTmaTileConfigs[ch.sm90.config];
      tile_k = c.tile_k;
      EXPECT_LE(c.smem_bytes(), device.smem_per_block);
      // With clusters the schedule's items are pairs of tile rows and its blocks clusters.
      const int tile_m = c.tile_m * c.cluster_m, clusters = device.sms / c.cluster_m;
      if (const StreamKSchedule& sk = ch.sm90.stream_k; sk.sk_items > 0) {
        EXPECT_TRUE(device.stream_k);
        EXPECT_EQ(ch.splits, 1) << "stream-K or split-K, not both";
        EXPECT_TRUE(sk.valid());
        EXPECT_LE(sk.blocks, clusters);
        EXPECT_EQ(sk.items,
                  ((ch.problem.m + tile_m - 1LL) / tile_m) * ((ch.problem.n + c.tile_n - 1LL) / c.tile_n) * g.batch);
        EXPECT_EQ(sk.k_tiles, (ch.problem.k + c.tile_k - 1) / c.tile_k);
        if (sk.splits > 1) {
          EXPECT_LT(sk.items, clusters);
          EXPECT_GE(3 * sk.items, clusters);
          EXPECT_GE(sk.k_tiles, 8 * sk.splits) << "slices of at least 8 K tiles";
        } else {
          EXPECT_GE(sk.sk_iterations(), 4LL * sk.blocks) << "ranges of at least 4 K tiles";
          EXPECT_EQ(sk.blocks, clusters);
        }
      }
      if (ch.problem.k > 0) {  // each map is valid and covers its operand: (K, MN) or (MN, K)
        const gemm_detail::OperandView* views[2] = {&ch.problem.a, &ch.problem.b};
        const sm90::TmaMapParams* maps[2] = {&ch.sm90.a, &ch.sm90.b};
        const gemm_detail::StagedOperand* staged[2] = {&ch.a_staged, &ch.b_staged};
        const int tiles_mn[2] = {c.tile_m, c.tile_n / c.cluster_m};  // B in halves with clusters
        for (int i = 0; i < 2; ++i) {
          const bool k_major = views[i]->major == Major::kK;
          EXPECT_EQ(sm90::tma_map_problem(*maps[i]), "");
          EXPECT_EQ(maps[i]->dims[0], std::uint64_t(k_major ? ch.problem.k : views[i]->mn));
          EXPECT_EQ(maps[i]->dims[1], std::uint64_t(k_major ? views[i]->mn : ch.problem.k));
          EXPECT_EQ(maps[i]->box[1], std::uint32_t(k_major ? tiles_mn[i] : 64));
          if (staged[i]->on) {  // the copy: 16-byte rows holding the contiguous extent
            EXPECT_EQ(maps[i]->strides[0], std::uint64_t(staged[i]->ld) * 2);
            EXPECT_EQ(staged[i]->ld % 8, 0);
            EXPECT_GE(staged[i]->ld, std::int64_t(maps[i]->dims[0]));
            EXPECT_LE(staged[i]->bytes(), std::int64_t(1) << 31);
          } else {
            EXPECT_EQ(maps[i]->strides[0], std::uint64_t(views[i]->ld) * 2);
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(views[i]->ptr) % 16, 0u);
          }
        }
      }
    } else {
      ASSERT_GE(ch.sm80.config, 0);
      ASSERT_LT(ch.sm80.config, sm80::kNumTileConfigs);
      const sm80::TileConfigInfo& c = sm80::kTileConfigs[ch.sm80.config];
      tile_k = c.tile_k;
      EXPECT_LE(c.smem_bytes(), device.smem_per_block);
      // The access is compiled and every vector of it lies aligned, wholly inside or outside
      // each operand as the kernel reads it (its staged copy where staged).
      const int access = ch.sm80.access;
      EXPECT_TRUE(access == 8 || std::find(std::begin(sm80::kNarrowAccesses), std::end(sm80::kNarrowAccesses),
                                           access) != std::end(sm80::kNarrowAccesses))
          << access;
      if (access != 8) EXPECT_STREQ(c.name, sm80::kNarrowTileConfig.name);
      const gemm_detail::StagedOperand* staged[2] = {&ch.a_staged, &ch.b_staged};
      const gemm_detail::OperandView* views[2] = {&ch.problem.a, &ch.problem.b};
      for (int i = 0; i < 2 && ch.problem.k > 0; ++i) {
        const int contiguous = views[i]->major == Major::kK ? ch.problem.k : views[i]->mn;
        if (staged[i]->on) {
          EXPECT_EQ(staged[i]->ld % 8, 0);
          EXPECT_GE(staged[i]->ld, contiguous);
          EXPECT_GE(staged[i]->rows, staged[i]->strided);
          EXPECT_EQ(staged[i]->batch_stride, staged[i]->ld * staged[i]->rows);
          EXPECT_LE(staged[i]->bytes(), std::int64_t(1) << 31);
          continue;
        }
        EXPECT_EQ(contiguous % access, 0);
        EXPECT_EQ(views[i]->ld % access, 0);
        if (g.batch > 1) EXPECT_EQ(views[i]->batch_stride % access, 0);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(views[i]->ptr) % (2 * access), 0u);
      }
      // The interior variant reads whole tiles unpredicated: of each staged copy (whole tiles of
      // rows and of its contiguous extent, zeros past the operand), or of the operand itself.
      const int tile_mn[2] = {c.tile_m, c.tile_n}, mn[2] = {ch.problem.m, ch.problem.n};
      for (int i = 0; i < 2 && !ch.sm80.edges; ++i) {
        if (staged[i]->on) {
          const bool k_major = views[i]->major == Major::kK;
          EXPECT_EQ(staged[i]->ld % (k_major ? c.tile_k : tile_mn[i]), 0);
          EXPECT_EQ(staged[i]->rows % (k_major ? tile_mn[i] : c.tile_k), 0);
        } else {
          EXPECT_TRUE(mn[i] % tile_mn[i] == 0 && ch.problem.k % c.tile_k == 0) << "operand " << i;
        }
      }
    }
    const long long k_tiles = (ch.problem.k + tile_k - 1LL) / tile_k;
    ASSERT_GE(ch.splits, 1);
    if (ch.splits > 1) {
      EXPECT_LE((long long)ch.splits * g.batch, 65535);
      EXPECT_GE((long long)ch.splits * ch.k_tiles_per_split, k_tiles);
      EXPECT_LT((long long)(ch.splits - 1) * ch.k_tiles_per_split, k_tiles) << "an empty slice";
      EXPECT_TRUE(g.m > 0 && g.n > 0);
    }
    EXPECT_FALSE(gemm_detail::describe(ch).config.empty());
    if (HasFailure()) return;
  }
}

// The problems that crashed dgrad (issue 11): an image smaller than the stride leaves phases
// without rows; each plans only the phases that have rows, and they cover dX.
TEST(PlanDgrad, ImageSmallerThanTheStride) {
  Rng rng(kSeed);
  for (const Conv2dProblem& pb : testing::image_smaller_than_stride_problems()) {
    SCOPED_TRACE(testing::describe(pb));
    ASSERT_TRUE(validate(pb).ok());
    for (const DeviceInfo device : {DeviceInfo{}, kA100}) check_dgrad(rng, pb, device);
  }
}

// Strided dgrad on an H100: ResNet-50's stride-2 layers (N = 32) run every phase in one launch,
// including the 1x1 projection whose three phases no tap reaches; strides past 3 x 3, and
// phases that would split K, keep a launch per phase.
TEST(PlanDgrad, StridePhasesInOneLaunch) {
  auto plan = [](int n, int hw, int c, int k, int rs, int pad, int stride) {
    Conv2dDgradArguments args;
    args.problem = Conv2dProblem{n, hw, hw, c, k, rs, rs, pad, pad, stride, stride};
    args.dy = reinterpret_cast<const void*>(std::uintptr_t(1) << 36);
    args.w = reinterpret_cast<const void*>(std::uintptr_t(2) << 36);
    args.dx = reinterpret_cast<void*>(std::uintptr_t(3) << 36);
    const conv_detail::DgradPlan p = conv_detail::plan_dgrad(args, DeviceInfo{});
    check_dgrad_one_launch(p, DeviceInfo{});
    return p;
  };
  for (auto [hw, c] : {std::pair{56, 128}, {28, 256}, {14, 512}}) {
    const conv_detail::DgradPlan p = plan(32, hw, c, c, 3, 1, 2);
    SCOPED_TRACE(std::to_string(hw) + "x" + std::to_string(hw) + "x" + std::to_string(c) + " 3x3/2");
    ASSERT_TRUE(p.one_launch);
    EXPECT_EQ(p.one_launch_gemm.groups, 4);
    EXPECT_EQ(p.one_launch_gemm.m, 32 * (hw / 2) * (hw / 2));
    EXPECT_EQ(p.one_launch_gemm.k, 4 * c);  // phase (0, 0): 2 x 2 taps of K = C filters
    EXPECT_EQ(p.workspace_bytes, 0u);
  }
  const conv_detail::DgradPlan projection = plan(32, 56, 256, 512, 1, 0, 2);
  EXPECT_TRUE(projection.one_launch);
  EXPECT_EQ(projection.one_launch_gemm.k, 512);
  EXPECT_FALSE(plan(8, 32, 64, 64, 4, 0, 4).one_launch);  // 16 phases
  EXPECT_FALSE(plan(1, 6, 64, 512, 3, 1, 1).one_launch);  // one phase
  EXPECT_FALSE(plan(1, 8, 64, 2048, 3, 1, 2).one_launch);  // 4 tiles, 128 K tiles: split
}

// wgrad on an H100: ResNet-50's layers at N = 32 take the kernels docs/PERFORMANCE.md measured
// fastest: the TMA kernel for filters larger than 1x1 (split along N*P*Q where its tiles are
// few), the cp.async kernel for 1x1 layers, in 64-row tiles where 128-row ones would leave SMs
// idle and K is too short to split (7x7x512->2048: 64 tiles, 49 K tiles).
TEST(PlanWgrad, ResNetLayersOnAnH100) {
  auto plan = [](int hw, int c, int k, int rs) {
    Conv2dWgradArguments args;
    args.problem = Conv2dProblem{32, hw, hw, c, k, rs, rs, rs / 2, rs / 2, 1, 1};
    args.dy = reinterpret_cast<const void*>(std::uintptr_t(1) << 36);
    args.x = reinterpret_cast<const void*>(std::uintptr_t(2) << 36);
    args.dw = reinterpret_cast<void*>(std::uintptr_t(3) << 36);
    return conv_detail::plan_wgrad(args, DeviceInfo{}).gemm;
  };
  const conv_detail::ConvGemm three = plan(14, 256, 256, 3);
  EXPECT_TRUE(three.tile.tma);
  EXPECT_EQ(three.tile.m, 128);
  EXPECT_GT(three.split.splits, 1);
  const conv_detail::ConvGemm one = plan(28, 512, 128, 1);
  EXPECT_FALSE(one.tile.tma);
  EXPECT_TRUE(one.tile.wgmma);
  const conv_detail::ConvGemm wide = plan(7, 512, 2048, 1);
  EXPECT_FALSE(wide.tile.tma);
  EXPECT_EQ(wide.tile.m, 64);
  EXPECT_EQ(wide.split.splits, 1);
}

// wgrad on an H100: layers of 512 filters or more whose filters do not overlap (ConvNeXt-T's
// 2x2/2 downsampling layers: a copy as large as X) run as tessel::gemm over an explicit im2col
// copy, in clusters of two where gemm's tiles fill the SMs as stream-K ranges; 3x3 layers
// (ResNet-50's 7x7x512 and 14x14x512/2: copies 9 and 2.25 times X), those of 384 filters, a
// padded 2x2/2 layer (8x8 pixels copied from 7x7), and every layer with
// TESSEL_DISABLE_WGRAD_IM2COL or without the TMA kernel, do not.
TEST(PlanWgrad, ManyFiltersRunAsGemmsOverAnIm2colCopy) {
  auto plan = [](int n, int hw, int c, int k, int stride, DeviceInfo device = DeviceInfo{}, int rs = 3,
                 int pad = 1) {
    Conv2dWgradArguments args;
    args.problem = Conv2dProblem{n, hw, hw, c, k, rs, rs, pad, pad, stride, stride};
    args.dy = reinterpret_cast<const void*>(std::uintptr_t(1) << 36);
    args.x = reinterpret_cast<const void*>(std::uintptr_t(2) << 36);
    args.dw = reinterpret_cast<void*>(std::uintptr_t(3) << 36);
    return conv_detail::plan_wgrad(args, device);
  };
  for (int n : {32, 128}) {
    const conv_detail::WgradPlan patchify = plan(n, 14, 384, 768, 2, {}, 2, 0);
    EXPECT_TRUE(patchify.im2col_gemm);
    EXPECT_EQ(patchify.im2col_bytes, std::size_t(n) * 49 * 1536 * 2);  // X's size
    EXPECT_EQ(patchify.im2col_gemm_config, nullptr);                   // 72 tiles of 128x128: gemm's choice
    EXPECT_FALSE(plan(n, 7, 512, 512, 1).im2col_gemm);
    EXPECT_FALSE(plan(n, 14, 512, 512, 2).im2col_gemm);
    EXPECT_FALSE(plan(n, 28, 192, 384, 2, {}, 2, 0).im2col_gemm);
    EXPECT_FALSE(plan(n, 7, 512, 512, 2, {}, 2, 1).im2col_gemm);
  }
  // 160 tiles of 128x128 (1024 filters, 2560 columns) over 392 K tiles: stream-K ranges, in
  // clusters of two
  EXPECT_STREQ(plan(128, 28, 640, 1024, 2, {}, 2, 0).im2col_gemm_config, "sm90_128x128x64_s5_c2");
  DeviceInfo off;
  off.wgrad_im2col = false;
  EXPECT_FALSE(plan(128, 14, 384, 768, 2, off, 2, 0).im2col_gemm);
  DeviceInfo sm80;
  sm80.sm90_kernels = false;
  EXPECT_FALSE(plan(128, 14, 384, 768, 2, sm80, 2, 0).im2col_gemm);
}

// wgrad 7x7x512 3x3 at N = 128 on an H100: 144 tiles of 128x128 on 132 SMs, 98 K tiles each.
// The persistent TMA kernel runs it as stream-K in clusters of two tile rows (72 pairs shared
// out as ranges of K tiles over 66 clusters); with stream-K off, split along K in 4. At N = 32
// (25 K tiles) the reduction is too short for stream-K.
TEST(PlanWgrad, FewTilesWithDeepReductionsRunStreamK) {
  auto plan = [](int n, bool stream_k) {
    Conv2dWgradArguments args;
    args.problem = Conv2dProblem{n, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1};
    args.dy = reinterpret_cast<const void*>(std::uintptr_t(1) << 36);
    args.x = reinterpret_cast<const void*>(std::uintptr_t(2) << 36);
    args.dw = reinterpret_cast<void*>(std::uintptr_t(3) << 36);
    DeviceInfo device;
    device.stream_k = stream_k;
    return conv_detail::plan_wgrad(args, device).gemm;
  };
  const conv_detail::ConvGemm sk = plan(128, true);
  EXPECT_TRUE(sk.tile.tma && sk.tile.persistent && !sk.tile.small());
  EXPECT_EQ(sk.tile.cluster, 2);
  EXPECT_EQ(sk.split.splits, 1);
  EXPECT_EQ(sk.workspace_bytes(), 0u);
  EXPECT_EQ(sk.stream_k.items, 72);  // pairs of tile rows, on 66 clusters
  EXPECT_EQ(sk.stream_k.sk_items, 72);
  EXPECT_EQ(sk.stream_k.blocks, 66);
  EXPECT_EQ(sk.stream_k.k_tiles, 98);
  const conv_detail::ConvGemm split = plan(128, false);
  EXPECT_TRUE(split.tile.tma && !split.tile.persistent);
  EXPECT_EQ(split.stream_k.sk_items, 0);
  EXPECT_EQ(split.split.splits, 4);
  const conv_detail::ConvGemm short_k = plan(32, true);
  EXPECT_TRUE(short_k.tile.tma && !short_k.tile.persistent);
  EXPECT_EQ(short_k.stream_k.sk_items, 0);
}

// fprop and dgrad on an H100: ResNet-50's 3x3 layers at N = 32 whose 128x128 tiles leave every SM
// at most one block (28x28x256/2 and 14x14x256: 98 tiles) run the deep form (seven stages),
// measured 27.1 -> 20.9 and 21.8 -> 20.5 us for fprop (docs/PERFORMANCE.md, eighteenth
// session); so do those split to at most one block an SM (7x7x512: 52 tiles, 2 splits; 24.1
// -> 22.3 us against 4 splits at two blocks an SM, thirty-sixth session). Layers of more
// tiles keep three stages and two blocks an SM.
TEST(PlanFprop, OneWaveLayersRunDeepOnAnH100) {
  auto problem = [](int hw, int c, int stride) { return Conv2dProblem{32, hw, hw, c, c, 3, 3, 1, 1, stride, stride}; };
  auto fprop = [](const Conv2dProblem& pb) {
    Conv2dArguments args;
    args.problem = pb, args.x = reinterpret_cast<const void*>(std::uintptr_t(1) << 36);
    args.w = reinterpret_cast<const void*>(std::uintptr_t(2) << 36);
    args.y = reinterpret_cast<void*>(std::uintptr_t(3) << 36);
    return conv_detail::plan_fprop(args, DeviceInfo{}).gemm;
  };
  auto dgrad = [](const Conv2dProblem& pb) {
    Conv2dDgradArguments args;
    args.problem = pb, args.dy = reinterpret_cast<const void*>(std::uintptr_t(1) << 36);
    args.w = reinterpret_cast<const void*>(std::uintptr_t(2) << 36);
    args.dx = reinterpret_cast<void*>(std::uintptr_t(3) << 36);
    const conv_detail::DgradPlan plan = conv_detail::plan_dgrad(args, DeviceInfo{});
    EXPECT_EQ(plan.phases.size(), 1u);
    return plan.phases.at(0).gemm;
  };
  for (const Conv2dProblem& pb : {problem(28, 256, 2), problem(14, 256, 1)}) {
    const conv_detail::ConvGemm g = fprop(pb);
    EXPECT_TRUE(g.tile.tma && g.tile.deep && !g.tile.persistent) << pb.h;
    EXPECT_EQ(g.split.splits, 1);
  }
  EXPECT_TRUE(dgrad(problem(14, 256, 1)).tile.deep);
  for (const Conv2dProblem& pb : {problem(7, 512, 1), problem(14, 512, 2)}) {
    const conv_detail::ConvGemm split = fprop(pb);
    EXPECT_EQ(split.split.splits, 2) << pb.h;
    EXPECT_TRUE(split.tile.tma && split.tile.deep && !split.tile.persistent) << pb.h;
  }
  EXPECT_FALSE(fprop(problem(28, 128, 1)).tile.deep);  // 196 tiles
  const conv_detail::ConvGemm split = dgrad(problem(7, 512, 1));
  EXPECT_EQ(split.split.splits, 2);
  EXPECT_TRUE(split.tile.deep);
}

// fprop's and dgrad's 64-filter TMA layers take persistent 256x64 tiles from 93 of them (7/10
// of 132 SMs) up (conv2d_plan.cpp's wide_tile): ungrouped dgrad counts all of dX's pixels, its
// phases one launch, grouped dgrad a phase's (a launch each); groups multiply the tiles; 65
// filters (channels, for dgrad) keep 128x128.
TEST(PlanFprop, SixtyFourFilterLayersOfManyTilesRunOnWideTiles) {
  auto pointer = [](int i) { return reinterpret_cast<void*>(std::uintptr_t(i) << 36); };
  auto fprop = [&](const Conv2dProblem& pb) {
    Conv2dArguments args;
    args.problem = pb, args.x = pointer(1), args.w = pointer(2), args.y = pointer(3);
    return conv_detail::plan_fprop(args, DeviceInfo{}).gemm;
  };
  auto dgrad = [&](const Conv2dProblem& pb) {
    Conv2dDgradArguments args;
    args.problem = pb, args.dy = pointer(1), args.w = pointer(2), args.dx = pointer(3);
    return conv_detail::plan_dgrad(args, DeviceInfo{});
  };
  for (const Conv2dProblem& pb : {Conv2dProblem{128, 56, 56, 64, 64, 3, 3, 1, 1, 1, 1},
                                  Conv2dProblem{1, 184, 129, 64, 64, 3, 3, 1, 1, 1, 1}}) {  // 93 tiles
    for (const conv_detail::ConvGemm& g : {fprop(pb), dgrad(pb).phases.at(0).gemm}) {
      EXPECT_TRUE(g.tile.tma && g.tile.persistent && !g.tile.deep) << pb.n;
      EXPECT_EQ(g.tile.m, 256) << pb.n;
      EXPECT_EQ(g.tile.n, 64) << pb.n;
    }
  }
  const Conv2dProblem edge{1, 184, 128, 64, 64, 3, 3, 1, 1, 1, 1};  // 92 tiles
  EXPECT_EQ(fprop(edge).tile.m, 128);
  EXPECT_EQ(dgrad(edge).phases.at(0).gemm.tile.m, 128);
  EXPECT_EQ(fprop(Conv2dProblem{128, 56, 56, 64, 65, 3, 3, 1, 1, 1, 1}).tile.m, 128);
  EXPECT_EQ(dgrad(Conv2dProblem{128, 56, 56, 65, 64, 3, 3, 1, 1, 1, 1}).phases.at(0).gemm.tile.m, 128);
  // Two groups of 64 channels and filters over 47 tiles each.
  const conv_detail::ConvGemm grouped =
      fprop(Conv2dProblem{1, 94, 128, 128, 128, 3, 3, 1, 1, 1, 1, 1, 1, ConvMode::kCrossCorrelation, 2});
  EXPECT_TRUE(grouped.tile.tma && grouped.tile.m == 256);
  // Stride 2: 96 tiles of dX in all, one launch when ungrouped; grouped, 24 a phase's launch.
  const conv_detail::DgradPlan one = dgrad(Conv2dProblem{1, 110, 220, 64, 64, 3, 3, 1, 1, 2, 2});
  EXPECT_TRUE(one.one_launch && one.one_launch_gemm.tile.m == 256);
  const conv_detail::DgradPlan phases =
      dgrad(Conv2dProblem{1, 110, 110, 128, 128, 3, 3, 1, 1, 2, 2, 1, 1, ConvMode::kCrossCorrelation, 2});
  ASSERT_EQ(phases.phases.size(), 4u);
  EXPECT_FALSE(phases.one_launch);
  for (const conv_detail::DgradPhasePlan& ph : phases.phases) EXPECT_TRUE(ph.gemm.tile.tma && ph.gemm.tile.m == 128);
  // The stem's dgrad runs as the stride-1 dgrad of its space-to-depth form (12 channels, padded
  // to 16, over 112x112 dY of 64 filters).
  const conv_detail::DgradPlan stem = dgrad(Conv2dProblem{32, 224, 224, 3, 64, 7, 7, 3, 3, 2, 2});
  ASSERT_TRUE(stem.space_to_depth);
  const conv_detail::DgradPlan s2d = dgrad(stem.space_to_depth_problem);
  ASSERT_EQ(s2d.phases.size(), 1u);
  EXPECT_TRUE(s2d.phases[0].gemm.tile.tma && s2d.phases[0].gemm.tile.m == 256);
}

// Depthwise wgrad on an H100 slides (depthwise_wgrad_slide_kernel) with the plans
// docs/PERFORMANCE.md measured (twenty-eighth and twenty-ninth sessions, N = 32 unless said):
// MobileNetV2's 3x3 layers eight channels a thread (16-byte loads) in blocks of at most 512
// threads, 112x112x32 in 128 blocks of one channel block and rows in 3 pieces (at N = 128 four
// pieces walked down the rows), 56x56x144 in four pieces walked down, 14x14x384 whole rows;
// ConvNeXt-T's 7x7 four channels a thread, whole rows.
TEST(PlanWgrad, DepthwiseSlidesOnAnH100) {
  auto plan = [](int hw, int c, int rs, int n = 32) {
    Conv2dWgradArguments args;
    args.problem = Conv2dProblem{n, hw, hw, c, c, rs, rs, rs / 2, rs / 2, 1, 1};
    args.problem.groups = c;
    args.dy = reinterpret_cast<const void*>(std::uintptr_t(1) << 36);
    args.x = reinterpret_cast<const void*>(std::uintptr_t(2) << 36);
    args.dw = reinterpret_cast<void*>(std::uintptr_t(3) << 36);
    const conv_detail::DepthwisePlan d = conv_detail::plan_wgrad(args, DeviceInfo{}).depthwise;
    EXPECT_TRUE(d.direct && d.slide) << hw << "x" << hw << "x" << c;
    EXPECT_LE(d.slice_lanes * d.problem.r * d.vectors, kSlideThreads) << hw << "x" << hw << "x" << c;
    EXPECT_EQ(d.vec, rs == 3 ? 8 : 4) << hw << "x" << hw << "x" << c;
    return d;
  };
  // rows of 56 columns or more, 3-wide filters: four pieces walked down the rows, unless that
  // idles a twentieth of the blocks (112x112x32 at N = 32: 114 blocks against 128)
  const conv_detail::DepthwisePlan big = plan(112, 32, 3);
  EXPECT_FALSE(big.slide_down);
  EXPECT_EQ(big.row_pieces, 3);
  EXPECT_EQ(big.blocks_x * big.blocks_y, 128);
  const conv_detail::DepthwisePlan big_batch = plan(112, 32, 3, 128);
  EXPECT_TRUE(big_batch.slide_down);
  EXPECT_EQ(big_batch.row_pieces, 4);
  EXPECT_EQ(big_batch.blocks_x * big_batch.blocks_y, 125);
  EXPECT_TRUE(plan(56, 144, 3, 128).slide_down);
  const conv_detail::DepthwisePlan cut = plan(56, 144, 3);
  EXPECT_TRUE(cut.slide_down);
  EXPECT_EQ(cut.row_pieces, 4);
  const conv_detail::DepthwisePlan short_rows = plan(28, 192, 3);
  EXPECT_FALSE(short_rows.slide_down);
  EXPECT_EQ(plan(14, 384, 3).row_pieces, 1);
  const conv_detail::DepthwisePlan wide_filter = plan(56, 96, 7);
  EXPECT_FALSE(wide_filter.slide_down);
  EXPECT_EQ(wide_filter.row_pieces, 1);
}

// choose_split of an empty GEMM (a dgrad phase without rows divided by its zero tiles).
TEST(PlanSplit, EmptyGemmIsNotSplit) {
  for (int m : {0, 1}) {
    for (int n : {0, 64}) {
      const conv_detail::Split s = conv_detail::choose_split(m, n, 1 << 20, sm80::conv_tile_n(64, false, true, true), 132);
      if (m * n == 0) EXPECT_EQ(s.splits, 1);
      else EXPECT_GT(s.splits, 1);
    }
  }
}

// An empty GEMM (M = 0) is valid with any K and N, any leading dimension and 65535 batches,
// and a forced configuration plans staged copies of its operands: their size is compared
// without overflowing (fuzz_argument_validators found 65535 batches of 2^62 elements,
// 2026-11-25; this binary runs under UBSan).
TEST(PlanGemm, EmptyProblemWithHugeOperandsIsPlannedWithoutOverflow) {
  GemmArguments g;
  g.m = 0, g.n = 2104623227, g.k = 2147483647, g.batch = 65535;
  g.d_layout = MatrixLayout::kColumnMajor;
  g.lda = 65535, g.ldb = -1913466889977069568LL, g.ldd = 0;
  g.a_batch_stride = 1, g.b_batch_stride = 1, g.d_batch_stride = std::int64_t(1) << 62;
  for (auto const& info : sm80::kTileConfigs) {
    g.config = info.name;
    ASSERT_TRUE(validate(g).ok()) << info.name;
    gemm_detail::Choice ch;
    const Status s = gemm_detail::choose(g, kA100, &ch);
    EXPECT_TRUE(s.ok() || s.code() == StatusCode::kNotSupported) << info.name << ": " << s.message();
    if (s.ok()) EXPECT_LE(ch.a_staged.bytes() + ch.b_staged.bytes(), std::int64_t(1) << 32) << info.name;
  }
}

}  // namespace
}  // namespace tessel
