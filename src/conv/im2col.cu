#include <cstdint>

#include "conv/im2col.hpp"
#include "tessel/gemm/fast_divmod.hpp"

namespace tessel {
namespace {

constexpr int kThreads = 256;
constexpr int kVector = 8;  // 16-bit elements of one 16-byte load or store

// The launch's divisors, each a multiplication (gemm/fast_divmod.hpp): a vector's index
// (row, tap, channel vector) and a row's (n, p, q), a tap's (r, s).
struct Im2colShape {
  FastDivmod vectors_per_tap, taps, q, p, s;
};

// One thread per 16-byte vector of B: index v = (row * R*S + tap) * C/8 + cv, so that
// consecutive threads store consecutive vectors of a row, and read consecutive vectors of one
// pixel of X (its C channels, contiguous in NHWC) as long as a tap lasts.
__global__ void im2col_kernel(uint4 const* x, Conv2dProblem pb, Im2colShape shape, uint4* dst,
                              int vectors) {
  const int v = blockIdx.x * kThreads + int(threadIdx.x);
  if (v >= vectors) return;
  int row_tap, cv, row, tap, nq_p, q, n, p, r, s;
  shape.vectors_per_tap.divmod(v, row_tap, cv);
  shape.taps.divmod(row_tap, row, tap);
  shape.q.divmod(row, nq_p, q);
  shape.p.divmod(nq_p, n, p);
  shape.s.divmod(tap, r, s);
  if (pb.mode == ConvMode::kConvolution) r = pb.r - 1 - r, s = pb.s - 1 - s;
  const int h = p * pb.stride_h - pb.pad_h + r * pb.dilation_h;
  const int w = q * pb.stride_w - pb.pad_w + s * pb.dilation_w;
  uint4 value = make_uint4(0, 0, 0, 0);
  if (h >= 0 && h < pb.h && w >= 0 && w < pb.w)
    value = x[((std::int64_t(n) * pb.h + h) * pb.w + w) * shape.vectors_per_tap.divisor + cv];
  dst[v] = value;
}

}  // namespace

cudaError_t im2col_activations(const void* x, const Conv2dProblem& pb, void* dst,
                               cudaStream_t stream) {
  const long long vectors = (long long)pb.n * pb.p() * pb.q() * pb.r * pb.s * (pb.c / kVector);
  if (vectors == 0) return cudaSuccess;
  if (pb.c % kVector != 0 || vectors > (1LL << 31) - kThreads)
    return cudaErrorInvalidValue;  // the planner never asks
  const Im2colShape shape{FastDivmod(pb.c / kVector), FastDivmod(pb.r * pb.s), FastDivmod(pb.q()),
                          FastDivmod(pb.p()), FastDivmod(pb.s)};
  im2col_kernel<<<unsigned((vectors + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      static_cast<uint4 const*>(x), pb, shape, static_cast<uint4*>(dst), int(vectors));
  return cudaGetLastError();
}

}  // namespace tessel
