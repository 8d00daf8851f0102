// The GEMM's strided matrices as operands of the TMA kernel (kernel_sm90_tma.hpp): A (M,K) or
// B (N,K) of GemmParams, with its batches, is one 3-d tiled tensor map (planned on the host
// by plan_operand_map in src/gemm/gemm_plan.cpp, encoded in src/gemm/dispatch.cpp):
//   K-major   (K, MN, batch)  box (TileK, TileMN, 1): one box fills a stage, rows of TileK
//                             swizzled (GmmaLayout::kRing); shared by a cluster of two: two
//                             boxes of (TileK, TileMN / 2, 1), the same layout
//   MN-major  (MN, K, batch)  box (64, TileK, 1): TileMN/64 boxes, each (64 MN, TileK K)
//                             (GmmaLayout::kMnBoxes)
// A batch stride of 0 (one matrix for every batch) is a map of one batch, read at index 0.
// The engine reads zeros past M, N and K, so the kernel has no edge variant and no predicate.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "tessel/arch/sm90/tma.hpp"
#include "tessel/types.hpp"

namespace tessel {

// What the host encodes for one operand.
struct TmaMatrix {
  CUtensorMap map;
  bool broadcast;  // batch stride 0: every batch reads batch 0
};

// Parts > 1: the operand a cluster of Parts blocks shares (kernel_sm90_tma.hpp); a K-major
// stage is then Parts boxes of (TileK, TileMN / Parts) (the map's box), and each block loads
// its part of the boxes, multicast into every block of the cluster (load_part).
template <Major M, int TileMN, int TileK, int Parts = 1>
struct MatrixTmaSource {
  static_assert(TileMN % 64 == 0 && TileK == 64, "MatrixTmaSource: 128-byte swizzled boxes of 64 elements");
  static constexpr int kBoxMN = M == Major::kK ? TileMN / Parts : 64;  // box i covers MN [i, i + 1) * kBoxMN
  static constexpr int kBoxes = TileMN / kBoxMN;
  static constexpr int kBoxBytes = kBoxMN * TileK * 2;
  static_assert(kBoxes % Parts == 0 && kBoxBytes % 1024 == 0,
                "MatrixTmaSource: each part is whole boxes, each starting on a swizzle-pattern boundary");
  TmaMatrix matrix;

#if defined(__CUDACC__)
  struct Tiles {
    CUtensorMap const* map;
    int mn0, k0, z;
    // The whole stage (K tile k0), counted on bar.
    __device__ void load(void* stage, std::uint64_t* bar) {
      for (int i = 0; i < kBoxes; ++i) tma_load_3d(box(stage, i), map, c0(i), c1(i), z, bar);
      k0 += TileK;
    }
    // Boxes [part, part + 1) * kBoxes / Parts of the stage into every block of cta_mask, counted
    // on bar there (the other parts come from the other blocks).
    __device__ void load_part(void* stage, std::uint64_t* bar, int part, std::uint16_t cta_mask) {
      for (int i = part * (kBoxes / Parts); i < (part + 1) * (kBoxes / Parts); ++i) {
        tma_load_3d_multicast(box(stage, i), map, c0(i), c1(i), z, bar, cta_mask);
      }
      k0 += TileK;
    }
    __device__ void* box(void* stage, int i) const { return static_cast<unsigned char*>(stage) + i * kBoxBytes; }
    __device__ int c0(int i) const { return M == Major::kK ? k0 : mn0 + i * kBoxMN; }
    __device__ int c1(int i) const { return M == Major::kK ? mn0 + i * kBoxMN : k0; }
  };
  // From K tile k_tile on, of the tile whose first row (A) or column (B) is mn0, in `batch`.
  __device__ Tiles tiles(int mn0, int k_tile, int batch) const {
    return {&matrix.map, mn0, k_tile * TileK, matrix.broadcast ? 0 : batch};
  }
#endif
};

}  // namespace tessel
