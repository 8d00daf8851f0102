// The tensor maps of conv's TMA operands (tessel/conv/fprop_operand_sm90.hpp,
// dgrad_operand_sm90.hpp, wgrad_operand_sm90.hpp) as the parameters the driver's encoders take, computed without the
// driver: planning (conv2d_plan.cpp) decides from them whether the TMA kernel runs a problem,
// and runtime/tma_encoder.cpp encodes them at launch. The TMA kernel runs a problem when
//   - it is ungrouped, its channels (fprop: C; dgrad: the filters K, and C; wgrad: K, and C a
//     multiple of 64) are multiples of 8 and the tensors are 16-byte aligned,
//   - the strides are at most 8 and each tap's offset ((R-1)*dilation_h, likewise w) at most
//     127 (the im2col instruction's offsets; the engine's 4-d corners are 8-bit),
//   - and the maps meet the encoder's documented requirements (tma_map_problem).
#pragma once

#include <cstdint>
#include <string>

#include "runtime/tma_map.hpp"
#include "tessel/conv/dgrad_operand_sm90.hpp"
#include "tessel/conv/fprop_operand_sm90.hpp"

namespace tessel::sm90 {

// Both operands of one implicit GEMM on the TMA kernel.
struct ConvTmaMaps {
  TmaMapParams a, b;
  ConvTmaGeometry walk;            // the im2col operand's (fprop's and dgrad's A, wgrad's B; fprop's B shares it)
  DgradFilterTmaGeometry b_dgrad;  // dgrad's B
  int gemm_k = 0;                  // the GEMM's K (fprop, dgrad: each tap's channels in whole tile_k tiles)
};

// fprop of pb (X and W 16-byte aligned: `aligned`) on the (tile_m, tile_n, tile_k) kernel, its
// groups as the launch's batches (each group's channels whole tile_k tiles); false when the
// TMA kernel cannot run it.
bool plan_fprop_tma(const Conv2dProblem& pb, bool aligned, int tile_m, int tile_n, int tile_k, ConvTmaMaps* out);

// dgrad, one stride phase with rows and taps: A over dY, B the filter (filter.c its channels).
bool plan_dgrad_tma(const Conv2dProblem& filter, const DgradPhase& phase, bool aligned, int tile_m, int tile_n,
                    int tile_k, ConvTmaMaps* out);

// wgrad of pb (dY and X 16-byte aligned: `aligned`) on the (tile_m, 128, 64) kernel: A dY as
// the MN-major (K/G, N*P*Q) matrix of each group, B X's im2col walk over the output grid in
// boxes of 64 channels x 64 pixels; the groups (whole 64-channel blocks) as the launch's
// batches. false when the TMA kernel cannot run it.
bool plan_wgrad_tma(const Conv2dProblem& pb, bool aligned, ConvTmaMaps* out);

}  // namespace tessel::sm90
