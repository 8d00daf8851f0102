// The warp-specialized sm_90a GEMM kernel, for operands the TMA engine loads (the GEMM's
// matrices: gemm/matrix_operand_sm90.hpp; conv's im2col activations and their filters or
// gradients: conv/fprop_operand_sm90.hpp, conv/dgrad_operand_sm90.hpp,
// conv/wgrad_operand_sm90.hpp). The tile, ring
// layout, wgmma and epilogue are kernel_sm90.hpp's (GemmConfigSm90); the loads are not the
// threads':
//   producers (the 9th and 10th warps, or two warps of the 3rd warpgroup) one thread
//             for A and one, in another warp, for B: per K tile i, each waits until its stage
//             is free (empty), arms full[stage] with its operand's bytes and asks the TMA for
//             its boxes. (One thread issuing both serializes them: an im2col box holds up the
//             filter's behind it. tools/device/tma_load_bench.cu, docs/PERFORMANCE.md.)
//   MMA warpgroups: per K tile, wait on full[stage], issue the wgmmas of the stage, keep one
//             group in flight; once tile i-1's group is done, each warp arrives on
//             empty[its stage]
//   epilogue  the MMA warpgroups alone, from their registers to D (epilogue_sm90.hpp), or for
//             16-bit D through shared memory and the TMA engine (epilogue_tma_store_sm90.hpp)
// No block-wide barrier and no address arithmetic sits in the MMA warps' loop.
//
// Persistent: one block per SM walks its work segments (stream_k.hpp: whole tiles, round robin,
// and with stream-K parts of the last tiles' K tiles, finished by the fix-up below; each item's
// tile, batch and split decoded by multiplications: tile_loader.hpp's WorkItemDecoder), and the
// producer loads the next item's K tiles while the MMA warps store this one. For short reductions
// (1x1 layers: one to a few K tiles per tile), where a block's life is mostly load latency
// and epilogue, this overlap is what keeps the memory busy. Otherwise two blocks per SM, one
// item each. The persistent form also runs the ping-pong
// schedule (config_sm90.hpp, MmaSchedule): the warpgroups take the items in turn, and one's
// epilogue runs under the other's mainloop.
//
// Clusters (Config::kClusterM = 2, persistent only): the two blocks of a cluster walk the same
// segments in lock step, on tile rows 2i and 2i+1 of one column, which share B's K tiles. Each
// producer loads its own A and one half of B, which the engine multicasts into both blocks'
// rings; full[stage] counts A and both halves, and empty[stage] both blocks' readers (a stage
// is rewritten only when neither block reads it: each MMA warp arrives on both blocks' empty
// barrier). Meant to halve B's L2 reads (24 KiB per 128x128 tile and K tile, not 32); measured
// 0.88-0.92x of the same tile without clusters (docs/PERFORMANCE.md), so the GEMM does not
// choose it. Conv wgrad's stream-K does: each block then issues half of B's im2col boxes, which
// the engine delivers to a block slowly (conv2d_plan.cpp).
//
// Store warps (Config::kStoreWarps, persistent cooperative only): the MMA warpgroups stage each
// finished tile in shared memory (staged: one arrival per MMA thread, the tile's origin in job)
// and go on to the next mainloop; the store warps store it to D and release the staging tile
// (stored). The MMA warpgroups wait for `stored` only before staging the next tile.
//
// A TMA operand source gives the producer a stream of K tiles per work item:
//   auto tiles = source.tiles(mn0, tile_begin, batch);   // tile's first row (A) or column (B),
//                                                         // first K tile, batch
//   tiles.load(stage_smem, bar);   // the next K tile, in order; the box(es) fill the stage:
//                                  // Config::kStageBytesA / B bytes
// Every batch is the GEMM of p (M = p.m, p.k), unless the A source gives each its own
// (BatchShapedSource: conv dgrad's stride phases, ConvDgradPhasesTmaA): then batch b has
// batch_rows(b) rows, batch_k_tiles(b) K tiles and its rows go to D through batch_scatter(b);
// p.m is the largest batch's rows (the grid), p.splits 1 and D's batch stride unused.
#pragma once

#include <concepts>
#include <cstdint>

#include "config_sm90.hpp"
#include "epilogue.hpp"
#include "epilogue_tma_store_sm90.hpp"
#include "kernel_sm90.hpp"  // detail::wgmma_k_tile, detail::store_accumulators
#include "stream_k.hpp"
#include "tile_loader.hpp"
#include "tessel/arch/sm90/cluster.hpp"
#include "tessel/arch/sm90/grid_dependency.hpp"
#include "tessel/arch/sm90/mbarrier.hpp"
#include "tessel/arch/sm90/registers.hpp"
#include "tessel/arch/sm90/wgmma.hpp"

namespace tessel {

template <class ASource>
concept BatchShapedSource = requires(ASource const& a, int b) {
  { a.batch_rows(b) } -> std::convertible_to<int>;
  { a.batch_k_tiles(b) } -> std::convertible_to<int>;
  { a.batch_scatter(b) } -> std::convertible_to<RowScatter>;
};

// Threads of the kernel: the config's two MMA warpgroups, then the producers: two warps, or,
// when the MMA warpgroups need more registers than an even share (128 fp32 accumulators a
// thread), a whole warpgroup that hands its registers over (setmaxnreg: 40 a thread for the
// producers, 232 for the MMA threads; 128*40 + 256*232 <= 64K). Producer warps alone would
// not do there: ptxas caps a block of nine or ten warps at 168 registers a thread, and
// allocates beyond the cap after setmaxnreg only in blocks of whole warpgroups. (Two blocks
// per SM of ten warps cap a thread at 96 registers; the conv instances' mainloop SASS is the
// same as with one producer warp.)
template <class Config>
inline constexpr bool kTmaRegisterHandoff = Config::kAccumulators > 64;
template <class Config>
inline constexpr int kTmaProducerThreads = kTmaRegisterHandoff<Config> ? 128 : 64;
template <class Config>
inline constexpr int kTmaKernelThreads = Config::kThreads + kTmaProducerThreads<Config> + 32 * Config::kStoreWarps;
// Shared memory: the ring, the epilogue's tile (over the ring unless persistent), then
// full[Stages], empty[Stages], turn[2], staged and stored (the store warps'), then ints:
// last[2] (stream-K's flag) and job[4] (the tile the store warps store).
template <class Config, bool Persistent>
inline constexpr int kTmaKernelStagingOffset = Persistent ? Config::kSmemBytesAB : 0;
template <class Config, bool Persistent>
inline constexpr int kTmaKernelBarrierOffset =
    Persistent ? Config::kSmemBytesAB + Config::kSmemBytesC : Config::kSmemBytes;
template <class Config, bool Persistent>
inline constexpr int kTmaKernelSmemBytes = kTmaKernelBarrierOffset<Config, Persistent> + (2 * Config::kStages + 4) * 8 + 24;

#if defined(__CUDACC__)
namespace detail {
// Stream-K's fix-up (stream_k.hpp) of a segment that is part of stream-K item t: this block's
// partial acc into its workspace slot; then, by the item's counter, true when this block is the
// item's last contributor, acc then holding the sum of every contributor's partial in the
// schedule's contributor order (its own read back like the others). Run by the
// Config::kEpilogueThreads threads that own the tile (named barrier 1, or 1 + wg in
// ping-pong); *last is their shared flag. With clusters, the schedule's blocks and items are
// clusters and pairs of tiles: block `rank` of each cluster has its own slots and counters
// (workspace block b * kClusterM + rank, counter t * kClusterM + rank).
template <class Config>
__device__ bool stream_k_fixup(StreamKParams const& sk, int t, int slot, float (&acc)[Config::kAccumulators], int wg,
                               int rank, int* last) {
  constexpr int kThreads = Config::kEpilogueThreads, kVecs = Config::kAccumulators / 4;
  constexpr long long kSlotFloats = (long long)kThreads * Config::kAccumulators;
  const int barrier = Config::kPingPong ? 1 + wg : 1;
  const int thread = int(threadIdx.x) % kThreads;
  auto partial = [&](int block,
                     int s) {  // (kVecs, kThreads) float4: each warp's accesses coalesced
    return reinterpret_cast<float4*>(sk.partials + (2LL * (block * Config::kClusterM + rank) + s) * kSlotFloats);
  };
  float4* mine = partial(int(blockIdx.x) / Config::kClusterM, slot);
#pragma unroll
  for (int i = 0; i < kVecs; ++i) {
    mine[i * kThreads + thread] = make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]);
  }
  __threadfence();  // the partial is visible device-wide before the counter moves
  const int contributors = sk.schedule.contributors(t);
  named_barrier<kThreads>(barrier);
  if (thread == 0) *last = atomicAdd(&sk.counters[t * Config::kClusterM + rank], 1) == contributors - 1;
  __syncwarp();
  named_barrier<kThreads>(barrier);
  if (!*last) return false;
  __threadfence();
  int b = sk.schedule.contributor(t, 0);
  float4 const* part = partial(b, sk.schedule.slot_of(b, t));
#pragma unroll
  for (int i = 0; i < kVecs; ++i) {
    const float4 v = __ldcg(&part[i * kThreads + thread]);  // from L2: written by other SMs
    acc[4 * i] = v.x, acc[4 * i + 1] = v.y, acc[4 * i + 2] = v.z, acc[4 * i + 3] = v.w;
  }
  for (int j = 1; j < contributors; ++j) {
    b = sk.schedule.contributor(t, j);
    part = partial(b, sk.schedule.slot_of(b, t));
#pragma unroll
    for (int i = 0; i < kVecs; ++i) {
      const float4 v = __ldcg(&part[i * kThreads + thread]);
      acc[4 * i] += v.x, acc[4 * i + 1] += v.y, acc[4 * i + 2] += v.z, acc[4 * i + 3] += v.w;
    }
  }
  return true;
}
}  // namespace detail
#endif

#if defined(__CUDACC__)
template <class Config, bool Persistent, bool TmaStore, class ASource, class BSource>
__global__ void __launch_bounds__(kTmaKernelThreads<Config>, Persistent ? 1 : 2)
    gemm_kernel_sm90_tma(GemmParams p, const __grid_constant__ StreamKParams sk,
                         const __grid_constant__ WorkItemDecoder<Config> decode, const __grid_constant__ ASource a_source,
                         const __grid_constant__ BSource b_source, const __grid_constant__ TmaStoreD d_store) {
#if defined(TESSEL_ARCH_SM90A_ENABLED)
  static_assert(Config::kMmaInFlight == 1, "gemm_kernel_sm90_tma releases a stage one K tile after its wgmmas");
  static_assert(Persistent || !Config::kPingPong, "gemm_kernel_sm90_tma: ping-pong needs the persistent form");
  static_assert(Persistent || Config::kClusterM == 1, "gemm_kernel_sm90_tma: clusters need the persistent form");
  static_assert(Persistent || Config::kStoreWarps == 0, "gemm_kernel_sm90_tma: store warps need the persistent form");
  constexpr int kStoreWarps = Config::kStoreWarps, kProducerEnd = Config::kThreads + kTmaProducerThreads<Config>;
  constexpr int kStages = Config::kStages, kCluster = Config::kClusterM;
  constexpr int kStageReaders = Config::kPingPong ? 4 : Config::kThreads / 32;  // warps that read a stage
  extern __shared__ __align__(1024) unsigned char smem[];
  auto* full = reinterpret_cast<std::uint64_t*>(smem + kTmaKernelBarrierOffset<Config, Persistent>);  // (Stages)
  auto* empty = full + kStages;                                                                        // (Stages)
  auto* turn = empty + kStages;  // (2) ping-pong: warpgroup w may begin its next mainloop
  auto* staged = turn + 2;       // store warps: phase j completes when the staging tile holds job j
  auto* stored = staged + 1;     // store warps: phase j completes when job j is stored
  auto* last = reinterpret_cast<int*>(stored + 1);  // (2) stream-K: the fix-up was the last (one per ping-pong warpgroup)
  int* job = last + 2;  // (4) store warps: the staged tile's row0, col0, batch; 0 in job[3]: no more
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 2);  // the two producers' arrive_expect_tx, then the bytes
      mbarrier_init(&empty[s],
                    kStageReaders * kCluster);  // a stage is free once every block's readers are done
    }
    mbarrier_init(&turn[0], 1), mbarrier_init(&turn[1], 1);  // the other warpgroup's leader
    mbarrier_init(staged, Config::kThreads), mbarrier_init(stored, 32 * kStoreWarps + (kStoreWarps == 0));
    mbarrier_init_fence();
  }
  if constexpr (kCluster > 1) {
    cluster_sync();  // the peer's barriers are initialized before anyone multicasts or arrives on
                     // them
  } else {
    __syncthreads();
  }
  // Launched as a programmatic dependent (launch_gemm_sm90_tma): the kernel ahead in the stream
  // may still run until here; global memory only after it. The next kernel's blocks may then
  // take SMs as this grid's leave (they wait for its end before they touch memory).
  grid_dependency_wait();
  grid_dependency_launch();

  // Persistent: items = tiles * layers; item = z * tiles + x, with x the tile (rasterized) and
  // z = batch * splits + split, as the grid of the other form; the block's segments of them
  // come from the stream-K schedule (all data-parallel without stream-K). Otherwise the block's
  // one tile, by its grid position. With clusters of two, the schedule's blocks are clusters
  // and its tiles pairs of tile rows: each block of a cluster walks the same segments, on its
  // own row of the pair (block_work), B's K tiles shared.
  const int tiles_m = (p.m + Config::kTileM - 1) / Config::kTileM;
  const StreamKSchedule schedule = Persistent ? sk.schedule : StreamKSchedule{1, 1, 0, 0};
  const int rank = kCluster > 1 ? cluster_rank() : 0;
  const int block = Persistent ? int(blockIdx.x) / kCluster : 0;
  constexpr bool kBatchShaped = BatchShapedSource<ASource>;
  static_assert(!kBatchShaped || kStoreWarps == 0, "gemm_kernel_sm90_tma: batches of their own shape store from the MMA warps");
  // The TMA epilogue (epilogue_tma_store_sm90.hpp), where the launch asks for it (d_store.on);
  // the MMA warps store from their registers otherwise.
  static_assert(!TmaStore || (Persistent && kStoreWarps == 0 && !kBatchShaped && detail::TmaStoreShape<Config>::kFits),
                "gemm_kernel_sm90_tma: the TMA epilogue needs the persistent form, the MMA warps storing, plain "
                "batches and two groups of boxes in the staging area");
  const bool tma_store = TmaStore && d_store.on;
  auto work = [&](WorkSegment const& s) {
    BlockWork w = Persistent ? decode(s.item, rank) : block_work<Config>(p);
    if (Persistent && s.item >= schedule.dp_items()) w.tile_begin = s.k_begin, w.tile_end = s.k_end;  // a stream-K segment
    if constexpr (kBatchShaped) {  // the batch's own K tiles; none for a tile past its rows
      w.tile_end = w.tile.m * Config::kTileM < a_source.batch_rows(w.batch)
                       ? min(w.tile_end, a_source.batch_k_tiles(w.batch))
                       : w.tile_begin;
    }
    return w;
  };
  unsigned char* smem_b = smem + kStages * Config::kStageBytesA;
  unsigned char* staging = smem + kTmaKernelStagingOffset<Config, Persistent>;
  static_assert((Persistent ? Config::kSmemBytesC : Config::kSmemBytes) >= detail::kEpilogueScratchBytes<Config>,
                "gemm_kernel_sm90_tma: the staging area holds the epilogue's scratch");

  if constexpr (kStoreWarps > 0) {  // ---- store warps: each staged tile to D, in order
    if (int(threadIdx.x) >= kProducerEnd) {
      using Tile = EpilogueTileShape<Config::kTileM, Config::kTileN, 32 * kStoreWarps>;
      for (int j = 0;; ++j) {
        mbarrier_wait(staged, j & 1);
        if (job[3] == 0) break;
        const int row0 = job[0], col0 = job[1];
        epilogue_store<Tile>(staging, p.epilogue, job[2], row0, col0, p.m - row0, p.n - col0);
        mbarrier_arrive(stored);  // this thread is done reading the staging tile (and job)
      }
      return;
    }
  }

  if (int(threadIdx.x) >= Config::kThreads) {  // ---- producers: lane 0 of the first warp A, of the second B
    if constexpr (kTmaRegisterHandoff<Config>) setmaxnreg_decrease<40>();
    const int producer = (int(threadIdx.x) - Config::kThreads) / 32;
    if (threadIdx.x % 32 != 0 || producer > 1) return;
    int stage = 0, round = 0;
    auto cursor = schedule.start(block);
    for (WorkSegment seg; schedule.next(cursor, &seg);) {
      const auto [tile, batch, tile_begin, tile_end] = work(seg);
      auto a_tiles = a_source.tiles(tile.m * Config::kTileM, tile_begin, batch);
      auto b_tiles = b_source.tiles(tile.n * Config::kTileN, tile_begin, batch);
      for (int t = tile_begin; t < tile_end; ++t) {
        if (round > 0) mbarrier_wait(&empty[stage], (round - 1) & 1);  // the MMAs of round-1 are done with it
        if (producer == 0) {
          mbarrier_arrive_expect_tx(&full[stage], Config::kStageBytesA);
          a_tiles.load(smem + stage * Config::kStageBytesA, &full[stage]);
        } else if constexpr (kCluster > 1) {  // this block's half of B, into both blocks' stage (both halves counted)
          mbarrier_arrive_expect_tx(&full[stage], Config::kStageBytesB);
          b_tiles.load_part(smem_b + stage * Config::kStageBytesB, &full[stage], rank, (1u << kCluster) - 1);
        } else {
          mbarrier_arrive_expect_tx(&full[stage], Config::kStageBytesB);
          b_tiles.load(smem_b + stage * Config::kStageBytesB, &full[stage]);
        }
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
  auto release = [&](int s) {  // this warp is done reading stage s (of every block that writes it)
    mbarrier_arrive(&empty[s]);
    if constexpr (kCluster > 1) mbarrier_arrive_cluster(&empty[s], rank ^ 1);
  };
  const std::uint32_t smem_a_addr = detail::smem_address(smem);
  const std::uint32_t smem_b_addr = detail::smem_address(smem_b);
  float acc[Config::kAccumulators];  // (64 * kWgMBlocks, kWgTileN) of this warpgroup, wgmma.hpp's layout

  // Ping-pong: the block's items alternate between the warpgroups (its j-th item is
  // warpgroup j % 2's). A warpgroup steps over the other's K tiles in the ring, and begins a
  // mainloop only once the other has waited for the last K tile of the item before (turn[wg]):
  // then every stage it waits for has completed its previous round, so it never waits on a
  // phase two ahead (mbarrier.hpp).
  int stage = 0, round = 0;
  int mine = 0;  // ping-pong: items of this warpgroup so far
  int jobs = 0;  // store warps: tiles handed to them so far
  int passes = 0;  // TMA epilogue: this warpgroup's passes so far
  auto cursor = schedule.start(block);
  int j = 0;
  for (WorkSegment seg; schedule.next(cursor, &seg); ++j) {
    const auto [tile, batch, tile_begin, tile_end] = work(seg);
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
      if (previous >= 0 && warp_leader) release(previous);
      previous = stage;
      if (++stage == kStages) stage = 0, ++round;
    }
    if constexpr (Config::kPingPong) {  // the other warpgroup's next mainloop may begin
      if (threadIdx.x % 128 == 0) mbarrier_arrive(&turn[1 - wg]);
    }
    wgmma_wait<0>();
    wgmma_fence_operands(acc);
    if (Persistent && previous >= 0 && warp_leader) release(previous);
    if (kCluster > 1 && tile.m >= tiles_m) continue;  // the pair's row past M: nothing to store

    // Stream-K: a part of an item is stored only by the item's last contributor, summed.
    if (Persistent && seg.slot >= 0 &&
        !detail::stream_k_fixup<Config>(sk, seg.item - schedule.dp_items(), seg.slot, acc, wg, rank,
                                        last + (Config::kPingPong ? wg : 0))) {
      continue;
    }
    const int z = Persistent ? decode.tiles.div(seg.item) : int(blockIdx.z);
    if constexpr (kStoreWarps > 0) {  // stage the tile once the store warps are done with the last
      if (jobs > 0) mbarrier_wait(stored, (jobs - 1) & 1);
      detail::stage_accumulators<Config, 0>(staging, acc, wg_m, wg_n);
      if (threadIdx.x == 0) job[0] = tile.m * Config::kTileM, job[1] = tile.n * Config::kTileN, job[2] = z, job[3] = 1;
      mbarrier_arrive(staged);
      ++jobs;
      continue;
    }
    if constexpr (TmaStore) {
      if (tma_store) {
        detail::store_accumulators_tma<Config>(acc, wg, wg_m, wg_n, p.epilogue, &d_store.map, z,
                                               tile.m * Config::kTileM, tile.n * Config::kTileN,
                                               p.m - tile.m * Config::kTileM, p.n - tile.n * Config::kTileN, staging,
                                               passes);
        continue;
      }
    }
    // Not persistent: the epilogue's scratch lies over the ring, which every MMA warp is done
    // reading once all have passed their last wgmma wait.
    if constexpr (!Persistent) detail::named_barrier<Config::kThreads>(1);
    if constexpr (kBatchShaped) {  // batch z's rows, scattered as its own
      EpilogueParams e = p.epilogue;
      e.scatter = a_source.batch_scatter(z);
      detail::store_accumulators<Config>(acc, wg_m, wg_n, e, 0, tile.m * Config::kTileM, tile.n * Config::kTileN,
                                         a_source.batch_rows(z) - tile.m * Config::kTileM,
                                         p.n - tile.n * Config::kTileN, staging);
    } else {
      detail::store_accumulators<Config>(acc, wg_m, wg_n, p.epilogue, z, tile.m * Config::kTileM,
                                         tile.n * Config::kTileN, p.m - tile.m * Config::kTileM,
                                         p.n - tile.n * Config::kTileN, staging);
    }
  }
  if constexpr (TmaStore) {  // the engine is done reading the staging area and writing D
    if (tma_store && threadIdx.x % 128 == 0) tma_store_wait<0>();
  }
  if constexpr (kStoreWarps > 0) {  // no more tiles
    if (jobs > 0) mbarrier_wait(stored, (jobs - 1) & 1);
    if (threadIdx.x == 0) job[3] = 0;
    mbarrier_arrive(staged);
  }
  // A block leaves only once its peer no longer arrives on its barriers (the producers have
  // left: the last multicasts landed before the MMA warps' last waits).
  if constexpr (kCluster > 1) cluster_sync();
#else
  arch_unsupported("gemm_kernel_sm90_tma needs sm_90a", p, sk, decode, a_source, b_source);
#endif
}

// Non-persistent: one block per output tile, one grid layer per batch and K split, as
// launch_gemm_sm80. Persistent: the stream-K schedule's blocks when sk has stream-K items
// (p.splits == 1), else one block per SM (fewer if there are fewer items), data-parallel; with
// clusters, the schedule counts clusters (pairs of tile rows, half as many blocks as SMs) and
// each of its blocks is launched as a cluster of Config::kClusterM.
// TmaStore: the kernel has the TMA epilogue, which it runs where d.on (the GEMM's instances).
template <class Config, bool Persistent, bool TmaStore = false, class ASource, class BSource>
cudaError_t launch_gemm_sm90_tma(GemmParams const& p, int batch, cudaStream_t stream, ASource const& a,
                                 BSource const& b, StreamKParams sk = {}, TmaStoreD const& d = {}) {
  auto kernel = gemm_kernel_sm90_tma<Config, Persistent, TmaStore, ASource, BSource>;
  constexpr int kSmem = kTmaKernelSmemBytes<Config, Persistent>, kCluster = Config::kClusterM;
  static_assert(kSmem <= 227 * 1024, "launch_gemm_sm90_tma: more than 227 KiB of shared memory per block");
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
      e != cudaSuccess) {
    return e;
  }
  const long long tiles_m = (p.m + Config::kTileM - 1) / Config::kTileM;
  const long long tiles = (tiles_m + kCluster - 1) / kCluster * ((p.n + Config::kTileN - 1) / Config::kTileN);
  const long long layers = (long long)batch * p.splits;
  dim3 grid(unsigned(tiles), 1, unsigned(layers));
  const long long items = tiles * layers;
  WorkItemDecoder<Config> decode;  // the persistent kernel's: each item's tile, batch and split
  if constexpr (Persistent) {
    decode = WorkItemDecoder<Config>(p, kCluster);
    if (sk.schedule.sk_items == 0) {
      int device = 0, sms = 0;
      if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
      if (cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess)
        return e;
      const int clusters = sms >= kCluster ? sms / kCluster : 1;
      sk.schedule = {int(items < clusters ? items : clusters), int(items), (p.k + Config::kTileK - 1) / Config::kTileK,
                     0};
    }
    grid = dim3(unsigned(sk.schedule.blocks * kCluster), 1, 1);
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = grid, config.blockDim = dim3(kTmaKernelThreads<Config>), config.dynamicSmemBytes = kSmem;
  config.stream = stream;
  // A programmatic dependent launch (arch/sm90/grid_dependency.hpp): the kernel waits for the
  // one ahead of it before it touches global memory, so its launch and prologue may overlap
  // that kernel's tail; with clusters, their shape.
  cudaLaunchAttribute attrs[2];
  attrs[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[0].val.programmaticStreamSerializationAllowed = 1;
  attrs[1].id = cudaLaunchAttributeClusterDimension;
  attrs[1].val.clusterDim.x = kCluster, attrs[1].val.clusterDim.y = 1, attrs[1].val.clusterDim.z = 1;
  config.attrs = attrs, config.numAttrs = kCluster > 1 ? 2 : 1;
  return cudaLaunchKernelEx(&config, kernel, p, sk, decode, a, b, d);
}
#endif

}  // namespace tessel
