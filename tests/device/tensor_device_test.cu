// Tensors in device code: a block tiles a global matrix with local_tile, each thread takes its
// part with local_partition, copies it through a swizzled shared-memory tile and back out
// transposed; the host checks every element.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "tessel/tensor.hpp"

namespace tessel {
namespace {

using TileM = Int<32>;
using TileN = Int<64>;

// in (M,N) row-major -> out (N,M) row-major, one 32x64 tile per block.
__global__ void transpose_through_smem(float const* in, float* out, int m, int n) {
  __shared__ float smem[32 * 64];
  auto g_in = make_tensor(make_gmem_ptr(in), make_shape(m, n), make_stride(n, 1));   // (M,N)
  auto g_out = make_tensor(make_gmem_ptr(out), make_shape(m, n), make_stride(1, m));  // (M,N) view of (N,M)
  auto tile = make_shape(TileM{}, TileN{});
  auto coord = make_coord(int(blockIdx.x), int(blockIdx.y));
  auto blk_in = local_tile(g_in, tile, coord);    // (32,64)
  auto blk_out = local_tile(g_out, tile, coord);  // (32,64)
  auto s = make_tensor(make_smem_ptr(smem),
                       composition(Swizzle<3, 2, 3>{}, make_layout(tile, LayoutRight{})));  // (32,64)
  auto threads = make_layout(make_shape(Int<8>{}, Int<16>{}), make_stride(Int<16>{}, Int<1>{}));
  auto t_in = local_partition(blk_in, threads, threadIdx.x);  // (4,4)
  auto t_s = local_partition(s, threads, threadIdx.x);        // (4,4)
  copy(t_in, t_s);
  __syncthreads();
  auto t_out = local_partition(blk_out, threads, threadIdx.x);
  copy(t_s, t_out);
}

TEST(TensorOnDevice, TiledPartitionedCopyThroughSwizzledSharedMemory) {
  const int m = 64, n = 128;
  std::vector<float> h_in(m * n);
  for (int i = 0; i < m * n; ++i) h_in[i] = float(i % 1013) * 0.5f;
  float *d_in = nullptr, *d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_in, m * n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_out, m * n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_in, h_in.data(), m * n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(d_out, 0xff, m * n * sizeof(float)), cudaSuccess);  // poison: NaN
  transpose_through_smem<<<dim3(m / 32, n / 64), 128>>>(d_in, d_out, m, n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> h_out(m * n);
  ASSERT_EQ(cudaMemcpy(h_out.data(), d_out, m * n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d_in);
  cudaFree(d_out);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) ASSERT_EQ(h_out[j * m + i], h_in[i * n + j]) << "(" << i << "," << j << ")";
}

}  // namespace
}  // namespace tessel
