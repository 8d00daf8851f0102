// Encoding the tensor maps of conv fprop's TMA operands (tessel/conv/fprop_operand_sm90.hpp).
#pragma once

#include "tessel/conv/fprop_operand_sm90.hpp"

namespace tessel::sm90 {

// Fills a and b for the (tile_m, tile_n, tile_k) kernel over X at x and W at w, 16-bit
// elements. False when the engine cannot describe the problem, and the caller keeps the
// cp.async kernels: groups, C not a multiple of 8, a pointer not 16-byte aligned, strides
// above 8, padding or dilated filters beyond the im2col box's corner range, tile_k other than
// 32 or 64, or no driver entry point. True only on compute capability 9.0 devices in practice
// (the encoder is the driver's).
bool make_fprop_tma_operands(const Conv2dProblem& pb, const void* x, const void* w, int tile_m, int tile_n,
                             int tile_k, ConvFpropTmaA& a, ConvFilterTmaB& b);

}  // namespace tessel::sm90
