// Encoding the tensor maps of conv's TMA operands (tessel/conv/fprop_operand_sm90.hpp,
// dgrad_operand_sm90.hpp). Each returns false when the engine cannot describe the problem, and
// the caller keeps the cp.async kernels: groups, channels not a multiple of 8, a pointer not
// 16-byte aligned, strides above 8, padding or dilated filters beyond the im2col box's corner
// range, tile_k other than 32 or 64, or no driver entry point. Used on compute capability 9.0
// devices only (the encoder is the driver's).
#pragma once

#include "tessel/conv/dgrad_operand_sm90.hpp"
#include "tessel/conv/fprop_operand_sm90.hpp"

namespace tessel::sm90 {

// fprop: A over X at x, B the filter at w, for the (tile_m, tile_n, tile_k) kernel.
bool make_fprop_tma_operands(const Conv2dProblem& pb, const void* x, const void* w, int tile_m, int tile_n,
                             int tile_k, ConvFpropTmaA& a, ConvFilterTmaB& b);

// dgrad, one stride phase with taps: A over dY at dy, B the filter at w.
bool make_dgrad_tma_operands(const Conv2dProblem& pb, const DgradPhase& phase, const void* dy, const void* w,
                             int tile_m, int tile_n, int tile_k, ConvFpropTmaA& a, ConvDgradFilterTmaB& b);

}  // namespace tessel::sm90
