// The warp-specialized sm_90a GEMM kernel, for operands the TMA engine loads (the GEMM's
// matrices: gemm/matrix_operand_sm90.hpp; conv fprop's and dgrad's im2col activations and
// their filters: conv/fprop_operand_sm90.hpp, conv/dgrad_operand_sm90.hpp). The tile, ring
// layout, wgmma and epilogue are kernel_sm90.hpp's (GemmConfigSm90); the loads are not the
// threads':
//   producer  (the 9th warp, or the 3rd warpgroup: kTmaKernelThreads) one thread, per K tile i,
//             waits until its stage is free (empty), arms full[stage] with the stage's bytes
//             and asks the TMA for the A and B boxes
//   MMA warpgroups: per K tile, wait on full[stage], issue the wgmmas of the stage, keep one
//             group in flight; once tile i-1's group is done, each warp arrives on
//             empty[its stage]
//   epilogue  the MMA warpgroups alone, as in kernel_sm90.hpp (named barriers)
// No block-wide barrier and no address arithmetic sits in the MMA warps' loop.
//
// Persistent: one block per SM walks the work items (tile, split) blockIdx.x, + gridDim.x, ...
// and the epilogue stages its tile in shared memory of its own, past the ring, so the producer
// loads the next item's K tiles while the MMA warps store this one. For short reductions
// (1x1 layers: one to a few K tiles per tile), where a block's life is mostly load latency
// and epilogue, this overlap is what keeps the memory busy. Otherwise two blocks per SM, one
// item each, the epilogue staged over the ring. The persistent form also runs the ping-pong
// schedule (config_sm90.hpp, MmaSchedule): the warpgroups take the items in turn, and one's
// epilogue runs under the other's mainloop.
//
// A TMA operand source gives the producer a stream of K tiles per work item:
//   auto tiles = source.tiles(mn0, tile_begin, batch);   // tile's first row (A) or column (B),
//                                                         // first K tile, batch
//   tiles.load(stage_smem, bar);   // the next K tile, in order; the box(es) fill the stage:
//                                  // Config::kStageBytesA / B bytes
#pragma once

#include <cstdint>

#include "config_sm90.hpp"
#include "epilogue.hpp"
#include "kernel_sm90.hpp"  // detail::wgmma_k_tile, detail::store_accumulators
#include "tile_loader.hpp"
#include "tessel/arch/sm90/mbarrier.hpp"
#include "tessel/arch/sm90/registers.hpp"
#include "tessel/arch/sm90/wgmma.hpp"

namespace tessel {

// Threads of the kernel: the config's two MMA warpgroups, then the producer: one warp, or,
// when the MMA warpgroups need more registers than an even share (128 fp32 accumulators a
// thread: the 256-wide tile), a whole warpgroup that hands its registers over (setmaxnreg:
// 40 a thread for the producer, 232 for the MMA threads; 128*40 + 256*232 <= 64K).
template <class Config>
inline constexpr bool kTmaRegisterHandoff = Config::kAccumulators > 64;
template <class Config>
inline constexpr int kTmaKernelThreads = Config::kThreads + (kTmaRegisterHandoff<Config> ? 128 : 32);
// Shared memory: the ring, the epilogue's tile (over the ring unless persistent), then
// full[Stages], empty[Stages] and turn[2].
template <class Config, bool Persistent>
inline constexpr int kTmaKernelStagingOffset = Persistent ? Config::kSmemBytesAB : 0;
template <class Config, bool Persistent>
inline constexpr int kTmaKernelBarrierOffset =
    Persistent ? Config::kSmemBytesAB + Config::kSmemBytesC : Config::kSmemBytes;
template <class Config, bool Persistent>
inline constexpr int kTmaKernelSmemBytes = kTmaKernelBarrierOffset<Config, Persistent> + (2 * Config::kStages + 2) * 8;

#if defined(__CUDACC__)
template <class Config, bool Persistent, class ASource, class BSource>
__global__ void __launch_bounds__(kTmaKernelThreads<Config>, Persistent ? 1 : 2)
    gemm_kernel_sm90_tma(GemmParams p, int items, const __grid_constant__ ASource a_source,
                         const __grid_constant__ BSource b_source) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  static_assert(Config::kMmaInFlight == 1, "gemm_kernel_sm90_tma releases a stage one K tile after its wgmmas");
  static_assert(Persistent || !Config::kPingPong, "gemm_kernel_sm90_tma: ping-pong needs the persistent form");
  constexpr int kStages = Config::kStages;
  constexpr int kStageReaders = Config::kPingPong ? 4 : Config::kThreads / 32;  // warps that read a stage
  extern __shared__ __align__(1024) unsigned char smem[];
  auto* full = reinterpret_cast<std::uint64_t*>(smem + kTmaKernelBarrierOffset<Config, Persistent>);  // (Stages)
  auto* empty = full + kStages;                                                                        // (Stages)
  auto* turn = empty + kStages;  // (2) ping-pong: warpgroup w may begin its next mainloop
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);  // the producer's arrive_expect_tx, then the bytes
      mbarrier_init(&empty[s], kStageReaders);
    }
    mbarrier_init(&turn[0], 1), mbarrier_init(&turn[1], 1);  // the other warpgroup's leader
    mbarrier_init_fence();
  }
  __syncthreads();

  // Persistent: items = tiles * layers; item = z * tiles + x, with x the tile (rasterized) and
  // z = batch * splits + split, as the grid of the other form.
  const int tiles_mn = ((p.m + Config::kTileM - 1) / Config::kTileM) * ((p.n + Config::kTileN - 1) / Config::kTileN);
  if (!Persistent) items = 1;
  const int first = Persistent ? int(blockIdx.x) : 0, step = Persistent ? int(gridDim.x) : 1;
  auto work = [&](int item) {
    return Persistent ? block_work<Config>(p, item % tiles_mn, item / tiles_mn) : block_work<Config>(p);
  };
  unsigned char* smem_b = smem + kStages * Config::kStageBytesA;

  if (int(threadIdx.x) >= Config::kThreads) {  // ---- producer: one thread issues every load
    if constexpr (kTmaRegisterHandoff<Config>) setmaxnreg_decrease<40>();
    if (int(threadIdx.x) != Config::kThreads) return;
    int stage = 0, round = 0;
    for (int item = first; item < items; item += step) {
      const auto [tile, batch, tile_begin, tile_end] = work(item);
      auto a_tiles = a_source.tiles(tile.m * Config::kTileM, tile_begin, batch);
      auto b_tiles = b_source.tiles(tile.n * Config::kTileN, tile_begin, batch);
      for (int t = tile_begin; t < tile_end; ++t) {
        if (round > 0) mbarrier_wait(&empty[stage], (round - 1) & 1);  // the MMAs of round-1 are done with it
        mbarrier_arrive_expect_tx(&full[stage], Config::kStageBytesA + Config::kStageBytesB);
        a_tiles.load(smem + stage * Config::kStageBytesA, &full[stage]);
        b_tiles.load(smem_b + stage * Config::kStageBytesB, &full[stage]);
        if (++stage == kStages) stage = 0, ++round;
      }
    }
    return;
  }

  // ---- MMA warpgroups
  if constexpr (kTmaRegisterHandoff<Config>) setmaxnreg_increase<232>();
  const int wg = int(threadIdx.x) / 128;
  // Cooperative: this warpgroup's part of the tile; ping-pong: the whole tile.
  const int wg_m = Config::kPingPong ? 0 : wg % Config::kWarpGroupsM;
  const int wg_n = Config::kPingPong ? 0 : wg / Config::kWarpGroupsM;
  const bool warp_leader = threadIdx.x % 32 == 0;
  const std::uint32_t smem_a_addr = detail::smem_address(smem);
  const std::uint32_t smem_b_addr = detail::smem_address(smem_b);
  unsigned char* staging = smem + kTmaKernelStagingOffset<Config, Persistent>;
  float acc[Config::kAccumulators];  // (64 * kWgMBlocks, kWgTileN) of this warpgroup, wgmma.hpp's layout

  // Ping-pong: the block's items alternate between the warpgroups (its j-th item is
  // warpgroup j % 2's). A warpgroup steps over the other's K tiles in the ring, and begins a
  // mainloop only once the other has waited for the last K tile of the item before (turn[wg]):
  // then every stage it waits for has completed its previous round, so it never waits on a
  // phase two ahead (mbarrier.hpp).
  int stage = 0, round = 0;
  int mine = 0;  // ping-pong: items of this warpgroup so far
  for (int item = first, j = 0; item < items; item += step, ++j) {
    const auto [tile, batch, tile_begin, tile_end] = work(item);
    if constexpr (Config::kPingPong) {
      if (j % 2 != wg) {
        stage += tile_end > tile_begin ? tile_end - tile_begin : 0;
        round += stage / kStages, stage %= kStages;
        continue;
      }
      if (j > 0) mbarrier_wait(&turn[wg], (wg == 0 ? mine - 1 : mine) & 1);
      ++mine;
    }
    for (int i = 0; i < Config::kAccumulators; ++i) acc[i] = 0.0f;
    int previous = -1;
    for (int t = tile_begin; t < tile_end; ++t) {
      mbarrier_wait(&full[stage], round & 1);
      detail::wgmma_k_tile<Config>(acc, smem_a_addr + stage * Config::kStageBytesA,
                                   smem_b_addr + stage * Config::kStageBytesB, wg_m, wg_n);
      wgmma_wait<1>();  // tile t-1's wgmmas are done: its stage may be refilled
      wgmma_fence_operands(acc);
      if (previous >= 0 && warp_leader) mbarrier_arrive(&empty[previous]);
      previous = stage;
      if (++stage == kStages) stage = 0, ++round;
    }
    if constexpr (Config::kPingPong) {  // the other warpgroup's next mainloop may begin
      if (threadIdx.x % 128 == 0) mbarrier_arrive(&turn[1 - wg]);
    }
    wgmma_wait<0>();
    wgmma_fence_operands(acc);
    if (Persistent && previous >= 0 && warp_leader) mbarrier_arrive(&empty[previous]);

    // Staging: over the ring once both warpgroups are done reading it (every box has landed:
    // each was waited for); or, persistent, once the previous item's stores have read it.
    const int z = Persistent ? item / tiles_mn : int(blockIdx.z);
    detail::store_accumulators<Config>(staging + (Config::kPingPong ? wg * Config::kSmemBytesCPerWg : 0), acc, wg,
                                       wg_m, wg_n, p.epilogue, z, tile.m * Config::kTileM, tile.n * Config::kTileN,
                                       p.m - tile.m * Config::kTileM, p.n - tile.n * Config::kTileN);
  }
#else
  arch_unsupported("gemm_kernel_sm90_tma needs sm_90a", p, items, a_source, b_source);
#endif
}

// Non-persistent: one block per output tile, one grid layer per batch and K split, as
// launch_gemm_sm80. Persistent: one block per SM (fewer if there are fewer items).
template <class Config, bool Persistent, class ASource, class BSource>
cudaError_t launch_gemm_sm90_tma(GemmParams const& p, int batch, cudaStream_t stream, ASource const& a,
                                 BSource const& b) {
  auto kernel = gemm_kernel_sm90_tma<Config, Persistent, ASource, BSource>;
  constexpr int kSmem = kTmaKernelSmemBytes<Config, Persistent>;
  static_assert(kSmem <= 227 * 1024, "launch_gemm_sm90_tma: more than 227 KiB of shared memory per block");
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
      e != cudaSuccess) {
    return e;
  }
  const long long tiles = (long long)((p.m + Config::kTileM - 1) / Config::kTileM) *
                          ((p.n + Config::kTileN - 1) / Config::kTileN);
  const long long layers = (long long)batch * p.splits;
  dim3 grid(unsigned(tiles), 1, unsigned(layers));
  const long long items = tiles * layers;
  if constexpr (Persistent) {
    int device = 0, sms = 0;
    if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
    if (cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess)
      return e;
    grid = dim3(unsigned(items < sms ? items : sms), 1, 1);
  }
  kernel<<<grid, kTmaKernelThreads<Config>, kSmem, stream>>>(p, int(items), a, b);
  return cudaGetLastError();
}
#endif

}  // namespace tessel
