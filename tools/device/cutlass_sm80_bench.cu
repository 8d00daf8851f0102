// CUTLASS 2.x's own sm80 GEMM kernels, timed on the GPU at hand: the reference issue 15
// measures tessel's sm80 kernel against ("at or above CUTLASS's sm80 kernel"). f16 in, fp32
// accumulation, f16 out, alpha 1, beta 0; A (M,K) row-major and B (K,N) column-major (both
// K-major, tessel's fastest case), D (M,N) row-major. CUTLASS is not a dependency of tessel:
// tools/device/cutlass_sm80.sh builds this against a CUTLASS include directory and runs it.
//
//   cutlass_sm80_bench [--sustained] [MxNxK ...]      default: 2048^3 4096^3 8192^3
//
// One row per (shape, configuration): microseconds per GEMM and TFLOP/s, and whether 64
// elements of D match an fp32 dot product of the same inputs. Inputs are rotated so that each
// launch reads them from DRAM, not L2. Two timings:
//   default      bursts: the median of 5 timings of 20 launches (how CUTLASS's profiler and
//                the 470-483 TFLOP/s of issue 15 were measured): the clock stays at its peak
//   --sustained  as tessel-prof times: the median of 7 timings of back-to-back launches, each
//                about 50 ms, after 5 warm-up launches, so the GPU runs at its sustained clock
//                (lower under the power limit: docs/PERFORMANCE.md, nineteenth session)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cutlass/epilogue/thread/linear_combination.h"
#include "cutlass/gemm/device/gemm.h"
#include "cutlass/version.h"

namespace {

#define CHECK_CUDA(call)                                                                        \
  do {                                                                                          \
    cudaError_t e_ = (call);                                                                    \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

using Half = cutlass::half_t;

// A GEMM of CUTLASS's sm80 multistage kernel: (TileM, TileN, TileK) per block, (WarpM, WarpN,
// TileK) per warp, Stages deep, mma.sync m16n8k16, rasterized in groups of 8.
template <int TM, int TN, int TK, int WM, int WN, int S>
using CutlassGemm = cutlass::gemm::device::Gemm<
    Half, cutlass::layout::RowMajor, Half, cutlass::layout::ColumnMajor, Half, cutlass::layout::RowMajor, float,
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80, cutlass::gemm::GemmShape<TM, TN, TK>,
    cutlass::gemm::GemmShape<WM, WN, TK>, cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombination<Half, 8, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>, S>;

struct Shape {
  int m, n, k;
};

// Deterministic values in [-1, 1) from the index.
__global__ void fill(Half* x, size_t count, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    x[i] = Half(float(h & 0xFFFF) / 32768.0f - 1.0f);
  }
}

// D's element (rows[i], cols[i]) recomputed in fp32, against D.
__global__ void spot_check(Half const* a, Half const* b, Half const* d, Shape s, int const* rows, int const* cols,
                           float* error) {
  const int i = threadIdx.x;
  float sum = 0.0f;
  for (int k = 0; k < s.k; ++k) {
    sum += float(a[size_t(rows[i]) * s.k + k]) * float(b[size_t(cols[i]) * s.k + k]);
  }
  const float got = float(d[size_t(rows[i]) * s.n + cols[i]]);
  error[i] = fabsf(got - sum) / (1.0f + fabsf(sum));
}

struct Operands {
  std::vector<Half*> a, b;
  Half* d = nullptr;
};

struct Timing {
  bool sustained = false;
};

template <class Gemm>
void run(char const* name, Shape s, Operands const& x, Timing timing, cudaStream_t stream) {
  typename Gemm::Arguments args({s.m, s.n, s.k}, {x.a[0], s.k}, {x.b[0], s.k}, {x.d, s.n}, {x.d, s.n}, {1.0f, 0.0f});
  Gemm gemm;
  if (gemm.can_implement(args) != cutlass::Status::kSuccess) {
    std::printf("%-26s %5dx%dx%d  cannot run this shape\n", name, s.m, s.n, s.k);
    return;
  }
  void* workspace = nullptr;
  CHECK_CUDA(cudaMalloc(&workspace, std::max<size_t>(1, Gemm::get_workspace_size(args))));
  auto launch = [&](int copy) {
    args.ref_A = {x.a[copy], s.k};
    args.ref_B = {x.b[copy], s.k};
    if (gemm.initialize(args, workspace, stream) != cutlass::Status::kSuccess || gemm(stream) != cutlass::Status::kSuccess) {
      std::fprintf(stderr, "%s: CUTLASS failed to launch\n", name);
      std::exit(1);
    }
  };
  const int copies = int(x.a.size());
  for (int i = 0; i < 3; ++i) launch(i % copies);
  CHECK_CUDA(cudaStreamSynchronize(stream));

  // Spot check on copy 0.
  launch(0);
  constexpr int kChecks = 64;
  std::vector<int> rows(kChecks), cols(kChecks);
  for (int i = 0; i < kChecks; ++i) rows[i] = (i * 7919) % s.m, cols[i] = (i * 104729 + 17) % s.n;
  rows[0] = s.m - 1, cols[0] = s.n - 1;
  int *d_rows, *d_cols;
  float* d_error;
  CHECK_CUDA(cudaMalloc(&d_rows, kChecks * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_cols, kChecks * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_error, kChecks * sizeof(float)));
  CHECK_CUDA(cudaMemcpyAsync(d_rows, rows.data(), kChecks * sizeof(int), cudaMemcpyHostToDevice, stream));
  CHECK_CUDA(cudaMemcpyAsync(d_cols, cols.data(), kChecks * sizeof(int), cudaMemcpyHostToDevice, stream));
  spot_check<<<1, kChecks, 0, stream>>>(x.a[0], x.b[0], x.d, s, d_rows, d_cols, d_error);
  std::vector<float> error(kChecks);
  CHECK_CUDA(cudaMemcpyAsync(error.data(), d_error, kChecks * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  const float worst = *std::max_element(error.begin(), error.end());
  // f16 output: its rounding (2^-11 relative) plus fp32 sums in another order.
  const bool ok = worst < 4e-3f;

  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  auto time_ms = [&](int launches) {  // `launches` back to back, rotating the inputs
    CHECK_CUDA(cudaEventRecord(start, stream));
    for (int i = 0; i < launches; ++i) launch(i % copies);
    CHECK_CUDA(cudaEventRecord(stop, stream));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  };
  int launches = 20, timings = 5;
  if (timing.sustained) {
    for (int i = 0; i < 5; ++i) launch(i % copies);
    launches = std::max(1, int(std::ceil(50.0 / (time_ms(8) / 8))));  // about 50 ms a timing
    timings = 7;
  }
  std::vector<float> us;
  for (int t = 0; t < timings; ++t) us.push_back(time_ms(launches) * 1000.0f / launches);
  std::sort(us.begin(), us.end());
  const float median = us[timings / 2];
  const double flops = 2.0 * s.m * s.n * double(s.k);
  std::printf("%-26s %5dx%dx%d  %10.1f us  %6.1f TFLOP/s  %s of %d  check %s (worst %.1e)\n", name, s.m, s.n,
              s.k, median, flops / (median * 1e-6) / 1e12, timing.sustained ? "sustained" : "bursts", launches,
              ok ? "PASS" : "FAIL", worst);
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  CHECK_CUDA(cudaFree(d_rows));
  CHECK_CUDA(cudaFree(d_cols));
  CHECK_CUDA(cudaFree(d_error));
  CHECK_CUDA(cudaFree(workspace));
  if (!ok) std::exit(2);
}

bool parse(char const* text, Shape* s) {
  return std::sscanf(text, "%dx%dx%d", &s->m, &s->n, &s->k) == 3 && s->m > 0 && s->n > 0 && s->k > 0 &&
         s->k % 8 == 0 && s->n % 8 == 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Shape> shapes;
  Timing timing;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--sustained") {
      timing.sustained = true;
      continue;
    }
    Shape s;
    if (!parse(argv[i], &s)) {
      std::fprintf(stderr, "usage: %s [--sustained] [MxNxK ...] (positive; N and K multiples of 8); got \"%s\"\n",
                   argv[0], argv[i]);
      return 2;
    }
    shapes.push_back(s);
  }
  if (shapes.empty()) shapes = {{2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}};
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, CUTLASS %d.%d.%d sm80 kernels, f16 in and out, fp32 accumulation, TN\n", prop.name,
              CUTLASS_MAJOR, CUTLASS_MINOR, CUTLASS_PATCH);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  for (Shape s : shapes) {
    // Enough copies of A and B that a launch finds none of its inputs in L2 (50 MB here).
    const size_t bytes = (size_t(s.m) + s.n) * s.k * sizeof(Half);
    const int copies = int(std::min<size_t>(8, std::max<size_t>(1, (size_t(3) * prop.l2CacheSize + bytes - 1) / bytes)));
    Operands x;
    for (int c = 0; c < copies; ++c) {
      Half *a, *b;
      CHECK_CUDA(cudaMalloc(&a, size_t(s.m) * s.k * sizeof(Half)));
      CHECK_CUDA(cudaMalloc(&b, size_t(s.n) * s.k * sizeof(Half)));
      fill<<<1024, 256, 0, stream>>>(a, size_t(s.m) * s.k, 2 * c + 1);
      fill<<<1024, 256, 0, stream>>>(b, size_t(s.n) * s.k, 2 * c + 2);
      x.a.push_back(a), x.b.push_back(b);
    }
    CHECK_CUDA(cudaMalloc(&x.d, size_t(s.m) * s.n * sizeof(Half)));
    CHECK_CUDA(cudaGetLastError());
    // CUTLASS's fastest sm80 f16 shapes: 8 warps of 64x64 on 128x256 or 256x128, 3 stages; or
    // 4 warps on 128x128 with 4-5 stages.
    run<CutlassGemm<128, 256, 64, 64, 64, 3>>("128x256x64_s3 (w 64x64)", s, x, timing, stream);
    run<CutlassGemm<256, 128, 64, 64, 64, 3>>("256x128x64_s3 (w 64x64)", s, x, timing, stream);
    run<CutlassGemm<128, 128, 64, 64, 64, 4>>("128x128x64_s4 (w 64x64)", s, x, timing, stream);
    run<CutlassGemm<128, 128, 32, 64, 64, 5>>("128x128x32_s5 (w 64x64)", s, x, timing, stream);
    for (int c = 0; c < copies; ++c) {
      CHECK_CUDA(cudaFree(x.a[c]));
      CHECK_CUDA(cudaFree(x.b[c]));
    }
    CHECK_CUDA(cudaFree(x.d));
  }
  CHECK_CUDA(cudaStreamDestroy(stream));
  return 0;
}
