// The multistage sm80 GEMM kernel against a double-precision reference: several
// configurations (stages, K tile), tile-multiple problems, and edges: M and N of any size
// (1, primes, one past a tile), K a multiple of 8 that is not one of the tile.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "tessel/gemm/launch_sm80.hpp"

namespace tessel {
namespace {

template <class Config, bool Edges = true>
void run_and_check(int m, int n, int k, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<__half> a(size_t(m) * k), b(size_t(n) * k);
  for (auto& x : a) x = __float2half(dist(rng));
  for (auto& x : b) x = __float2half(dist(rng));
  __half *d_a, *d_b;
  float* d_d;
  ASSERT_EQ(cudaMalloc(&d_a, a.size() * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_b, b.size() * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_d, size_t(m) * n * 4), cudaSuccess);
  cudaMemcpy(d_a, a.data(), a.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
  cudaMemset(d_d, 0xff, size_t(m) * n * 4);  // poison: NaN
  GemmParams p{d_a, d_b, m, n, k, k, k, 0, 0, 1, 1 << 30, {}};  // one split: all K tiles
  p.epilogue = EpilogueParams{d_d, nullptr, nullptr, n, 0, 0, 0, 1.0f, 0.0f, BiasMode::kNone,
                              Activation::kNone, DataType::kF32, n % 4 == 0};
  ASSERT_EQ((launch_gemm_sm80<Config, Edges>(p, 1, nullptr)), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> d(size_t(m) * n);
  cudaMemcpy(d.data(), d_d, d.size() * 4, cudaMemcpyDeviceToHost);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_d);
  std::vector<double> af(a.size()), bf(b.size());
  for (size_t i = 0; i < a.size(); ++i) af[i] = __half2float(a[i]);
  for (size_t i = 0; i < b.size(); ++i) bf[i] = __half2float(b[i]);
  // fp16 products are exact in fp32; the fp32 sums of K terms of size <= 1 err by < K * 2^-23 * K.
  const double tolerance = 1e-6 * k * std::sqrt(double(k)) + 1e-4;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double ref = 0;
      for (int kk = 0; kk < k; ++kk) ref += af[size_t(i) * k + kk] * bf[size_t(j) * k + kk];
      ASSERT_NEAR(d[size_t(i) * n + j], ref, tolerance) << "D(" << i << "," << j << ") of " << m << "x" << n << "x" << k;
    }
  }
}

// Tile multiples, without predicates (the fast path) and with them.
TEST(GemmSm80, Tile128x128x32ThreeStages) { run_and_check<GemmConfigSm80<128, 128, 32, 3>, false>(256, 384, 320, 1); }
TEST(GemmSm80, Tile128x128x64FourStages) { run_and_check<GemmConfigSm80<128, 128, 64, 4>, false>(256, 256, 512, 2); }
TEST(GemmSm80, Tile64x64x32TwoStages) { run_and_check<GemmConfigSm80<64, 64, 32, 2>, false>(192, 128, 96, 3); }
TEST(GemmSm80, SingleKTileShorterThanThePipeline) { run_and_check<GemmConfigSm80<128, 128, 32, 5>, false>(128, 128, 32, 4); }
TEST(GemmSm80, TileMultipleThroughTheEdgePath) { run_and_check<GemmConfigSm80<128, 128, 32, 3>, true>(256, 384, 320, 10); }

TEST(GemmSm80, EdgesOneByOne) { run_and_check<GemmConfigSm80<128, 128, 32, 3>>(1, 1, 8, 5); }
TEST(GemmSm80, EdgesPrimesAndPartialKTile) { run_and_check<GemmConfigSm80<128, 128, 32, 3>>(17, 131, 40, 6); }
TEST(GemmSm80, EdgesOnePastATile) { run_and_check<GemmConfigSm80<128, 128, 64, 4>>(129, 257, 72, 7); }
TEST(GemmSm80, EdgesSkinny) { run_and_check<GemmConfigSm80<64, 64, 32, 2>>(1000, 7, 200, 8); }
TEST(GemmSm80, EdgesWide) { run_and_check<GemmConfigSm80<128, 256, 64, 3, 2, 4>>(3, 601, 136, 9); }

}  // namespace
}  // namespace tessel
