// The whole atom stack on one block tile: cp.async (TiledCopy) global -> swizzled shared,
// ldmatrix (make_tiled_copy_A/B + retile_D) shared -> registers, mma.sync (TiledMMA, the
// seeds' 2x2 warps with N permuted to 32) over K, then the fragments out to global memory.
// Checked element by element against a double-precision reference on the host.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "tessel/arch/sm80.hpp"
#include "tessel/atom/copy.hpp"
#include "tessel/atom/copy_traits_sm80.hpp"
#include "tessel/atom/mma.hpp"
#include "tessel/atom/mma_traits_sm80.hpp"

namespace tessel {
namespace {

using _1 = Int<1>;
using _2 = Int<2>;
using _4 = Int<4>;
using _8 = Int<8>;
using _32 = Int<32>;
using _64 = Int<64>;

using Mma = TiledMMA<SM80_16x8x16_F32F16F16F32_TN, Layout<Shape<_2, _2, _1>>, Tile<_32, _32, Int<16>>>;

// C (64,64) row-major = A (64,K) K-major * B (64,K) K-major ("TN").
__global__ void block_tile_gemm(Half const* a, Half const* b, float* c, int k_size) {
  __shared__ alignas(128) Half smem_a[64 * 32];
  __shared__ alignas(128) Half smem_b[64 * 32];
  const int tid = threadIdx.x;

  auto gA = make_tensor(make_gmem_ptr(a), make_shape(_64{}, k_size), make_stride(k_size, _1{}));  // (64,K)
  auto gB = make_tensor(make_gmem_ptr(b), make_shape(_64{}, k_size), make_stride(k_size, _1{}));  // (64,K)
  auto gC = make_tensor(make_gmem_ptr(c), make_shape(_64{}, _64{}), make_stride(_64{}, _1{}));    // (64,64)
  auto tiles_a = local_tile(gA, make_shape(_64{}, _32{}), make_coord(0, _));  // (64,32,k)
  auto tiles_b = local_tile(gB, make_shape(_64{}, _32{}), make_coord(0, _));  // (64,32,k)

  auto smem_layout = tile_to_shape(composition(Swizzle<2, 3, 3>{}, make_layout(make_shape(_8{}, _32{}), LayoutRight{})),
                                   make_shape(_64{}, _32{}));
  auto sA = make_tensor(make_smem_ptr(smem_a), smem_layout);  // (64,32)
  auto sB = make_tensor(make_smem_ptr(smem_b), smem_layout);  // (64,32)

  // global -> shared: 128 threads as 32x4, 8 halves (16 bytes) each
  auto g2s = make_tiled_copy(CopyAtom<SM80_CP_ASYNC_CG<16>, Half>{},
                             make_layout(make_shape(_32{}, _4{}), make_stride(_4{}, _1{})),
                             make_layout(make_shape(_1{}, _8{})));
  auto thr_g2s = g2s.get_slice(tid);
  auto tAgA = thr_g2s.partition_S(tiles_a);  // (CPY,CPY_M,CPY_K,k)
  auto tAsA = thr_g2s.partition_D(sA);       // (CPY,CPY_M,CPY_K)
  auto tBgB = thr_g2s.partition_S(tiles_b);
  auto tBsB = thr_g2s.partition_D(sB);

  // shared -> registers with ldmatrix, in the MMA's fragment order
  auto thr_mma = Mma::get_slice(tid);
  auto tCrA = thr_mma.partition_fragment_A(sA);  // (MMA,MMA_M,MMA_K)
  auto tCrB = thr_mma.partition_fragment_B(sB);  // (MMA,MMA_N,MMA_K)
  auto tCgC = thr_mma.partition_C(gC);           // (MMA,MMA_M,MMA_N)
  auto tCrC = thr_mma.partition_fragment_C(gC);
  clear(tCrC);
  auto s2r_a = make_tiled_copy_A(CopyAtom<SM80_LDMATRIX_X4, Half>{}, Mma{});
  auto s2r_b = make_tiled_copy_B(CopyAtom<SM80_LDMATRIX_X4, Half>{}, Mma{});
  auto tXsA = s2r_a.get_slice(tid).partition_S(sA);  // (CPY,CPY_M,CPY_K)
  auto tXrA = s2r_a.get_slice(tid).retile_D(tCrA);   // (CPY,CPY_M,CPY_K)
  auto tXsB = s2r_b.get_slice(tid).partition_S(sB);
  auto tXrB = s2r_b.get_slice(tid).retile_D(tCrB);

  for (int k_tile = 0; k_tile < k_size / 32; ++k_tile) {
    copy(g2s, tAgA(_, _, _, k_tile), tAsA);
    copy(g2s, tBgB(_, _, _, k_tile), tBsB);
    cp_async_commit_group();
    cp_async_wait_all();
    __syncthreads();
    copy(s2r_a, tXsA, tXrA);
    copy(s2r_b, tXsB, tXrB);
    gemm(Mma{}, tCrC, tCrA, tCrB, tCrC);
    __syncthreads();
  }
  copy(tCrC, tCgC);
}

TEST(TiledGemmOnDevice, OneBlockTileThroughCpAsyncLdmatrixAndMma) {
  const int k_size = 96;
  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<__half> a(64 * k_size), b(64 * k_size);
  for (auto& x : a) x = __float2half(dist(rng));
  for (auto& x : b) x = __float2half(dist(rng));
  __half *d_a = nullptr, *d_b = nullptr;
  float* d_c = nullptr;
  ASSERT_EQ(cudaMalloc(&d_a, a.size() * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_b, b.size() * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_c, 64 * 64 * 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_a, a.data(), a.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_b, b.data(), b.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(d_c, 0xff, 64 * 64 * 4), cudaSuccess);  // poison: NaN
  block_tile_gemm<<<1, Mma::kThreads>>>(d_a, d_b, d_c, k_size);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> c(64 * 64);
  ASSERT_EQ(cudaMemcpy(c.data(), d_c, c.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  // fp16 inputs are exact in double; fp32 accumulation over K=96 products of |x| <= 1.
  const double tolerance = 1e-4 * k_size;
  for (int m = 0; m < 64; ++m) {
    for (int n = 0; n < 64; ++n) {
      double ref = 0;
      for (int k = 0; k < k_size; ++k) {
        ref += double(__half2float(a[m * k_size + k])) * double(__half2float(b[n * k_size + k]));
      }
      ASSERT_NEAR(c[m * 64 + n], ref, tolerance) << "C(" << m << "," << n << ")";
    }
  }
}

}  // namespace
}  // namespace tessel
