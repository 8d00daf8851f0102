#include "conv/space_to_depth.hpp"

#include <cstdint>

#include "tessel/conv/space_to_depth.hpp"

namespace tessel {
namespace {

constexpr int kThreads = 256;
constexpr int kVector = 8;  // elements of one 16-byte store

// One thread per 8-channel vector of dst (rows, C'): the source of each element from the
// header's definition (`source` is space_to_depth_x_source or _w_source). Consecutive threads
// store consecutive vectors; their 2-byte reads run along the source's rows.
template <bool Filter>
__global__ void space_to_depth_kernel(std::uint16_t const* src, Conv2dProblem pb, Conv2dProblem out, uint4* dst,
                                      long long vectors) {
  const long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (v >= vectors) return;
  const int per_row = out.c / kVector;
  long long row = v / per_row;  // (N, H', W') or (K, R', S'), row-major
  const int c0 = int(v - row * per_row) * kVector;
  const int cols = Filter ? out.s : out.w, rows = Filter ? out.r : out.h;
  const int x = int(row % cols);
  row /= cols;
  const int y = int(row % rows);
  const int outer = int(row / rows);  // n, or k
  alignas(16) std::uint16_t values[kVector];
#pragma unroll
  for (int j = 0; j < kVector; ++j) {
    const long long from = Filter ? space_to_depth_w_source(pb, outer, y, x, c0 + j)
                                  : space_to_depth_x_source(pb, outer, y, x, c0 + j);
    values[j] = from < 0 ? std::uint16_t(0) : src[from];
  }
  dst[v] = *reinterpret_cast<uint4 const*>(values);
}

template <bool Filter>
cudaError_t launch(const void* src, const Conv2dProblem& pb, void* dst, cudaStream_t stream) {
  const Conv2dProblem out = space_to_depth_problem(pb);
  const long long rows = Filter ? (long long)out.k * out.r * out.s : (long long)out.n * out.h * out.w;
  const long long vectors = rows * (out.c / kVector);
  if (vectors == 0) return cudaSuccess;
  space_to_depth_kernel<Filter><<<unsigned((vectors + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      static_cast<std::uint16_t const*>(src), pb, out, static_cast<uint4*>(dst), vectors);
  return cudaGetLastError();
}

}  // namespace

cudaError_t space_to_depth_activations(const void* x, const Conv2dProblem& pb, void* dst, cudaStream_t stream) {
  return launch<false>(x, pb, dst, stream);
}

cudaError_t space_to_depth_filter(const void* w, const Conv2dProblem& pb, void* dst, cudaStream_t stream) {
  return launch<true>(w, pb, dst, stream);
}

}  // namespace tessel
