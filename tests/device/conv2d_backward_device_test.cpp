// tessel::conv2d_dgrad and conv2d_wgrad on the GPU against direct references in double on the
// host, derived from fprop's definition (include/tessel/conv/problem.hpp), not from the
// kernels' index mappings: every term dY[n,p,q,k] * W[k,r,s,c] of fprop's sum that reads
// X[n,h,w,g*C/G+c] is sent back to dX[n,h,w,g*C/G+c] (dgrad) and every dY[n,p,q,k] *
// X[n,h,w,g*C/G+c] to dW[k,r,s,c] (wgrad). Geometry (pads, strides, dilations, both modes,
// filters wider than 32), channel counts (odd ones take the narrow path, or ungrouped zero-padded
// copies of the operand with few channels), groups and depthwise,
// every input and output type, the epilogue (alpha, beta with a residual that may be the output
// itself, dgrad's bias and activations), a long wgrad reduction (split-K) and random problems.
// Fresh random data per case (fixed seeds, printed on failure); outputs are poisoned (NaN)
// before the call and the bytes around them must stay untouched.
//
// Tolerance per element, with Σ|ab| the sum of |a||b| over the element's terms and L the
// reduction length (dgrad R*S*K/G, wgrad N*P*Q):
//   |got - ref| <= |alpha| * 2^-20 * sqrt(L) * Σ|ab|
//                  + eps_out * (1 + |alpha*acc| + |beta*res| + |bias|)
// The products are exact in fp32 (f16 and bf16 inputs), so only the fp32 sums err: by about
// 2^-24 * sqrt(L) * Σ|ab| in any order (tiles, MMA, split-K slices); 16 times that stays below
// an average single term Σ|ab|/L while L < 2^(40/3) ~ 10000, so there a dropped or doubled
// term fails (the 25088-long wgrad reduction catches only larger errors, e.g. a lost slice).
// eps_out (typed_values.hpp) covers the output's rounding and the epilogue's fp32 arithmetic on its
// operands. Where no term reaches an element (strided dgrad, taps that never hit the image in
// wgrad) the result must be exactly act(beta * res + bias): residual and bias values are
// multiples of 1/64, which every type holds, and the test checks that the sum is exact.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "conv/conv2d_common.hpp"
#include "conv/conv_tma_maps.hpp"
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

// Bytes at a chosen offset inside a larger allocation, the rest filled with 0xff: the guard
// bytes before and after must read 0xff again after the call (no write outside the tensor).
class DeviceTensor {
 public:
  static constexpr size_t kGuard = 64;
  DeviceTensor(std::vector<unsigned char> const& bytes, size_t offset_bytes)
      : size_(bytes.size()), offset_(kGuard + offset_bytes) {
    EXPECT_EQ(cudaMalloc(&base_, total()), cudaSuccess);
    EXPECT_EQ(cudaMemset(base_, 0xff, total()), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(ptr(), bytes.data(), size_, cudaMemcpyHostToDevice), cudaSuccess);
  }
  DeviceTensor(DeviceTensor const&) = delete;
  DeviceTensor& operator=(DeviceTensor const&) = delete;
  ~DeviceTensor() { cudaFree(base_); }

  void* ptr() const { return static_cast<char*>(base_) + offset_; }
  // The tensor's bytes; a failure if any guard byte changed.
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> all(total());
    EXPECT_EQ(cudaMemcpy(all.data(), base_, total(), cudaMemcpyDeviceToHost), cudaSuccess);
    size_t touched = 0;
    for (size_t i = 0; i < total(); ++i)
      touched += (i < offset_ || i >= offset_ + size_) && all[i] != 0xff;
    EXPECT_EQ(touched, 0u) << "bytes written outside the output tensor";
    return {all.begin() + offset_, all.begin() + offset_ + size_};
  }

 private:
  size_t total() const { return offset_ + size_ + kGuard; }
  void* base_ = nullptr;
  size_t size_, offset_;
};

struct Case {
  Conv2dProblem pb;
  DataType in = DataType::kF16, out = DataType::kF32;
  float alpha = 1.0f, beta = 0.0f;
  bool bias = false;                   // dgrad only
  Activation act = Activation::kNone;  // dgrad only
  bool residual_is_output = false;     // beta reads the output's own (initial) values
  int offset = 0;                      // every tensor this many elements past 16-byte alignment
};

std::string describe(Case const& t) {
  auto const& p = t.pb;
  std::ostringstream s;
  s << "N" << p.n << " H" << p.h << " W" << p.w << " C" << p.c << " K" << p.k << " R" << p.r << " S"
    << p.s << " pad " << p.pad_h << "," << p.pad_w << " stride " << p.stride_h << "," << p.stride_w
    << " dil " << p.dilation_h << "," << p.dilation_w
    << (p.mode == ConvMode::kConvolution ? " conv" : " xcorr") << " groups " << p.groups << " "
    << data_type_name(t.in) << "->" << data_type_name(t.out) << " alpha " << t.alpha << " beta "
    << t.beta << (t.residual_is_output ? " (residual = output)" : "") << (t.bias ? " bias" : "")
    << " act " << int(t.act) << " offset " << t.offset;
  return s.str();
}

Conv2dProblem problem(int n, int h, int w, int c, int k, int r, int s, int pad, int stride,
                      int dil = 1, int groups = 1, ConvMode mode = ConvMode::kCrossCorrelation) {
  Conv2dProblem p;
  p.n = n, p.h = h, p.w = w, p.c = c, p.k = k, p.r = r, p.s = s;
  p.pad_h = p.pad_w = pad, p.stride_h = p.stride_w = stride, p.dilation_h = p.dilation_w = dil;
  p.groups = groups, p.mode = mode;
  return p;
}

// Uniform in [-1, 1], as type t holds it.
std::vector<double> random_values(size_t count, DataType t, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<double> v(count);
  for (auto& x : v) x = round_to(t, dist(rng));
  return v;
}
// Multiples of 1/64 in [-1, 1]: exact in f16, bf16 and f32, and so is beta * r + b for the
// betas used here.
std::vector<double> grid_values(size_t count, std::mt19937& rng) {
  std::uniform_int_distribution<int> dist(-64, 64);
  std::vector<double> v(count);
  for (auto& x : v) x = dist(rng) / 64.0;
  return v;
}
std::vector<unsigned char> bytes_of(DataType t, std::vector<double> const& v) {
  return encode(t, std::vector<float>(v.begin(), v.end()));
}

// ---- the references ----

// The reduction of each output element (unscaled) and the sum of |a||b| over its terms.
struct Reference {
  std::vector<double> acc, abs_sum;
  explicit Reference(size_t count) : acc(count, 0.0), abs_sum(count, 0.0) {}
};

// Calls f(n, p, q, r, s, h, w) for every tap of fprop's sum that reads inside the image:
//   h = p*stride_h - pad_h + r'*dilation_h, w = q*stride_w - pad_w + s'*dilation_w,
// r' = r, s' = s (cross-correlation) or R-1-r, S-1-s (convolution).
template <class F>
void for_each_tap(Conv2dProblem const& pb, F&& f) {
  const bool flip = pb.mode == ConvMode::kConvolution;
  for (int n = 0; n < pb.n; ++n)
    for (int p = 0; p < pb.p(); ++p)
      for (int q = 0; q < pb.q(); ++q)
        for (int r = 0; r < pb.r; ++r)
          for (int s = 0; s < pb.s; ++s) {
            const int h = p * pb.stride_h - pb.pad_h + (flip ? pb.r - 1 - r : r) * pb.dilation_h;
            const int w = q * pb.stride_w - pb.pad_w + (flip ? pb.s - 1 - s : s) * pb.dilation_w;
            if (h >= 0 && h < pb.h && w >= 0 && w < pb.w) f(n, p, q, r, s, h, w);
          }
}

// Row-major offsets of the three tensors.
size_t x_at(Conv2dProblem const& pb, int n, int h, int w, int c) {
  return ((size_t(n) * pb.h + h) * pb.w + w) * pb.c + c;
}
size_t y_at(Conv2dProblem const& pb, int n, int p, int q, int k) {
  return ((size_t(n) * pb.p() + p) * pb.q() + q) * pb.k + k;
}
size_t w_at(Conv2dProblem const& pb, int k, int r, int s, int c) {
  return ((size_t(k) * pb.r + r) * pb.s + s) * pb.channels_per_group() + c;
}

// Sends every tap's dY[n,p,q,k] and (a row of C/G channels) b to a row of the output:
// acc[c] += d * b[c] and abs_sum[c] += |d| * |b[c]|, with each pointer chosen per tap and k.
template <class Rows>
Reference reduce_taps(Conv2dProblem const& pb, std::vector<double> const& dy, size_t out_count,
                      Rows rows) {
  Reference ref(out_count);
  const int cg = pb.channels_per_group(), kg = pb.filters_per_group();
  for_each_tap(pb, [&](int n, int p, int q, int r, int s, int h, int w) {
    for (int k = 0; k < pb.k; ++k) {
      const double d = dy[y_at(pb, n, p, q, k)], ad = std::fabs(d);
      auto [b, b_abs, out] = rows(k / kg, k, r, s, n, h, w);
      double* acc = &ref.acc[out];
      double* abs_sum = &ref.abs_sum[out];
      for (int c = 0; c < cg; ++c) {
        acc[c] += d * b[c];
        abs_sum[c] += ad * b_abs[c];
      }
    }
  });
  return ref;
}

std::vector<double> absolute(std::vector<double> v) {
  for (auto& x : v) x = std::fabs(x);
  return v;
}

// dgrad: dX[n,h,w,g*C/G+c] += dY[n,p,q,k] * W[k,r,s,c] for every tap (p,q,r,s) reading (h,w).
Reference dgrad_reference(Conv2dProblem const& pb, std::vector<double> const& dy,
                          std::vector<double> const& w) {
  const std::vector<double> w_abs = absolute(w);
  const int cg = pb.channels_per_group();
  return reduce_taps(pb, dy, size_t(pb.n) * pb.h * pb.w * pb.c,
                     [&](int g, int k, int r, int s, int n, int h, int wi) {
                       const size_t b = w_at(pb, k, r, s, 0);
                       return std::tuple{&w[b], &w_abs[b], x_at(pb, n, h, wi, g * cg)};
                     });
}

// wgrad: dW[k,r,s,c] += dY[n,p,q,k] * X[n,h,w,g*C/G+c] for every tap (n,p,q) reading (h,w).
Reference wgrad_reference(Conv2dProblem const& pb, std::vector<double> const& dy,
                          std::vector<double> const& x) {
  const std::vector<double> x_abs = absolute(x);
  const int cg = pb.channels_per_group();
  return reduce_taps(pb, dy, size_t(pb.k) * pb.r * pb.s * cg,
                     [&](int g, int k, int r, int s, int n, int h, int wi) {
                       const size_t b = x_at(pb, n, h, wi, g * cg);
                       return std::tuple{&x[b], &x_abs[b], w_at(pb, k, r, s, 0)};
                     });
}

// ---- comparison ----

struct Outcome {
  std::vector<unsigned char> output;  // the device's result, bytes of the output type
  long long exact = 0;                // elements no term reaches, compared exactly
  long long failures = 0;
};

// Compares every element of o.output with act(alpha * acc + beta * res + bias[channel]).
// `bias` holds one value per channel (the innermost index) or is empty; `where` names an index.
void compare(Case const& t, long long reduction, Reference const& ref,
             std::vector<double> const& res, std::vector<double> const& bias,
             std::function<std::string(size_t)> const& where, Outcome& o) {
  const double eps = test::output_eps(t.out);
  const double acc_rel = std::fabs(t.alpha) * 0x1p-20 * std::sqrt(double(reduction));
  for (size_t i = 0; i < ref.acc.size(); ++i) {
    const double scaled = double(t.alpha) * ref.acc[i];
    const double r = t.beta != 0.0f ? double(t.beta) * res[i] : 0.0;
    const double b = bias.empty() ? 0.0 : bias[i % bias.size()];
    const double expected = test::activate(scaled + r + b, t.act);
    const double got = decode(t.out, &o.output[i * data_type_bytes(t.out)]);
    // No term: the kernel's sum is exactly 0; so is the epilogue where beta * res and r + b
    // are exact in fp32 and r + b in the output type (ReLU keeps it exact, GELU does not).
    const bool exact = ref.abs_sum[i] == 0.0 && t.act != Activation::kGELU &&
                       std::isfinite(t.alpha) && double(float(r)) == r &&
                       double(float(r + b)) == r + b &&
                       double(round_to(t.out, float(r + b))) == r + b;
    const double tol = exact ? 0.0
                             : acc_rel * ref.abs_sum[i] +
                                   eps * (1 + std::fabs(scaled) + std::fabs(r) + std::fabs(b));
    o.exact += exact;
    if (!(std::fabs(got - expected) <= tol) && ++o.failures <= 5) {
      ADD_FAILURE() << where(i) << " = " << got << ", expected " << expected << " (tolerance "
                    << tol << (exact ? ": no term reaches it" : "") << ")";
    }
  }
  EXPECT_EQ(o.failures, 0) << o.failures << " of " << ref.acc.size() << " outputs out of tolerance";
}

// ---- running one case ----

// The output buffer: poisoned (NaN), or holding the residual when the residual is the output.
std::vector<unsigned char> initial_output(Case const& t, std::vector<double> const& res) {
  return t.residual_is_output
             ? bytes_of(t.out, res)
             : std::vector<unsigned char>(res.size() * data_type_bytes(t.out), 0xff);
}

Outcome run_dgrad(Case const& t, unsigned seed) {
  SCOPED_TRACE("dgrad " + describe(t) + " seed " + std::to_string(seed));
  Outcome o;
  auto const& pb = t.pb;
  EXPECT_TRUE(validate(pb).ok()) << validate(pb).message();
  if (!validate(pb).ok()) return o;
  std::mt19937 rng(seed);
  const auto dy = random_values(size_t(pb.n) * pb.p() * pb.q() * pb.k, t.in, rng);
  const auto w = random_values(size_t(pb.k) * pb.r * pb.s * pb.channels_per_group(), t.in, rng);
  const auto res = grid_values(size_t(pb.n) * pb.h * pb.w * pb.c, rng);
  const auto bias = t.bias ? grid_values(pb.c, rng) : std::vector<double>{};
  const size_t ib = data_type_bytes(t.in), ob = data_type_bytes(t.out);
  DeviceTensor d_dy(bytes_of(t.in, dy), t.offset * ib), d_w(bytes_of(t.in, w), t.offset * ib),
      d_dx(initial_output(t, res), t.offset * ob), d_res(bytes_of(t.out, res), t.offset * ob),
      d_bias(bytes_of(t.out, bias), t.offset * ob);

  Conv2dDgradArguments args;
  args.problem = pb, args.input_type = t.in, args.output_type = t.out;
  args.dy = d_dy.ptr(), args.w = d_w.ptr(), args.dx = d_dx.ptr();
  args.residual = t.residual_is_output ? d_dx.ptr() : d_res.ptr();
  args.alpha = t.alpha, args.beta = t.beta, args.bias = t.bias ? d_bias.ptr() : nullptr,
  args.activation = t.act;
  const Status s = conv2d_dgrad(args, nullptr);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  if (!s.ok()) return o;
  o.output = d_dx.download();

  const Reference ref = dgrad_reference(pb, dy, w);
  compare(
      t, (long long)pb.r * pb.s * pb.filters_per_group(), ref, res, bias,
      [&](size_t i) {
        const size_t c = i % pb.c, w_ = i / pb.c % pb.w, h = i / pb.c / pb.w % pb.h,
                     n = i / pb.c / pb.w / pb.h;
        return "dx(" + std::to_string(n) + "," + std::to_string(h) + "," + std::to_string(w_) +
               "," + std::to_string(c) + ")";
      },
      o);
  return o;
}

// With `repeat`, runs the same wgrad a second time on a fresh output: the bits must not change.
Outcome run_wgrad(Case const& t, unsigned seed, bool repeat = false) {
  SCOPED_TRACE("wgrad " + describe(t) + " seed " + std::to_string(seed));
  Outcome o;
  auto const& pb = t.pb;
  EXPECT_TRUE(validate(pb).ok()) << validate(pb).message();
  if (!validate(pb).ok()) return o;
  EXPECT_TRUE(!t.bias && t.act == Activation::kNone) << "wgrad has no bias and no activation";
  std::mt19937 rng(seed);
  const int cg = pb.channels_per_group();
  const auto dy = random_values(size_t(pb.n) * pb.p() * pb.q() * pb.k, t.in, rng);
  const auto x = random_values(size_t(pb.n) * pb.h * pb.w * pb.c, t.in, rng);
  const auto res = grid_values(size_t(pb.k) * pb.r * pb.s * cg, rng);
  const size_t ib = data_type_bytes(t.in), ob = data_type_bytes(t.out);
  DeviceTensor d_dy(bytes_of(t.in, dy), t.offset * ib), d_x(bytes_of(t.in, x), t.offset * ib),
      d_dw(initial_output(t, res), t.offset * ob), d_res(bytes_of(t.out, res), t.offset * ob);

  Conv2dWgradArguments args;
  args.problem = pb, args.input_type = t.in, args.output_type = t.out;
  args.dy = d_dy.ptr(), args.x = d_x.ptr(), args.dw = d_dw.ptr();
  args.residual = t.residual_is_output ? d_dw.ptr() : d_res.ptr();
  args.alpha = t.alpha, args.beta = t.beta;
  const Status s = conv2d_wgrad(args, nullptr);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  if (!s.ok()) return o;
  o.output = d_dw.download();
  if (repeat) {
    DeviceTensor again(initial_output(t, res), t.offset * ob);
    args.dw = again.ptr();
    if (t.residual_is_output) args.residual = again.ptr();
    EXPECT_TRUE(conv2d_wgrad(args, nullptr).ok());
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(again.download() == o.output) << "a second run of the same wgrad gives other bits";
  }

  const Reference ref = wgrad_reference(pb, dy, x);
  compare(
      t, (long long)pb.n * pb.p() * pb.q(), ref, res, {},
      [&](size_t i) {
        const size_t c = i % cg, s_ = i / cg % pb.s, r = i / cg / pb.s % pb.r,
                     k = i / cg / pb.s / pb.r;
        return "dw(" + std::to_string(k) + "," + std::to_string(r) + "," + std::to_string(s_) +
               "," + std::to_string(c) + ")";
      },
      o);
  return o;
}

// ---- dgrad ----

TEST(Conv2dDgrad, OneByOneIsAGemm) { run_dgrad({problem(3, 7, 5, 32, 40, 1, 1, 0, 1)}, 1); }

TEST(Conv2dDgrad, ThreeByThreePadsZeroToTwo) {
  for (int pad = 0; pad <= 2; ++pad) run_dgrad({problem(2, 9, 11, 16, 24, 3, 3, pad, 1)}, 10 + pad);
}

TEST(Conv2dDgrad, StrideTwo) {
  run_dgrad({problem(2, 12, 12, 16, 32, 3, 3, 1, 2)}, 20);  // pad 1: every row is reached
  // No pad: P = 5 taps reach rows 0..10, Q = 6 columns 0..12; row 11 and column 13 get nothing.
  EXPECT_GT(run_dgrad({problem(2, 12, 14, 24, 16, 3, 3, 0, 2)}, 21).exact, 0);
  run_dgrad({problem(1, 10, 9, 8, 16, 4, 4, 2, 2)}, 22);  // even filter
}

TEST(Conv2dDgrad, StrideThreeDilationTwo) {
  run_dgrad({problem(2, 17, 16, 16, 24, 3, 3, 2, 3, 2)}, 30);
}

TEST(Conv2dDgrad, TrueConvolutionWithUnequalStridesAndPads) {
  Conv2dProblem p = problem(2, 13, 12, 8, 16, 3, 2, 1, 2, 1, 1, ConvMode::kConvolution);
  p.pad_w = 2, p.stride_w = 3, p.dilation_h = 2;
  run_dgrad({p}, 40);
}

// Stride 2 with a 1x1 filter reaches only even (h, w): the other three quarters of dX receive
// no term and must be exactly act(beta * residual + bias).
TEST(Conv2dDgrad, OneByOneStrideTwoLeavesThreeQuartersToTheEpilogue) {
  const Conv2dProblem p = problem(2, 8, 8, 16, 32, 1, 1, 0, 2);
  Outcome o =
      run_dgrad({p, DataType::kF16, DataType::kF32, 1.0f, 0.5f, true, Activation::kReLU}, 50);
  EXPECT_EQ(o.exact, 3LL * 2 * 8 * 8 * 16 / 4);
  o = run_dgrad({p, DataType::kBF16, DataType::kBF16, 2.0f, 0.0f, true, Activation::kNone}, 51);
  EXPECT_EQ(o.exact, 3LL * 2 * 8 * 8 * 16 / 4);
}

// One output tile and a deep reduction: split-K, the reduction applying beta, bias and ReLU;
// with stride 2 through the phases' row scatter (dX rows 7 apart).
TEST(Conv2dDgrad, FewTilesAndDeepReductionAreSplit) {
  run_dgrad({problem(2, 7, 7, 64, 512, 3, 3, 1, 1), DataType::kF16, DataType::kF16, 1.0f, 0.5f, true,
             Activation::kReLU},
            55);
  run_dgrad({problem(2, 14, 14, 64, 512, 3, 3, 1, 2), DataType::kBF16, DataType::kF32, 1.0f, 0.5f, true,
             Activation::kReLU, true},
            56);
}

// More than 64 output channels (C): the 128-wide tile; 64 or fewer take the 64-wide one.
TEST(Conv2dDgrad, ManyChannelsTakeTheLargeTile) {
  run_dgrad({problem(2, 9, 9, 136, 32, 3, 3, 1, 1)}, 57);
  run_dgrad({problem(2, 10, 10, 200, 16, 3, 3, 1, 2), DataType::kF16, DataType::kBF16, 1.0f, 1.0f, true}, 58);
}

// A case of layer p as the random backward tests draw it: input and output types, alpha and
// beta (dgrad: the bias and activation too), at times the output as its own residual.
template <class Pick>
Case random_case(const Conv2dProblem& p, bool dgrad, Pick& pick) {
  Case t{p, pick(0, 1) ? DataType::kF16 : DataType::kBF16, DataType(pick(0, 2)), pick(0, 1) ? 1.0f : 0.75f,
         pick(0, 1) ? 0.0f : 0.5f};
  if (dgrad) t.bias = pick(0, 1), t.act = Activation(pick(0, 2));
  t.residual_is_output = t.beta != 0.0f && pick(0, 1);
  return t;
}
// p's plans at any 16-byte aligned addresses (planned only, never run).
conv_detail::DgradPlan planned_dgrad(const Conv2dProblem& p, const DeviceInfo& device) {
  Conv2dDgradArguments d;
  d.problem = p, d.dy = reinterpret_cast<const void*>(std::uintptr_t(1) << 36);
  d.w = reinterpret_cast<const void*>(std::uintptr_t(2) << 36), d.dx = reinterpret_cast<void*>(std::uintptr_t(3) << 36);
  return conv_detail::plan_dgrad(d, device);
}
conv_detail::WgradPlan planned_wgrad(const Conv2dProblem& p, const DeviceInfo& device) {
  Conv2dWgradArguments w;
  w.problem = p, w.dy = reinterpret_cast<const void*>(std::uintptr_t(1) << 36);
  w.x = reinterpret_cast<const void*>(std::uintptr_t(2) << 36), w.dw = reinterpret_cast<void*>(std::uintptr_t(3) << 36);
  return conv_detail::plan_wgrad(w, device);
}
void run_direction(bool dgrad, Case const& t, unsigned seed) {
  if (dgrad) {
    run_dgrad(t, seed);
  } else {
    run_wgrad(t, seed);
  }
}

TEST(Conv2dDgrad, StemSevenBySevenStrideTwoWithThreeChannels) {
  run_dgrad({problem(1, 30, 30, 3, 16, 7, 7, 3, 2)}, 60);  // C = 3: space-to-depth
}
// Strided layers with few channels run as the stride-1 dgrad (wgrad) of their space-to-depth
// form where that shortens the reduction (conv2d_plan.hpp), dX (dW) from the fp32 gradient of
// X' (W') with the epilogue: unequal strides up to 4 (pixels of dX that no tap reaches),
// filters up to 8x8, pads, both modes, channels 1 to 7, 8 to 96 filters, every type pair, dgrad's
// bias and activations, the output as its own residual. Each case first requires the plan to
// take that path.
void space_to_depth_layers(bool dgrad, unsigned seed, unsigned first_case) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  int ran = 0;
  for (int i = 0; ran < 20; ++i) {
    Conv2dProblem p = problem(pick(1, 3), pick(5, 40), pick(5, 40), pick(1, 7), 8 * pick(1, 12), pick(1, 8), pick(1, 8),
                              pick(0, 4), 2, 1, 1, pick(0, 1) ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    p.stride_h = pick(1, 4), p.stride_w = pick(2, 4), p.pad_w = pick(0, 4);
    if (!validate(p).ok()) continue;
    const Case t = random_case(p, dgrad, pick);
    if (!(dgrad ? planned_dgrad(p, device).space_to_depth : planned_wgrad(p, device).space_to_depth)) continue;
    run_direction(dgrad, t, first_case + i);
    ++ran;
    if (::testing::Test::HasFailure()) return;
  }
}
TEST(Conv2dDgrad, SpaceToDepthRandomLayers) { space_to_depth_layers(true, 6161, 600); }
TEST(Conv2dWgrad, SpaceToDepthRandomLayers) { space_to_depth_layers(false, 6262, 650); }

// Groups of 8 to 32 channels (wgrad: 4 to 16) in whole 64-channel blocks run as groups of 64
// over a block-diagonal filter (conv/packed_groups.hpp): strides up to 3 (dgrad's phases),
// dilation, pads, both modes, filters 1x1 to 5x5, every type pair, dgrad's bias and
// activations, the output as its own residual. Each case first requires the plan to pack.
void packed_groups_layers(bool dgrad, unsigned seed, unsigned first_case) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  const int widths[] = {4, 8, 16, 32};
  int ran = 0;
  for (int i = 0; ran < 12 && i < 1000; ++i) {
    const int width = widths[dgrad ? pick(1, 3) : pick(0, 2)], groups = 64 / width * pick(1, 3);
    Conv2dProblem p = problem(pick(1, 3), pick(3, 20), pick(3, 20), groups * width, groups * width, pick(1, 5),
                              pick(1, 5), pick(0, 2), pick(1, 3), pick(1, 2), groups,
                              pick(0, 1) ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    if (!validate(p).ok()) continue;
    const Case t = random_case(p, dgrad, pick);
    ASSERT_TRUE(dgrad ? planned_dgrad(p, device).packed_groups : planned_wgrad(p, device).packed_groups)
        << describe(t) << ": not packed";
    run_direction(dgrad, t, first_case + i);
    ++ran;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_EQ(ran, 12);
}
TEST(Conv2dDgrad, GroupsPackedIntoBlocksOf64) { packed_groups_layers(true, 7171, 1700); }
TEST(Conv2dWgrad, GroupsPackedIntoBlocksOf64) { packed_groups_layers(false, 7272, 1750); }

// Channel or filter counts that are not multiples of 8: the narrow path (ungrouped layers whose
// filter count allows 16-byte dY loads pad the other operand instead).
TEST(Conv2dDgrad, OddChannelsAndFilters) {
  run_dgrad({problem(2, 6, 7, 5, 3, 3, 3, 1, 1)}, 70);
  run_dgrad({problem(2, 7, 5, 7, 13, 3, 2, 1, 2)}, 71);
  run_dgrad({problem(1, 6, 6, 16, 13, 3, 3, 1, 1)}, 72);  // only K odd
  run_dgrad({problem(1, 6, 6, 13, 16, 3, 3, 1, 1)}, 73);  // only C odd
}

TEST(Conv2dDgrad, GroupedAndDepthwise) {
  run_dgrad({problem(2, 8, 8, 32, 64, 3, 3, 1, 1, 1, 2)}, 80);
  run_dgrad({problem(2, 9, 7, 32, 16, 3, 3, 1, 2, 1, 4)}, 81);
  run_dgrad({problem(1, 6, 7, 8, 8, 3, 3, 1, 1, 1, 8)}, 82);       // depthwise, C/G = 1
  run_dgrad({problem(2, 10, 10, 16, 16, 3, 3, 1, 2, 1, 16)}, 83);  // depthwise, strided
}
// Depthwise layers on the direct kernels (depthwise_problems.hpp), with the epilogue.
// dgrad at stride 1 runs as an fprop over dY; at other strides on its own kernel.
TEST(Conv2dDgrad, DepthwiseDirectKernels) {
  int seed = 90;
  for (Conv2dProblem const& p : test::depthwise_problems()) {
    run_dgrad({p, seed % 2 ? DataType::kBF16 : DataType::kF16, DataType(seed % 3), seed % 2 ? 0.75f : 1.0f,
               seed % 3 == 1 ? 0.5f : 0.0f, seed % 2 == 0, Activation(seed % 3)},
              seed);
    ++seed;
    if (HasFailure()) return;
  }
}
// Every group in one launch per phase (the groups are the kernel's batches): each group's bias
// and residual columns on the 16-byte and the narrow path; a split reduction per group; more
// groups than a grid has layers (65535) take a second launch.
TEST(Conv2dDgrad, GroupsInOneLaunch) {
  run_dgrad({problem(2, 8, 8, 64, 64, 3, 3, 1, 2, 1, 4), DataType::kF16, DataType::kF16, 1.0f, 0.5f, true,
             Activation::kReLU},
            84);
  run_dgrad({problem(2, 12, 12, 96, 96, 3, 3, 1, 2, 1, 96), DataType::kBF16, DataType::kF32, 0.75f, 0.5f, true}, 85);
  run_dgrad({problem(1, 7, 7, 64, 1024, 3, 3, 1, 1, 1, 2), DataType::kF16, DataType::kBF16, 1.0f, 0.5f, true}, 86);
  run_dgrad({problem(1, 1, 1, 70001, 70001, 1, 1, 0, 1, 1, 70001), DataType::kF16, DataType::kF16, 1.0f, 0.5f, true},
            87);
}

// Groups whose filters are whole 64-filter K tiles run on the TMA kernel, a launch per stride
// phase with the groups as its batches (dgrad_operand_sm90.hpp): 64 or 128 filters and 8 to 136
// channels a group, strides 1-3, pads, dilation, both modes, split-K (few tiles, deep
// reductions), every type pair, the bias, activations and the output as its own residual. On
// such a device each case first requires every phase with taps to take the TMA kernel.
TEST(Conv2dDgrad, TmaKernelGroupsAsBatches) {
  std::mt19937 rng(5252);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  int ran = 0;
  for (int i = 0; ran < 16 && i < 1000; ++i) {
    const int groups = pick(2, 4), kg = 64 * pick(1, 2), cg = 8 * pick(1, 17);
    const bool deep = i % 5 == 1;
    Conv2dProblem p = problem(pick(1, 3), deep ? pick(3, 5) : pick(3, 20), deep ? pick(3, 5) : pick(3, 20),
                              groups * cg, groups * (deep ? 512 : kg), deep ? 3 : pick(1, 5), deep ? 3 : pick(1, 5),
                              pick(0, 2), deep ? 1 : pick(1, 3), deep ? 1 : pick(1, 2), groups,
                              pick(0, 3) == 0 ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    if (!validate(p).ok()) continue;
    const Case t = random_case(p, true, pick);
    if (device.wgmma() && device.tma_encoder) {
      const conv_detail::DgradPlan plan = planned_dgrad(p, device);
      ASSERT_FALSE(plan.packed_groups || plan.depthwise.direct) << describe(t);
      for (const conv_detail::DgradPhasePlan& ph : plan.phases)
        ASSERT_TRUE(ph.gemm.tile.tma || ph.phase.taps_r == 0 || ph.phase.taps_s == 0)
            << describe(t) << ": a phase not on the TMA kernel";
    }
    run_dgrad(t, 1900 + i);
    ++ran;
    if (HasFailure()) return;
  }
  EXPECT_EQ(ran, 16);
}

// Filters of more than 32 taps (small images, large pads).
// Phases whose dY has 64 or more channels run on the TMA kernel on an H100
// (src/conv/conv2d_dgrad.cpp): strides 1-3 (one to nine phases, each its own im2col walk),
// dilation, both modes, dY channels that are not whole 64-filter tiles (72, 200), output
// channels from 8 (the 64-wide tile) to past two tiles, the channel-padded stem filter, split-K,
// every type pair and the epilogue through the row scatter. On such a device the test first
// requires that the engine accepts each phase, so it cannot pass on the cp.async kernels.
TEST(Conv2dDgrad, TmaKernelRandomProblems) {
  std::mt19937 rng(5150);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int filters[] = {64, 72, 128, 200};
  int ran = 0;
  for (int i = 0; ran < 14; ++i) {
    Conv2dProblem p = problem(pick(1, 3), pick(4, 18), pick(4, 18), 8 * pick(1, 34), filters[pick(0, 3)],
                              pick(1, 5), pick(1, 5), pick(0, 3), pick(1, 3), pick(1, 2), 1,
                              pick(0, 3) == 0 ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    if (i % 3 == 0) p.stride_w = p.stride_h % 3 + 1;  // unequal strides
    if (!validate(p).ok()) continue;
    Case t{p, pick(0, 1) ? DataType::kF16 : DataType::kBF16, DataType(pick(0, 2)), pick(0, 1) ? 1.0f : 0.75f,
           pick(0, 1) ? 0.0f : 0.5f, bool(pick(0, 1)), Activation(pick(0, 2))};
    if (DeviceInfo device; current_device("test", &device).ok() && device.wgmma()) {
      void* buffer = nullptr;  // any 16-byte aligned addresses: the maps are only encoded
      ASSERT_EQ(cudaMalloc(&buffer, 256), cudaSuccess);
      for (int ph = 0; ph < p.stride_h; ++ph)
        for (int pw = 0; pw < p.stride_w; ++pw) {
          const DgradPhase phase = make_dgrad_phase(p, ph, pw);
          if (phase.rows == 0 || phase.cols == 0 || phase.taps_r == 0 || phase.taps_s == 0) continue;
          sm90::ConvTmaMaps maps;
          CUtensorMap a, b;
          EXPECT_TRUE(sm90::plan_dgrad_tma(p, phase, true, 128, 128, sm80::kConvTileKTma, &maps) &&
                      sm90::encode_tma_map(maps.a, buffer, &a) &&
                      sm90::encode_tma_map(maps.b, static_cast<char*>(buffer) + 128, &b))
              << describe(t) << ": the TMA engine refused phase (" << ph << ", " << pw << ")";
        }
      cudaFree(buffer);
      if (HasFailure()) return;
    }
    run_dgrad(t, 400 + i);
    ++ran;
    if (HasFailure()) return;
  }
}
// Every stride phase in one launch of the TMA kernel (DgradPlan::one_launch), each phase a batch
// with its own rows, K tiles and row scatter: the 1x1 projection at stride 2, persistent, whose
// three phases no tap reaches (the epilogue alone: beta * dX + bias, then ReLU); stride 3 with
// phases of unequal rows and 72 filters (a partial K tile); 3x3/2 with dX as its own residual.
// On a device with the TMA kernel the plan must be one launch, so the test cannot pass on the
// launch per phase.
TEST(Conv2dDgrad, TmaKernelPhasesInOneLaunch) {
  const Case cases[] = {
      {problem(16, 56, 56, 64, 64, 1, 1, 0, 2), DataType::kF16, DataType::kF16, 1.0f, 0.5f, true, Activation::kReLU},
      {problem(2, 17, 16, 64, 72, 3, 3, 1, 3), DataType::kBF16, DataType::kF32, 0.75f, 0.0f, true},
      {problem(4, 14, 14, 128, 128, 3, 3, 1, 2), DataType::kF16, DataType::kBF16, 1.0f, 1.0f, false,
       Activation::kNone, true},
  };
  int seed = 460;
  for (Case const& t : cases) {
    if (DeviceInfo device; current_device("test", &device).ok() && device.wgmma()) {
      Conv2dDgradArguments args;
      args.problem = t.pb;
      args.dy = args.w = args.dx = reinterpret_cast<void*>(std::uintptr_t(1) << 20);  // aligned: only planned
      const conv_detail::DgradPlan plan = conv_detail::plan_dgrad(args, device);
      EXPECT_TRUE(plan.one_launch) << describe(t);
      if (t.pb.r == 1) EXPECT_TRUE(plan.one_launch_gemm.tile.persistent) << describe(t);
    }
    run_dgrad(t, seed++);
    if (HasFailure()) return;
  }
}
// Grids of at most one 128x128 block per SM run the deep form (seven stages, ConvTile::deep),
// a launch per phase or every phase in one: random 2x2 to 5x5 layers of 72 to 256 channels
// (dX's) and 64 to 256 filters over small images, strides up to 3, pads, both modes, every
// type pair and the epilogue. On a device with the TMA kernel each case first requires a deep
// GEMM in its plan, and one case every phase in one deep launch.
TEST(Conv2dDgrad, TmaKernelDeepRing) {
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  const bool deep_device = device.wgmma() && device.tma_encoder;
  std::mt19937 rng(8181);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int ran = 0, one_launch = 0;
  for (int i = 0; ran < 12 && i < 2000; ++i) {
    Conv2dProblem p = problem(pick(1, 4), pick(4, 30), pick(4, 30), 8 * pick(9, 32), 64 * pick(1, 4), pick(2, 5),
                              pick(2, 5), pick(0, 2), pick(1, 3), 1, 1,
                              pick(0, 3) == 0 ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    if (!validate(p).ok()) continue;
    const conv_detail::DgradPlan plan = planned_dgrad(p, device);
    const bool deep = plan.one_launch ? plan.one_launch_gemm.tile.deep
                                      : std::any_of(plan.phases.begin(), plan.phases.end(),
                                                    [](auto const& ph) { return ph.gemm.tile.deep; });
    if (deep_device && (!deep || (ran == 11 && one_launch == 0 && !plan.one_launch))) continue;
    one_launch += plan.one_launch;
    run_dgrad(random_case(p, true, pick), 850 + i);
    ++ran;
    if (HasFailure()) return;
  }
  EXPECT_EQ(ran, 12);
  if (deep_device) EXPECT_GT(one_launch, 0) << "no deep plan of every phase in one launch";
}
// 64-channel dX of many tiles runs on persistent 256x64 tiles (conv2d_plan.cpp's wide_tile):
// 40 channels (a partial column block) of 72 filters (a K tile of 8) with the epilogue, and
// stride 2, its four phases in one launch. On a device with the TMA kernel the plan must take them.
TEST(Conv2dDgrad, TmaKernelWideTiles) {
  const Case cases[] = {
      {problem(4, 90, 90, 40, 72, 3, 3, 1, 1), DataType::kF16, DataType::kF16, 1.0f, 0.5f, true, Activation::kReLU},
      {problem(2, 120, 120, 64, 64, 3, 3, 1, 2), DataType::kBF16, DataType::kF32},
  };
  int seed = 480;
  for (Case const& t : cases) {
    if (DeviceInfo device; current_device("test", &device).ok() && device.wgmma() && device.tma_encoder) {
      const conv_detail::DgradPlan plan = planned_dgrad(t.pb, device);
      const conv_detail::ConvGemm& g = plan.one_launch ? plan.one_launch_gemm : plan.phases.at(0).gemm;
      EXPECT_TRUE(g.tile.tma && g.tile.m == 256 && g.tile.persistent) << describe(t);
      EXPECT_EQ(plan.one_launch, t.pb.stride_h == 2) << describe(t);
    }
    run_dgrad(t, seed++);
    if (HasFailure()) return;
  }
}
TEST(Conv2dDgrad, TmaKernelStemAndSplitK) {
  run_dgrad({problem(2, 30, 30, 3, 64, 7, 7, 3, 2)}, 450);  // space-to-depth: 4x4 taps of 64 filters
  // The padded 8-channel filter, 4 phases (space-to-depth's 2*2*24 is longer than 3*3*8).
  run_dgrad({problem(2, 30, 30, 5, 64, 3, 3, 1, 2)}, 452);
  run_dgrad({problem(1, 9, 9, 96, 512, 3, 3, 1, 1), DataType::kBF16, DataType::kBF16, 1.0f, 0.5f, true,
             Activation::kReLU},
            451);  // one tile, 72 K tiles: split
}

TEST(Conv2dDgrad, FiltersLargerThanThirtyTwo) {
  Conv2dProblem p = problem(2, 5, 6, 8, 16, 33, 3, 16, 1);
  p.pad_w = 1;
  run_dgrad({p}, 90);
  p = problem(1, 4, 40, 3, 8, 2, 34, 1, 1);  // and narrow
  run_dgrad({p}, 91);
}

TEST(Conv2dDgrad, EveryInputAndOutputType) {
  int seed = 100;
  for (DataType in : {DataType::kF16, DataType::kBF16})
    for (DataType out : {DataType::kF32, DataType::kF16, DataType::kBF16})
      run_dgrad(
          {problem(2, 7, 8, 16, 24, 3, 3, 1, 2), in, out, 0.75f, 0.5f, true, Activation::kNone},
          seed++);
}

TEST(Conv2dDgrad, EpilogueAlphaBetaBiasActivations) {
  const Conv2dProblem p = problem(2, 8, 8, 16, 32, 3, 3, 1, 1);
  run_dgrad({p, DataType::kF16, DataType::kF32, -1.5f, 1.0f, true, Activation::kReLU}, 110);
  run_dgrad({p, DataType::kBF16, DataType::kF16, 0.5f, -1.0f, true, Activation::kGELU}, 111);
  run_dgrad({p, DataType::kF16, DataType::kBF16, 1.0f, 0.0f, false, Activation::kGELU}, 112);
  // 2x2 taps, stride 3: rows and columns 2, 5, 8 get no term, GELU of the epilogue alone.
  run_dgrad({problem(2, 9, 9, 8, 16, 2, 2, 0, 3), DataType::kF16, DataType::kF32, 1.0f, 0.5f, true,
             Activation::kGELU},
            113);
}

TEST(Conv2dDgrad, ResidualIsDx) {
  run_dgrad({problem(2, 8, 8, 16, 32, 3, 3, 1, 2), DataType::kF16, DataType::kF32, 1.0f, 1.0f,
             false, Activation::kNone, true},
            120);
  run_dgrad({problem(1, 7, 7, 5, 8, 3, 3, 1, 1), DataType::kBF16, DataType::kBF16, 0.5f, -0.5f,
             true, Activation::kReLU, true},
            121);
}

// Pointers aligned to their element but not to 16 bytes: the narrow path.
TEST(Conv2dDgrad, UnalignedPointersTakeTheNarrowPath) {
  run_dgrad({problem(2, 8, 8, 16, 32, 3, 3, 1, 1), DataType::kF16, DataType::kF32, 1.0f, 1.0f, true,
             Activation::kNone, false, 1},
            130);
  run_dgrad({problem(2, 9, 9, 16, 16, 3, 3, 1, 2), DataType::kBF16, DataType::kF16, 1.0f, 0.0f,
             false, Activation::kReLU, false, 3},
            131);
}

// Random geometry, channel counts, groups, types and epilogues: `run` takes one (case, seed).
void random_problems(unsigned seed, bool dgrad,
                     std::function<void(Case const&, unsigned)> const& run) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const float betas[] = {0.0f, 0.5f, 1.0f, -1.0f};
  int ran = 0;
  for (int i = 0; ran < 25; ++i) {
    const int groups = pick(0, 3) == 0 ? pick(1, 4) : 1;
    const int cg = pick(0, 1) ? 8 * pick(1, 4) : pick(1, 9);
    const int kg = pick(0, 1) ? 8 * pick(1, 3) : pick(1, 24);
    Conv2dProblem p = problem(pick(1, 3), pick(3, 14), pick(3, 14), cg * groups, kg * groups,
                              pick(1, 4), pick(1, 4), pick(0, 2), pick(1, 3), pick(1, 2), groups,
                              pick(0, 1) ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    p.pad_w = pick(0, 2), p.stride_w = pick(1, 3);
    if (!validate(p).ok()) continue;  // the filter does not fit: validate's own tests cover it
    Case t{p, pick(0, 1) ? DataType::kF16 : DataType::kBF16, DataType(pick(0, 2)),
           pick(0, 1) ? 1.0f : 0.75f, betas[pick(0, 3)]};
    if (dgrad) t.bias = pick(0, 1), t.act = Activation(pick(0, 2));
    t.residual_is_output = t.beta != 0.0f && pick(0, 1);
    t.offset = pick(0, 4) == 0 ? 1 : 0;
    run(t, seed + i);
    ++ran;
    if (::testing::Test::HasFailure()) return;
  }
}

// Ungrouped 1x1 layers with stride 1 and no padding run as tessel::gemm (conv2d_plan.hpp's
// dgrad_as_gemm and wgrad_as_gemm): channels and filters of any count, large and small pixel
// counts (split-K, stream-K), every type pair, the epilogue, the output as its own residual
// and pointers off 16-byte alignment.
void one_by_one_as_gemms(bool dgrad, unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 12; ++i) {
    const int c = pick(0, 2) ? 8 * pick(1, 40) : pick(1, 70), k = pick(0, 2) ? 8 * pick(1, 40) : pick(1, 70);
    Case t{problem(pick(1, 4), pick(1, 30), pick(1, 30), c, k, 1, 1, 0, 1), pick(0, 1) ? DataType::kF16 : DataType::kBF16,
           DataType(pick(0, 2)), pick(0, 1) ? 1.0f : 0.75f, pick(0, 1) ? 0.0f : 0.5f};
    if (dgrad) t.bias = pick(0, 1), t.act = Activation(pick(0, 2));
    t.residual_is_output = t.beta != 0.0f && pick(0, 1);
    t.offset = pick(0, 3) == 0 ? 1 : 0;
    GemmArguments g;
    if (dgrad) {
      ASSERT_TRUE(conv_detail::dgrad_as_gemm(Conv2dDgradArguments{t.pb}, DeviceInfo{}, &g));
      run_dgrad(t, seed + i);
    } else {
      ASSERT_TRUE(conv_detail::wgrad_as_gemm(Conv2dWgradArguments{t.pb}, DeviceInfo{}, &g));
      run_wgrad(t, seed + i);
    }
    if (::testing::Test::HasFailure()) return;
  }
}
TEST(Conv2dDgrad, OneByOneLayersRunAsGemms) { one_by_one_as_gemms(true, 8181); }
TEST(Conv2dWgrad, OneByOneLayersRunAsGemms) { one_by_one_as_gemms(false, 9191); }

TEST(Conv2dDgrad, RandomProblems) {
  random_problems(5000, true, [](Case const& t, unsigned seed) { run_dgrad(t, seed); });
}

// ---- wgrad ----

TEST(Conv2dWgrad, OneByOneIsAGemm) { run_wgrad({problem(3, 7, 5, 32, 40, 1, 1, 0, 1)}, 1001); }

TEST(Conv2dWgrad, ThreeByThreePadsZeroToTwo) {
  for (int pad = 0; pad <= 2; ++pad)
    run_wgrad({problem(2, 9, 11, 16, 24, 3, 3, pad, 1)}, 1010 + pad);
}

TEST(Conv2dWgrad, StridesDilationAndTrueConvolution) {
  run_wgrad({problem(2, 12, 12, 16, 32, 3, 3, 1, 2)}, 1020);
  run_wgrad({problem(2, 17, 16, 16, 24, 3, 3, 2, 3, 2)}, 1021);
  Conv2dProblem p = problem(2, 13, 12, 8, 16, 3, 2, 1, 2, 1, 1, ConvMode::kConvolution);
  p.pad_w = 2, p.stride_w = 3, p.dilation_h = 2;
  run_wgrad({p}, 1022);
  run_wgrad({problem(2, 8, 8, 16, 32, 1, 1, 0, 2)}, 1023);  // 1x1 stride 2: reads every other pixel
}

// More than 64 filters (K, GEMM M): the 128-high tile; 64 or fewer take the 64-high one.
TEST(Conv2dWgrad, ManyFiltersTakeTheLargeTile) {
  run_wgrad({problem(2, 9, 9, 32, 136, 3, 3, 1, 1)}, 1057);
  run_wgrad({problem(2, 10, 10, 16, 200, 3, 3, 1, 2), DataType::kBF16, DataType::kF16, 1.0f, 1.0f}, 1058);
}

TEST(Conv2dWgrad, StemSevenBySevenStrideTwoWithThreeChannels) {
  run_wgrad({problem(1, 30, 30, 3, 16, 7, 7, 3, 2)}, 1030);  // C = 3: space-to-depth
}

TEST(Conv2dWgrad, OddChannelsAndFilters) {
  run_wgrad({problem(2, 6, 7, 5, 3, 3, 3, 1, 1)}, 1040);
  run_wgrad({problem(2, 7, 5, 7, 13, 3, 2, 1, 2)}, 1041);
  run_wgrad({problem(1, 6, 6, 16, 13, 3, 3, 1, 1)}, 1042);
  run_wgrad({problem(1, 6, 6, 13, 16, 3, 3, 1, 1)}, 1043);
}

TEST(Conv2dWgrad, GroupedAndDepthwise) {
  run_wgrad({problem(2, 8, 8, 32, 64, 3, 3, 1, 1, 1, 2)}, 1050);
  run_wgrad({problem(2, 9, 7, 32, 16, 3, 3, 1, 2, 1, 4)}, 1051);
  run_wgrad({problem(1, 6, 7, 8, 8, 3, 3, 1, 1, 1, 8)}, 1052);
  run_wgrad({problem(2, 10, 10, 16, 16, 3, 3, 1, 2, 1, 16)}, 1053);
}
TEST(Conv2dWgrad, DepthwiseDirectKernels) {
  int seed = 1070;
  for (Conv2dProblem const& p : test::depthwise_problems()) {
    run_wgrad({p, seed % 2 ? DataType::kBF16 : DataType::kF16, DataType(seed % 3), seed % 2 ? 0.75f : 1.0f,
               seed % 3 == 1 ? 0.5f : 0.0f},
              seed, true);
    ++seed;
    if (HasFailure()) return;
  }
  // Many slices of N*P*Q, summed in order: the same bits twice, accumulated into dW; depthwise
  // and groups of 4.
  for (int groups : {64, 16}) {
    Case t{problem(8, 56, 56, 64, 64, 3, 3, 1, 1, 1, groups)};
    t.beta = 1.0f, t.residual_is_output = true;
    run_wgrad(t, seed++, true);
  }
}
// Depthwise wgrad of 3, 5 and 7 wide filters at stride 1 along w slides a window of input
// columns along runs of output rows (depthwise_wgrad_slide_kernel): output widths 1 to 60, most
// not a multiple of S; pads 0 to S along w (columns read as zeros at both ends) and 0 to R along
// h; strides and dilation along h; true convolution; slices of rows of several images; rows cut
// into pieces (at least 8 of the 24 cases) or whole; blocks of one or several slices (few
// channels); every type pair, alpha and beta; each case run twice for the same bits. Then
// ConvNeXt's 56x56 7x7 layer at N = 4, many slices. Each case first requires the plan to
// slide.
TEST(Conv2dWgrad, DepthwiseSlidesAWindowAlongRows) {
  std::mt19937 rng(6161);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  int ran = 0, pieced = 0;
  for (int i = 0; ran < 24 && i < 1000; ++i) {
    const int s = 2 * pick(1, 3) + 1, r = pick(1, 7), c = 8 * pick(1, 40);
    Conv2dProblem p = problem(pick(1, 6), pick(1, 40), pick(1, 60), c, c, r, s, 0, pick(1, 2), pick(1, 2), c,
                              pick(0, 2) == 0 ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    p.pad_h = pick(0, r), p.pad_w = pick(0, s), p.stride_w = 1, p.dilation_w = 1;
    if (!validate(p).ok()) continue;
    const Case t = random_case(p, false, pick);
    const conv_detail::DepthwisePlan d = planned_wgrad(p, device).depthwise;
    ASSERT_TRUE(d.slide) << describe(t) << ": not on the sliding kernel";
    pieced += d.row_pieces > 1;
    run_wgrad(t, 2000 + i, true);
    ++ran;
    if (HasFailure()) return;
  }
  EXPECT_EQ(ran, 24);
  EXPECT_GE(pieced, 8) << "cases whose rows are cut into pieces";
  Case big{problem(4, 56, 56, 96, 96, 7, 7, 3, 1, 1, 96), DataType::kBF16, DataType::kF32, 0.75f, 0.5f};
  ASSERT_TRUE(planned_wgrad(big.pb, device).depthwise.slide);
  run_wgrad(big, 2999, true);
}
// Rows of 56 columns or more with 3-wide filters: the sliding kernel walks each of four row
// pieces down the rows (units in (n, piece, p) order) unless that idles a twentieth of the
// blocks: slices crossing from one piece to the next and from one image to the next
// (32x56x56x144, six units a slice), an uneven last piece (Q = 61: 16, 16, 16, 13), one output
// row with filter rows that meet only padding; and problems too small for the walk, planned
// along the rows: few rows, stride and dilation along h, true convolution.
TEST(Conv2dWgrad, DepthwiseSlidesDownTheRows) {
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  Conv2dProblem strided = problem(3, 20, 61, 40, 40, 3, 3, 1, 1, 1, 40, ConvMode::kConvolution);
  strided.stride_h = 2, strided.dilation_h = 2, strided.pad_h = 2;
  const std::pair<Case, bool> cases[] = {  // (case, walks down)
      {{problem(32, 56, 56, 144, 144, 3, 3, 1, 1, 1, 144), DataType::kF16, DataType::kF16, 1.0f, 0.0f}, true},
      {{problem(2, 7, 63, 16, 16, 3, 3, 0, 1, 1, 16), DataType::kBF16, DataType::kBF16, 0.75f, 0.5f}, true},
      {{problem(5, 1, 58, 8, 8, 3, 3, 1, 1, 1, 8), DataType::kF16, DataType::kF16, 1.0f, 0.5f}, true},
      {{problem(3, 9, 56, 24, 24, 3, 3, 1, 1, 1, 24), DataType::kF16, DataType::kF32, 1.0f, 0.0f}, false},
      {{problem(4, 112, 112, 32, 32, 3, 3, 1, 1, 1, 32), DataType::kBF16, DataType::kF32, 1.0f, 0.0f}, false},
      {{strided, DataType::kF16, DataType::kF32, 1.0f, 0.25f}, false},
  };
  unsigned seed = 3100;
  for (auto const& [t, down] : cases) {
    const conv_detail::DepthwisePlan d = planned_wgrad(t.pb, device).depthwise;
    ASSERT_TRUE(d.slide) << describe(t) << ": not on the sliding kernel";
    if (device.sms == 132) {  // the H100's and H200's plans
      EXPECT_EQ(d.slide_down, down) << describe(t);
      if (down) EXPECT_EQ(d.row_pieces, 4) << describe(t);
    }
    run_wgrad(t, seed++, true);
    if (HasFailure()) return;
  }
}

// Every group in one launch (the groups are the kernel's batches), with each group's residual
// filters; split-K per group (2 groups of 32 x 144 over N*P*Q = 12544); more groups than a grid
// has layers (65535) take a second launch.
TEST(Conv2dWgrad, GroupsInOneLaunch) {
  run_wgrad({problem(2, 8, 8, 64, 64, 3, 3, 1, 1, 1, 4), DataType::kF16, DataType::kF16, 1.0f, 0.5f}, 1054);
  run_wgrad({problem(2, 12, 12, 96, 96, 3, 3, 1, 2, 1, 96), DataType::kBF16, DataType::kF32, 0.75f, 0.5f}, 1055);
  run_wgrad({problem(4, 56, 56, 32, 64, 3, 3, 1, 1, 1, 2), DataType::kF16, DataType::kBF16, 1.0f, 0.5f}, 1056);
  run_wgrad({problem(1, 1, 1, 70001, 70001, 1, 1, 0, 1, 1, 70001), DataType::kF16, DataType::kF16, 1.0f, 0.5f},
            1059);
}

// Filters of more than 32 taps on small images with large pads: the outer taps of dW never
// meet the image and must be exactly beta * residual.
TEST(Conv2dWgrad, FiltersLargerThanThirtyTwo) {
  Conv2dProblem p = problem(2, 5, 6, 8, 16, 33, 3, 16, 1);
  p.pad_w = 1;
  Outcome o = run_wgrad({p, DataType::kF16, DataType::kF32, 1.0f, 0.5f}, 1060);
  EXPECT_GT(o.exact, 0);
  run_wgrad({problem(1, 4, 40, 3, 8, 2, 34, 1, 1)}, 1061);
}

TEST(Conv2dWgrad, EveryInputAndOutputType) {
  int seed = 1100;
  for (DataType in : {DataType::kF16, DataType::kBF16})
    for (DataType out : {DataType::kF32, DataType::kF16, DataType::kBF16})
      run_wgrad({problem(2, 7, 8, 16, 24, 3, 3, 1, 2), in, out, 0.75f, 0.5f}, seed++);
}

// beta = 1 with the residual being dW: the gradient accumulates into the filters' gradient.
TEST(Conv2dWgrad, AccumulatesIntoDw) {
  run_wgrad({problem(2, 8, 8, 16, 32, 3, 3, 1, 1), DataType::kF16, DataType::kF32, 1.0f, 1.0f,
             false, Activation::kNone, true},
            1110);
  run_wgrad({problem(2, 7, 7, 5, 6, 3, 3, 1, 2), DataType::kBF16, DataType::kBF16, -0.5f, 1.0f,
             false, Activation::kNone, true},
            1111);
}

TEST(Conv2dWgrad, UnalignedPointersTakeTheNarrowPath) {
  run_wgrad({problem(2, 8, 8, 16, 32, 3, 3, 1, 1), DataType::kF16, DataType::kF32, 1.0f, 1.0f,
             false, Activation::kNone, false, 1},
            1120);
  run_wgrad({problem(2, 9, 9, 16, 16, 3, 3, 1, 2), DataType::kBF16, DataType::kF16, 1.0f, 0.0f,
             false, Activation::kNone, false, 3},
            1121);
}

// N*P*Q = 8*56*56 = 25088 against a 64 x 576 dW: few output tiles and a long reduction, the
// case the wgrad heuristic splits (split-K); the slices are summed in a fixed order, so a second
// run gives the same bits. Accumulates into dW (beta = 1, residual = dW) like a training step.
TEST(Conv2dWgrad, LongReductionIsSplitAndDeterministic) {
  Case t{problem(8, 56, 56, 64, 64, 3, 3, 1, 1)};
  t.beta = 1.0f, t.residual_is_output = true;
  run_wgrad(t, 1130, true);
}

// Ungrouped layers of whole 64-channel blocks and more than one tap run on the TMA kernel on an
// H100 (src/conv/conv2d_wgrad.cpp): strides 1-3 (unequal too), dilation, pads, both modes, 64 to
// 256 channels, filters from 8 (the 64-high tile) to 256, one-row and one-column filters, dW's
// columns not whole 128-wide tiles (1x3 of 64 channels: a tile and a half), N*P*Q not whole
// 64-pixel K tiles, every type pair, alpha and beta with dW as its own residual; then two long
// reductions that split along N*P*Q. On such a device the test first requires that the plan
// takes the TMA kernel, so it cannot pass on the cp.async kernels.
TEST(Conv2dWgrad, TmaKernelRandomProblems) {
  std::mt19937 rng(6150);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int filters[] = {8, 64, 72, 136, 200, 256};
  auto require_tma = [&](Case const& t) {
    if (DeviceInfo device; current_device("test", &device).ok() && device.wgmma()) {
      Conv2dWgradArguments args;
      args.problem = t.pb;
      args.dy = args.x = args.dw = reinterpret_cast<void*>(std::uintptr_t(1) << 20);  // aligned: only planned
      EXPECT_TRUE(conv_detail::plan_wgrad(args, device).gemm.tile.tma) << describe(t);
    }
  };
  int ran = 0;
  for (int i = 0; ran < 16; ++i) {
    Conv2dProblem p = problem(pick(1, 4), pick(3, 20), pick(3, 20), 64 * pick(1, 4), filters[pick(0, 5)], pick(1, 5),
                              pick(1, 5), pick(0, 3), pick(1, 3), pick(1, 2), 1,
                              pick(0, 3) == 0 ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    if (i % 3 == 0) p.stride_w = p.stride_h % 3 + 1;  // unequal strides
    if (i % 5 == 0) p.r = 1, p.pad_h = 0;
    if (!validate(p).ok() || p.r * p.s == 1) continue;
    const float beta = pick(0, 1) ? 0.0f : 0.5f;
    Case t{p, pick(0, 1) ? DataType::kF16 : DataType::kBF16, DataType(pick(0, 2)), pick(0, 1) ? 1.0f : 0.75f, beta};
    t.residual_is_output = beta != 0.0f && pick(0, 1);
    require_tma(t);
    run_wgrad(t, 1200 + i);
    ++ran;
    if (HasFailure()) return;
  }
  const Case split[] = {
      {problem(8, 28, 28, 128, 256, 3, 3, 1, 1), DataType::kF16, DataType::kF32, 1.0f, 0.5f},
      {problem(16, 14, 14, 64, 64, 3, 1, 1, 1), DataType::kBF16, DataType::kBF16},
  };
  for (Case const& t : split) {
    require_tma(t);
    run_wgrad(t, 1190 + ran++, true);
    if (HasFailure()) return;
  }
}

// Where the TMA kernel's 128x128 tiles leave SMs idle and the reduction is deep, the persistent
// kernel runs stream-K in clusters of two tile rows sharing B (conv2d_plan.cpp): ranges of K
// tiles over the last pairs (92 pairs: an odd number of tile rows, dW's columns and N*P*Q not
// whole tiles), whole pairs before the ranges (144 pairs: 66 whole, 78 as ranges), and slices
// (28 pairs in 2 K slices), and 8 groups of 128 channels and 256 filters as the batches (72
// pairs, 9 a group, as ranges); every type pair, alpha and beta (dW its own residual), each run
// twice for the same bits. The rule takes stream-K from 64 K tiles a tile; here from one
// (TESSEL_STREAM_K_MIN_K_TILES), so that the references stay small. On an H100 each case first
// requires its plan to run stream-K in clusters of two.
TEST(Conv2dWgrad, TmaKernelStreamK) {
  struct Env {  // and not over an im2col copy (512 filters or more)
    Env() { setenv("TESSEL_STREAM_K_MIN_K_TILES", "1", 1), setenv("TESSEL_DISABLE_WGRAD_IM2COL", "1", 1); }
    ~Env() { unsetenv("TESSEL_STREAM_K_MIN_K_TILES"), unsetenv("TESSEL_DISABLE_WGRAD_IM2COL"); }
  } env;
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  Case ranges{problem(3, 9, 9, 320, 840, 3, 3, 1, 1), DataType::kBF16, DataType::kF32, 0.75f, 0.5f};
  ranges.residual_is_output = true;
  const Case cases[] = {
      ranges,
      {problem(4, 7, 7, 512, 1024, 3, 3, 1, 1), DataType::kF16, DataType::kF16},
      {problem(8, 16, 16, 192, 512, 3, 3, 1, 1), DataType::kF16, DataType::kBF16, 1.0f, 1.0f},
      {problem(4, 7, 7, 1024, 2048, 3, 3, 1, 1, 1, 8), DataType::kBF16, DataType::kBF16, 0.75f, 0.5f},
  };
  const int splits[] = {1, 1, 2, 1};
  static_assert(std::size(splits) == std::size(cases), "one expected slice count a case");
  for (int i = 0; i < int(std::size(cases)); ++i) {
    Case const& t = cases[i];
    if (device.wgmma() && device.tma_encoder && device.sms == 132) {  // the tile counts above are an H100's
      Conv2dWgradArguments args;
      args.problem = t.pb;
      args.dy = args.x = args.dw = reinterpret_cast<void*>(std::uintptr_t(1) << 20);  // aligned: only planned
      const conv_detail::ConvGemm g = conv_detail::plan_wgrad(args, device).gemm;
      ASSERT_TRUE(g.tile.tma && g.tile.persistent && g.tile.cluster == 2 && g.stream_k.sk_items > 0) << describe(t);
      EXPECT_EQ(g.stream_k.splits, splits[i]) << describe(t);
    }
    run_wgrad(t, 1300 + i, true);
    if (HasFailure()) return;
  }
}

// Groups of whole 64-channel blocks run on the TMA kernel, the groups as its batches
// (wgrad_operand_sm90.hpp): 64 or 128 channels and 8 to 136 filters a group (dY's box past a
// group's filters reads zeros), strides, pads, dilation, both modes, split-K over long
// reductions, every type pair, alpha and beta (the output as its own residual). On such a device
// each case first requires the plan to take the TMA kernel.
TEST(Conv2dWgrad, TmaKernelGroupsAsBatches) {
  std::mt19937 rng(5353);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  void* buffer = nullptr;  // any 16-byte aligned address: the maps are only encoded
  ASSERT_EQ(cudaMalloc(&buffer, 256), cudaSuccess);
  int ran = 0;
  for (int i = 0; ran < 16 && i < 1000; ++i) {
    const int groups = pick(2, 4), cg = 64 * pick(1, 2), kg = 8 * pick(1, 17);
    const bool long_reduction = i % 4 == 1;
    const int r = pick(2, 5), s = pick(1, 5);
    Conv2dProblem p = problem(long_reduction ? 8 : pick(1, 3), long_reduction ? pick(28, 40) : pick(3, 20),
                              long_reduction ? pick(28, 40) : pick(3, 20), groups * cg, groups * kg, r, s, pick(0, 2),
                              pick(1, 2), pick(1, 2), groups,
                              pick(0, 3) == 0 ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    if (!validate(p).ok()) continue;
    const Case t = random_case(p, false, pick);
    if (device.wgmma() && device.tma_encoder) {
      const conv_detail::WgradPlan plan = planned_wgrad(p, device);
      ASSERT_TRUE(plan.gemm.tile.tma) << describe(t) << ": not on the TMA kernel";
      // The driver takes dY's (K/G, N*P*Q, G) map, whose group stride is below its pixel stride
      // (a refused map would quietly run the cp.async kernels).
      CUtensorMap a, b;
      EXPECT_TRUE(sm90::encode_tma_map(plan.gemm.tma.a, buffer, &a) && sm90::encode_tma_map(plan.gemm.tma.b, buffer, &b))
          << describe(t) << ": the TMA engine refused a map";
    }
    run_wgrad(t, 1950 + i);
    ++ran;
    if (HasFailure()) break;
  }
  cudaFree(buffer);
  if (!HasFailure()) EXPECT_EQ(ran, 16);
}

// Ungrouped layers of 512 filters or more that the TMA kernel would run, whose im2col copy is no
// larger than X (filters no wider than the stride), take tessel::gemm over that copy instead
// (conv2d_plan.hpp's WgradPlan::im2col_gemm): strides 1-3 (unequal too), dilation, pads of 0
// or 1, both modes, one-row and one-column filters, 64 or 128 channels, 512 to 640 filters,
// every type pair, alpha and beta (dW its own residual), a quarter run twice for the same bits;
// then a layer whose GEMM runs in clusters of two. On such a device each case first requires
// the plan to take the copy (and the clusters), so the test cannot pass on another path.
TEST(Conv2dWgrad, ManyFiltersRunAsAGemmOverAnIm2colCopy) {
  std::mt19937 rng(7070);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  int ran = 0;
  for (int i = 0; ran < 12 && i < 1000; ++i) {
    const int stride = pick(1, 3);
    Conv2dProblem p = problem(pick(1, 3), pick(3, 16), pick(3, 16), 64 * pick(1, 2), 8 * pick(64, 80), pick(1, stride),
                              1, pick(0, 1), stride, pick(1, 2), 1,
                              pick(0, 3) == 0 ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    if (i % 3 == 0) p.stride_w = p.stride_h % 3 + 1;  // unequal strides
    p.s = pick(1, p.stride_w), p.pad_w = pick(0, 1);
    const bool copy_fits_x = (long long)p.p() * p.q() * p.r * p.s <= (long long)p.h * p.w;
    if (!validate(p).ok() || p.r * p.s == 1 || !copy_fits_x) continue;
    const Case t = random_case(p, false, pick);
    if (device.wgmma() && device.tma_encoder)
      ASSERT_TRUE(planned_wgrad(p, device).im2col_gemm) << describe(t) << ": not over an im2col copy";
    run_wgrad(t, 2100 + i, i % 4 == 0);
    ++ran;
    if (HasFailure()) return;
  }
  EXPECT_EQ(ran, 12);
  // 144 tiles of 128x128 (1024 filters, 2x2 taps of 576 channels) take gemm in clusters of two
  // where it runs stream-K: from 64 K tiles by default, here from one
  // (TESSEL_STREAM_K_MIN_K_TILES); 4 K tiles each (256 pixels), so that the ranges hold at
  // least 4 K tiles a block.
  struct Env {
    Env() { setenv("TESSEL_STREAM_K_MIN_K_TILES", "1", 1); }
    ~Env() { unsetenv("TESSEL_STREAM_K_MIN_K_TILES"); }
  } env;
  ASSERT_TRUE(current_device("test", &device).ok());
  Case clusters{problem(4, 16, 16, 576, 1024, 2, 2, 0, 2), DataType::kBF16, DataType::kF32, 0.75f, 0.5f};
  clusters.residual_is_output = true;
  if (device.wgmma() && device.tma_encoder && device.sms <= 144)
    ASSERT_STREQ(planned_wgrad(clusters.pb, device).im2col_gemm_config, "sm90_128x128x64_s5_c2") << describe(clusters);
  run_wgrad(clusters, 2099, true);
}

// Grouped layers whose GEMMs' tiles fill between half the SMs and all of them, on the cp.async
// kernels, are split along N*P*Q where that unloads the busiest SM (conv2d_plan.cpp,
// choose_split): ResNeXt-like groups of 32 channels, as many as make 3/4 of a wave of tiles,
// over 2,000 to 7,000 output pixels; the cases the plan splits run.
TEST(Conv2dWgrad, GroupsInLessThanAWaveAreSplit) {
  std::mt19937 rng(2727);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  DeviceInfo device;
  ASSERT_TRUE(current_device("test", &device).ok());
  const int groups = std::max(2, 3 * device.sms / 4 / 3);  // 3 tiles of 64x128 a group (32 x 9*32)
  int ran = 0;
  for (int i = 0; ran < 4 && i < 200; ++i) {
    const int stride = pick(1, 2), hw = stride * pick(16, 24);
    Conv2dProblem p = problem(pick(8, 12), hw, hw, 32 * groups, 32 * groups, 3, 3, pick(0, 1), stride, 1, groups,
                              i % 3 == 0 ? ConvMode::kConvolution : ConvMode::kCrossCorrelation);
    if (!validate(p).ok()) continue;
    const conv_detail::WgradPlan plan = planned_wgrad(p, device);
    if (plan.gemm.tile.tma || plan.gemm.split.splits < 2) continue;
    const Case t = random_case(p, false, pick);
    run_wgrad(t, 2700 + i, i % 3 == 0);
    ++ran;
    if (HasFailure()) return;
  }
  EXPECT_EQ(ran, 4) << "too few grouped layers were split on this device";
}

TEST(Conv2dWgrad, RandomProblems) {
  random_problems(6000, false, [](Case const& t, unsigned seed) { run_wgrad(t, seed); });
}

}  // namespace
}  // namespace tessel
