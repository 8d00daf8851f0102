// The sm_90a GEMM kernel: D (M,N) = A (M,K) * B (N,K)^T with wgmma (config_sm90.hpp). Grid,
// split-K, operand sources, loads and epilogue are the sm80 kernel's (kernel_sm80.hpp,
// tile_loader.hpp, epilogue.hpp); only the mainloop's tensor-core half differs:
//   prologue  cp.async the first P = Stages-1-F K tiles into the ring, F = Config::kMmaInFlight
//   mainloop  per K tile t: wait for it (cp.async group, proxy fence, barrier); refill the
//             stage of tile t-1-F with tile t+P; each warpgroup issues its TileK/16 wgmmas on
//             tile t from shared memory and waits until at most F groups of them are in flight
//             (F = 1: tile t-1's are done, so at the next barrier no warpgroup reads the stage
//             that the next iteration refills; F = 0: tile t's are done)
//   epilogue  accumulators -> swizzled shared memory -> the sm80 epilogue's 16-byte stores
// The body exists only in the sm_90a pass; elsewhere the kernel traps with a message (the
// runtime launches it only on compute capability 9.0 devices: DeviceInfo::wgmma(), src/runtime/device_info.hpp).
#pragma once

#include <cstdint>
#include <utility>

#include "config_sm90.hpp"
#include "epilogue.hpp"
#include "epilogue_sm90.hpp"
#include "tile_loader.hpp"
#include "tile_scheduler.hpp"
#include "tessel/arch/named_barrier.hpp"
#include "tessel/arch/sm80.hpp"
#include "tessel/arch/sm90/wgmma.hpp"

namespace tessel {

#if defined(__CUDACC__)
namespace detail {
// The accumulators of 64-row block `mb` of a warpgroup's tile (wgmma.hpp's layout).
template <class Config>
__device__ auto& accumulator_block(float (&acc)[Config::kAccumulators], int mb) {
  return *reinterpret_cast<float(*)[Config::kWgTileN / 2]>(&acc[mb * (Config::kWgTileN / 2)]);
}

// One K tile of a warpgroup's wgmmas from the stage at (stage_a, stage_b), into one new group:
// its (64 * kWgMBlocks, kWgTileN) accumulators += its rows of A x its kWgTileN columns of B.
template <class Config>
__device__ void wgmma_k_tile(float (&acc)[Config::kAccumulators], std::uint32_t stage_a, std::uint32_t stage_b,
                             int wg_m, int wg_n) {
  wgmma_fence_operands(acc);
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < Config::kTileK / 16; ++ks) {
#pragma unroll
    for (int mb = 0; mb < Config::kWgMBlocks; ++mb) {
      Config::Wgmma::mma(Config::GmmaA::descriptor(stage_a, wg_m * Config::kWgMBlocks + mb, ks),
                         Config::GmmaB::descriptor(stage_b, wg_n * (Config::kWgTileN / 64), ks),
                         accumulator_block<Config>(acc, mb), true);
    }
  }
  wgmma_commit();
}

// Columns [Slice * E, Slice * E + E) of the warpgroup's part of the tile, E =
// Config::kEpilogueTileN, from its accumulators (wgmma.hpp's layout) into the fp32 staging tile
// at `staging` (Config::SmemLayoutC, E columns).
template <class Config, int Slice>
__device__ void stage_accumulators(unsigned char* staging, float const (&acc)[Config::kAccumulators], int wg_m,
                                   int wg_n) {
  constexpr int kE = Config::kEpilogueTileN;
  auto sC = make_tensor(make_smem_ptr(reinterpret_cast<float*>(staging)), typename Config::SmemLayoutC{});  // (BLK_M,E)
  const int warp = int(threadIdx.x) % 128 / 32, lane = int(threadIdx.x) % 32;
  // Which 8-column chunks lie in the slice must be known at compile time: then the registers
  // of the slices already staged are dead while this one is stored (a 128x256 tile keeps 128
  // accumulators a thread, and would spill with all of them live through four slices). With
  // one warpgroup along N, wg_n is 0.
  const int wg_col = Config::kWarpGroupsN == 1 ? 0 : wg_n * Config::kWgTileN;
#pragma unroll
  for (int mb = 0; mb < Config::kWgMBlocks; ++mb) {
    const int row = (wg_m * Config::kWgMBlocks + mb) * 64 + warp * 16 + lane / 4;
    float const* block = &acc[mb * (Config::kWgTileN / 2)];
#pragma unroll
    for (int j = 0; j < Config::kWgTileN / 8; ++j) {
      const int chunk = wg_col + 8 * j - Slice * kE;  // the chunk's first column in the slice
      if (chunk < 0 || chunk >= kE) continue;
#pragma unroll
      for (int h = 0; h < 2; ++h) {  // rows row and row + 8
        *reinterpret_cast<float2*>(&sC(row + 8 * h, chunk + 2 * (lane % 4))) =
            make_float2(block[4 * j + 2 * h], block[4 * j + 2 * h + 1]);
      }
    }
  }
}

}  // namespace detail

template <class Config, bool Edges = true, class ASource = MatrixOperand, class BSource = MatrixOperand>
__global__ void __launch_bounds__(Config::kThreads)
    gemm_kernel_sm90(GemmParams p, ASource a_source, BSource b_source) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  constexpr int kStages = Config::kStages;
  constexpr int kInFlight = Config::kMmaInFlight;
  constexpr int kPrefetch = kStages - 1 - kInFlight;  // K tiles loading while one is multiplied
  extern __shared__ __align__(1024) unsigned char smem[];  // stages start on swizzle-pattern boundaries

  const auto [tile, batch, tile_begin, tile_end] = block_work<Config>(p);
  auto load_tile = make_tile_loader<Config, Edges, ASource, BSource, false>(p, a_source, b_source, tile, batch,
                                                                              tile_begin, smem);

  const int wg = int(threadIdx.x) / 128;
  const int wg_m = wg % Config::kWarpGroupsM, wg_n = wg / Config::kWarpGroupsM;
  const std::uint32_t smem_a = detail::smem_address(smem);
  const std::uint32_t smem_b = smem_a + kStages * Config::kStageBytesA;
  float acc[Config::kAccumulators];  // (64, kWgTileN) of this warpgroup, wgmma.hpp's layout
  for (int i = 0; i < Config::kAccumulators; ++i) acc[i] = 0.0f;

  for (int s = 0; s < kPrefetch; ++s) {
    if (tile_begin + s < tile_end) load_tile(tile_begin + s, s, AllAtoms{});
    cp_async_commit_group();
  }
  int stage = 0;
  for (int t = tile_begin; t < tile_end; ++t) {
    cp_async_wait_group<kPrefetch - 1>();  // tile t has landed (this thread's part) ...
    fence_proxy_async();                   // ... is visible to wgmma ...
    __syncthreads();                       // ... and so are the other threads' parts
    const int refill = stage + kPrefetch < kStages ? stage + kPrefetch : stage + kPrefetch - kStages;
    if (t + kPrefetch < tile_end) load_tile(t + kPrefetch, refill, AllAtoms{});
    cp_async_commit_group();

    detail::wgmma_k_tile<Config>(acc, smem_a + stage * Config::kStageBytesA, smem_b + stage * Config::kStageBytesB,
                                 wg_m, wg_n);
    wgmma_wait<kInFlight>();
    wgmma_fence_operands(acc);
    stage = stage + 1 < kStages ? stage + 1 : 0;
  }
  wgmma_wait<0>();
  wgmma_fence_operands(acc);

  cp_async_wait_all();  // no copy in flight when the block exits
  static_assert(!Config::kPingPong, "gemm_kernel_sm90: the cooperative schedule only");
  static_assert(Config::kSmemBytes >= detail::kEpilogueScratchBytes<Config>,
                "gemm_kernel_sm90: the epilogue's scratch lies over the ring");
  __syncthreads();  // the ring is dead: the epilogue's scratch (its general path) lies over it
  detail::store_accumulators<Config>(acc, wg_m, wg_n, p.epilogue, int(blockIdx.z), tile.m * Config::kTileM,
                                     tile.n * Config::kTileN, p.m - tile.m * Config::kTileM,
                                     p.n - tile.n * Config::kTileN, smem);
#else
  arch_unsupported("gemm_kernel_sm90 needs sm_90a", p, a_source, b_source);
#endif
}
#endif

}  // namespace tessel
