// First measurements of the sm80 multistage GEMM against cuBLAS in the same run (fp16 in,
// fp32 accumulate and out, "TN"). Both are timed the same way: a warm-up, then `iters`
// back-to-back launches between two CUDA events, five times; the median is reported.
// Usage: tessel-gemm-bench [M N K]...   (default: the square sizes and the seeds' shape)
// Not the profiler of issue 3 (tessel-prof); a kernel-development tool.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "tessel/gemm/kernel_sm80.hpp"

namespace {

#define CHECK_CUDA(x)                                                                   \
  do {                                                                                  \
    cudaError_t e = (x);                                                                \
    if (e != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

float median_ms(std::function<void()> const& launch, int iters) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 3; ++i) launch();  // warm-up
  std::vector<float> runs;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(start);
    for (int i = 0; i < iters; ++i) launch();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    runs.push_back(ms / iters);
  }
  std::sort(runs.begin(), runs.end());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return runs[2];
}

// The unpredicated kernel when the problem is a multiple of the tile, the edge one otherwise.
template <class Config>
void launch_tessel(tessel::GemmParamsSm80 const& p) {
  dim3 grid((p.m + Config::kTileM - 1) / Config::kTileM, (p.n + Config::kTileN - 1) / Config::kTileN);
  if (p.m % Config::kTileM == 0 && p.n % Config::kTileN == 0 && p.k % Config::kTileK == 0) {
    tessel::gemm_kernel_sm80<Config, false><<<grid, Config::kThreads, Config::kSmemBytes>>>(p);
  } else {
    tessel::gemm_kernel_sm80<Config, true><<<grid, Config::kThreads, Config::kSmemBytes>>>(p);
  }
}

}  // namespace

template <class Config>
void bench_config(std::vector<std::array<int, 3>> const& shapes, cublasHandle_t handle);

int main(int argc, char** argv) {
  std::vector<std::array<int, 3>> shapes = {{2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}, {81920, 256, 256}};
  if (argc > 1) {
    shapes.clear();
    for (int i = 1; i + 2 < argc; i += 3) shapes.push_back({std::atoi(argv[i]), std::atoi(argv[i + 1]), std::atoi(argv[i + 2])});
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "tessel-gemm-bench: no CUDA device\n");
    return 2;
  }
  cublasHandle_t handle;
  cublasCreate(&handle);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device %s\n", prop.name);
  bench_config<tessel::GemmConfigSm80<128, 128, 32, 4>>(shapes, handle);
  bench_config<tessel::GemmConfigSm80<128, 128, 64, 3>>(shapes, handle);
  bench_config<tessel::GemmConfigSm80<128, 256, 64, 3, 2, 4>>(shapes, handle);
  cublasDestroy(handle);
  return 0;
}

template <class Config>
void bench_config(std::vector<std::array<int, 3>> const& shapes, cublasHandle_t handle) {
  CHECK_CUDA(cudaFuncSetAttribute(tessel::gemm_kernel_sm80<Config, false>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, Config::kSmemBytes));
  CHECK_CUDA(cudaFuncSetAttribute(tessel::gemm_kernel_sm80<Config, true>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, Config::kSmemBytes));
  std::printf("config tile %dx%dx%d, %d stages, %d threads\n", Config::kTileM, Config::kTileN, Config::kTileK,
              Config::kStages, Config::kThreads);
  std::printf("%8s %8s %8s | %10s %9s | %10s %9s | %7s | %s\n", "M", "N", "K", "tessel ms", "TFLOP/s", "cuBLAS ms",
              "TFLOP/s", "ratio", "max rel. diff");
  for (auto [m, n, k] : shapes) {
    if (k % 8) {
      std::printf("%8d %8d %8d | skipped: K must be a multiple of 8\n", m, n, k);
      continue;
    }
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<__half> a(size_t(m) * k), b(size_t(n) * k);
    for (auto& x : a) x = __float2half(dist(rng));
    for (auto& x : b) x = __float2half(dist(rng));
    __half *d_a, *d_b;
    float *d_d, *d_ref;
    CHECK_CUDA(cudaMalloc(&d_a, a.size() * 2));
    CHECK_CUDA(cudaMalloc(&d_b, b.size() * 2));
    CHECK_CUDA(cudaMalloc(&d_d, size_t(m) * n * 4));
    CHECK_CUDA(cudaMalloc(&d_ref, size_t(m) * n * 4));
    CHECK_CUDA(cudaMemcpy(d_a, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_b, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
    tessel::GemmParamsSm80 p{reinterpret_cast<tessel::Half const*>(d_a), reinterpret_cast<tessel::Half const*>(d_b),
                             d_d, m, n, k, k, k, n};
    const float alpha = 1.0f, beta = 0.0f;
    // D row-major (M,N) = D^T column-major (N,M) = B (N,K) * A^T.
    auto cublas = [&] {
      cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, d_b, CUDA_R_16F, k, d_a, CUDA_R_16F, k, &beta,
                   d_ref, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    auto ours = [&] { launch_tessel<Config>(p); };
    cudaMemset(d_d, 0xff, size_t(m) * n * 4);
    ours();
    cublas();
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<float> d(size_t(m) * n), ref(size_t(m) * n);
    cudaMemcpy(d.data(), d_d, d.size() * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(ref.data(), d_ref, ref.size() * 4, cudaMemcpyDeviceToHost);
    double max_rel = 0;
    for (size_t i = 0; i < d.size(); ++i) {
      double diff = std::fabs(double(d[i]) - ref[i]) / (std::fabs(double(ref[i])) + 1.0);
      if (!(diff <= max_rel)) max_rel = std::isnan(diff) ? INFINITY : diff;
    }
    const double flops = 2.0 * m * n * k;
    const int iters = flops > 1e12 ? 10 : 50;
    float t_ours = median_ms(ours, iters);
    float t_ref = median_ms(cublas, iters);
    CHECK_CUDA(cudaGetLastError());
    std::printf("%8d %8d %8d | %10.4f %9.1f | %10.4f %9.1f | %7.3f | %.2e%s\n", m, n, k, t_ours, flops / t_ours / 1e9,
                t_ref, flops / t_ref / 1e9, t_ref / t_ours, max_rel, max_rel > 1e-3 ? "  MISMATCH" : "");
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_d);
    cudaFree(d_ref);
  }
}
