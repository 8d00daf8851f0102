#include "runtime/pad_rows.hpp"

#include <cstdint>

namespace tessel {
namespace {

// One thread per 8-element vector of dst: eight 2-byte reads (src rows need not be aligned;
// a warp's reads are 512 contiguous bytes), one 16-byte write. Index is the type of the
// vector and row numbers: 32-bit where they fit (the divisions are then a few instructions,
// not a 64-bit division's dozens).
template <class Index>
__global__ void pad_rows_kernel(std::uint16_t const* src, long long ld_src, long long batch_src, uint4* dst,
                                Index vectors_per_row, Index rows, Index rows_dst, int cols, Index vectors) {
  const Index v = Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x);
  if (v >= vectors) return;
  const Index row = v / vectors_per_row;  // of dst, over all batches
  const Index batch = row / rows_dst, r = row - batch * rows_dst;
  const int c0 = int(v - row * vectors_per_row) * 8;
  alignas(16) std::uint16_t out[8] = {};
  if (r < rows) {
    std::uint16_t const* in = src + batch * batch_src + r * ld_src;
#pragma unroll
    for (int j = 0; j < 8; ++j) out[j] = c0 + j < cols ? in[c0 + j] : std::uint16_t(0);
  }
  dst[v] = *reinterpret_cast<uint4 const*>(out);
}

}  // namespace

cudaError_t pad_rows(const void* src, long long ld_src, long long batch_src, void* dst, long long ld_dst,
                     long long rows, long long rows_dst, int cols, int batches, cudaStream_t stream) {
  const long long vectors = (long long)batches * rows_dst * (ld_dst / 8);
  if (vectors == 0) return cudaSuccess;
  constexpr int kThreads = 256;
  const unsigned blocks = unsigned((vectors + kThreads - 1) / kThreads);
  auto const* in = static_cast<std::uint16_t const*>(src);
  auto* out = static_cast<uint4*>(dst);
  if (vectors + kThreads <= 0x7fffffffLL) {
    pad_rows_kernel<int><<<blocks, kThreads, 0, stream>>>(in, ld_src, batch_src, out, int(ld_dst / 8), int(rows),
                                                          int(rows_dst), cols, int(vectors));
  } else {
    pad_rows_kernel<long long><<<blocks, kThreads, 0, stream>>>(in, ld_src, batch_src, out, ld_dst / 8, rows, rows_dst,
                                                                cols, vectors);
  }
  return cudaGetLastError();
}

}  // namespace tessel
