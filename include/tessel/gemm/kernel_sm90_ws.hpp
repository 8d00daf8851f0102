// The warp-specialized sm_90a GEMM kernel: the same tile, ring, operand sources, wgmma and
// epilogue as kernel_sm90.hpp, with the work split between warps instead of shared:
//   load warps (Config::kLoadWarps, after the two MMA warpgroups)
//             for each K tile i: wait until the stage is free (empty[s]), cp.async the tile
//             into it; L tiles later, once those copies are complete, fence them for the async
//             proxy and arrive on full[s] (the writing threads fence, as wgmma requires)
//   MMA warpgroups
//             for each K tile i: wait on full[s], issue the wgmmas, keep one group in flight;
//             when tile i-1's are done, each warp arrives on empty[i-1's stage]
//   epilogue  the MMA warpgroups alone (a named barrier of 256 threads), as in kernel_sm90.hpp
// No block-wide barrier sits in the mainloop: the MMA warps never wait for a copy to be
// issued, only for it to land.
#pragma once

#include <cstdint>

#include "config_sm90.hpp"
#include "epilogue_sm80.hpp"
#include "tile_loader.hpp"
#include "tile_scheduler.hpp"
#include "tessel/arch/sm80.hpp"
#include "tessel/arch/sm90/mbarrier.hpp"
#include "tessel/arch/sm90/wgmma.hpp"

namespace tessel {

#if defined(__CUDACC__)
template <class Config, bool Edges = true, class ASource = MatrixOperand, class BSource = MatrixOperand>
__global__ void __launch_bounds__(Config::kBlockThreads, 2)
    gemm_kernel_sm90_ws(GemmParamsSm80 p, ASource a_source, BSource b_source) {
  static_assert(Config::kLoadWarps > 0, "gemm_kernel_sm90_ws: the config names no load warps");
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  constexpr int kStages = Config::kStages;
  constexpr int kLag = kStages - 2 < 3 ? kStages - 2 : 3;  // K tiles a load thread keeps in flight
  static_assert(kLag >= 1, "gemm_kernel_sm90_ws: 3 stages at least");
  constexpr int kMmaWarps = Config::kThreads / 32;
  extern __shared__ __align__(1024) unsigned char smem[];
  auto* full = reinterpret_cast<std::uint64_t*>(smem + Config::kSmemBytesData);  // (Stages)
  auto* empty = full + kStages;                                                   // (Stages)
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], Config::kLoadThreads);
      mbarrier_init(&empty[s], kMmaWarps);
    }
  }
  __syncthreads();

  const TileCoord tile = rasterize(int(blockIdx.x), (p.m + Config::kTileM - 1) / Config::kTileM,
                                   (p.n + Config::kTileN - 1) / Config::kTileN, Config::kRasterGroup);
  const int batch = int(blockIdx.z) / p.splits, split = int(blockIdx.z) % p.splits;
  const int tile_begin = split * p.k_tiles_per_split;  // this block's K tiles
  const int tile_end = min(tile_begin + p.k_tiles_per_split, (p.k + Config::kTileK - 1) / Config::kTileK);
  const int tiles = tile_end > tile_begin ? tile_end - tile_begin : 0;

  if (int(threadIdx.x) >= Config::kThreads) {  // ---- load warps
    auto load_tile = make_tile_loader<Config, Edges>(p, a_source, b_source, tile, batch, tile_begin, smem,
                                                     int(threadIdx.x) - Config::kThreads);
    for (int i = 0; i < tiles; ++i) {
      const int s = i % kStages;
      if (i >= kStages) mbarrier_wait(&empty[s], ((i / kStages) & 1) ^ 1);  // round i/S-1 released
      load_tile(tile_begin + i, s);
      cp_async_commit_group();
      if (i >= kLag) {  // tile i - kLag has landed: publish it
        cp_async_wait_group<kLag>();
        fence_proxy_async();
        mbarrier_arrive(&full[(i - kLag) % kStages]);
      }
    }
    cp_async_wait_all();
    fence_proxy_async();
    for (int i = tiles > kLag ? tiles - kLag : 0; i < tiles; ++i) mbarrier_arrive(&full[i % kStages]);
    return;
  }

  // ---- MMA warpgroups
  const int wg = int(threadIdx.x) / 128;
  const int wg_m = wg % Config::kWarpGroupsM, wg_n = wg / Config::kWarpGroupsM;
  const bool warp_leader = threadIdx.x % 32 == 0;
  const std::uint32_t smem_a = detail::smem_address(smem);
  const std::uint32_t smem_b = smem_a + kStages * Config::kStageBytesA;
  float acc[Config::kAccumulators];  // (64, kWgTileN) of this warpgroup, wgmma.hpp's layout
  for (int i = 0; i < Config::kAccumulators; ++i) acc[i] = 0.0f;

  for (int i = 0; i < tiles; ++i) {
    const int s = i % kStages;
    mbarrier_wait(&full[s], (i / kStages) & 1);
    wgmma_fence_operands(acc);
    wgmma_fence();
    const std::uint32_t stage_a = smem_a + s * Config::kStageBytesA;
    const std::uint32_t stage_b = smem_b + s * Config::kStageBytesB;
    for (int ks = 0; ks < Config::kTileK / 16; ++ks) {
      Config::Wgmma::mma(Config::GmmaA::descriptor(stage_a, wg_m, ks),
                         Config::GmmaB::descriptor(stage_b, wg_n * (Config::kWgTileN / 64), ks), acc, true);
    }
    wgmma_commit();
    wgmma_wait<1>();  // tile i-1's wgmmas are done: its stage may be refilled
    wgmma_fence_operands(acc);
    if (i > 0 && warp_leader) mbarrier_arrive(&empty[(i - 1) % kStages]);
  }
  wgmma_wait<0>();
  wgmma_fence_operands(acc);

  // The ring becomes the epilogue's staging tile once both warpgroups are done reading it
  // (every load has landed: each was waited for).
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
  arch_unsupported("gemm_kernel_sm90_ws needs sm_90a", p, a_source, b_source);
#endif
}
#endif

}  // namespace tessel
