// The sm_90a wgmma GEMM kernel (kernel_sm90.hpp) against a double-precision reference: every
// operand order (the descriptors' K-major and MN-major forms), both K tiles (64- and 128-byte
// swizzles), both warpgroup arrangements, f16 and bf16, edges (1, primes, one past a tile),
// more K tiles than stages and fewer, and split-K slices. Skipped on devices other than 9.0.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "tessel/gemm/launch_sm90.hpp"

namespace tessel {
namespace {

bool is_sm90() {
  int device = 0, major = 0, minor = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  return major == 9 && minor == 0;
}

// D (M,N) f32 = A (M,K) * B (N,K)^T; an MN-major operand is stored (K, MN) with ld = MN.
// splits > 1: each split writes its own (M,N) slice of D, summed here.
template <class Config>
void run_and_check(int m, int n, int k, unsigned seed, int splits = 1) {
  if (!is_sm90()) GTEST_SKIP() << "the wgmma kernel needs a compute capability 9.0 device";
  using T = std::conditional_t<std::is_same_v<typename Config::Element, Half>, __half, __nv_bfloat16>;
  constexpr bool kMnA = Config::kMajorA == Major::kMN, kMnB = Config::kMajorB == Major::kMN;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<T> a(size_t(m) * k), b(size_t(n) * k);
  std::vector<double> af(a.size()), bf(b.size());  // (M,K), (N,K) row-major
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk) {
      const T x = T(dist(rng));
      a[kMnA ? size_t(kk) * m + i : size_t(i) * k + kk] = x;
      af[size_t(i) * k + kk] = double(float(x));
    }
  for (int j = 0; j < n; ++j)
    for (int kk = 0; kk < k; ++kk) {
      const T x = T(dist(rng));
      b[kMnB ? size_t(kk) * n + j : size_t(j) * k + kk] = x;
      bf[size_t(j) * k + kk] = double(float(x));
    }
  T *d_a, *d_b;
  float* d_d;
  ASSERT_EQ(cudaMalloc(&d_a, a.size() * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_b, b.size() * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_d, size_t(splits) * m * n * 4), cudaSuccess);
  cudaMemcpy(d_a, a.data(), a.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
  cudaMemset(d_d, 0xff, size_t(splits) * m * n * 4);  // poison: NaN
  const int k_tiles = (k + Config::kTileK - 1) / Config::kTileK;
  const int per_split = (k_tiles + splits - 1) / splits;
  GemmParams p{d_a, d_b, m, n, k, kMnA ? m : k, kMnB ? n : k, 0, 0, splits, per_split, {}};
  p.epilogue = EpilogueParams{d_d, nullptr, nullptr, n, 0, std::int64_t(m) * n, 0, 1.0f, 0.0f, BiasMode::kNone,
                              Activation::kNone, DataType::kF32, n % 4 == 0};
  ASSERT_EQ((launch_gemm_sm90<Config, true>(p, 1, nullptr)), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> d(size_t(splits) * m * n);
  cudaMemcpy(d.data(), d_d, d.size() * 4, cudaMemcpyDeviceToHost);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_d);
  // 16-bit products are exact in fp32; the fp32 sums of K terms of size <= 1 err by < K * 2^-23 * K.
  const double tolerance = 1e-6 * k * std::sqrt(double(k)) + 1e-4;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double ref = 0, got = 0;
      for (int kk = 0; kk < k; ++kk) ref += af[size_t(i) * k + kk] * bf[size_t(j) * k + kk];
      for (int s = 0; s < splits; ++s) got += d[size_t(s) * m * n + size_t(i) * n + j];
      ASSERT_NEAR(got, ref, tolerance) << "D(" << i << "," << j << ") of " << m << "x" << n << "x" << k;
    }
  }
}

constexpr Major K = Major::kK, MN = Major::kMN;

TEST(GemmSm90, KMajorBoth) { run_and_check<GemmConfigSm90<128, 128, 32, 6, Half, K, K>>(256, 384, 320, 1); }
TEST(GemmSm90, MnMajorA) { run_and_check<GemmConfigSm90<128, 128, 32, 6, Half, MN, K>>(256, 256, 256, 2); }
TEST(GemmSm90, MnMajorB) { run_and_check<GemmConfigSm90<128, 128, 32, 6, Half, K, MN>>(256, 256, 256, 3); }
TEST(GemmSm90, MnMajorBoth) { run_and_check<GemmConfigSm90<128, 128, 32, 6, Half, MN, MN>>(256, 256, 256, 4); }
TEST(GemmSm90, KTile64Swizzle128) { run_and_check<GemmConfigSm90<128, 128, 64, 4, Half, K, K>>(256, 256, 512, 5); }
TEST(GemmSm90, KTile64MnMajor) { run_and_check<GemmConfigSm90<128, 128, 64, 4, BFloat16, MN, MN>>(128, 256, 384, 6); }
TEST(GemmSm90, NarrowTileN64) { run_and_check<GemmConfigSm90<128, 64, 32, 6, Half, K, MN>>(256, 192, 256, 7); }
TEST(GemmSm90, ShortTileM64) { run_and_check<GemmConfigSm90<64, 128, 32, 6, Half, MN, MN>>(192, 256, 256, 8); }
TEST(GemmSm90, BFloat16) { run_and_check<GemmConfigSm90<128, 128, 32, 6, BFloat16, K, K>>(256, 128, 1024, 9); }
TEST(GemmSm90, FewerKTilesThanStages) { run_and_check<GemmConfigSm90<128, 128, 32, 6, Half, K, K>>(128, 128, 32, 10); }
TEST(GemmSm90, EdgesOneByOne) { run_and_check<GemmConfigSm90<128, 128, 32, 6, Half, K, K>>(1, 1, 8, 11); }
TEST(GemmSm90, EdgesPrimes) { run_and_check<GemmConfigSm90<128, 128, 32, 6, Half, K, K>>(17, 131, 40, 12); }
TEST(GemmSm90, EdgesOnePastATileMnMajor) { run_and_check<GemmConfigSm90<128, 128, 32, 6, Half, MN, MN>>(136, 264, 72, 13); }
// MmaInFlight = 0: each K tile's wgmmas finish before the next barrier; the ring refills the
// stage just read (one more tile in flight), down to 2 stages.
TEST(GemmSm90, NoMmaInFlight) { run_and_check<GemmConfigSm90<128, 128, 32, 6, Half, K, MN, 0>>(256, 256, 1024, 15); }
TEST(GemmSm90, NoMmaInFlightTwoStages) { run_and_check<GemmConfigSm90<128, 128, 64, 2, Half, MN, K, 0>>(136, 264, 520, 16); }
TEST(GemmSm90, SplitK) { run_and_check<GemmConfigSm90<128, 128, 32, 6, Half, K, MN>>(130, 200, 1000, 14, 3); }

}  // namespace
}  // namespace tessel
