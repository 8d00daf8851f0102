// Convolution dgrad's operands for the TMA kernel (gemm/kernel_sm90_tma.hpp), one stride phase
// at a time (dgrad_operand_sm80.hpp explains the phases): a phase is a stride-1 fprop over dY
// on the phase's output grid, so
//   A  (rows of the phase, R'*S'*K8)  fprop's im2col operand (ConvFpropTmaA) over dY (N, P, Q, K)
//      with the phase's problem and grid; K8 = k_blocks * TileK
//   B  (C, R'*S'*K8)  MN-major: for K tile t = (tap (t', u), k block), the filter's
//      W[k0 .. k0+TileK, r(t'), s(u), c0 .. c0+TileN] as TileN/64 blocks of (64 c, TileK k),
//      block i at stage byte i * 64 * TileK * 2: GmmaLayout::kMnBoxes (config_sm90.hpp). With
//      C/G a multiple of 64 the map is 4-d, (64 c, K, C/G/64 blocks, R*S taps), and one box
//      (64, TileK, TileN/64, 1) brings a K tile's blocks; else it is the 3-d (C/G, R*S, K) map
//      and each block is a box (64, 1, TileK). The same bytes, one instruction where a 128-wide
//      tile issued two: where dgrad's B loads had set the pace, ResNet-50's 14x14x256 3x3 ran
//      26.3 -> 24.0 us at N = 32 and 60.5 -> 57.4 at N = 128 (docs/PERFORMANCE.md, thirty-third
//      session).
// Filters past K and channels past C/G read as zeros. Groups whose filters are whole K tiles
// (K/G a multiple of TileK) are the batches of one launch per phase: group g reads dY's
// channels and W's filters from g*K/G (K8 above is K/G rounded up) and writes dX's channels
// from g*C/G (the epilogue's batch stride).
// All the phases of a layer can run as one launch, each phase a batch of the kernel with its
// own rows, K tiles and row scatter (ConvDgradPhasesTmaA, ConvDgradPhasesTmaB): a stride-2
// layer's four phases, each a fraction of the GPU, then fill it together.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "tessel/arch/sm90/tma.hpp"
#include "tessel/conv/dgrad_operand_sm80.hpp"
#include "tessel/conv/fprop_operand_sm90.hpp"
#include "tessel/gemm/epilogue.hpp"  // RowScatter

namespace tessel {

struct DgradFilterTmaGeometry {
  int r_first = 0, r_step = 1, s_first = 0, s_step = 1;  // stored filter index of tap (t', u)
  int taps_s = 1;                                        // S'
  int filter_s = 1;                                      // S, so that tap (r, s) is r*S + s
  int k_blocks = 1, tile_k = 64;                         // K tiles per tap (of a group), filters per K tile
  int boxes = 2;                                         // TileN / 64: channel blocks a K tile
  int group_k = 0;                                       // filters a group: group g's from g*group_k
  bool one_box = false;  // the 4-d map: a K tile's blocks in one box (conv/conv_tma_maps.cpp)
};

inline DgradFilterTmaGeometry make_dgrad_filter_tma_geometry(const Conv2dProblem& pb, const DgradPhase& phase,
                                                             int tile_n, int tile_k) {
  return {phase.r_first, phase.r_step, phase.s_first, phase.s_step, phase.taps_s, pb.s,
          int((pb.filters_per_group() + (long long)tile_k - 1) / tile_k), tile_k, tile_n / 64,
          pb.filters_per_group()};
}

// Box 0 of K tile k_tile for output channels c0...: channel c, filter tap (r, s), filter k;
// box b starts at channel c + 64 b.
struct DgradFilterBox {
  int c, s, r, k;
};
TESSEL_HOST_DEVICE inline TapWalk dgrad_tap_walk(DgradFilterTmaGeometry const& g, int k_tile) {
  return TapWalk::at(k_tile, g.k_blocks, g.taps_s);
}
TESSEL_HOST_DEVICE inline DgradFilterBox dgrad_filter_box(DgradFilterTmaGeometry const& g, int c0, TapWalk const& w,
                                                         int group = 0) {
  return {c0, g.s_first + w.col * g.s_step, g.r_first + w.row * g.r_step, group * g.group_k + w.block * g.tile_k};
}
TESSEL_HOST_DEVICE inline DgradFilterBox dgrad_filter_box(DgradFilterTmaGeometry const& g, int c0, int k_tile,
                                                         int group = 0) {
  return dgrad_filter_box(g, c0, dgrad_tap_walk(g, k_tile), group);
}

// The loads of a K tile whose box 0 is b: one 4-d box (one_box), else `boxes` 3-d ones; load
// i's coordinates in the map, innermost first, fill the stage from byte i * 64 * TileK * 2.
TESSEL_HOST_DEVICE inline int dgrad_filter_loads(DgradFilterTmaGeometry const& g) { return g.one_box ? 1 : g.boxes; }
struct DgradFilterLoad {
  int coord[4];  // 4-d: (0, k, channel block, tap); 3-d: (c, tap, k, unused)
};
TESSEL_HOST_DEVICE inline DgradFilterLoad dgrad_filter_load(DgradFilterTmaGeometry const& g, DgradFilterBox const& b,
                                                           int i) {
  const int tap = b.r * g.filter_s + b.s;
  if (g.one_box) return {{0, b.k, b.c / 64, tap}};
  return {{b.c + 64 * i, tap, b.k, 0}};
}

struct ConvDgradFilterTmaB {
  CUtensorMap map;
  DgradFilterTmaGeometry g;
#if defined(__CUDACC__)
  struct Tiles {
    CUtensorMap const* map;
    DgradFilterTmaGeometry g;
    int c0;
    TapWalk walk;  // the next K tile
    int group;
    __device__ void load(void* stage, std::uint64_t* bar) {
      const DgradFilterBox b = dgrad_filter_box(g, c0, walk, group);
      walk.next();
      for (int i = 0; i < dgrad_filter_loads(g); ++i) {
        const DgradFilterLoad l = dgrad_filter_load(g, b, i);
        void* dst = static_cast<unsigned char*>(stage) + i * 64 * g.tile_k * 2;
        if (g.one_box) {
          tma_load_4d(dst, map, l.coord[0], l.coord[1], l.coord[2], l.coord[3], bar);
        } else {
          tma_load_3d(dst, map, l.coord[0], l.coord[1], l.coord[2], bar);
        }
      }
    }
  };
  // batch: the group
  __device__ Tiles tiles(int c0, int k_tile, int batch) const {
    return {&map, g, c0, dgrad_tap_walk(g, k_tile), batch};
  }
#endif
};

// Phases of one launch: up to 9 (strides up to 3 x 3), so that the kernel's parameters, which
// hold every phase's map (128 bytes each), stay within the classic 4 KiB. Larger strides run a
// launch per phase.
inline constexpr int kDgradTmaMaxPhases = 9;

// A of every phase: batch b is phase b, with its im2col map over dY and geometry, its rows
// (N * rows * cols: GEMM M), its K tiles (0 for a phase no tap reaches: the epilogue alone, its
// map never read) and where its rows go in dX (dgrad_row_scatter). The kernel reads the last
// three through batch_rows, batch_k_tiles and batch_scatter (kernel_sm90_tma.hpp).
struct ConvDgradPhasesTmaA {
  CUtensorMap map[kDgradTmaMaxPhases];
  ConvTmaGeometry g[kDgradTmaMaxPhases];
  int rows[kDgradTmaMaxPhases];
  int k_tiles[kDgradTmaMaxPhases];
  RowScatter scatter[kDgradTmaMaxPhases];
#if defined(__CUDACC__)
  __device__ ConvFpropTmaA::Tiles tiles(int m0, int k_tile, int batch) const {
    // (a phase, not a group)
    return {&map[batch], g[batch], im2col_origin(g[batch], m0), conv_tap_walk(g[batch], k_tile), 0};
  }
  __device__ int batch_rows(int batch) const { return rows[batch]; }
  __device__ int batch_k_tiles(int batch) const { return k_tiles[batch]; }
  __device__ RowScatter const& batch_scatter(int batch) const { return scatter[batch]; }
#endif
};

// B of every phase: the one filter map, each phase's taps.
struct ConvDgradPhasesTmaB {
  CUtensorMap map;
  DgradFilterTmaGeometry g[kDgradTmaMaxPhases];
#if defined(__CUDACC__)
  __device__ ConvDgradFilterTmaB::Tiles tiles(int c0, int k_tile, int batch) const {
    return {&map, g[batch], c0, dgrad_tap_walk(g[batch], k_tile), 0};  // (a phase, not a group)
  }
#endif
};

}  // namespace tessel
