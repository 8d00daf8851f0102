// tessel::conv2d_fprop on the GPU against a direct convolution in double precision on the
// host: padding, stride, dilation, both modes, groups (depthwise included), odd channel counts
// (the narrow path), f16/bf16 inputs, f32/f16/bf16 outputs, alpha/beta with a residual, bias
// and activations. Outputs are poisoned (NaN) first; fixed seeds, printed on failure.
// Tolerance per element: 1e-5 * (R*S*C/G) + eps_out * (1 + |ref|), as in gemm_api_device_test.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <vector>

#include "conv/conv2d_common.hpp"
#include "conv/conv_tma_maps.hpp"
#include "conv/depthwise_instances.hpp"
#include "runtime/tma_encoder.hpp"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"
#include "depthwise_problems.hpp"
#include "typed_values.hpp"

namespace tessel {
namespace {

using test::decode;
using test::encode;
using test::round_to;

struct Buffer {
  void* ptr = nullptr;
  explicit Buffer(std::vector<unsigned char> const& bytes) {
    EXPECT_EQ(cudaMalloc(&ptr, bytes.size() + 16), cudaSuccess);
    cudaMemcpy(ptr, bytes.data(), bytes.size(), cudaMemcpyHostToDevice);
  }
  ~Buffer() { cudaFree(ptr); }
};

struct Case {
  Conv2dProblem pb;
  DataType in = DataType::kF16, out = DataType::kF32;
  float alpha = 1.0f, beta = 0.0f;
  bool bias = false;
  Activation act = Activation::kNone;
};

std::string describe(Case const& t) {
  auto const& p = t.pb;
  std::ostringstream s;
  s << "N" << p.n << " H" << p.h << " W" << p.w << " C" << p.c << " K" << p.k << " R" << p.r << " S" << p.s << " pad "
    << p.pad_h << "," << p.pad_w << " stride " << p.stride_h << "," << p.stride_w << " dil " << p.dilation_h << ","
    << p.dilation_w << (p.mode == ConvMode::kConvolution ? " conv" : " xcorr") << " groups " << p.groups << " "
    << data_type_name(t.in) << "->" << data_type_name(t.out) << " alpha " << t.alpha << " beta " << t.beta
    << (t.bias ? " bias" : "") << " act " << int(t.act);
  return s.str();
}

void run_case(Case const& t, unsigned seed) {
  SCOPED_TRACE(describe(t) + " seed " + std::to_string(seed));
  auto const& pb = t.pb;
  ASSERT_TRUE(validate(pb).ok()) << validate(pb).message();
  const int P = pb.p(), Q = pb.q(), cg = pb.channels_per_group(), kg = pb.filters_per_group();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(size_t(pb.n) * pb.h * pb.w * pb.c), w(size_t(pb.k) * pb.r * pb.s * cg),
      res(size_t(pb.n) * P * Q * pb.k), bias(pb.k);
  for (auto& v : x) v = round_to(t.in, dist(rng));
  for (auto& v : w) v = round_to(t.in, dist(rng));
  for (auto& v : res) v = round_to(t.out, dist(rng));
  for (auto& v : bias) v = round_to(t.out, dist(rng));
  const int ob = data_type_bytes(t.out);
  Buffer dx(encode(t.in, x)), dw(encode(t.in, w)), dres(encode(t.out, res)), dbias(encode(t.out, bias)),
      dy(std::vector<unsigned char>(res.size() * ob, 0xff));  // poison: NaN

  Conv2dArguments args;
  args.problem = pb, args.input_type = t.in, args.output_type = t.out;
  args.x = dx.ptr, args.w = dw.ptr, args.y = dy.ptr, args.residual = dres.ptr;
  args.alpha = t.alpha, args.beta = t.beta, args.bias = t.bias ? dbias.ptr : nullptr, args.activation = t.act;
  Status s = conv2d_fprop(args, nullptr);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned char> y(res.size() * ob);
  ASSERT_EQ(cudaMemcpy(y.data(), dy.ptr, y.size(), cudaMemcpyDeviceToHost), cudaSuccess);

  const double eps = test::output_eps(t.out);
  const double tol_acc = 1e-5 * pb.r * pb.s * cg;
  int failures = 0;
  for (int n = 0; n < pb.n; ++n)
    for (int p = 0; p < P; ++p)
      for (int q = 0; q < Q; ++q)
        for (int k = 0; k < pb.k; ++k) {
          const int g = k / kg;
          double acc = 0;
          for (int r = 0; r < pb.r; ++r)
            for (int s2 = 0; s2 < pb.s; ++s2) {
              const int rr = pb.mode == ConvMode::kConvolution ? pb.r - 1 - r : r;
              const int ss = pb.mode == ConvMode::kConvolution ? pb.s - 1 - s2 : s2;
              const int h = p * pb.stride_h - pb.pad_h + rr * pb.dilation_h;
              const int wi = q * pb.stride_w - pb.pad_w + ss * pb.dilation_w;
              if (h < 0 || h >= pb.h || wi < 0 || wi >= pb.w) continue;
              for (int c = 0; c < cg; ++c) {
                acc += double(x[((size_t(n) * pb.h + h) * pb.w + wi) * pb.c + g * cg + c]) *
                       double(w[((size_t(k) * pb.r + r) * pb.s + s2) * cg + c]);
              }
            }
          const size_t yi = ((size_t(n) * P + p) * Q + q) * pb.k + k;
          double ref = t.alpha * acc;
          if (t.beta != 0.0f) ref += double(t.beta) * res[yi];
          if (t.bias) ref += bias[k];
          ref = test::activate(ref, t.act);
          const double got = decode(t.out, &y[yi * ob]);
          if (!(std::fabs(got - ref) <= tol_acc + eps * (1 + std::fabs(ref))) && ++failures <= 5) {
            ADD_FAILURE() << "y(" << n << "," << p << "," << q << "," << k << ") = " << got << ", expected " << ref;
          }
        }
  EXPECT_EQ(failures, 0) << failures << " outputs out of tolerance";
}

Conv2dProblem problem(int n, int h, int w, int c, int k, int r, int s, int pad, int stride, int dil = 1, int groups = 1,
                      ConvMode mode = ConvMode::kCrossCorrelation) {
  Conv2dProblem p;
  p.n = n, p.h = h, p.w = w, p.c = c, p.k = k, p.r = r, p.s = s;
  p.pad_h = p.pad_w = pad, p.stride_h = p.stride_w = stride, p.dilation_h = p.dilation_w = dil;
  p.groups = groups, p.mode = mode;
  return p;
}

// A case of layer p as the random tests draw it: input and output types, alpha, beta, the bias
// and the activation.
template <class Pick>
Case random_case(const Conv2dProblem& p, Pick& pick) {
  return {p, pick(0, 1) ? DataType::kF16 : DataType::kBF16, DataType(pick(0, 2)), pick(0, 1) ? 1.0f : 0.75f,
          pick(0, 1) ? 0.0f : 0.5f, bool(pick(0, 1)), Activation(pick(0, 2))};
}
// p's plan at any 16-byte aligned addresses (planned only, never run).
conv_detail::FpropPlan planned_fprop(const Conv2dProblem& p, const DeviceInfo& device) {
  Conv2dArguments args;
  args.problem = p, args.x = reinterpret_cast<const void*>(std::uintptr_t(1) << 36);
  args.w = reinterpret_cast<const void*>(std::uintptr_t(2) << 36), args.y = reinterpret_cast<void*>(std::uintptr_t(3) << 36);
  return conv_detail::plan_fprop(args, device);
}

TEST(Conv2dFprop, ThreeByThreeSamePadding) { run_case({problem(2, 9, 11, 16, 24, 3, 3, 1, 1)}, 1); }
TEST(Conv2dFprop, OneByOne) { run_case({problem(3, 7, 5, 32, 40, 1, 1, 0, 1)}, 2); }
// Ungrouped 1x1 layers with stride 1 and no padding run as tessel::gemm (conv2d_plan.hpp's
// fprop_as_gemm): channels of any count (the GEMM's narrow loads), large and small pixel
// counts (split-K, stream-K), every type pair and the epilogue.
TEST(Conv2dFprop, OneByOneLayersRunAsGemms) {
  std::mt19937 rng(7171);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 12; ++i) {
    const int c = pick(0, 2) ? 8 * pick(1, 40) : pick(1, 70), k = pick(0, 2) ? 8 * pick(1, 40) : pick(1, 70);
    Conv2dProblem p = problem(pick(1, 4), pick(1, 30), pick(1, 30), c, k, 1, 1, 0, 1);
    const Case t = random_case(p, pick);
    GemmArguments g;
    ASSERT_TRUE(conv_detail::fprop_as_gemm(Conv2dArguments{p}, DeviceInfo{}, &g));
    run_case(t, 700 + i);
    if (HasFailure()) return;
  }
}
TEST(Conv2dFprop, StemSevenBySevenStrideTwoWithThreeChannels) {
  run_case({problem(1, 30, 30, 3, 16, 7, 7, 3, 2)}, 3);  // C = 3: space-to-depth, 4x4 taps of 16 channels
}
// Strided layers with few channels run on their space-to-depth copies where that shortens the
// reduction (conv2d_plan.hpp): unequal strides up to 4, filters up to 8x8, pads, both modes,
// channels 1 to 7, every type pair and the epilogue. Each case first
// requires the plan to take that path, so that the test cannot pass on the padded copies.
TEST(Conv2dFprop, SpaceToDepthRandomLayers) {
  std::mt19937 rng(5151);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  int ran = 0;
  for (int i = 0; ran < 20; ++i) {
    Conv2dProblem p = problem(pick(1, 3), pick(5, 40), pick(5, 40), pick(1, 7), pick(1, 80), pick(1, 8), pick(1, 8),
                              pick(0, 4), 2, 1, 1, pick(0, 1) ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    p.stride_h = pick(1, 4), p.stride_w = pick(2, 4), p.pad_w = pick(0, 4);
    if (!validate(p).ok()) continue;
    const Case t = random_case(p, pick);
    if (!planned_fprop(p, device).space_to_depth) continue;
    run_case(t, 500 + i);
    ++ran;
    if (HasFailure()) return;
  }
}
TEST(Conv2dFprop, StrideDilationAndTrueConvolution) {
  run_case({problem(2, 13, 12, 8, 16, 3, 3, 2, 2, 2, 1, ConvMode::kConvolution)}, 4);
}
TEST(Conv2dFprop, GroupedAndDepthwise) {
  run_case({problem(2, 8, 8, 32, 64, 3, 3, 1, 1, 1, 4)}, 5);
  run_case({problem(1, 6, 7, 8, 8, 3, 3, 1, 1, 1, 8)}, 6);  // depthwise: C/G = 1, narrow
}
// Every group in one launch (the groups are the kernel's batches): each group's bias and residual
// columns, on the 16-byte path (C/G = K/G = 16) and the narrow one (depthwise, strided); few
// tiles over a deep reduction split K per group (2 groups of 49x32x2304, reduced with beta, bias
// and ReLU); more groups than a grid has layers (65535) take a second launch.
TEST(Conv2dFprop, GroupsInOneLaunch) {
  run_case({problem(2, 8, 8, 64, 64, 3, 3, 1, 1, 1, 4), DataType::kF16, DataType::kF16, 1.0f, 0.5f, true,
            Activation::kReLU},
           20);
  run_case({problem(2, 12, 12, 96, 96, 3, 3, 1, 2, 1, 96), DataType::kBF16, DataType::kF32, 0.75f, 0.5f, true}, 21);
  run_case({problem(1, 7, 7, 512, 64, 3, 3, 1, 1, 1, 2), DataType::kF16, DataType::kBF16, 1.0f, 0.5f, true,
            Activation::kReLU},
           22);
  run_case({problem(1, 1, 1, 70001, 70001, 1, 1, 0, 1, 1, 70001), DataType::kF16, DataType::kF16, 1.0f, 0.5f, true},
           23);
}
// Groups of 8, 16 or 32 channels in whole 64-channel blocks run as groups of 64 over a
// block-diagonal filter (conv/packed_groups.hpp): strides up to 3, dilation, pads, both modes,
// filters 1x1 to 5x5, every type pair and the epilogue. Each case first requires the plan to pack.
TEST(Conv2dFprop, GroupsPackedIntoBlocksOf64) {
  std::mt19937 rng(7070);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  const int widths[] = {8, 16, 32};
  int ran = 0;
  for (int i = 0; ran < 12 && i < 1000; ++i) {
    const int width = widths[pick(0, 2)], groups = 64 / width * pick(1, 3);
    Conv2dProblem p = problem(pick(1, 3), pick(3, 20), pick(3, 20), groups * width, groups * width, pick(1, 5),
                              pick(1, 5), pick(0, 2), pick(1, 3), pick(1, 2), groups,
                              pick(0, 1) ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    if (!validate(p).ok()) continue;
    const Case t = random_case(p, pick);
    ASSERT_TRUE(planned_fprop(p, device).packed_groups) << describe(t) << ": not packed";
    run_case(t, 1600 + i);
    ++ran;
    if (HasFailure()) return;
  }
  EXPECT_EQ(ran, 12);
}
// Depthwise layers on the direct kernels (depthwise_problems.hpp), with the epilogue.
TEST(Conv2dFprop, DepthwiseDirectKernels) {
  int seed = 30;
  for (Conv2dProblem const& p : test::depthwise_problems()) {
    run_case({p, seed % 2 ? DataType::kBF16 : DataType::kF16, DataType(seed % 3), seed % 2 ? 0.75f : 1.0f,
              seed % 3 == 1 ? 0.5f : 0.0f, seed % 2 == 0, Activation(seed % 3)},
             seed);
    ++seed;
    if (HasFailure()) return;
  }
}
// The direct kernels' grid comes in whole waves of direct_blocks_per_sm blocks an SM
// (conv2d_plan.cpp): every fprop and dgrad kernel (strips of 3, 5 and 7 taps at strides 1 and 2,
// the pixel kernels, depthwise and groups of 2 to 8, both vector widths and input types) must
// fit at least that many on this GPU.
TEST(Conv2dFprop, DepthwiseBlocksFitAsPlanned) {
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  int checked = 0;
  for (int cg : {1, 2, 4, 8}) {
    for (int c : {cg * 64, cg == 1 ? 37 : cg * 24}) {  // 37 channels: one a thread
      for (int s : {3, 4, 5, 7}) {
        if (s * s * cg > kDepthwiseMaxTaps) continue;  // the grouped GEMMs' layers
        for (int stride : {1, 2}) {
          const Conv2dProblem p = problem(2, 20, 20, c, c, s, s, s / 2, stride, 1, c / cg);
          for (auto direction : {conv_detail::ConvDirection::kFprop, conv_detail::ConvDirection::kDgrad}) {
            const conv_detail::DepthwisePlan plan = conv_detail::plan_depthwise(direction, p, true, device.sms);
            ASSERT_TRUE(plan.direct) << describe({p});
            const bool fprop = direction == conv_detail::ConvDirection::kFprop || plan.as_fprop;
            for (DataType in : {DataType::kF16, DataType::kBF16}) {
              int blocks = 0;
              ASSERT_EQ(sm80::depthwise_blocks_per_sm(in, fprop, plan, &blocks), cudaSuccess);
              EXPECT_GE(blocks, plan.blocks_per_sm) << describe({p, in}) << (fprop ? " fprop" : " dgrad")
                                                    << " kernel, strip " << plan.strip << ", vec " << plan.vec;
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, (4 + 4 + 3 + 2) * 2 * 2 * 2 * 2);  // (cg, s) pairs within the taps; c, stride, direction, type
}
// Filters wider than 32 taps do not fit the optimized iterator's masks: the analytic one runs.
TEST(Conv2dFprop, WideFilterTakesTheAnalyticIterator) {
  run_case({problem(2, 3, 40, 8, 16, 1, 33, 0, 1)}, 11);
  run_case({problem(1, 36, 5, 3, 8, 34, 3, 1, 1)}, 12);  // and with narrow loads
}
TEST(Conv2dFprop, OddChannels) { run_case({problem(2, 5, 6, 5, 7, 3, 2, 1, 1)}, 7); }
TEST(Conv2dFprop, EpilogueAndTypes) {
  run_case({problem(2, 8, 8, 16, 32, 3, 3, 1, 1), DataType::kBF16, DataType::kF16, 0.5f, 1.0f, true,
            Activation::kReLU},
           8);
  run_case({problem(1, 10, 10, 24, 48, 3, 3, 1, 2), DataType::kF16, DataType::kBF16, 1.0f, -0.5f, true,
            Activation::kGELU},
           9);
}
TEST(Conv2dFprop, ManyOutputTilesAndDeepReduction) { run_case({problem(4, 20, 20, 64, 136, 3, 3, 1, 1)}, 10); }
// One 128x128 output tile and 144 K tiles: split-K (18 slices on an H100), the reduction
// applying beta, bias and ReLU.
TEST(Conv2dFprop, FewTilesAndDeepReductionAreSplit) {
  run_case({problem(2, 7, 7, 512, 64, 3, 3, 1, 1), DataType::kF16, DataType::kF16, 1.0f, 0.5f, true,
            Activation::kReLU},
           11);
}

TEST(Conv2dFprop, RandomProblems) {
  std::mt19937 rng(4242);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int ran = 0;
  for (int i = 0; ran < 25; ++i) {
    const int groups = pick(0, 3) == 0 ? pick(1, 4) : 1;
    const int cg = pick(0, 1) ? 8 * pick(1, 4) : pick(1, 9);
    const int kg = pick(1, 24);
    Conv2dProblem p = problem(pick(1, 3), pick(3, 14), pick(3, 14), cg * groups, kg * groups, pick(1, 4), pick(1, 4),
                              pick(0, 2), pick(1, 3), pick(1, 2), groups,
                              pick(0, 1) ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    if (!validate(p).ok()) continue;  // the filter does not fit: validate's own tests cover it
    const Case t = random_case(p, pick);
    run_case(t, 100 + i);
    ++ran;
    if (HasFailure()) return;
  }
}

// Layers of 64 or more channels (ungrouped, 16-byte aligned) run on the TMA kernel on an H100
// (src/conv/conv2d_fprop.cpp): the engine's im2col walk across rows and images, padding,
// strides, dilation, both modes, channels that are not whole 64-channel tiles (72, 136, 200),
// output channels past the tile (and the 64-wide tile), split-K, every type pair and the
// epilogue. On such a device the test first requires that the engine accepts each problem,
// so that it cannot pass on the cp.async kernels instead.
TEST(Conv2dFprop, TmaKernelRandomProblems) {
  std::mt19937 rng(9090);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int channels[] = {64, 72, 128, 136, 200, 256};
  int ran = 0;
  for (int i = 0; ran < 16; ++i) {
    const int r = i == 0 ? 7 : pick(1, 5), s = i == 0 ? 7 : pick(1, 5);
    Conv2dProblem p = problem(pick(1, 3), pick(3, 20), pick(3, 20), channels[pick(0, 5)], pick(1, 3) * pick(1, 70), r,
                              s, pick(0, 3), pick(1, 3), pick(1, 2), 1,
                              pick(0, 3) == 0 ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    if (i % 3 == 0) p.stride_h = 1, p.stride_w = 2;  // unequal strides and pads
    if (i % 4 == 0) p.pad_w = 0;
    if (!validate(p).ok()) continue;
    const Case t = random_case(p, pick);
    if (DeviceInfo device; current_device("test", &device).ok() && device.wgmma()) {
      void *x = nullptr, *w = nullptr;  // any 16-byte aligned addresses: the maps are only encoded
      ASSERT_EQ(cudaMalloc(&x, 256), cudaSuccess);
      w = static_cast<char*>(x) + 128;
      sm90::ConvTmaMaps maps;
      CUtensorMap a, b;
      const bool tma = sm90::plan_fprop_tma(p, true, 128, 128, sm80::kConvTileKTma, &maps) &&
                       sm90::encode_tma_map(maps.a, x, &a) && sm90::encode_tma_map(maps.b, w, &b);
      cudaFree(x);
      ASSERT_TRUE(tma) << describe(t) << ": the TMA engine refused the problem";
    }
    run_case(t, 300 + i);
    ++ran;
    if (HasFailure()) return;
  }
}
// Groups whose channels are whole 64-channel K tiles run on the TMA kernel, the groups as its
// batches (fprop_operand_sm90.hpp): 64 or 128 channels and 8 to 136 filters a group (a filter
// box past the group's filters, the 64-wide tile), strides, pads, dilation, both modes, split-K
// (few tiles, deep reductions) and the persistent form (1x1, many tiles), every type pair and
// the epilogue. On such a device each case first requires the plan to take the TMA kernel.
TEST(Conv2dFprop, TmaKernelGroupsAsBatches) {
  std::mt19937 rng(9191);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  int ran = 0;
  for (int i = 0; ran < 16 && i < 1000; ++i) {
    const int groups = pick(2, 4), cg = 64 * pick(1, 2), kg = 8 * pick(1, 17);
    const bool one_by_one = i % 5 == 0, deep = i % 5 == 1;
    const int r = one_by_one ? 1 : deep ? 3 : pick(1, 5), s = one_by_one ? 1 : deep ? 3 : pick(1, 5);
    const int hw = one_by_one ? pick(60, 90) : deep ? pick(3, 5) : pick(3, 20);
    Conv2dProblem p = problem(one_by_one ? 2 : pick(1, 3), hw, hw + pick(0, 3), groups * cg, groups * kg, r, s,
                              one_by_one ? 0 : pick(0, 2), one_by_one ? 1 : pick(1, 2), one_by_one ? 1 : pick(1, 2),
                              groups, pick(0, 3) == 0 ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    if (deep) p.c = groups * 512, p.dilation_h = p.dilation_w = 1;
    if (!validate(p).ok()) continue;
    const Case t = random_case(p, pick);
    if (device.wgmma() && device.tma_encoder)
      ASSERT_TRUE(planned_fprop(p, device).gemm.tile.tma) << describe(t) << ": not on the TMA kernel";
    run_case(t, 1800 + i);
    ++ran;
    if (HasFailure()) return;
  }
  EXPECT_EQ(ran, 16);
}
// Short reductions over more tiles than two blocks per SM hold (here more than 264 work items,
// on an H100's 132 SMs) take the persistent form of the TMA kernel: several items per block,
// the next item's loads overlapping this one's epilogue. Both tile widths, a partial channel
// block, output channels past the tile, a strided 1x1 and the whole epilogue.
TEST(Conv2dFprop, TmaKernelPersistentShortReductions) {
  run_case({problem(2, 96, 96, 64, 256, 1, 1, 0, 1)}, 13);  // 288 items of 128x128, one K tile
  run_case({problem(4, 96, 96, 64, 64, 1, 1, 0, 1), DataType::kF16, DataType::kF16}, 14);  // 128x64
  run_case({problem(2, 190, 190, 136, 200, 1, 1, 0, 2), DataType::kBF16, DataType::kBF16, 0.5f, 1.0f, true,
            Activation::kReLU},
           15);  // 3 K tiles, the last of 8 channels
}
// 64-filter layers of many tiles run on persistent 256x64 tiles (conv2d_plan.cpp's wide_tile):
// a partial last tile of pixels, 72 channels (a K tile of 8), 40 filters (a partial column
// block), the epilogue; stride 2 in true convolution. On a device with the TMA kernel the plan
// must take them.
TEST(Conv2dFprop, TmaKernelWideTiles) {
  const Case cases[] = {
      {problem(4, 90, 90, 72, 40, 3, 3, 1, 1), DataType::kF16, DataType::kF16, 1.0f, 0.5f, true, Activation::kReLU},
      {problem(8, 120, 120, 64, 64, 3, 3, 1, 2, 1, 1, ConvMode::kConvolution), DataType::kBF16, DataType::kF32},
  };
  int seed = 470;
  for (Case const& t : cases) {
    if (DeviceInfo device; current_device("test", &device).ok() && device.wgmma() && device.tma_encoder) {
      const conv_detail::ConvGemm g = planned_fprop(t.pb, device).gemm;
      EXPECT_TRUE(g.tile.tma && g.tile.m == 256 && g.tile.persistent) << describe(t);
    }
    run_case(t, seed++);
    if (HasFailure()) return;
  }
}
// Tap offsets up to 127 run on the TMA kernel, larger ones on the cp.async kernels: both right.
TEST(Conv2dFprop, TmaKernelLargeDilation) {
  for (int dilation : {127, 128}) {
    Conv2dProblem p = problem(1, 131, 6, 64, 16, 2, 3, 1, 1);
    p.dilation_h = dilation;
    run_case({p}, 600 + dilation);
    if (HasFailure()) return;
  }
}
// Few output tiles over a deep reduction of whole 64-channel tiles: split-K on the TMA kernel.
TEST(Conv2dFprop, TmaKernelSplitK) {
  run_case({problem(1, 9, 9, 512, 192, 3, 3, 1, 1), DataType::kBF16, DataType::kBF16, 1.0f, 0.5f, true,
            Activation::kReLU},
           12);
}

// Grids of at most one 128x128 block per SM run the deep form (seven stages, ConvTile::deep):
// random 2x2 to 5x5 layers of 64 to 256 channels and 72 to 256 filters over small images,
// strides, pads, both modes, every type pair and the epilogue, some of them split along K. On a
// device with the TMA kernel each case first requires the deep plan, and one case a split.
TEST(Conv2dFprop, TmaKernelDeepRing) {
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  const bool deep_device = device.wgmma() && device.tma_encoder;
  std::mt19937 rng(8080);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int ran = 0, split = 0;
  for (int i = 0; ran < 12 && i < 2000; ++i) {
    Conv2dProblem p = problem(pick(1, 4), pick(4, 30), pick(4, 30), 64 * pick(1, 4), 8 * pick(9, 32), pick(2, 5),
                              pick(2, 5), pick(0, 2), pick(1, 2), 1, 1,
                              pick(0, 3) == 0 ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    if (!validate(p).ok()) continue;
    const conv_detail::ConvGemm g = planned_fprop(p, device).gemm;
    if (deep_device && (!g.tile.deep || (ran == 11 && split == 0 && g.split.splits == 1))) continue;
    split += g.split.splits > 1;
    run_case(random_case(p, pick), 800 + i);
    ++ran;
    if (HasFailure()) return;
  }
  EXPECT_EQ(ran, 12);
  if (deep_device) EXPECT_GT(split, 0) << "no deep plan split along K";
}

TEST(Conv2dFprop, BadArgumentsAreErrorsNotLaunches) {
  Conv2dArguments args;
  args.problem = problem(1, 4, 4, 8, 8, 3, 3, 0, 1);
  EXPECT_EQ(conv2d_fprop(args, nullptr).code(), StatusCode::kInvalidArgument);  // null x, w, y
  args.problem.r = 9;  // P < 1
  EXPECT_EQ(validate(args).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessel
