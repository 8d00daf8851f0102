#include "conv/space_to_depth.hpp"

#include <cstdint>

#include "tessel/conv/space_to_depth.hpp"
#include "tessel/gemm/epilogue.hpp"

namespace tessel {
namespace {

constexpr int kThreads = 256;
constexpr int kVector = 8;  // elements of one 16-byte store

// One thread per pixel of dst (rows, C'): X' (N, H', W') or W' (K, R', S'). The header's
// definition, walked in channel order: phase (dh, dw) after phase, each C elements of one
// source pixel, then zeros to C'. source(dh, dw) is that pixel's offset in src, or -1 where it
// lies outside X or the filter. Consecutive threads store consecutive C'-element runs.
template <bool Filter>
__global__ void space_to_depth_kernel(std::uint16_t const* src, Conv2dProblem pb, Conv2dProblem out, uint4* dst,
                                      long long pixels) {
  const long long pixel = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (pixel >= pixels) return;
  const int cols = Filter ? out.s : out.w, rows = Filter ? out.r : out.h;
  const int x = int(pixel % cols), y = int(pixel / cols % rows);
  const int outer = int(pixel / cols / rows);  // n, or k
  auto source = [&](int dh, int dw) -> long long {
    const int channel = (dh * pb.stride_w + dw) * pb.c;
    return Filter ? space_to_depth_w_source(pb, outer, y, x, channel) : space_to_depth_x_source(pb, outer, y, x, channel);
  };
  int dh = 0, dw = 0, c = 0;  // the next element's phase and channel
  long long from = source(0, 0);
  uint4* to = dst + pixel * (out.c / kVector);
  for (int v = 0; v < out.c / kVector; ++v) {
    alignas(16) std::uint16_t values[kVector];
#pragma unroll
    for (int j = 0; j < kVector; ++j) {
      const bool real = dh < pb.stride_h;  // past the last phase: padding channels
      values[j] = real && from >= 0 ? src[from + c] : std::uint16_t(0);
      if (real && ++c == pb.c) {
        c = 0;
        if (++dw == pb.stride_w) dw = 0, ++dh;
        if (dh < pb.stride_h) from = source(dh, dw);
      }
    }
    to[v] = *reinterpret_cast<uint4 const*>(values);
  }
}

template <bool Filter>
cudaError_t launch(const void* src, const Conv2dProblem& pb, void* dst, cudaStream_t stream) {
  const Conv2dProblem out = space_to_depth_problem(pb);
  const long long pixels = Filter ? (long long)out.k * out.r * out.s : (long long)out.n * out.h * out.w;
  if (pixels == 0) return cudaSuccess;
  space_to_depth_kernel<Filter><<<unsigned((pixels + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      static_cast<std::uint16_t const*>(src), pb, out, static_cast<uint4*>(dst), pixels);
  return cudaGetLastError();
}

// One thread per pixel (n, h, w) of dX: its C channels are one run of dX' at the phase
// (dh, dw) = ((h + pad_h) % sh, (w + pad_w) % sw) of pixel ((h + pad_h) / sh, (w + pad_w) / sw).
template <class Out>
__global__ void depth_to_space_gradient_kernel(float const* from, Conv2dProblem pb, Conv2dProblem copy, Out* dx,
                                               Out const* residual, Out const* bias, float alpha, float beta,
                                               Activation act, long long pixels) {
  const long long pixel = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (pixel >= pixels) return;
  const int w = int(pixel % pb.w), h = int(pixel / pb.w % pb.h);
  const long long n = pixel / pb.w / pb.h;
  const int y = (h + pb.pad_h) / pb.stride_h, x = (w + pb.pad_w) / pb.stride_w;
  const int phase = (h + pb.pad_h) % pb.stride_h * pb.stride_w + (w + pb.pad_w) % pb.stride_w;
  const bool reached = y < copy.h && x < copy.w;  // else no tap reads this pixel
  float const* g = from + ((n * copy.h + y) * copy.w + x) * copy.c + phase * pb.c;
  for (int c = 0; c < pb.c; ++c) {
    const long long at = pixel * pb.c + c;
    const float r = beta != 0.0f ? detail::to_float(residual[at]) : 0.0f;
    const float b = bias != nullptr ? detail::to_float(bias[c]) : 0.0f;
    dx[at] = detail::from_float<Out>(detail::epilogue_value(reached ? g[c] : 0.0f, r, b, alpha, beta, act));
  }
}

template <class Out>
cudaError_t launch_gradient(const float* from, const Conv2dProblem& pb, void* dx, const void* residual,
                            const void* bias, float alpha, float beta, Activation act, cudaStream_t stream) {
  const long long pixels = (long long)pb.n * pb.h * pb.w;
  if (pixels == 0) return cudaSuccess;
  depth_to_space_gradient_kernel<Out><<<unsigned((pixels + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      from, pb, space_to_depth_problem(pb), static_cast<Out*>(dx), static_cast<Out const*>(residual),
      static_cast<Out const*>(bias), alpha, beta, act, pixels);
  return cudaGetLastError();
}

// One thread per element (k, r, s, c) of dW: tap (r, s) as the filter stores it is row
// sh*i + dh of W' (flipped first for a true convolution), space_to_depth_w_source's inverse.
template <class Out>
__global__ void depth_to_space_filter_gradient_kernel(float const* from, Conv2dProblem pb, Conv2dProblem copy,
                                                      Out* dw, Out const* residual, float alpha, float beta,
                                                      long long count) {
  const long long at = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (at >= count) return;
  const int c = int(at % pb.c), s = int(at / pb.c % pb.s), r = int(at / pb.c / pb.s % pb.r);
  const long long k = at / pb.c / pb.s / pb.r;
  const bool flip = pb.mode == ConvMode::kConvolution;
  const int rr = flip ? pb.r - 1 - r : r, ss = flip ? pb.s - 1 - s : s;
  const int phase = rr % pb.stride_h * pb.stride_w + ss % pb.stride_w;
  const float g = from[((k * copy.r + rr / pb.stride_h) * copy.s + ss / pb.stride_w) * copy.c + phase * pb.c + c];
  const float rv = beta != 0.0f ? detail::to_float(residual[at]) : 0.0f;
  dw[at] = detail::from_float<Out>(detail::epilogue_value(g, rv, 0.0f, alpha, beta, Activation::kNone));
}

template <class Out>
cudaError_t launch_filter_gradient(const float* from, const Conv2dProblem& pb, void* dw, const void* residual,
                                   float alpha, float beta, cudaStream_t stream) {
  const long long count = (long long)pb.k * pb.r * pb.s * pb.c;
  if (count == 0) return cudaSuccess;
  depth_to_space_filter_gradient_kernel<Out><<<unsigned((count + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      from, pb, space_to_depth_problem(pb), static_cast<Out*>(dw), static_cast<Out const*>(residual), alpha, beta,
      count);
  return cudaGetLastError();
}

}  // namespace

cudaError_t depth_to_space_filter_gradient(const float* dw_copy, const Conv2dProblem& pb, void* dw,
                                           const void* residual, float alpha, float beta, DataType out_type,
                                           cudaStream_t stream) {
  switch (out_type) {
    case DataType::kF16: return launch_filter_gradient<Half>(dw_copy, pb, dw, residual, alpha, beta, stream);
    case DataType::kBF16: return launch_filter_gradient<BFloat16>(dw_copy, pb, dw, residual, alpha, beta, stream);
    default: return launch_filter_gradient<float>(dw_copy, pb, dw, residual, alpha, beta, stream);
  }
}

cudaError_t depth_to_space_gradient(const float* dx_copy, const Conv2dProblem& pb, void* dx, const void* residual,
                                    const void* bias, float alpha, float beta, Activation act, DataType out_type,
                                    cudaStream_t stream) {
  switch (out_type) {
    case DataType::kF16: return launch_gradient<Half>(dx_copy, pb, dx, residual, bias, alpha, beta, act, stream);
    case DataType::kBF16: return launch_gradient<BFloat16>(dx_copy, pb, dx, residual, bias, alpha, beta, act, stream);
    default: return launch_gradient<float>(dx_copy, pb, dx, residual, bias, alpha, beta, act, stream);
  }
}

cudaError_t space_to_depth_activations(const void* x, const Conv2dProblem& pb, void* dst, cudaStream_t stream) {
  return launch<false>(x, pb, dst, stream);
}

cudaError_t space_to_depth_filter(const void* w, const Conv2dProblem& pb, void* dst, cudaStream_t stream) {
  return launch<true>(w, pb, dst, stream);
}

}  // namespace tessel
