#include "conv/packed_groups.hpp"

#include <cstdint>

namespace tessel {
namespace {

constexpr int kThreads = 256;
constexpr int kVector = 8;  // elements of one 16-byte store

// Where filter k's cg channels start among its 64-channel group's.
__host__ __device__ int first_column(long long k, int cg) { return int(k % kPackedGroupWidth) / cg * cg; }

// One thread per 16-byte vector of W' (eight of its 64 columns of row (k, r, s)): W's
// channels where the vector meets filter k's group (from first_column(k)), zeros elsewhere.
// Its loads are independent, so a thread waits for memory once.
__global__ void block_diagonal_filter_kernel(std::uint16_t const* w, int taps, int cg, uint4* dst, long long vectors) {
  constexpr int kRowVectors = kPackedGroupWidth / kVector;
  const long long at = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (at >= vectors) return;
  const long long row = at / kRowVectors;
  const int first = int(at % kRowVectors) * kVector - first_column(row / taps, cg);  // W's channel of element 0
  std::uint16_t const* from = w + row * cg;
  alignas(16) std::uint16_t values[kVector];
#pragma unroll
  for (int j = 0; j < kVector; ++j) {
    const int c = first + j;
    values[j] = c >= 0 && c < cg ? from[c] : std::uint16_t(0);
  }
  dst[at] = *reinterpret_cast<uint4 const*>(values);
}

}  // namespace

cudaError_t block_diagonal_filter(const void* w, const Conv2dProblem& pb, void* dst, cudaStream_t stream) {
  const long long vectors = (long long)pb.k * pb.r * pb.s * (kPackedGroupWidth / kVector);
  if (vectors == 0) return cudaSuccess;
  block_diagonal_filter_kernel<<<unsigned((vectors + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      static_cast<std::uint16_t const*>(w), pb.r * pb.s, pb.channels_per_group(), static_cast<uint4*>(dst), vectors);
  return cudaGetLastError();
}

}  // namespace tessel
