#include "runtime/pad_rows.hpp"

#include <algorithm>
#include <cstdint>

namespace tessel {
namespace {

struct Copies {
  PadRowsCopy copy[kMaxPadRowsCopies];
  unsigned second_block;  // the grid's blocks from here copy copy[1]
};

// Bytes [shift, shift + 16) of the 32 bytes in w (shift even: the elements are 2 bytes).
__device__ inline uint4 bytes_from(std::uint32_t const (&w)[8], int shift) {
  const int q = shift / 4;
  std::uint32_t u[5];
#pragma unroll
  for (int i = 0; i < 5; ++i) u[i] = q == 0 ? w[i] : q == 1 ? w[i + 1] : q == 2 ? w[i + 2] : w[i + 3];
  std::uint32_t o[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) o[i] = shift % 4 != 0 ? __funnelshift_r(u[i], u[i + 1], 16) : u[i];
  return make_uint4(o[0], o[1], o[2], o[3]);
}

// One thread per 8-element vector of dst; the grid's blocks cover copy[0]'s vectors, then
// copy[1]'s. A vector of source elements starts on any 2-byte boundary: the thread reads the
// one or two aligned 16-byte vectors that hold it and shifts (the neighbouring rows' bytes it
// reads are dropped), so a warp reads 512 contiguous bytes in 16-byte loads. Where those
// vectors would reach outside the batch's elements (its first and last few), element by
// element instead. Index is the type of the vector and row numbers: 32-bit where they fit (the
// divisions are then a few instructions, not a 64-bit division's dozens).
template <class Index>
__global__ void pad_rows_kernel(Copies copies) {
  const bool second = blockIdx.x >= copies.second_block;
  PadRowsCopy const& p = copies.copy[second ? 1 : 0];
  const Index block = Index(blockIdx.x) - (second ? Index(copies.second_block) : Index(0));
  const Index per_row = Index(p.ld_dst / 8), rows_dst = Index(p.rows_dst);
  const Index v = block * Index(blockDim.x) + Index(threadIdx.x);
  if (v >= Index(p.batches) * rows_dst * per_row) return;
  const Index row = v / per_row;  // of dst, over all batches
  const Index batch = row / rows_dst, r = row - batch * rows_dst;
  const int c0 = int(v - row * per_row) * 8;
  uint4 out = make_uint4(0, 0, 0, 0);
  if (r < Index(p.rows) && c0 < p.cols) {
    auto const* first = static_cast<unsigned char const*>(p.src) + 2 * (batch * p.batch_src);  // element (0, 0)
    auto const* end = first + 2 * ((p.rows - 1) * p.ld_src + p.cols);  // past the batch's last element
    auto const* s = first + 2 * ((long long)r * p.ld_src + c0);
    const int shift = int(reinterpret_cast<std::uintptr_t>(s) % 16);
    auto const* lo = s - shift;
    if (lo >= first && lo + (shift != 0 ? 32 : 16) <= end) {
      const uint4 a = *reinterpret_cast<uint4 const*>(lo);
      const uint4 b = shift != 0 ? *reinterpret_cast<uint4 const*>(lo + 16) : a;
      const std::uint32_t w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
      out = bytes_from(w, shift);
    } else {
      auto const* e = reinterpret_cast<std::uint16_t const*>(s);
      std::uint32_t o[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const std::uint32_t x0 = c0 + 2 * i < p.cols ? e[2 * i] : 0u, x1 = c0 + 2 * i + 1 < p.cols ? e[2 * i + 1] : 0u;
        o[i] = x0 | x1 << 16;
      }
      out = make_uint4(o[0], o[1], o[2], o[3]);
    }
    if (const int keep = p.cols - c0; keep < 8) {  // zeros past the row's end
      std::uint32_t o[4] = {out.x, out.y, out.z, out.w};
#pragma unroll
      for (int i = 0; i < 4; ++i) o[i] = 2 * i + 1 < keep ? o[i] : 2 * i < keep ? o[i] & 0xffffu : 0u;
      out = make_uint4(o[0], o[1], o[2], o[3]);
    }
  }
  static_cast<uint4*>(p.dst)[v] = out;
}

}  // namespace

cudaError_t pad_rows(PadRowsCopy const* copies, int count, cudaStream_t stream) {
  if (count < 1 || count > kMaxPadRowsCopies) return cudaErrorInvalidValue;
  constexpr int kThreads = 256;
  Copies all{};
  long long blocks = 0, most = 0;  // in all; vectors of the largest copy
  for (int i = 0; i < count; ++i) {
    const long long vectors = (long long)copies[i].batches * copies[i].rows_dst * (copies[i].ld_dst / 8);
    all.copy[i] = copies[i];
    if (i == 1) all.second_block = unsigned(blocks);
    blocks += (vectors + kThreads - 1) / kThreads, most = std::max(most, vectors);
  }
  if (count == 1) all.second_block = unsigned(blocks);
  if (blocks == 0) return cudaSuccess;
  if (blocks > 0x7fffffffLL) return cudaErrorInvalidConfiguration;  // 2^39 elements: no GPU holds them
  if (most + kThreads <= 0x7fffffffLL) {
    pad_rows_kernel<int><<<unsigned(blocks), kThreads, 0, stream>>>(all);
  } else {
    pad_rows_kernel<long long><<<unsigned(blocks), kThreads, 0, stream>>>(all);
  }
  return cudaGetLastError();
}

}  // namespace tessel
