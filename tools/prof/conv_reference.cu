// conv2d_reference: see conv_reference.hpp. Grid-stride over the outputs (size_t indices).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>

#include "conv_reference.hpp"
#include "cuda_check.hpp"

namespace tessel::prof {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 65536;

__device__ double load_as_double(const void* p, DataType t, std::size_t i) {
  switch (t) {
    case DataType::kF16:
      return __half2float(static_cast<const __half*>(p)[i]);
    case DataType::kBF16:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    case DataType::kF32:
      return static_cast<const float*>(p)[i];
  }
  return NAN;
}

// GELU as tessel defines it (tanh approximation).
__device__ double gelu_tanh(double x) {
  constexpr double kSqrt2OverPi = 0.7978845608028654;
  constexpr double kCubic = 0.044715;
  return 0.5 * x * (1.0 + tanh(kSqrt2OverPi * (x + kCubic * x * x * x)));
}

struct ReferenceArgs {
  Conv2dProblem pb;
  int p, q;  // output height and width
  DataType in_type, out_type;
  const void *x, *w, *residual, *bias;
  double alpha, beta;
  Activation act;
  float *ref, *scale;
  std::size_t count;  // N P Q K
};

__global__ void conv2d_reference_kernel(ReferenceArgs a) {
  const Conv2dProblem& pb = a.pb;
  const int c_per_group = pb.c / pb.groups, k_per_group = pb.k / pb.groups;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < a.count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    // i = ((n P + p) Q + q) K + k   (NPQK, the last index fastest)
    const int k = static_cast<int>(i % pb.k);
    const int q = static_cast<int>(i / pb.k % a.q);
    const int p = static_cast<int>(i / pb.k / a.q % a.p);
    const int n = static_cast<int>(i / pb.k / a.q / a.p);
    const int group = k / k_per_group;
    double sum = 0, magnitude = 0;
    for (int r = 0; r < pb.r; ++r) {
      const int tap_r = pb.mode == ConvMode::kConvolution ? pb.r - 1 - r : r;
      const int h = p * pb.stride_h - pb.pad_h + tap_r * pb.dilation_h;
      if (h < 0 || h >= pb.h) continue;
      for (int s = 0; s < pb.s; ++s) {
        const int tap_s = pb.mode == ConvMode::kConvolution ? pb.s - 1 - s : s;
        const int w = q * pb.stride_w - pb.pad_w + tap_s * pb.dilation_w;
        if (w < 0 || w >= pb.w) continue;
        // X (N,H,W,C) and W (K,R,S,C/G)
        const std::size_t x_base =
            ((std::size_t(n) * pb.h + h) * pb.w + w) * pb.c + std::size_t(group) * c_per_group;
        const std::size_t w_base = ((std::size_t(k) * pb.r + r) * pb.s + s) * c_per_group;
        for (int c = 0; c < c_per_group; ++c) {
          const double xv = load_as_double(a.x, a.in_type, x_base + c);
          const double wv = load_as_double(a.w, a.in_type, w_base + c);
          sum += xv * wv;
          magnitude += fabs(xv * wv);
        }
      }
    }
    double y = a.alpha * sum;
    double scale = fabs(a.alpha) * magnitude;
    if (a.residual != nullptr) {
      const double rv = a.beta * load_as_double(a.residual, a.out_type, i);
      y += rv;
      scale += fabs(rv);
    }
    if (a.bias != nullptr) {
      const double bv = load_as_double(a.bias, a.out_type, k);
      y += bv;
      scale += fabs(bv);
    }
    if (a.act == Activation::kReLU) y = y > 0.0 ? y : 0.0;
    if (a.act == Activation::kGELU) y = gelu_tanh(y);
    a.ref[i] = static_cast<float>(y);
    a.scale[i] = static_cast<float>(scale);
  }
}

}  // namespace

void conv2d_reference(const ConvProblem& p, const void* x, const void* w, const void* residual,
                      const void* bias, float* ref, float* scale, cudaStream_t stream) {
  ReferenceArgs a{p.shape,
                  p.shape.p(),
                  p.shape.q(),
                  p.input_type,
                  p.output_type,
                  x,
                  w,
                  p.reads_residual() ? residual : nullptr,
                  bias,
                  p.alpha,
                  p.beta,
                  p.activation,
                  ref,
                  scale,
                  static_cast<std::size_t>(p.y_elements())};
  if (a.count == 0) return;
  const auto blocks = static_cast<unsigned>(
      std::clamp<std::size_t>((a.count + kThreads - 1) / kThreads, 1, kMaxBlocks));
  conv2d_reference_kernel<<<blocks, kThreads, 0, stream>>>(a);
  check_cuda(cudaGetLastError(), "launch of the conv2d reference");
}

}  // namespace tessel::prof
