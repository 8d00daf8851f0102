// Depthwise convolution (C/G = K/G = 1: output channel c reads input channel c alone) and
// convolution of narrow groups (C/G = K/G = CG in {2, 4, 8}: ResNeXt's first stages) computed
// directly, in all three directions. An implicit GEMM of such a layer is G GEMMs of CG columns
// and R*S*CG reductions: the tensor cores would multiply padding, so these kernels use the CUDA
// cores and aim at what bounds the layer, the bytes it moves (docs/PERFORMANCE.md).
//
// A thread owns Vec consecutive channels (Vec = 8: 16-byte loads of f16/bf16, C % 8 == 0 and
// 16-byte aligned tensors; else 1, depthwise only) and walks pixels; a block is lanes x vectors
// threads, the vectors (channels, fastest: each pixel's channels are one contiguous run) by
// pixel lanes (neighbouring pixels: their windows overlap, so the taps' re-reads hit L1). CG
// divides Vec, so a thread's Vec output channels are whole groups whose inputs are the same Vec
// channels: one 16-byte load per tap serves all of them. With g(c) = c - c % CG, group c's first:
//   fprop  y[n,p,q,k]  = sum_rs,i x[n, p*sh-ph+r*dh, q*sw-pw+s*dw, g(k)+i] * w[k,r,s,i]
//   dgrad  dx[n,h,w,c] = sum_rs,j dy[n, p, q, g(c)+j] * w[g(c)+j,r,s,c%CG] over the taps with
//                        h = p*sh-ph+r*dh (p whole, in range), likewise w
//   wgrad  dw[k,r,s,i] = sum_npq dy[n,p,q,k] * x[n, p*sh-ph+r*dh, q*sw-pw+s*dw, g(k)+i]
// (true convolution: the filter's tap (R-1-r, S-1-s) wherever these say (r, s)). fprop and
// dgrad keep the block's filter taps in shared memory as fp32 (detail::TapLayout), each
// channel's CG weights as the direction reads them (dgrad: transposed within the group). Where
// the filter is 3, 5 or 7 wide at stride 1 or 2 (no dilation along w), fprop's thread computes
// a strip of output columns and loads the input columns they share once
// (depthwise_fprop_strip_kernel; 3x3: 6 loads per filter row for 4 outputs, not 12). dgrad at
// stride 1 is that fprop over dY (conv2d_plan.cpp: dgrad_as_fprop) with dgrad's taps. wgrad
// gives each thread one tap (or, for 5-7 wide depthwise filters, one filter row), its channels
// and one slice of the N*P*Q pixels (depthwise filters 3, 5 or 7 wide at stride 1 along w: one
// filter row and runs of output columns, along which the thread slides a window of input
// columns, depthwise_wgrad_slide_kernel); a block adds its slices' sums and writes fp32
// partial sums that depthwise_wgrad_reduce adds in a fixed order (deterministic).
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessel/conv/problem.hpp"
#include "tessel/gemm/fast_divmod.hpp"
#include "tessel/gemm/epilogue.hpp"

namespace tessel {

namespace detail {

// dgrad along one dimension: tap t reaches dX index x through dY index (x + pad - t * dilation)
// / stride where that divides. Those taps are first, first + step, ... (step = stride /
// gcd(stride, dilation)), the dY index falling by `back` = dilation * step / stride each: a
// thread finds the first with at most `step` remainders instead of one per tap, each a
// multiplication (FastDivmod). The launch code builds the walks once (DepthwiseArgs).
struct TapWalk {
  FastDivmod stride;
  int dilation, step, back;
  TESSEL_HOST_DEVICE TapWalk(int stride_, int dilation_) : stride(stride_), dilation(dilation_) {
    int g = stride_, b = dilation;  // g = gcd(stride, dilation)
    while (b != 0) {
      const int rest = g % b;
      g = b, b = rest;
    }
    step = stride_ / g, back = dilation / g;
  }
  // x_pad = x + pad (>= 0): the first tap reaching dY, and its dY index (false: none does)
  TESSEL_HOST_DEVICE bool first(int x_pad, int* tap, int* index) const {
    for (int t = 0; t < step; ++t) {
      const int reach = x_pad - t * dilation;
      if (reach < 0) return false;
      int quotient, remainder;
      stride.divmod(reach, quotient, remainder);
      if (remainder == 0) {
        *tap = t, *index = quotient;
        return true;
      }
    }
    return false;
  }
};

}  // namespace detail

// What the three kernels take: the problem, the tensors, the epilogue
// out = act(alpha * acc + beta * residual + bias[c]) (wgrad: no bias, no activation).
struct DepthwiseArgs {
  Conv2dProblem pb;
  void const* in;        // fprop: x; dgrad: dy; wgrad: dy
  void const* w;         // fprop, dgrad: the filter (C, R, S, 1); wgrad: x
  void* out;             // y, dx, or (wgrad) the fp32 partials (slices, R*S, C)
  void const* residual;  // read when beta != 0; of the output type
  void const* bias;      // C values of the output type, or null
  float alpha, beta;
  Activation act;
  DataType out_type;
  int vectors_per_block;  // channel vectors of a block (the rest of its threads are pixel lanes)
  int pixels_per_slice;   // wgrad: pixels (n, p, q) of a slice
  bool dgrad_taps = false;  // fprop and dgrad kernels: w read as dgrad reads it (the group transposed)
  int slices = 0, slice_lanes = 1;  // wgrad: slices of N*P*Q, and slices a block
  // depthwise_wgrad_slide_kernel: output rows cut into row_pieces runs of columns; a slice is
  // pieces_per_slice of them (pixels_per_slice unused)
  int row_pieces = 1, pieces_per_slice = 0;
  bool slide_down = false;  // units in (n, piece, p) order: a slice walks its piece down the rows
  // Divisors fixed for the launch, as multiplications (FastDivmod: no integer division a
  // pixel), set by the launch code. fprop's output columns a row (strips of them for the strip
  // kernel) and rows, P; dgrad's W and H; vectors_per_block and S (the block's filter taps);
  // dgrad's tap walks along h and w. The sliding wgrad: rows, P.
  FastDivmod columns, rows, vectors, filter_s;
  detail::TapWalk walk_h{1, 1}, walk_w{1, 1};
};

inline constexpr int kDepthwiseThreads = 256;
// Blocks of kDepthwiseThreads an SM that fprop's and dgrad's kernels fit, for the planner's
// whole waves (conv2d_plan.cpp): the strip kernel's launch bounds ask for two (at most 128
// registers a thread); the pixel kernels take at most 59 on sm_90a, so four blocks fit.
// Conv2dFprop.DepthwiseBlocksFitAsPlanned checks both on the GPU.
inline constexpr int kStripBlocksPerSm = 2;
TESSEL_HOST_DEVICE constexpr int direct_blocks_per_sm(bool strip) { return strip ? kStripBlocksPerSm : 4; }
// Output columns of a thread in depthwise_fprop_strip_kernel<.., S, SW>: as many as keep its
// input columns ((strip - 1) * SW + S) and accumulators within two blocks' registers per SM
// (128 a thread) without spilling. 0: no strip kernel for that width and stride.
TESSEL_HOST_DEVICE constexpr int depthwise_strip(int s, int stride_w) {
  if (stride_w == 1) return s == 3 ? 4 : s == 5 ? 3 : s == 7 ? 2 : 0;
  if (stride_w == 2) return s == 3 ? 3 : s == 5 ? 2 : 0;
  return 0;
}
TESSEL_HOST_DEVICE inline int depthwise_strip(const Conv2dProblem& pb) {
  return pb.dilation_w == 1 ? depthwise_strip(pb.s, pb.stride_w) : 0;
}
// Shared memory of fprop's and dgrad's filter taps: R*S * 64 channels * CG floats. Filters with
// more weights per channel (R*S*CG) than this allows run as grouped GEMMs (conv2d_plan.cpp).
inline constexpr int kDepthwiseMaxTaps = 8192 / (8 * 8);  // 128 weights a channel: 32 KiB
// wgrad of depthwise layers: a thread sums the taps of one filter row this wide (narrower rows:
// a thread per tap with four pixels in flight measured faster; wider: accumulators).
inline constexpr int kWgradRowTapsMin = 5, kWgradRowTaps = 7;
// depthwise_wgrad_slide_kernel's channels a thread: S * Vec fp32 accumulators and as many
// window registers. 8 (16-byte loads) for S = 3, else 4 (8-byte loads). The kernel is bound by
// L2's requests (ncu, 56x56x144 at N = 128 with 8-byte loads: 88% of L2's throughput at 4.4
// TB/s, DRAM at 54%), so 16-byte loads move the same bytes in half the requests: 1.1-1.3x
// faster on MobileNetV2's 3x3 layers than 8-byte loads in blocks of 768 threads
// (docs/PERFORMANCE.md, twenty-eighth session). Eight channels of S = 5 or 7 would spill.
TESSEL_HOST_DEVICE constexpr int slide_vec(int s) { return s == 3 ? 8 : 4; }
// Its block: slices (lanes) of R * vectors threads, at most kSlideThreads, one block an SM, so
// 128 registers a thread: S = 7 takes about 120, S = 3 with 8 channels about 110. (An SM's four
// schedulers hold 16384 registers each; two blocks of 280 threads at S = 7 did not fit, and ran
// one an SM: docs/PERFORMANCE.md, fourteenth session.)
inline constexpr int kSlideBlocksPerSm = 1, kSlideThreads = 512;
// The channels per group the direct kernels take (C/G = K/G); 1 is depthwise.
TESSEL_HOST_DEVICE constexpr bool direct_group_width(int cg) { return cg == 1 || cg == 2 || cg == 4 || cg == 8; }

namespace detail {

// The block's filter taps as fp32 in shared memory, (r, s) as the direction reads them (flipped
// for true convolution), zero for channels past C. Thread v's Vec * CG weights of a tap, f =
// j * CG + i for its channel j and group member i (fprop w[c, r, s, i]; dgrad, a.dgrad_taps,
// w[g(c)+i, r, s, c % CG]), lie in chunks of kChunk floats interleaved across the block's
// vectors: (R*S, Vec*CG / kChunk, vectors, kChunk). A warp's threads then read one chunk as
// consecutive 16-byte words, without bank conflicts.
template <int Vec, int CG>
struct TapLayout {
  static constexpr int kChunk = Vec % 4 == 0 ? 4 : 1, kChunks = Vec * CG / kChunk;
  // Thread v's chunk 0 of tap `tap`; chunk q lies q * vectors * kChunk floats further.
  TESSEL_HOST_DEVICE static int offset(int tap, int v, int vectors) { return (tap * kChunks * vectors + v) * kChunk; }
  // The element at float e of the layout: its tap, its thread v and that thread's weight f.
  TESSEL_HOST_DEVICE static void element(int e, FastDivmod const& vectors, int* tap, int* v, int* f) {
    int rest;
    vectors.divmod(e / kChunk, rest, *v);
    *f = rest % kChunks * kChunk + e % kChunk;
    *tap = rest / kChunks;
  }
};

}  // namespace detail

#if defined(__CUDACC__)
namespace detail {

template <class T, int Vec>
__device__ inline void load_values(T const* p, float (&v)[Vec]) {
  if constexpr (Vec == 8) {  // one (16-bit types) or two (fp32) 16-byte loads
    constexpr int kLoads = 8 * int(sizeof(T)) / 16;
    uint4 u[kLoads];
    for (int i = 0; i < kLoads; ++i) u[i] = reinterpret_cast<uint4 const*>(p)[i];
    T const* e = reinterpret_cast<T const*>(u);
    for (int j = 0; j < 8; ++j) v[j] = to_float(e[j]);
  } else {
    for (int j = 0; j < Vec; ++j) v[j] = to_float(p[j]);
  }
}

template <class T, int Vec>
__device__ inline void store_values(T* p, float const (&v)[Vec]) {
  if constexpr (Vec == 8 && sizeof(T) == 2) {
    alignas(16) T e[8];
    for (int j = 0; j < 8; ++j) e[j] = from_float<T>(v[j]);
    *reinterpret_cast<uint4*>(p) = *reinterpret_cast<uint4 const*>(e);
  } else if constexpr (Vec == 8) {
    reinterpret_cast<float4*>(p)[0] = make_float4(v[0], v[1], v[2], v[3]);
    reinterpret_cast<float4*>(p)[1] = make_float4(v[4], v[5], v[6], v[7]);
  } else {
    for (int j = 0; j < Vec; ++j) p[j] = from_float<T>(v[j]);
  }
}

// out[at..at+Vec) = act(alpha * acc + beta * residual + bias), in the output type. Each term
// is one branch a pixel, taken or skipped for all Vec values. Branching per value (as
// epilogue_value does) cost most of the 630 of 1407 instructions a 3x3 strip spent outside its
// main loop, and 11-20% of the time (docs/PERFORMANCE.md, fifteenth session). The same
// operations in the same order.
template <class Out, int Vec>
__device__ inline void depthwise_store(DepthwiseArgs const& a, std::int64_t at, int c, float (&acc)[Vec]) {
  if (a.alpha != 1.0f) {
#pragma unroll
    for (int j = 0; j < Vec; ++j) acc[j] *= a.alpha;
  }
  if (a.beta != 0.0f) {
    float r[Vec];
    load_values<Out, Vec>(static_cast<Out const*>(a.residual) + at, r);
#pragma unroll
    for (int j = 0; j < Vec; ++j) acc[j] += a.beta * r[j];
  }
  if (a.bias) {
#pragma unroll
    for (int j = 0; j < Vec; ++j) acc[j] += to_float(static_cast<Out const*>(a.bias)[c + j]);
  }
  if (a.act == Activation::kReLU) {
#pragma unroll
    for (int j = 0; j < Vec; ++j) acc[j] = activate(acc[j], Activation::kReLU);
  } else if (a.act == Activation::kGELU) {
#pragma unroll
    for (int j = 0; j < Vec; ++j) acc[j] = activate(acc[j], Activation::kGELU);
  }
  store_values<Out, Vec>(static_cast<Out*>(a.out) + at, acc);
}

template <int Vec>
__device__ inline void depthwise_store(DepthwiseArgs const& a, std::int64_t at, int c, float (&acc)[Vec]) {
  switch (a.out_type) {
    case DataType::kF32: depthwise_store<float, Vec>(a, at, c, acc); break;
    case DataType::kF16: depthwise_store<Half, Vec>(a, at, c, acc); break;
    case DataType::kBF16: depthwise_store<BFloat16, Vec>(a, at, c, acc); break;
  }
}

template <class T, int Vec, int CG>
__device__ inline void load_taps(DepthwiseArgs const& a, int c0, float* taps) {
  using L = TapLayout<Vec, CG>;
  const Conv2dProblem& pb = a.pb;
  const int vectors = a.vectors_per_block, count = pb.r * pb.s * vectors * Vec * CG;
  const bool flip = pb.mode == ConvMode::kConvolution;
  for (int e = int(threadIdx.x); e < count; e += blockDim.x) {
    int tap, v, f, r, s;
    L::element(e, a.vectors, &tap, &v, &f);
    const int c = c0 + v * Vec + f / CG, i = f % CG;
    a.filter_s.divmod(tap, r, s);
    if (flip) r = pb.r - 1 - r, s = pb.s - 1 - s;
    const int filter = a.dgrad_taps ? c - c % CG + i : c, channel = a.dgrad_taps ? c % CG : i;
    const std::int64_t at = ((std::int64_t(filter) * pb.r + r) * pb.s + s) * CG + channel;
    taps[e] = c < pb.c ? to_float(static_cast<T const*>(a.w)[at]) : 0.0f;
  }
  __syncthreads();
}

// One tap's contribution to Outputs pixels of Vec output channels (Vec / CG whole groups):
// acc[o][j] += sum_i in[first + o * Step][g(j) + i] * w(j, i), where the weights w are the
// thread's chunks of the tap starting at `w` (TapLayout), `stride` floats apart. Each chunk is
// loaded once and used for every output pixel.
template <int Vec, int CG, int Outputs, int Step, int Columns>
__device__ inline void accumulate_tap(float (&acc)[Outputs][Vec], float const (&in)[Columns][Vec], int first,
                                      float const* w, int stride) {
  using L = TapLayout<Vec, CG>;
  static_assert(Vec % CG == 0, "a thread's channels are whole groups");
#pragma unroll
  for (int q = 0; q < L::kChunks; ++q) {
    float chunk[L::kChunk];
    if constexpr (L::kChunk == 4) {
      const float4 c4 = *reinterpret_cast<float4 const*>(w + q * stride);
      chunk[0] = c4.x, chunk[1] = c4.y, chunk[2] = c4.z, chunk[3] = c4.w;
    } else {
      chunk[0] = w[q * stride];
    }
#pragma unroll
    for (int e = 0; e < L::kChunk; ++e) {
      const int f = q * L::kChunk + e, j = f / CG, i = f % CG;
#pragma unroll
      for (int o = 0; o < Outputs; ++o) acc[o][j] += in[first + o * Step][j - j % CG + i] * chunk[e];
    }
  }
}

}  // namespace detail

// fprop. Grid: (pixel blocks, channel blocks); each thread computes Vec channels of a pixel,
// then of the pixel lanes * gridDim.x further on.
template <class T, int Vec, int CG>
__global__ void __launch_bounds__(kDepthwiseThreads) depthwise_fprop_kernel(DepthwiseArgs a) {
  extern __shared__ float4 taps_words[];  // (R*S, Vec*CG / kChunk, vectors, kChunk): detail::TapLayout
  using Taps = detail::TapLayout<Vec, CG>;
  float* taps = reinterpret_cast<float*>(taps_words);
  const Conv2dProblem& pb = a.pb;
  const int vectors = a.vectors_per_block, lanes = kDepthwiseThreads / vectors;
  const int c0 = int(blockIdx.y) * vectors * Vec;
  detail::load_taps<T, Vec, CG>(a, c0, taps);
  const int lane = int(threadIdx.x) / vectors, v = int(threadIdx.x) % vectors, c = c0 + v * Vec;
  if (lane >= lanes || c >= pb.c) return;
  const int P = pb.p(), Q = pb.q(), pixels = pb.n * P * Q;  // below 2^31: Y's elements are
  T const* x = static_cast<T const*>(a.in);
  for (int pix = int(blockIdx.x) * lanes + lane; pix < pixels; pix += int(gridDim.x) * lanes) {
    int row, q, n, p;  // pix = (n * P + p) * Q + q
    a.columns.divmod(pix, row, q);
    a.rows.divmod(row, n, p);
    float acc[1][Vec] = {};
    for (int r = 0; r < pb.r; ++r) {
      const int h = p * pb.stride_h - pb.pad_h + r * pb.dilation_h;
      if (unsigned(h) >= unsigned(pb.h)) continue;
      T const* row = x + (std::int64_t(n) * pb.h + h) * pb.w * pb.c + c;
      for (int s = 0; s < pb.s; ++s) {
        const int w = q * pb.stride_w - pb.pad_w + s * pb.dilation_w;
        if (unsigned(w) >= unsigned(pb.w)) continue;
        float in[1][Vec];
        detail::load_values<T, Vec>(row + std::int64_t(w) * pb.c, in[0]);
        detail::accumulate_tap<Vec, CG, 1, 1>(acc, in, 0, taps + Taps::offset(r * pb.s + s, v, vectors),
                                              vectors * Taps::kChunk);
      }
    }
    detail::depthwise_store<Vec>(a, std::int64_t(pix) * pb.c + c, c, acc[0]);
  }
}

// fprop with filters S wide at stride SW, dilation 1 along w: a thread computes
// depthwise_strip(S, SW) consecutive output columns (n, p, q0..) of Vec channels, loading per
// filter row the (strip - 1) * SW + S input columns they read once (zero outside the image).
template <class T, int Vec, int CG, int S, int SW>
__global__ void __launch_bounds__(kDepthwiseThreads, kStripBlocksPerSm) depthwise_fprop_strip_kernel(DepthwiseArgs a) {
  extern __shared__ float4 taps_words[];  // (R*S, Vec*CG / kChunk, vectors, kChunk): detail::TapLayout
  using Taps = detail::TapLayout<Vec, CG>;
  float* taps = reinterpret_cast<float*>(taps_words);
  constexpr int kStrip = depthwise_strip(S, SW), kColumns = (kStrip - 1) * SW + S;
  const Conv2dProblem& pb = a.pb;
  const int vectors = a.vectors_per_block, lanes = kDepthwiseThreads / vectors, width = vectors * Vec;
  const int c0 = int(blockIdx.y) * width;
  detail::load_taps<T, Vec, CG>(a, c0, taps);
  const int lane = int(threadIdx.x) / vectors, v = int(threadIdx.x) % vectors, c = c0 + v * Vec;
  if (lane >= lanes || c >= pb.c) return;
  const int P = pb.p(), Q = pb.q(), strips = pb.n * P * a.columns.divisor;  // a.columns: ceil(Q / kStrip)
  T const* x = static_cast<T const*>(a.in) + c;
  for (int strip = int(blockIdx.x) * lanes + lane; strip < strips; strip += int(gridDim.x) * lanes) {
    int row, column, n, p;  // strip = (n * P + p) * strips a row + column
    a.columns.divmod(strip, row, column);
    a.rows.divmod(row, n, p);
    const int q0 = column * kStrip, w0 = q0 * SW - pb.pad_w;
    float acc[kStrip][Vec] = {};
    for (int r = 0; r < pb.r; ++r) {
      const int h = p * pb.stride_h - pb.pad_h + r * pb.dilation_h;
      if (unsigned(h) >= unsigned(pb.h)) continue;
      T const* row = x + (std::int64_t(n) * pb.h + h) * pb.w * pb.c;
      float in[kColumns][Vec];
#pragma unroll
      for (int j = 0; j < kColumns; ++j) {
        if (unsigned(w0 + j) < unsigned(pb.w)) {
          detail::load_values<T, Vec>(row + std::int64_t(w0 + j) * pb.c, in[j]);
        } else {
          for (int e = 0; e < Vec; ++e) in[j][e] = 0.0f;
        }
      }
#pragma unroll
      for (int s = 0; s < S; ++s) {
        detail::accumulate_tap<Vec, CG, kStrip, SW>(acc, in, s, taps + Taps::offset(r * S + s, v, vectors),
                                                    vectors * Taps::kChunk);
      }
    }
    const std::int64_t pixel = (std::int64_t(n) * P + p) * Q + q0;
#pragma unroll
    for (int i = 0; i < kStrip; ++i) {
      if (q0 + i < Q) detail::depthwise_store<Vec>(a, (pixel + i) * pb.c + c, c, acc[i]);
    }
  }
}

// dgrad: the fprop kernel's walk over dX's pixels (n, h, w), each tap reaching back to the
// dY pixel (p, q) that read it through that tap, if there is one: only the taps that do are
// visited (detail::TapWalk; a quarter of them at stride 2).
template <class T, int Vec, int CG>
__global__ void __launch_bounds__(kDepthwiseThreads) depthwise_dgrad_kernel(DepthwiseArgs a) {
  extern __shared__ float4 taps_words[];  // (R*S, Vec*CG / kChunk, vectors, kChunk), dgrad's (a.dgrad_taps)
  using Taps = detail::TapLayout<Vec, CG>;
  float* taps = reinterpret_cast<float*>(taps_words);
  const Conv2dProblem& pb = a.pb;
  const int vectors = a.vectors_per_block, lanes = kDepthwiseThreads / vectors;
  const int c0 = int(blockIdx.y) * vectors * Vec;
  detail::load_taps<T, Vec, CG>(a, c0, taps);
  const int lane = int(threadIdx.x) / vectors, v = int(threadIdx.x) % vectors, c = c0 + v * Vec;
  if (lane >= lanes || c >= pb.c) return;
  const int P = pb.p(), Q = pb.q(), pixels = pb.n * pb.h * pb.w;  // below 2^31: dX's elements are
  const detail::TapWalk &walk_h = a.walk_h, &walk_w = a.walk_w;
  T const* dy = static_cast<T const*>(a.in);
  for (int pix = int(blockIdx.x) * lanes + lane; pix < pixels; pix += int(gridDim.x) * lanes) {
    int row, w, n, h;  // pix = (n * H + h) * W + w
    a.columns.divmod(pix, row, w);
    a.rows.divmod(row, n, h);
    float acc[1][Vec] = {};
    int r0, p0, s0, q0;  // the first taps that reach dY, and the dY row and column they read
    if (walk_h.first(h + pb.pad_h, &r0, &p0) && walk_w.first(w + pb.pad_w, &s0, &q0)) {
      for (int r = r0, p = p0; r < pb.r && p >= 0; r += walk_h.step, p -= walk_h.back) {
        if (p >= P) continue;
        T const* row = dy + (std::int64_t(n) * P + p) * Q * pb.c + c;
        for (int s = s0, q = q0; s < pb.s && q >= 0; s += walk_w.step, q -= walk_w.back) {
          if (q >= Q) continue;
          float in[1][Vec];
          detail::load_values<T, Vec>(row + std::int64_t(q) * pb.c, in[0]);
          detail::accumulate_tap<Vec, CG, 1, 1>(acc, in, 0, taps + Taps::offset(r * pb.s + s, v, vectors),
                                                vectors * Taps::kChunk);
        }
      }
    }
    detail::depthwise_store<Vec>(a, std::int64_t(pix) * pb.c + c, c, acc[0]);
  }
}

namespace detail {

// wgrad's block sums. Thread (lane, unit, v) holds the sums of taps first .. first + mine - 1
// (a filter row's or one; first = unit * mine) for the Vec * CG weights of its Vec filters from
// c; the block adds its lanes' sums in lane order (through shared memory, where it has several
// lanes) and writes them to the partials (block, R*S, K, CG), taps as dW stores them (flipped
// for true convolution). Every thread of the block calls it (barriers), with the block's `mine`.
// Each of a tap's units * vectors * Vec * CG sums is one thread's. (Lane 0's threads alone
// added Vec * CG each, a shared-memory latency a lane: 27% of the stall samples of MobileNetV2's
// 7x7x960 slide, ncu, sixteenth session.)
// AllTaps (the sliding kernel, mine == Taps): every tap's sums go through shared memory at once,
// one barrier instead of two a tap (the launch sizes shared memory for all S taps).
template <int Taps, int Vec, int CG, bool AllTaps = false>
__device__ void store_wgrad_sums(DepthwiseArgs const& a, float (&acc)[Taps][Vec * CG], int first, int mine, int c,
                                 int units) {
  extern __shared__ float lane_sums[];  // ([taps,] lanes, units, vectors, Vec * CG) when lanes > 1
  constexpr int kValues = Vec * CG;
  const Conv2dProblem& pb = a.pb;
  const int vectors = a.vectors_per_block, taps = pb.r * pb.s, lanes = a.slice_lanes;
  auto partial = [&](int tap, int channel) {  // the block's sums of tap for channel .. (fp32)
    const int stored = pb.mode == ConvMode::kConvolution ? taps - 1 - tap : tap;
    return static_cast<float*>(a.out) + ((std::int64_t(blockIdx.x) * taps + stored) * pb.c + channel) * CG;
  };
  if constexpr (AllTaps) {
    if (lanes > 1) {
      const int threads = int(blockDim.x), per_tap = units * vectors * kValues;
#pragma unroll
      for (int t = 0; t < Taps; ++t) {
        for (int j = 0; j < kValues; ++j) lane_sums[(t * threads + int(threadIdx.x)) * kValues + j] = acc[t][j];
      }
      __syncthreads();
      // sum o: tap t, then (unit, v) of lane 0 and value j, consecutive o consecutive channels
      for (int o = int(threadIdx.x); o < Taps * per_tap; o += threads) {
        const int t = o / per_tap, me = o % per_tap / kValues, j = o % kValues;
        const int channel = (int(blockIdx.y) * vectors + me % vectors) * Vec;
        if (channel >= pb.c) continue;
        float sum = 0.0f;
#pragma unroll 4
        for (int l = 0; l < lanes; ++l) sum += lane_sums[(t * threads + l * units * vectors + me) * kValues + j];
        partial(me / vectors * Taps + t, channel)[j] = sum;
      }
      return;
    }
  }
#pragma unroll
  for (int t = 0; t < Taps; ++t) {
    if (t >= mine) break;
    if (lanes == 1) {
      if (int(blockIdx.x) < a.slices && c < pb.c) {
        float* out = partial(first + t, c);
        for (int j = 0; j < kValues; ++j) out[j] = acc[t][j];
      }
      continue;
    }
    for (int j = 0; j < kValues; ++j) lane_sums[int(threadIdx.x) * kValues + j] = acc[t][j];
    __syncthreads();
    const int sums = units * vectors * kValues;
    for (int o = int(threadIdx.x); o < sums; o += int(blockDim.x)) {
      const int me = o / kValues, j = o % kValues;  // me: (unit, v) of lane 0
      const int channel = (int(blockIdx.y) * vectors + me % vectors) * Vec;
      if (channel >= pb.c) continue;
      float sum = 0.0f;
#pragma unroll 4
      for (int l = 0; l < lanes; ++l) sum += lane_sums[(l * units * vectors + me) * kValues + j];
      partial(me / vectors * mine + t, channel)[j] = sum;
    }
    __syncthreads();
  }
}

// Sixteen zero bytes in global memory: what depthwise_wgrad_slide_kernel reads for padding.
__device__ const uint4 kZeroWord{0u, 0u, 0u, 0u};

}  // namespace detail

// wgrad. Grid: (blocks of slice lanes, channel blocks); block: lanes x units x vectors threads,
// each lane one slice of the N*P*Q pixels. A unit is one filter row (RowTaps, the plan's
// row_taps: depthwise, rows kWgradRowTapsMin to kWgradRowTaps wide) or one tap. Thread (lane,
// unit, v) sums dy * x over its slice's pixels for the Vec * CG weights of its taps and Vec
// filters, loading dY once per pixel for all of them. Each tap's x and each pixel's dy are
// loaded as 16-byte words first, all of a step in flight together: a row's taps, or (one tap a
// thread) four pixels. The block then adds its lanes' sums (detail::store_wgrad_sums).
template <class T, int Vec, int CG, bool RowTaps>
__global__ void depthwise_wgrad_kernel(DepthwiseArgs a) {
  static_assert(CG == 1 || !RowTaps, "a filter row's accumulators: depthwise only");
  constexpr int kTaps = RowTaps ? kWgradRowTaps : 1;  // a thread's taps, at most
  constexpr int kPixels = RowTaps ? 1 : 4;            // pixels a step
  static_assert(sizeof(T) == 2, "16-bit inputs: eight channels are one 16-byte word");
  using Word = std::conditional_t<Vec == 8, uint4, T>;  // a pixel's Vec channels as loaded
  const Conv2dProblem& pb = a.pb;
  const int vectors = a.vectors_per_block, taps = pb.r * pb.s, units = RowTaps ? pb.r : taps;
  const int v = int(threadIdx.x) % vectors, unit = int(threadIdx.x) / vectors % units;
  const int slice = int(blockIdx.x) * a.slice_lanes + int(threadIdx.x) / vectors / units;
  const int c = (int(blockIdx.y) * vectors + v) * Vec;
  const bool active = slice < a.slices && c < pb.c;  // the others add zeros to the lane sums
  // taps (r, s0 + t) for t < mine
  const int r = RowTaps ? unit : unit / pb.s, s0 = RowTaps ? 0 : unit % pb.s, mine = RowTaps ? pb.s : 1;
  const int P = pb.p(), Q = pb.q(), pixels = pb.n * P * Q;
  const int begin = active ? slice * a.pixels_per_slice : pixels;
  const int end = pixels - begin > a.pixels_per_slice ? begin + a.pixels_per_slice : pixels;
  T const* dy = static_cast<T const*>(a.in) + c;
  T const* x = static_cast<T const*>(a.w) + c;
  float acc[kTaps][Vec * CG] = {};
  // (n, p, q) of pixel `begin`, then counted up: no division per pixel
  int q = begin % Q, p = begin / Q % P, n = begin / Q / P;
  for (int pix = begin; pix < end; pix += kPixels) {
    Word g[kPixels], in[kPixels][kTaps];  // zero past the slice and outside the image
#pragma unroll
    for (int u = 0; u < kPixels; ++u) {
      const int h = p * pb.stride_h - pb.pad_h + r * pb.dilation_h;
      const bool row = pix + u < end && unsigned(h) < unsigned(pb.h);
      g[u] = row ? *reinterpret_cast<Word const*>(dy + std::int64_t(pix + u) * pb.c) : Word{};
      T const* x_row = x + (std::int64_t(n) * pb.h + h) * pb.w * pb.c;
#pragma unroll
      for (int t = 0; t < kTaps; ++t) {
        const int w = q * pb.stride_w - pb.pad_w + (s0 + t) * pb.dilation_w;
        in[u][t] = Word{};
        if (t < mine && row && unsigned(w) < unsigned(pb.w))
          in[u][t] = *reinterpret_cast<Word const*>(x_row + std::int64_t(w) * pb.c);
      }
      if (++q == Q) {
        q = 0;
        if (++p == P) p = 0, ++n;
      }
    }
#pragma unroll
    for (int u = 0; u < kPixels; ++u) {
      float gf[Vec];
      for (int j = 0; j < Vec; ++j) gf[j] = detail::to_float(reinterpret_cast<T const*>(&g[u])[j]);
#pragma unroll
      for (int t = 0; t < kTaps; ++t) {
        if (t >= mine) break;
        T const* xt = reinterpret_cast<T const*>(&in[u][t]);
#pragma unroll
        for (int j = 0; j < Vec; ++j) {
#pragma unroll
          for (int i = 0; i < CG; ++i) acc[t][j * CG + i] += gf[j] * detail::to_float(xt[j - j % CG + i]);
        }
      }
    }
  }
  detail::store_wgrad_sums<kTaps, Vec, CG>(a, acc, r * pb.s + s0, mine, c, units);
}

// wgrad of depthwise layers whose filter is S = 3, 5 or 7 wide at stride 1 along w, without
// dilation along w (plan.slide), Vec channels a thread (slide_vec: 16- or 8-byte loads). Grid
// and block as depthwise_wgrad_kernel's with a thread per filter row, but the pixels are cut
// into row pieces: each output row (n, p) into a.row_pieces runs of ceil(Q / row_pieces)
// columns, and a slice is a.pieces_per_slice consecutive pieces, in (n, p, piece) order or,
// with a.slide_down, (n, piece, p): down the rows. Along a piece, tap s of output column q reads
// input column q - pad + s: the S columns a pixel reads are the previous pixel's shifted by
// one. So the thread keeps them in registers, as fp32, and per pixel loads and converts one new
// column and dY's pixel (loaded a pixel ahead), where depthwise_wgrad_kernel loads and converts
// S + 1 words. Column w sits in slot (w + pad - first) % S, first the piece's first output
// column; the loop is unrolled S pixels at a time so that every slot index is a constant
// (registers, not local memory). Pixels past the piece in its last S contribute nothing (dY
// and x read as zeros).
#if __CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4)
#define TESSEL_SLIDE_REGISTERS __maxnreg__(65536 / kSlideThreads / kSlideBlocksPerSm)
#else  // no __maxnreg__ before CUDA 12.4
#define TESSEL_SLIDE_REGISTERS __launch_bounds__(kSlideThreads, kSlideBlocksPerSm)
#endif
template <class T, int S, int Vec = slide_vec(S)>
__global__ void TESSEL_SLIDE_REGISTERS depthwise_wgrad_slide_kernel(DepthwiseArgs a) {
  static_assert(sizeof(T) == 2 && (Vec == 4 || Vec == 8), "16-bit inputs: Vec channels are one 8- or 16-byte word");
  constexpr int kVec = Vec;
  using Word = std::conditional_t<Vec == 8, uint4, uint2>;
  const Conv2dProblem& pb = a.pb;
  const int vectors = a.vectors_per_block;
  const int v = int(threadIdx.x) % vectors, r = int(threadIdx.x) / vectors % pb.r;
  const int slice = int(blockIdx.x) * a.slice_lanes + int(threadIdx.x) / vectors / pb.r;
  const int c = (int(blockIdx.y) * vectors + v) * kVec;
  const int P = pb.p(), Q = pb.q(), pieces = a.row_pieces, length = (Q + pieces - 1) / pieces;
  const int all = pb.n * P * pieces;  // pieces (n, p, piece)
  const int begin = slice < a.slices && c < pb.c ? slice * a.pieces_per_slice : all;  // others add zeros
  const int end = all - begin > a.pieces_per_slice ? begin + a.pieces_per_slice : all;
  auto floats = [](Word w, float (&f)[kVec]) {
    T const* e = reinterpret_cast<T const*>(&w);
#pragma unroll
    for (int j = 0; j < kVec; ++j) f[j] = detail::to_float(e[j]);
  };
  float acc[S][kVec] = {};
  // The output row (n, p) and piece of `unit`: units in (n, p, piece) order, or with
  // a.slide_down in (n, piece, p), so that the lane's S filter-row threads re-read one piece's
  // input columns (a few KiB, held by L1) rather than whole rows.
  int row = begin / pieces, piece = begin % pieces;
  if (a.slide_down) {
    const int per_image = pieces * P, image = begin / per_image, rest = begin - image * per_image;
    piece = rest / P, row = image * P + rest % P;
  }
  for (int unit = begin; unit < end; ++unit) {
    int n, p;
    a.rows.divmod(row, n, p);  // P
    const int h = p * pb.stride_h - pb.pad_h + r * pb.dilation_h;
    const int first = piece * length, last = Q - first > length ? first + length : Q;  // columns [first, last)
    const std::int64_t pixel0 = std::int64_t(row) * Q;  // the row's first output pixel
    if (a.slide_down) {
      ++row;
      if (p + 1 == P) {
        if (++piece == pieces) piece = 0;
        else row -= P;  // the same image's next piece, from its first row
      }
    } else if (++piece == pieces) {
      piece = 0, ++row;
    }
    if (unsigned(h) >= unsigned(pb.h)) continue;  // this filter row meets padding only
    T const* dy_row = static_cast<T const*>(a.in) + pixel0 * pb.c + c;
    T const* x_row = static_cast<T const*>(a.w) + (std::int64_t(n) * pb.h + h) * pb.w * pb.c + c;
    // output column q's new input column w (q + S - 1 - pad) and its dY. Past the piece or
    // outside the image they read detail::kZeroWord: the address is chosen, not the word (a
    // select of the word waits for its load).
    auto column = [&](int q, int w) {
      return *(q < last && unsigned(w) < unsigned(pb.w) ? reinterpret_cast<Word const*>(x_row + std::int64_t(w) * pb.c)
                                                        : reinterpret_cast<Word const*>(&detail::kZeroWord));
    };
    auto pixel = [&](int q) {
      return *(q < last ? reinterpret_cast<Word const*>(dy_row + std::int64_t(q) * pb.c)
                        : reinterpret_cast<Word const*>(&detail::kZeroWord));
    };
    float window[S][kVec];
#pragma unroll
    for (int s = 0; s + 1 < S; ++s) floats(column(first, first + s - pb.pad_w), window[s]);
    Word next_x = column(first, first + S - 1 - pb.pad_w), next_dy = pixel(first);
    // S pixels from q0. Unmasked: the words loaded ahead (pixels q0 + 1 .. q0 + S and their new
    // columns) lie inside the piece and the image, and are loaded without a test.
    auto pixels = [&](int q0, auto masked) {
#pragma unroll
      for (int u = 0; u < S; ++u) {
        const int q = q0 + u, w = q + S - pb.pad_w;
        const Word x_word = next_x, dy_word = next_dy;
        if constexpr (decltype(masked)::value) {
          next_x = column(q + 1, w), next_dy = pixel(q + 1);
        } else {
          next_x = *reinterpret_cast<Word const*>(x_row + std::int64_t(w) * pb.c);
          next_dy = *reinterpret_cast<Word const*>(dy_row + std::int64_t(q + 1) * pb.c);
        }
        float g[kVec];
        floats(x_word, window[(u + S - 1) % S]);
        floats(dy_word, g);
#pragma unroll
        for (int s = 0; s < S; ++s) {
#pragma unroll
          for (int j = 0; j < kVec; ++j) acc[s][j] += g[j] * window[(u + s) % S][j];
        }
      }
    };
    auto unmasked = [&](int q0) { return q0 + S < last && q0 + S - pb.pad_w >= 0 && q0 + 2 * S - 1 - pb.pad_w < pb.w; };
    // The unmasked passes in a loop of their own, the interior of a piece (3x3: 101 sm_90a
    // instructions for 3 pixels, where a pass that tests each load took 173).
    for (int q0 = first; q0 < last;) {
      for (; unmasked(q0); q0 += S) pixels(q0, std::false_type{});
      if (q0 < last) pixels(q0, std::true_type{}), q0 += S;
    }
  }
  detail::store_wgrad_sums<S, kVec, 1, true>(a, acc, r * pb.s, S, c, pb.r);
}

// wgrad's second pass: dw[k, r, s, i] = alpha * sum over slices + beta * residual, summed in
// the same order every run. partials (slices, R*S, K, CG) fp32. Block: 32 elements (tap, k, i),
// (k, i) fastest so that the slices' reads are coalesced, by kReduceGroups groups of slices:
// group y adds its contiguous run of slices in order, then the groups' sums are added in order.
inline constexpr int kReduceGroups = 32;
template <class Out>
__global__ void __launch_bounds__(32 * kReduceGroups)
    depthwise_wgrad_reduce_kernel(float const* partials, int slices, Conv2dProblem pb, void* dw, void const* residual,
                                  float alpha, float beta) {
  __shared__ float sums[kReduceGroups][33];
  // count below 2^31: dW's elements
  const int taps = pb.r * pb.s, cg = pb.channels_per_group(), row = pb.k * cg, count = row * taps;
  const int i = int(blockIdx.x) * 32 + int(threadIdx.x), y = int(threadIdx.y);
  const int per_group = (slices + kReduceGroups - 1) / kReduceGroups, first = y * per_group;
  const int last = slices - first < per_group ? slices : first + per_group;
  float sum = 0.0f;
  if (i < count) {
    for (int b = first; b < last; ++b) sum += partials[std::int64_t(b) * count + i];
  }
  sums[y][threadIdx.x] = sum;
  __syncthreads();
  if (y != 0 || i >= count) return;
  float total = 0.0f;
  for (int g = 0; g < kReduceGroups; ++g) total += sums[g][threadIdx.x];
  const int tap = i / row, k = i % row / cg, channel = i % cg;
  const int at = (k * taps + tap) * cg + channel;  // dW (K, R, S, CG)
  float x = alpha * total;
  if (beta != 0.0f) x += beta * detail::to_float(static_cast<Out const*>(residual)[at]);
  static_cast<Out*>(dw)[at] = detail::from_float<Out>(x);
}
#endif

}  // namespace tessel
