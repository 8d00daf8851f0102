// The warp-specialized sm_90a GEMM kernel, for operands the TMA engine loads (conv fprop's
// im2col activations and its filter: conv/fprop_operand_sm90.hpp). The tile, ring layout,
// wgmma and epilogue are kernel_sm90.hpp's (GemmConfigSm90); the loads are not the threads':
//   producer warp (the 9th, after the two MMA warpgroups): one thread, per K tile i of the
//             block's slice, waits until stage i % Stages is free (empty), arms full[stage]
//             with the stage's bytes and asks the TMA for the A and B boxes
//   MMA warpgroups: per K tile, wait on full[stage], issue TileK/16 wgmmas from the stage,
//             keep one group in flight; once tile i-1's group is done, each warp arrives on
//             empty[its stage]
//   epilogue  the MMA warpgroups alone, as in kernel_sm90.hpp (a named barrier of 256 threads)
// No block-wide barrier and no address arithmetic sits in the MMA warps' loop.
//
// A TMA operand source gives the producer a per-block stream of K tiles:
//   auto tiles = source.tiles(mn0, tile_begin);   // tile's first row (A) or column (B), first K tile
//   tiles.load(stage_smem, bar);                   // the next K tile, in order; the box(es)
//                                                  // fill the stage: Config::kStageBytesA / B bytes
#pragma once

#include <cstdint>

#include "config_sm90.hpp"
#include "epilogue_sm80.hpp"
#include "tile_loader.hpp"
#include "tessel/arch/sm90/mbarrier.hpp"
#include "tessel/arch/sm90/wgmma.hpp"

namespace tessel {

// Threads of the kernel: the config's two MMA warpgroups and one producer warp.
template <class Config>
inline constexpr int kTmaKernelThreads = Config::kThreads + 32;
// Dynamic shared memory: the ring (or the epilogue's tile), then full[Stages] and empty[Stages].
template <class Config>
inline constexpr int kTmaKernelSmemBytes = Config::kSmemBytes + 2 * Config::kStages * 8;

#if defined(__CUDACC__)
template <class Config, class ASource, class BSource>
__global__ void __launch_bounds__(kTmaKernelThreads<Config>, 2)
    gemm_kernel_sm90_tma(GemmParamsSm80 p, const __grid_constant__ ASource a_source,
                         const __grid_constant__ BSource b_source) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  static_assert(Config::kMmaInFlight == 1, "gemm_kernel_sm90_tma releases a stage one K tile after its wgmmas");
  constexpr int kStages = Config::kStages;
  constexpr int kMmaWarps = Config::kThreads / 32;
  extern __shared__ __align__(1024) unsigned char smem[];
  auto* full = reinterpret_cast<std::uint64_t*>(smem + Config::kSmemBytes);  // (Stages)
  auto* empty = full + kStages;                                              // (Stages)
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);  // the producer's arrive_expect_tx, then the bytes
      mbarrier_init(&empty[s], kMmaWarps);
    }
    mbarrier_init_fence();
  }
  __syncthreads();

  const auto [tile, batch, tile_begin, tile_end] = block_work<Config>(p);
  const int tiles = tile_end > tile_begin ? tile_end - tile_begin : 0;
  unsigned char* smem_b = smem + kStages * Config::kStageBytesA;

  if (int(threadIdx.x) >= Config::kThreads) {  // ---- producer warp
    if (threadIdx.x % 32 != 0) return;
    auto a_tiles = a_source.tiles(tile.m * Config::kTileM, tile_begin);
    auto b_tiles = b_source.tiles(tile.n * Config::kTileN, tile_begin);
    int stage = 0, round = 0;
    for (int i = 0; i < tiles; ++i) {
      if (round > 0) mbarrier_wait(&empty[stage], (round - 1) & 1);  // the MMAs of round-1 are done with it
      mbarrier_arrive_expect_tx(&full[stage], Config::kStageBytesA + Config::kStageBytesB);
      a_tiles.load(smem + stage * Config::kStageBytesA, &full[stage]);
      b_tiles.load(smem_b + stage * Config::kStageBytesB, &full[stage]);
      if (++stage == kStages) stage = 0, ++round;
    }
    return;
  }

  // ---- MMA warpgroups
  const int wg = int(threadIdx.x) / 128;
  const int wg_m = wg % Config::kWarpGroupsM, wg_n = wg / Config::kWarpGroupsM;
  const bool warp_leader = threadIdx.x % 32 == 0;
  const std::uint32_t smem_a_addr = detail::smem_address(smem);
  const std::uint32_t smem_b_addr = detail::smem_address(smem_b);
  float acc[Config::kAccumulators];  // (64, kWgTileN) of this warpgroup, wgmma.hpp's layout
  for (int i = 0; i < Config::kAccumulators; ++i) acc[i] = 0.0f;

  int stage = 0, round = 0, previous = 0;
  for (int i = 0; i < tiles; ++i) {
    mbarrier_wait(&full[stage], round & 1);
    wgmma_fence_operands(acc);
    wgmma_fence();
    const std::uint32_t stage_a = smem_a_addr + stage * Config::kStageBytesA;
    const std::uint32_t stage_b = smem_b_addr + stage * Config::kStageBytesB;
    for (int ks = 0; ks < Config::kTileK / 16; ++ks) {
      Config::Wgmma::mma(Config::GmmaA::descriptor(stage_a, wg_m, ks),
                         Config::GmmaB::descriptor(stage_b, wg_n * (Config::kWgTileN / 64), ks), acc, true);
    }
    wgmma_commit();
    wgmma_wait<1>();  // tile i-1's wgmmas are done: its stage may be refilled
    wgmma_fence_operands(acc);
    if (i > 0 && warp_leader) mbarrier_arrive(&empty[previous]);
    previous = stage;
    if (++stage == kStages) stage = 0, ++round;
  }
  wgmma_wait<0>();
  wgmma_fence_operands(acc);

  // The ring becomes the epilogue's staging tile once both warpgroups are done reading it
  // (every box has landed: each was waited for).
  asm volatile("bar.sync 1, %0;\n" ::"n"(Config::kThreads) : "memory");
  auto sC = make_tensor(make_smem_ptr(reinterpret_cast<float*>(smem)), typename Config::SmemLayoutC{});  // (BLK_M,BLK_N)
  const int warp = int(threadIdx.x) % 128 / 32, lane = int(threadIdx.x) % 32;
  const int row = wg_m * 64 + warp * 16 + lane / 4;
  const int col = wg_n * Config::kWgTileN + 2 * (lane % 4);
  for (int j = 0; j < Config::kWgTileN / 8; ++j) {
    for (int h = 0; h < 2; ++h) {  // rows row and row + 8
      *reinterpret_cast<float2*>(&sC(row + 8 * h, col + 8 * j)) = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
    }
  }
  asm volatile("bar.sync 1, %0;\n" ::"n"(Config::kThreads) : "memory");
  epilogue_store<Config>(smem, p.epilogue, int(blockIdx.z), tile.m * Config::kTileM, tile.n * Config::kTileN,
                         p.m - tile.m * Config::kTileM, p.n - tile.n * Config::kTileN);
#else
  arch_unsupported("gemm_kernel_sm90_tma needs sm_90a", p, a_source, b_source);
#endif
}

// One block per output tile, one grid layer per batch and K split, as launch_gemm_sm80.
template <class Config, class ASource, class BSource>
cudaError_t launch_gemm_sm90_tma(GemmParamsSm80 const& p, int batch, cudaStream_t stream, ASource const& a,
                                 BSource const& b) {
  auto kernel = gemm_kernel_sm90_tma<Config, ASource, BSource>;
  constexpr int kSmem = kTmaKernelSmemBytes<Config>;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
      e != cudaSuccess) {
    return e;
  }
  const int tiles_m = (p.m + Config::kTileM - 1) / Config::kTileM;
  const int tiles_n = (p.n + Config::kTileN - 1) / Config::kTileN;
  dim3 grid(unsigned(tiles_m) * unsigned(tiles_n), 1, unsigned(batch) * unsigned(p.splits));
  kernel<<<grid, kTmaKernelThreads<Config>, kSmem, stream>>>(p, a, b);
  return cudaGetLastError();
}
#endif

}  // namespace tessel
