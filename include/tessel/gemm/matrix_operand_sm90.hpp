// The GEMM's strided matrices as operands of the TMA kernel (kernel_sm90_tma.hpp): A (M,K) or
// B (N,K) of GemmParams, with its batches, is one 3-d tiled tensor map (planned on the host
// by plan_operand_map in src/gemm/gemm_plan.cpp, encoded in src/gemm/dispatch.cpp):
//   K-major   (K, MN, batch)  box (TileK, TileMN, 1): one box fills a stage, rows of TileK
//                             swizzled (GmmaLayout::kRing)
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

template <Major M, int TileMN, int TileK>
struct MatrixTmaSource {
  static_assert(TileMN % 64 == 0 && TileK == 64, "MatrixTmaSource: 128-byte swizzled boxes of 64 elements");
  static constexpr int kBoxes = M == Major::kK ? 1 : TileMN / 64;
  static constexpr int kBoxBytes = 64 * TileK * 2;
  TmaMatrix matrix;

#if defined(__CUDACC__)
  struct Tiles {
    CUtensorMap const* map;
    int mn0, k0, z;
    __device__ void load(void* stage, std::uint64_t* bar) {
      if constexpr (M == Major::kK) {
        tma_load_3d(stage, map, k0, mn0, z, bar);
      } else {
        for (int i = 0; i < kBoxes; ++i) {
          tma_load_3d(static_cast<unsigned char*>(stage) + i * kBoxBytes, map, mn0 + 64 * i, k0, z, bar);
        }
      }
      k0 += TileK;
    }
  };
  // From K tile k_tile on, of the tile whose first row (A) or column (B) is mn0, in `batch`.
  __device__ Tiles tiles(int mn0, int k_tile, int batch) const {
    return {&matrix.map, mn0, k_tile * TileK, matrix.broadcast ? 0 : batch};
  }
#endif
};

}  // namespace tessel
