#include <cstdint>

#include "conv/channel_pad.hpp"

namespace tessel::sm80 {
namespace {

// One thread per 8-element vector of dst: eight 2-byte reads (src rows need not be aligned),
// one 16-byte write.
__global__ void pad_channels_kernel(std::uint16_t const* src, uint4* dst, long long rows,
                                    int channels, int padded) {
  const int vectors_per_row = padded / 8;
  const long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (v >= rows * vectors_per_row) return;
  const long long row = v / vectors_per_row;
  const int c0 = int(v % vectors_per_row) * 8;
  alignas(16) std::uint16_t out[8];
  for (int j = 0; j < 8; ++j)
    out[j] = c0 + j < channels ? src[row * channels + c0 + j] : std::uint16_t(0);
  dst[v] = *reinterpret_cast<uint4 const*>(out);
}

}  // namespace

cudaError_t pad_channels(const void* src, void* dst, long long rows, int channels, int padded,
                         cudaStream_t stream) {
  const long long vectors = rows * (padded / 8);
  if (vectors == 0) return cudaSuccess;
  constexpr int kThreads = 256;
  pad_channels_kernel<<<unsigned((vectors + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      static_cast<std::uint16_t const*>(src), static_cast<uint4*>(dst), rows, channels, padded);
  return cudaGetLastError();
}

}  // namespace tessel::sm80
