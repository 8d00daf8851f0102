// Grouped layers of few channels a group as layers of 64-channel groups. G groups of
// C/G = K/G = cg channels (cg 4, 8, 16 or 32, C a multiple of 64) are C/64 groups of 64
// channels over a block-diagonal filter W' (K, R, S, 64): filter k's taps hold W's cg channels
// at columns o(k) = (k % 64) / cg * cg and zeros elsewhere, so every 64-channel group multiplies
// each filter with its own group's channels only.
//   fprop, dgrad: the layer of 64-channel groups over the copy W' (Y and dX are the same tensors);
//   wgrad: the layer of 64-channel groups, whose GEMM rows are filters and columns (tap, 64
//          channels); its split-K reduction keeps columns o(k) .. o(k) + cg - 1 of each tap for
//          filter k's row and writes dW (k, r, s, c) = alpha * dW' (k, r, s, o(k) + c) + beta * R
//          (conv2d_plan.cpp: split.columns; gemm/split_k_reduce.hpp).
// The tensor cores do 64/cg times the useful multiply-adds, but every tile is whole: cg
// channels a group fill 16 or 32 of a tile's 64 columns and load cg channels a pixel and tap.
// conv2d_plan.cpp says where it is taken and what it measured.
#pragma once

#include <cuda_runtime_api.h>

#include "tessel/conv/problem.hpp"

namespace tessel {

inline constexpr int kPackedGroupWidth = 64;

// pb as C/64 groups of 64 channels. E.g. ResNeXt-50's 14x14x512 3x3 of 32 groups: 8 groups.
inline Conv2dProblem packed_groups_problem(const Conv2dProblem& pb) {
  Conv2dProblem p = pb;
  p.groups = pb.c / kPackedGroupWidth;
  return p;
}

// w (K, R, S, cg) of the layer `pb` -> dst (K, R, S, 64), 16-bit elements copied bit for bit;
// dst 16-byte aligned.
cudaError_t block_diagonal_filter(const void* w, const Conv2dProblem& pb, void* dst, cudaStream_t stream);

}  // namespace tessel
