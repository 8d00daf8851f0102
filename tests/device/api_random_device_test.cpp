// The public API (tessel::gemm, conv2d_fprop, conv2d_dgrad, conv2d_wgrad), called as users call
// it, on random problems from the whole valid input space (tests/common/random_problems.hpp:
// sizes 1, images smaller than the stride or the dilated filter, pads past the filter, groups
// up to depthwise, odd channel counts; for the GEMM 0/1/prime extents, every layout, padded
// leading dimensions, batches with stride 0), every input/output type pair, alpha, beta, bias,
// ReLU and GELU, the residual (or C) aliasing the output, pointers off 16-byte alignment.
//
// Each output is NaN-poisoned, with 64 guard bytes on each side that must stay untouched, and
// compared with an fp64 reference computed from the definition on the inputs as the device
// holds them. Tolerance per element, with L the reduction length and S = sum of |a||b| over its
// terms:  |got - ref| <= |alpha| 2^-20 sqrt(L) S + eps_out (1 + |alpha acc| + |beta res| + |bias|)
// (fp32 sums err by about 2^-24 sqrt(L) S; eps_out, typed_values.hpp, covers the output's
// rounding and the epilogue's fp32 arithmetic). Elements of a GEMM's D outside the (M, N)
// windows (padded leading dimensions, batch gaps) must keep their initial bytes.
//
//   TESSEL_RANDOM_SEED      the seed (default 20261123); every failure prints it
//   TESSEL_RANDOM_PROBLEMS  problems per entry point (default 250; the long run uses 5000)
//   TESSEL_RANDOM_FIRST     the first problem's index (to rerun one failure alone)
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/random_problems.hpp"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"
#include "typed_values.hpp"

namespace tessel {
namespace {

using testing::Rng;

using testing::env_or;
const std::uint64_t kSeed = env_or("TESSEL_RANDOM_SEED", 20261123);
const int kProblems = int(env_or("TESSEL_RANDOM_PROBLEMS", 250));
const int kFirst = int(env_or("TESSEL_RANDOM_FIRST", 0));

// One device allocation: 64 guard bytes, the tensor (at a chosen byte offset), 64 guard bytes.
// Guards, and the tensor unless initial bytes are given, hold 0xff (NaN in every type).
class Guarded {
 public:
  static constexpr std::size_t kGuard = 64;
  Guarded(std::size_t bytes, std::size_t offset, const std::vector<unsigned char>* initial = nullptr)
      : bytes_(bytes), begin_(kGuard + offset) {
    EXPECT_EQ(cudaMalloc(&base_, total()), cudaSuccess);
    EXPECT_EQ(cudaMemset(base_, 0xff, total()), cudaSuccess);
    if (initial != nullptr && bytes > 0)
      EXPECT_EQ(cudaMemcpy(ptr(), initial->data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  }
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;
  ~Guarded() { cudaFree(base_); }
  void* ptr() const { return static_cast<char*>(base_) + begin_; }
  // The tensor's bytes; a failure when a guard byte changed.
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> all(total());
    EXPECT_EQ(cudaMemcpy(all.data(), base_, total(), cudaMemcpyDeviceToHost), cudaSuccess);
    std::size_t touched = 0;
    for (std::size_t i = 0; i < total(); ++i) touched += (i < begin_ || i >= begin_ + bytes_) && all[i] != 0xff;
    EXPECT_EQ(touched, 0u) << "bytes written outside the output";
    return {all.begin() + begin_, all.begin() + begin_ + bytes_};
  }

 private:
  std::size_t total() const { return begin_ + bytes_ + kGuard; }
  void* base_ = nullptr;
  std::size_t bytes_, begin_;
};

// Inputs: uniform in [-1, 1] as type t holds them. Residuals and bias: multiples of 1/64.
std::vector<double> inputs(std::size_t count, DataType t, Rng& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<double> v(count);
  for (auto& x : v) x = test::round_to(t, dist(rng));
  return v;
}
std::vector<double> grid(std::size_t count, Rng& rng) {
  std::vector<double> v(count);
  for (auto& x : v) x = testing::uniform(rng, -64, 64) / 64.0;
  return v;
}
std::vector<unsigned char> bytes_of(DataType t, const std::vector<double>& v) {
  return test::encode(t, std::vector<float>(v.begin(), v.end()));
}

// The epilogue's operands drawn for one call.
struct Epilogue {
  DataType in, out;
  float alpha, beta;
  bool bias, residual_is_output;
  Activation act;
  int offset;  // elements every pointer lies past 16-byte alignment
  std::string describe() const {
    return std::string(data_type_name(in)) + "->" + data_type_name(out) + " alpha " + std::to_string(alpha) +
           " beta " + std::to_string(beta) + (bias ? " bias" : "") + " act " + std::to_string(int(act)) +
           (residual_is_output ? " residual=output" : "") + " offset " + std::to_string(offset);
  }
};
Epilogue random_epilogue(Rng& rng, bool has_bias_and_act) {
  Epilogue e;
  e.in = DataType(testing::uniform(rng, 0, 1)), e.out = DataType(testing::uniform(rng, 0, 2));
  e.alpha = testing::chance(rng, 0.6) ? 1.0f : float(testing::one_of(rng, {-2, 3})) / 4;
  e.beta = testing::chance(rng, 0.5) ? 0.0f : float(testing::one_of(rng, {-2, 2, 4})) / 4;
  e.bias = has_bias_and_act && testing::chance(rng, 0.4);
  e.act = has_bias_and_act ? Activation(testing::uniform(rng, 0, 2)) : Activation::kNone;
  e.residual_is_output = e.beta != 0.0f && testing::chance(rng, 0.4);
  e.offset = testing::chance(rng, 0.7) ? 0 : testing::uniform(rng, 1, 7);
  return e;
}

// Reference sums: acc and the sum of |a||b| per output element.
struct Sums {
  std::vector<double> acc, abs;
  explicit Sums(std::size_t n) : acc(n, 0.0), abs(n, 0.0) {}
  void add(std::size_t i, double a, double b) { acc[i] += a * b, abs[i] += std::fabs(a * b); }
};

// Compares out[i] (bytes of e.out) with act(alpha acc + beta res + bias[i % bias.size()]).
int compare(const Epilogue& e, long long reduction, const Sums& ref, const std::vector<double>& res,
            const std::vector<double>& bias, const std::vector<unsigned char>& out, const char* name) {
  const double eps = test::output_eps(e.out), acc_rel = std::fabs(e.alpha) * 0x1p-20 * std::sqrt(double(reduction));
  int failures = 0;
  for (std::size_t i = 0; i < ref.acc.size(); ++i) {
    const double scaled = e.alpha * ref.acc[i], r = e.beta != 0.0f ? e.beta * res[i] : 0.0;
    const double b = bias.empty() ? 0.0 : bias[i % bias.size()];
    const double expected = test::activate(scaled + r + b, e.act);
    const double got = test::decode(e.out, &out[i * data_type_bytes(e.out)]);
    const double tol = acc_rel * ref.abs[i] + eps * (1 + std::fabs(scaled) + std::fabs(r) + std::fabs(b));
    if (!(std::fabs(got - expected) <= tol) && ++failures <= 3)
      ADD_FAILURE() << name << "[" << i << "] = " << got << ", expected " << expected << " (tolerance " << tol << ")";
  }
  return failures;
}

// ---- convolution: every term of fprop's sum, read three ways ----

// Calls f(y, x, w) with the flat indices of Y[n,p,q,k], X[n,h,w,g*C/G+c] and W[k,r,s,c] for every
// term of the definition (include/tessel/conv/problem.hpp) whose tap reads inside the image.
template <class F>
void for_each_term(const Conv2dProblem& pb, F&& f) {
  const int cg = pb.channels_per_group(), kg = pb.filters_per_group(), P = pb.p(), Q = pb.q();
  const bool flip = pb.mode == ConvMode::kConvolution;
  for (int n = 0; n < pb.n; ++n)
    for (int p = 0; p < P; ++p)
      for (int q = 0; q < Q; ++q)
        for (int r = 0; r < pb.r; ++r)
          for (int s = 0; s < pb.s; ++s) {
            const long long h = (long long)p * pb.stride_h - pb.pad_h + (long long)(flip ? pb.r - 1 - r : r) * pb.dilation_h;
            const long long w = (long long)q * pb.stride_w - pb.pad_w + (long long)(flip ? pb.s - 1 - s : s) * pb.dilation_w;
            if (h < 0 || h >= pb.h || w < 0 || w >= pb.w) continue;
            for (int k = 0; k < pb.k; ++k) {
              const std::size_t y = ((std::size_t(n) * P + p) * Q + q) * pb.k + k;
              const std::size_t x = ((std::size_t(n) * pb.h + h) * pb.w + w) * pb.c + std::size_t(k / kg) * cg;
              const std::size_t wi = ((std::size_t(k) * pb.r + r) * pb.s + s) * cg;
              for (int c = 0; c < cg; ++c) f(y, x + c, wi + c);
            }
          }
}

enum class Direction { kFprop, kDgrad, kWgrad };
const char* name(Direction d) { return d == Direction::kFprop ? "fprop" : d == Direction::kDgrad ? "dgrad" : "wgrad"; }

// One call of `direction` on pb; returns whether it passed.
bool run_conv(Direction direction, const Conv2dProblem& pb, const Epilogue& e, Rng& rng) {
  const std::size_t nx = std::size_t(pb.n) * pb.h * pb.w * pb.c, ny = std::size_t(pb.n) * pb.p() * pb.q() * pb.k,
                    nw = std::size_t(pb.k) * pb.r * pb.s * pb.channels_per_group();
  // The operands (a, b) and the output's size, by direction: fprop (X, W) -> Y, dgrad (dY, W)
  // -> dX, wgrad (dY, X) -> dW.
  const std::size_t na = direction == Direction::kFprop ? nx : ny, nb = direction == Direction::kWgrad ? nx : nw;
  const std::size_t nout = direction == Direction::kFprop ? ny : direction == Direction::kDgrad ? nx : nw;
  const std::vector<double> a = inputs(na, e.in, rng), b = inputs(nb, e.in, rng), res = grid(nout, rng);
  const std::size_t channels = direction == Direction::kFprop ? pb.k : pb.c;
  const std::vector<double> bias = e.bias ? grid(channels, rng) : std::vector<double>{};
  const std::size_t ib = data_type_bytes(e.in), ob = data_type_bytes(e.out);
  const std::vector<unsigned char> a_bytes = bytes_of(e.in, a), b_bytes = bytes_of(e.in, b),
                                   res_bytes = bytes_of(e.out, res), bias_bytes = bytes_of(e.out, bias);
  Guarded da(na * ib, e.offset * ib, &a_bytes), db(nb * ib, e.offset * ib, &b_bytes),
      dout(nout * ob, e.offset * ob, e.residual_is_output ? &res_bytes : nullptr),
      dres(nout * ob, e.offset * ob, &res_bytes), dbias(bias.size() * ob, e.offset * ob, &bias_bytes);
  const void* residual = e.residual_is_output ? dout.ptr() : dres.ptr();
  const void* bias_ptr = e.bias ? dbias.ptr() : nullptr;
  Status s;
  Sums ref(nout);
  long long reduction = 0;
  if (direction == Direction::kFprop) {
    Conv2dArguments args{pb, e.in, e.out, da.ptr(), db.ptr(), residual, dout.ptr(), e.alpha, e.beta, bias_ptr, e.act};
    s = conv2d_fprop(args, nullptr);
    for_each_term(pb, [&](std::size_t y, std::size_t x, std::size_t w) { ref.add(y, a[x], b[w]); });
    reduction = (long long)pb.r * pb.s * pb.channels_per_group();
  } else if (direction == Direction::kDgrad) {
    Conv2dDgradArguments args{pb, e.in, e.out, da.ptr(), db.ptr(), residual, dout.ptr(), e.alpha, e.beta, bias_ptr, e.act};
    s = conv2d_dgrad(args, nullptr);
    for_each_term(pb, [&](std::size_t y, std::size_t x, std::size_t w) { ref.add(x, a[y], b[w]); });
    reduction = (long long)pb.r * pb.s * pb.filters_per_group();
  } else {
    Conv2dWgradArguments args{pb, e.in, e.out, da.ptr(), db.ptr(), residual, dout.ptr(), e.alpha, e.beta};
    s = conv2d_wgrad(args, nullptr);
    for_each_term(pb, [&](std::size_t y, std::size_t x, std::size_t w) { ref.add(w, a[y], b[x]); });
    reduction = (long long)pb.n * pb.p() * pb.q();
  }
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  if (!s.ok()) return false;
  const std::vector<unsigned char> out = dout.download();
  return compare(e, reduction, ref, res, bias, out, name(direction)) == 0 && !::testing::Test::HasFailure();
}

// Problems small enough for the host reference: at most ~4M multiply-adds and 1M elements.
Conv2dProblem small_conv_problem(Rng& rng) {
  for (;;) {
    const Conv2dProblem pb = testing::random_conv_problem(rng, testing::Scale::kSmall);
    const double terms = double(pb.n) * pb.p() * pb.q() * pb.k * pb.r * pb.s * pb.channels_per_group();
    const double elements = double(pb.n) * std::max<double>(double(pb.h) * pb.w * pb.c, double(pb.p()) * pb.q() * pb.k);
    if (terms <= 4e6 && elements <= 1e6 && dgrad_phases_with_rows(pb) <= kMaxDgradPhases) return pb;
  }
}

void run_random_conv(Direction direction) {
  std::printf("%s: seed %llu, problems %d..%d (TESSEL_RANDOM_SEED, TESSEL_RANDOM_FIRST, TESSEL_RANDOM_PROBLEMS)\n",
              name(direction), (unsigned long long)kSeed, kFirst, kFirst + kProblems - 1);
  int failed = 0;
  for (int i = kFirst; i < kFirst + kProblems && failed < 3; ++i) {
    Rng rng(kSeed * 1000003ULL + std::uint64_t(i) * 8 + int(direction));
    const Conv2dProblem pb = small_conv_problem(rng);
    const Epilogue e = random_epilogue(rng, direction != Direction::kWgrad);
    SCOPED_TRACE(std::string(name(direction)) + " problem " + std::to_string(i) + ": " + testing::describe(pb) + ", " +
                 e.describe() + "; rerun: TESSEL_RANDOM_SEED=" + std::to_string(kSeed) +
                 " TESSEL_RANDOM_FIRST=" + std::to_string(i) + " TESSEL_RANDOM_PROBLEMS=1");
    failed += !run_conv(direction, pb, e, rng);
  }
}

TEST(ApiRandom, Conv2dFprop) { run_random_conv(Direction::kFprop); }
TEST(ApiRandom, Conv2dDgrad) { run_random_conv(Direction::kDgrad); }
TEST(ApiRandom, Conv2dWgrad) { run_random_conv(Direction::kWgrad); }

// The problems that killed the process with SIGFPE (issue 11: an image smaller than the stride
// leaves stride phases without rows), in all three directions and several epilogues.
TEST(ApiRandom, ImageSmallerThanTheStride) {
  Rng rng(kSeed);
  for (const Conv2dProblem& pb : testing::image_smaller_than_stride_problems()) {
    for (int i = 0; i < 4; ++i) {
      const Epilogue e = random_epilogue(rng, true);
      SCOPED_TRACE(testing::describe(pb) + ", " + e.describe());
      for (Direction d : {Direction::kFprop, Direction::kDgrad, Direction::kWgrad}) {
        Epilogue ed = e;
        if (d == Direction::kWgrad) ed.bias = false, ed.act = Activation::kNone;
        EXPECT_TRUE(run_conv(d, pb, ed, rng)) << name(d);
      }
    }
  }
}

// ---- the GEMM ----

std::size_t element(MatrixLayout l, std::int64_t ld, std::int64_t batch_stride, int b, int r, int c) {
  return std::size_t(b * batch_stride + (l == MatrixLayout::kRowMajor ? r * ld + c : r + c * ld));
}
std::size_t batched_span(const GemmArguments& g, MatrixLayout l, int rows, int cols, std::int64_t ld,
                         std::int64_t stride) {
  const std::int64_t one = testing::matrix_span(l, rows, cols, ld);
  return one == 0 ? 0 : std::size_t((g.batch - 1) * stride + one);
}

bool run_gemm(GemmArguments g, const Epilogue& e, Rng& rng) {
  g.input_type = e.in, g.output_type = e.out, g.alpha = e.alpha, g.beta = e.beta, g.activation = e.act;
  const bool c_is_d = e.residual_is_output && g.ldc == g.ldd && g.c_batch_stride == g.d_batch_stride;
  const std::size_t na = batched_span(g, g.a_layout, g.m, g.k, g.lda, g.a_batch_stride),
                    nb = batched_span(g, g.b_layout, g.k, g.n, g.ldb, g.b_batch_stride),
                    nc = batched_span(g, g.d_layout, g.m, g.n, g.ldc, g.c_batch_stride),
                    nd = batched_span(g, g.d_layout, g.m, g.n, g.ldd, g.d_batch_stride);
  const std::vector<double> a = inputs(na, e.in, rng), b = inputs(nb, e.in, rng), c = grid(c_is_d ? nd : nc, rng);
  const std::vector<double> bias = g.bias != nullptr ? grid(g.n, rng) : std::vector<double>{};
  const std::size_t ib = data_type_bytes(e.in), ob = data_type_bytes(e.out);
  const std::vector<unsigned char> a_bytes = bytes_of(e.in, a), b_bytes = bytes_of(e.in, b), c_bytes = bytes_of(e.out, c),
                                   bias_bytes = bytes_of(e.out, bias);
  Guarded da(na * ib, e.offset * ib, &a_bytes), db(nb * ib, e.offset * ib, &b_bytes),
      dc(nc * ob, e.offset * ob, &c_bytes), dd(nd * ob, e.offset * ob, c_is_d ? &c_bytes : nullptr),
      dbias(bias.size() * ob, e.offset * ob, &bias_bytes);
  g.a = da.ptr(), g.b = db.ptr(), g.d = dd.ptr(), g.c = c_is_d ? dd.ptr() : dc.ptr();
  if (g.bias != nullptr) g.bias = dbias.ptr();
  const Status s = gemm(g, nullptr);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  if (!s.ok()) return false;
  const std::vector<unsigned char> out = dd.download();
  // The (M, N) windows against the reference; every other element of D keeps its initial bytes.
  std::vector<char> in_window(nd, 0);
  Sums ref(std::size_t(g.batch) * g.m * g.n);
  std::vector<double> res(ref.acc.size());
  std::vector<unsigned char> got(ref.acc.size() * ob);
  for (int bt = 0; bt < g.batch; ++bt)
    for (int i = 0; i < g.m; ++i)
      for (int j = 0; j < g.n; ++j) {
        const std::size_t o = (std::size_t(bt) * g.m + i) * g.n + j;
        for (int k = 0; k < g.k; ++k)
          ref.add(o, a[element(g.a_layout, g.lda, g.a_batch_stride, bt, i, k)],
                  b[element(g.b_layout, g.ldb, g.b_batch_stride, bt, k, j)]);
        const std::size_t di = element(g.d_layout, g.ldd, g.d_batch_stride, bt, i, j);
        res[o] = c[c_is_d ? di : element(g.d_layout, g.ldc, g.c_batch_stride, bt, i, j)];
        std::memcpy(&got[o * ob], &out[di * ob], ob);
        in_window[di] = 1;
      }
  const int failures = compare(e, g.k, ref, res, bias, got, "D");  // bias[o % N]: per column
  std::size_t changed = 0;
  for (std::size_t i = 0; i < nd; ++i) {
    if (in_window[i]) continue;
    const unsigned char* initial = c_is_d ? &c_bytes[i * ob] : nullptr;
    for (std::size_t byte = 0; byte < ob; ++byte) changed += out[i * ob + byte] != (initial ? initial[byte] : 0xff);
  }
  EXPECT_EQ(changed, 0u) << "bytes of D outside the (M, N) windows changed";
  return failures == 0 && changed == 0 && !::testing::Test::HasFailure();
}

TEST(ApiRandom, Gemm) {
  std::printf("gemm: seed %llu, problems %d..%d (TESSEL_RANDOM_SEED, TESSEL_RANDOM_FIRST, TESSEL_RANDOM_PROBLEMS)\n",
              (unsigned long long)kSeed, kFirst, kFirst + kProblems - 1);
  int failed = 0;
  for (int i = kFirst; i < kFirst + kProblems && failed < 3; ++i) {
    Rng rng(kSeed * 1000003ULL + std::uint64_t(i) * 8 + 7);
    GemmArguments g;
    do g = testing::random_gemm_shape(rng, testing::Scale::kSmall);
    while (double(g.m) * g.n * std::max(g.k, 1) * g.batch > 4e6);
    const Epilogue e = random_epilogue(rng, true);
    if (g.bias == nullptr && e.bias) g.bias = &g;  // placeholder: run_gemm allocates the bias
    SCOPED_TRACE("gemm problem " + std::to_string(i) + ": " + testing::describe(g) + ", " + e.describe() +
                 "; rerun: TESSEL_RANDOM_SEED=" + std::to_string(kSeed) + " TESSEL_RANDOM_FIRST=" + std::to_string(i) +
                 " TESSEL_RANDOM_PROBLEMS=1");
    failed += !run_gemm(g, e, rng);
  }
}

}  // namespace
}  // namespace tessel
