// How fast the TMA kernel's operand loads deliver K tiles, alone and with the kernel's MMAs: a
// block per output tile, a producer thread loading the same boxes as gemm_kernel_sm90_tma (the
// conv operand sources themselves: conv/fprop_operand_sm90.hpp, conv/dgrad_operand_sm90.hpp;
// and a plain tiled box of a row-major matrix, as the GEMM's A), or two (A and B from two warps,
// or two lanes of one), and 8 consumer warps that wait on each stage's `full` barrier and
// release it, after issuing the stage's wgmmas as the kernel does where a config is given (one
// group in flight). Run on an H100 after building nothing else:
//   nvcc -std=c++20 -O3 -arch=sm_90a -Iinclude -Isrc tools/device/tma_load_bench.cu \
//     src/runtime/tma_encoder.cpp src/runtime/tma_map.cpp src/conv/conv_tma_maps.cpp -lcuda -o /tmp/tma_load_bench
//   FILL=60 /tmp/tma_load_bench [N H C K R pad]  (default: ResNet-50's 14x14x256 3x3 at N = 32;
//                                                 FILL: the tensors' byte value)
// Prints, per variant and ring (stages, blocks per SM), the time of one launch over all the
// layer's tiles and K tiles and the bytes it delivered per microsecond. docs/PERFORMANCE.md
// (eighth and ninth sessions of 2026-11-26) says what it found.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "conv/conv_configs_sm80.hpp"
#include "conv/conv_tma_maps.hpp"
#include "runtime/tma_encoder.hpp"
#include "tessel/conv/wgrad_operand_sm90.hpp"
#include "tessel/gemm/kernel_sm90.hpp"  // detail::wgmma_k_tile
#include "tessel/gemm/matrix_operand_sm90.hpp"
#include "tessel/arch/sm90/mbarrier.hpp"
#include "tessel/arch/sm90/tma.hpp"

namespace tessel {
namespace {

constexpr int kStageA = 128 * 64 * 2, kStageB = 128 * 64 * 2;  // one K tile of a 128x128x64 tile
constexpr int kConsumerWarps = 8, kThreads = 32 * kConsumerWarps + 64;  // + one or two producer warps

// A row-major (M, K) matrix of f16 as the GEMM's A: a box of 64 K x 128 rows per K tile.
struct TiledRows {
  CUtensorMap map;
  struct Tiles {
    CUtensorMap const* map;
    int m0, t;
    __device__ void load(void* stage, std::uint64_t* bar) { tma_load_3d(stage, map, 64 * t++, m0, 0, bar); }
  };
  __device__ Tiles tiles(int m0, int k_tile, int) const { return {&map, m0, k_tile}; }
};

// fprop's A as `Boxes` im2col boxes of 128 / Boxes pixels each (a map of that many pixels).
template <int Boxes>
struct FpropAInBoxes {
  CUtensorMap map;
  ConvTmaGeometry g;
  struct Tiles {
    CUtensorMap const* map;
    ConvTmaGeometry g;
    int m0, t;
    __device__ void load(void* stage, std::uint64_t* bar) {
      for (int i = 0; i < Boxes; ++i) {
        const Im2colBox b = im2col_box(g, im2col_origin(g, m0 + i * (128 / Boxes)), t);
        tma_load_im2col_4d(static_cast<unsigned char*>(stage) + i * (128 / Boxes) * 128, map, b.c, b.w, b.h, b.n,
                           std::uint16_t(b.dw), std::uint16_t(b.dh), bar);
      }
      ++t;
    }
  };
  __device__ Tiles tiles(int m0, int k_tile, int) const { return {&map, g, m0, k_tile}; }
};

struct NoLoad {
  struct Tiles {
    __device__ void load(void*, std::uint64_t*) {}
  };
  __device__ Tiles tiles(int, int, int) const { return {}; }
};

// Block (x): tile (x % tiles_m, x / tiles_m), k_tiles K tiles through a ring of `stages`.
// Config (a GemmConfigSm90 of the stage's layouts): the consumers also multiply each stage as
// gemm_kernel_sm90_tma does (one group in flight, a stage released once the next one's wgmmas
// are issued), and write a checksum to `sink`; void: they only wait and release.
template <class Config, class ASource, class BSource>
__global__ void __launch_bounds__(kThreads) load_only(const __grid_constant__ ASource a,
                                                      const __grid_constant__ BSource b, int tiles_m, int k_tiles,
                                                      int stages, int bytes_a, int bytes_b, int two_producers,
                                                      float* sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  auto* full = reinterpret_cast<std::uint64_t*>(smem + stages * (kStageA + kStageB));
  auto* empty = full + stages;
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) mbarrier_init(&full[s], two_producers ? 2 : 1), mbarrier_init(&empty[s], kConsumerWarps);
    mbarrier_init_fence();
  }
  __syncthreads();
  const int m0 = 128 * (int(blockIdx.x) % tiles_m), n0 = 128 * (int(blockIdx.x) / tiles_m);
  if (threadIdx.x >= 32 * kConsumerWarps) {  // the producer(s): one thread issues A and B, or one each
    // two_producers: 0 one thread, 1 lane 0 of two warps, 2 lanes 0 and 1 of one warp
    const int warp = int(threadIdx.x) / 32 - kConsumerWarps, lane = int(threadIdx.x) % 32;
    const int producer = two_producers == 2 ? (warp == 0 ? lane : 2) : two_producers == 1 && lane == 0 ? warp : 2 * lane + warp;
    if (two_producers ? producer > 1 : producer != 0) return;
    const bool load_a = producer == 0, load_b = producer == 1 || !two_producers;
    auto at = a.tiles(m0, 0, 0);
    auto bt = b.tiles(n0, 0, 0);
    const int bytes = (load_a ? bytes_a : 0) + (load_b ? bytes_b : 0);
    for (int t = 0, stage = 0, round = 0; t < k_tiles; ++t) {
      if (round > 0) mbarrier_wait(&empty[stage], (round - 1) & 1);
      mbarrier_arrive_expect_tx(&full[stage], bytes);
      if (load_a) at.load(smem + stage * kStageA, &full[stage]);
      if (load_b) bt.load(smem + stages * kStageA + stage * kStageB, &full[stage]);
      if (++stage == stages) stage = 0, ++round;
    }
    return;
  }
  if constexpr (std::is_void_v<Config>) {
    for (int t = 0, stage = 0, round = 0; t < k_tiles; ++t) {  // the consumers: wait, release
      mbarrier_wait(&full[stage], round & 1);
      __syncwarp();
      if (threadIdx.x % 32 == 0) mbarrier_arrive(&empty[stage]);
      if (++stage == stages) stage = 0, ++round;
    }
  } else {
#if defined(__CUDA_ARCH__)
    const int wg = int(threadIdx.x) / 128;
    const int wg_m = wg % Config::kWarpGroupsM, wg_n = wg / Config::kWarpGroupsM;
    const std::uint32_t sa = detail::smem_address(smem), sb = sa + stages * kStageA;
    float acc[Config::kAccumulators];
    for (float& v : acc) v = 0.0f;
    int previous = -1;
    for (int t = 0, stage = 0, round = 0; t < k_tiles; ++t) {
      mbarrier_wait(&full[stage], round & 1);
      detail::wgmma_k_tile<Config>(acc, sa + stage * kStageA, sb + stage * kStageB, wg_m, wg_n);
      wgmma_wait<1>();
      wgmma_fence_operands(acc);
      if (previous >= 0 && threadIdx.x % 32 == 0) mbarrier_arrive(&empty[previous]);
      previous = stage;
      if (++stage == stages) stage = 0, ++round;
    }
    wgmma_wait<0>();
    wgmma_fence_operands(acc);
    float sum = 0.0f;
    for (float v : acc) sum += v;
    if (sum == 12345.0f) sink[threadIdx.x] = sum;  // keeps the wgmmas; never true on zeros
#endif
  }
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

template <class ASource, class BSource, class Config = void>
void time_loads(const char* name, ASource const& a, BSource const& b, int tiles_m, int tiles_n, int k_tiles,
                int bytes_per_stage, Config* = nullptr, int two_producers = 0) {
  const int bytes_a = std::is_same_v<ASource, NoLoad> ? 0 : kStageA;
  const int bytes_b = bytes_per_stage - bytes_a;
  static float* sink = nullptr;
  if (sink == nullptr) check(cudaMalloc(&sink, kThreads * sizeof(float)), "sink");
  for (int stages : {3, 6}) {
    const int smem = stages * (kStageA + kStageB) + 2 * stages * 8;
    auto kernel = load_only<Config, ASource, BSource>;
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), "smem");
    cudaEvent_t start, stop;
    cudaEventCreate(&start), cudaEventCreate(&stop);
    kernel<<<tiles_m * tiles_n, kThreads, smem>>>(a, b, tiles_m, k_tiles, stages, bytes_a, bytes_b, two_producers,
                                                  sink);  // warm-up
    check(cudaDeviceSynchronize(), name);
    constexpr int kRuns = 20;
    cudaEventRecord(start);
    for (int i = 0; i < kRuns; ++i)
      kernel<<<tiles_m * tiles_n, kThreads, smem>>>(a, b, tiles_m, k_tiles, stages, bytes_a, bytes_b, two_producers,
                                                    sink);
    cudaEventRecord(stop);
    check(cudaEventSynchronize(stop), name);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    const double us = 1000.0 * ms / kRuns;
    const double bytes = double(tiles_m) * tiles_n * k_tiles * bytes_per_stage;
    std::printf("%-34s %d stages (%d blocks/SM)  %8.2f us  %7.0f GB/s  %6.3f us per K tile\n", name, stages,
                stages == 3 ? 2 : 1, us, bytes / us / 1000.0, us / k_tiles);
  }
}

}  // namespace
}  // namespace tessel

int main(int argc, char** argv) {
  using namespace tessel;
  Conv2dProblem pb;
  pb.n = 32, pb.h = pb.w = 14, pb.c = 256, pb.k = 256, pb.r = pb.s = 3, pb.pad_h = pb.pad_w = 1;
  if (argc == 7) {
    pb.n = std::atoi(argv[1]), pb.h = pb.w = std::atoi(argv[2]), pb.c = std::atoi(argv[3]), pb.k = std::atoi(argv[4]);
    pb.r = pb.s = std::atoi(argv[5]), pb.pad_h = pb.pad_w = std::atoi(argv[6]);
  }
  const long long x_elems = (long long)pb.n * pb.h * pb.w * pb.c, y_elems = (long long)pb.n * pb.p() * pb.q() * pb.k;
  const long long w_elems = (long long)pb.k * pb.r * pb.s * pb.c;
  void *x, *y, *w;
  check(cudaMalloc(&x, 2 * x_elems), "x");
  check(cudaMalloc(&y, 2 * y_elems), "y");
  check(cudaMalloc(&w, 2 * w_elems), "w");
  const int fill = std::getenv("FILL") ? std::atoi(std::getenv("FILL")) : 0x3c;  // bytes of 0x3c: f16 1.06
  cudaMemset(x, fill, 2 * x_elems), cudaMemset(y, fill, 2 * y_elems), cudaMemset(w, fill, 2 * w_elems);
  std::printf("layer N %d, %dx%d, C %d -> K %d, %dx%d pad %d\n", pb.n, pb.h, pb.w, pb.c, pb.k, pb.r, pb.s, pb.pad_h);

  // fprop: A = im2col(X) (N*P*Q, R*S*C), B = W (K, R*S*C)
  sm90::ConvTmaMaps fp;
  ConvFpropTmaA fa{};
  ConvFilterTmaB fb{};
  if (!sm90::plan_fprop_tma(pb, true, 128, 128, 64, &fp) || !sm90::encode_tma_map(fp.a, x, &fa.map) ||
      !sm90::encode_tma_map(fp.b, w, &fb.map)) {
    std::fprintf(stderr, "fprop maps refused\n");
    return 1;
  }
  fa.g = fb.g = fp.walk;
  const int m = pb.n * pb.p() * pb.q();
  const int tiles_m = (m + 127) / 128, fprop_tiles_n = (pb.k + 127) / 128, fprop_k_tiles = fp.gemm_k / 64;
  // dgrad (stride 1: one phase): A = im2col(dY) (N*H*W, R*S*K), B = W as (C, R*S*K) boxes
  const DgradPhase phase = make_dgrad_phase(pb, 0, 0);
  sm90::ConvTmaMaps dp;
  ConvFpropTmaA da{};
  ConvDgradFilterTmaB db{};
  if (!sm90::plan_dgrad_tma(pb, phase, true, 128, 128, 64, &dp) || !sm90::encode_tma_map(dp.a, y, &da.map) ||
      !sm90::encode_tma_map(dp.b, w, &db.map)) {
    std::fprintf(stderr, "dgrad maps refused\n");
    return 1;
  }
  da.g = dp.walk, db.g = dp.b_dgrad;
  const int dgrad_m = pb.n * phase.rows * phase.cols, dgrad_tiles_m = (dgrad_m + 127) / 128;
  const int dgrad_tiles_n = (pb.c + 127) / 128, dgrad_k_tiles = dp.gemm_k / 64;
  // The GEMM of fprop's shape: A row-major (M, K) as one tiled map
  void* a_rows;
  check(cudaMalloc(&a_rows, 2LL * m * fp.gemm_k), "a");
  sm90::TmaMapParams tp = sm90::tiled_map<3>({std::uint64_t(fp.gemm_k), std::uint64_t(m), 1}, {64, 128, 1}, 64);
  TiledRows ta{};
  if (!sm90::encode_tma_map(tp, a_rows, &ta.map)) {
    std::fprintf(stderr, "tiled map refused\n");
    return 1;
  }
  std::printf("fprop %d x %d tiles, %d K tiles; dgrad %d x %d tiles, %d K tiles\n", tiles_m, fprop_tiles_n,
              fprop_k_tiles, dgrad_tiles_m, dgrad_tiles_n, dgrad_k_tiles);
  const NoLoad none;
  time_loads("GEMM A (tiled rows) alone", ta, none, tiles_m, fprop_tiles_n, fprop_k_tiles, kStageA);
  time_loads("fprop A (im2col) alone", fa, none, tiles_m, fprop_tiles_n, fprop_k_tiles, kStageA);
  time_loads("fprop B (filter box) alone", none, fb, tiles_m, fprop_tiles_n, fprop_k_tiles, kStageB);
  time_loads("fprop A + B", fa, fb, tiles_m, fprop_tiles_n, fprop_k_tiles, kStageA + kStageB);
  time_loads("GEMM A + fprop B", ta, fb, tiles_m, fprop_tiles_n, fprop_k_tiles, kStageA + kStageB);
  time_loads("dgrad A (im2col of dY) alone", da, none, dgrad_tiles_m, dgrad_tiles_n, dgrad_k_tiles, kStageA);
  time_loads("dgrad B (two 64x64 boxes) alone", none, db, dgrad_tiles_m, dgrad_tiles_n, dgrad_k_tiles, kStageB);
  time_loads("dgrad A + B", da, db, dgrad_tiles_m, dgrad_tiles_n, dgrad_k_tiles, kStageA + kStageB);

  // With the MMAs of the kernel's configurations (as the conv kernels: 128x128x64)
  using FpropMma = sm80::FpropConfigTma<Half>;
  using DgradMma = sm80::DgradConfigTma<Half>;
  FpropMma* fprop_mma = nullptr;
  DgradMma* dgrad_mma = nullptr;
  time_loads("MMA alone (fprop layouts)", none, none, tiles_m, fprop_tiles_n, fprop_k_tiles, 0, fprop_mma);
  time_loads("fprop A + B + MMA", fa, fb, tiles_m, fprop_tiles_n, fprop_k_tiles, kStageA + kStageB, fprop_mma);
  time_loads("GEMM A + fprop B + MMA", ta, fb, tiles_m, fprop_tiles_n, fprop_k_tiles, kStageA + kStageB, fprop_mma);
  time_loads("MMA alone (dgrad layouts)", none, none, dgrad_tiles_m, dgrad_tiles_n, dgrad_k_tiles, 0, dgrad_mma);
  time_loads("dgrad A + B + MMA", da, db, dgrad_tiles_m, dgrad_tiles_n, dgrad_k_tiles, kStageA + kStageB, dgrad_mma);

  // fprop's A in smaller im2col boxes (maps of 64 and 32 pixels)
  sm90::ConvTmaMaps fp64, fp32;
  FpropAInBoxes<2> fa2{};
  FpropAInBoxes<4> fa4{};
  if (sm90::plan_fprop_tma(pb, true, 64, 128, 64, &fp64) && sm90::encode_tma_map(fp64.a, x, &fa2.map) &&
      sm90::plan_fprop_tma(pb, true, 32, 128, 64, &fp32) && sm90::encode_tma_map(fp32.a, x, &fa4.map)) {
    fa2.g = fa4.g = fp.walk;
    time_loads("fprop A (2 boxes of 64 px) alone", fa2, none, tiles_m, fprop_tiles_n, fprop_k_tiles, kStageA);
    time_loads("fprop A (2 boxes) + B + MMA", fa2, fb, tiles_m, fprop_tiles_n, fprop_k_tiles, kStageA + kStageB,
               fprop_mma);
    time_loads("fprop A (4 boxes of 32 px) + B + MMA", fa4, fb, tiles_m, fprop_tiles_n, fprop_k_tiles,
               kStageA + kStageB, fprop_mma);
  } else {
    std::printf("fprop A in smaller boxes: maps refused\n");
  }
  time_loads("fprop A + B + MMA, two producer warps", fa, fb, tiles_m, fprop_tiles_n, fprop_k_tiles,
             kStageA + kStageB, fprop_mma, 1);
  time_loads("dgrad A + B + MMA, two producer warps", da, db, dgrad_tiles_m, dgrad_tiles_n, dgrad_k_tiles,
             kStageA + kStageB, dgrad_mma, 1);
  time_loads("fprop A + B + MMA, two producer lanes", fa, fb, tiles_m, fprop_tiles_n, fprop_k_tiles,
             kStageA + kStageB, fprop_mma, 2);
  time_loads("dgrad A + B + MMA, two producer lanes", da, db, dgrad_tiles_m, dgrad_tiles_n, dgrad_k_tiles,
             kStageA + kStageB, dgrad_mma, 2);
  time_loads("fprop A alone + MMA", fa, none, tiles_m, fprop_tiles_n, fprop_k_tiles, kStageA, fprop_mma);
  time_loads("fprop B alone + MMA", none, fb, tiles_m, fprop_tiles_n, fprop_k_tiles, kStageB, fprop_mma);
  time_loads("GEMM A alone + MMA", ta, none, tiles_m, fprop_tiles_n, fprop_k_tiles, kStageA, fprop_mma);

  // wgrad: A = dY as the MN-major (K, N*P*Q) matrix, two (64 k, 64 px) boxes; B = X's im2col
  // walk, two boxes of (64 c, 64 px); against B as the GEMM's MN-major (R*S*C, N*P*Q) matrix of
  // the same boxes, tiled.
  sm90::ConvTmaMaps wp;
  MatrixTmaSource<Major::kMN, 128, 64> wa{};
  ConvWgradActivationTmaB wb{};
  if (!sm90::plan_wgrad_tma(pb, true, &wp) || !sm90::encode_tma_map(wp.a, y, &wa.matrix.map) ||
      !sm90::encode_tma_map(wp.b, x, &wb.map)) {
    std::fprintf(stderr, "wgrad maps refused\n");
    return 1;
  }
  wb.g = wp.walk, wb.boxes = 2;
  const int rsc = pb.r * pb.s * pb.c, npq = pb.n * pb.p() * pb.q();
  const int wgrad_tiles_m = (pb.k + 127) / 128, wgrad_tiles_n = (rsc + 127) / 128, wgrad_k_tiles = (npq + 63) / 64;
  void* b_cols;
  check(cudaMalloc(&b_cols, 2LL * rsc * npq), "b");
  cudaMemset(b_cols, fill, 2LL * rsc * npq);
  MatrixTmaSource<Major::kMN, 128, 64> wb_tiled{};
  if (!sm90::encode_tma_map(sm90::tiled_map<3>({std::uint64_t(rsc), std::uint64_t(npq), 1}, {64, 64, 1}, 64), b_cols,
                            &wb_tiled.matrix.map)) {
    std::fprintf(stderr, "wgrad tiled B refused\n");
    return 1;
  }
  std::printf("wgrad %d x %d tiles, %d K tiles\n", wgrad_tiles_m, wgrad_tiles_n, wgrad_k_tiles);
  using WgradMma = sm80::WgradConfigTma<Half>;
  WgradMma* wgrad_mma = nullptr;
  time_loads("wgrad A (dY, two MN boxes) alone", wa, none, wgrad_tiles_m, wgrad_tiles_n, wgrad_k_tiles, kStageA);
  time_loads("wgrad B (two im2col boxes) alone", none, wb, wgrad_tiles_m, wgrad_tiles_n, wgrad_k_tiles, kStageB);
  time_loads("wgrad B tiled (two MN boxes) alone", none, wb_tiled, wgrad_tiles_m, wgrad_tiles_n, wgrad_k_tiles,
             kStageB);
  time_loads("wgrad A + B, two producer warps", wa, wb, wgrad_tiles_m, wgrad_tiles_n, wgrad_k_tiles,
             kStageA + kStageB, (void*)nullptr, 1);
  time_loads("MMA alone (wgrad layouts)", none, none, wgrad_tiles_m, wgrad_tiles_n, wgrad_k_tiles, 0, wgrad_mma);
  time_loads("wgrad A + B + MMA, two producer warps", wa, wb, wgrad_tiles_m, wgrad_tiles_n, wgrad_k_tiles,
             kStageA + kStageB, wgrad_mma, 1);
  time_loads("wgrad A + tiled B + MMA, two warps", wa, wb_tiled, wgrad_tiles_m, wgrad_tiles_n, wgrad_k_tiles,
             kStageA + kStageB, wgrad_mma, 1);
  return 0;
}
