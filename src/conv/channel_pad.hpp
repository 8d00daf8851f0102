// Zero-padding the channels of an NHWC (or KRSC) tensor to a multiple of 8, so that a layer
// with few channels (the RGB stem, C = 3) takes the 16-byte path instead of element-wise
// loads: the padded channels are zero in both the activation and the filter, so they add
// nothing to the reduction.
#pragma once

#include <cuda_runtime_api.h>

namespace tessel::sm80 {

// dst (rows, padded) = src (rows, channels) followed by padded - channels zeros per row; 16-bit
// elements (f16 or bf16), padded a multiple of 8, dst 16-byte aligned.
cudaError_t pad_channels(const void* src, void* dst, long long rows, int channels, int padded,
                         cudaStream_t stream);

}  // namespace tessel::sm80
