#include "runtime/pad_rows.hpp"

#include <cstdint>

namespace tessel {
namespace {

// One thread per 8-element vector of dst: eight 2-byte reads (src rows need not be aligned;
// a warp's reads are 512 contiguous bytes), one 16-byte write.
__global__ void pad_rows_kernel(std::uint16_t const* src, long long ld_src, long long batch_src, uint4* dst,
                                long long vectors_per_row, long long rows, int cols, long long vectors) {
  const long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (v >= vectors) return;
  const long long row = v / vectors_per_row;  // over all batches
  const long long batch = row / rows;
  const int c0 = int(v - row * vectors_per_row) * 8;
  std::uint16_t const* in = src + batch * batch_src + (row - batch * rows) * ld_src;
  alignas(16) std::uint16_t out[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) out[j] = c0 + j < cols ? in[c0 + j] : std::uint16_t(0);
  dst[v] = *reinterpret_cast<uint4 const*>(out);
}

}  // namespace

cudaError_t pad_rows(const void* src, long long ld_src, long long batch_src, void* dst, long long ld_dst,
                     long long rows, int cols, int batches, cudaStream_t stream) {
  const long long vectors = (long long)batches * rows * (ld_dst / 8);
  if (vectors == 0) return cudaSuccess;
  constexpr int kThreads = 256;
  pad_rows_kernel<<<unsigned((vectors + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      static_cast<std::uint16_t const*>(src), ld_src, batch_src, static_cast<uint4*>(dst), ld_dst / 8, rows, cols,
      vectors);
  return cudaGetLastError();
}

}  // namespace tessel
