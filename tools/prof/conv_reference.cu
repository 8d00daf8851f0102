// conv2d_reference: see conv_reference.hpp. Grid-stride over the outputs (size_t indices).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>

#include "conv_reference.hpp"
#include "cuda_check.hpp"
#include "device_buffer.hpp"

namespace tessel::prof {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 65536;
// wgrad: slices until about this many threads run, each slice at least kMinSlice terms long.
constexpr std::size_t kWgradTargetThreads = std::size_t{1} << 18;
constexpr long long kMinSlice = 256;

unsigned blocks_for(std::size_t count) {
  return static_cast<unsigned>(
      std::clamp<std::size_t>((count + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

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
  const void *x, *w, *y;  // by fprop role; the pass's output is not read here
  const void *residual, *bias;
  double alpha, beta;
  Activation act;
  float *ref, *scale;
  std::size_t count;  // output elements
};

// The filter tap r (or s) reads the image at r' = r, or R-1-r under true convolution.
__device__ int tap(int r, int taps, ConvMode mode) {
  return mode == ConvMode::kConvolution ? taps - 1 - r : r;
}

// Output element i from its sum of products and their magnitude: the epilogue, then f32.
__device__ void finish(const ReferenceArgs& a, std::size_t i, std::size_t bias_index, double sum,
                       double magnitude) {
  double out = a.alpha * sum;
  double scale = fabs(a.alpha) * magnitude;
  if (a.residual != nullptr) {
    const double rv = a.beta * load_as_double(a.residual, a.out_type, i);
    out += rv;
    scale += fabs(rv);
  }
  if (a.bias != nullptr) {
    const double bv = load_as_double(a.bias, a.out_type, bias_index);
    out += bv;
    scale += fabs(bv);
  }
  if (a.act == Activation::kReLU) out = out > 0.0 ? out : 0.0;
  if (a.act == Activation::kGELU) out = gelu_tanh(out);
  a.ref[i] = static_cast<float>(out);
  a.scale[i] = static_cast<float>(scale);
}

// fprop: one thread per Y[n,p,q,k].
__global__ void fprop_reference_kernel(ReferenceArgs a) {
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
      const int h = p * pb.stride_h - pb.pad_h + tap(r, pb.r, pb.mode) * pb.dilation_h;
      if (h < 0 || h >= pb.h) continue;
      for (int s = 0; s < pb.s; ++s) {
        const int w = q * pb.stride_w - pb.pad_w + tap(s, pb.s, pb.mode) * pb.dilation_w;
        if (w < 0 || w >= pb.w) continue;
        // X (N,H,W,C) and W (K,R,S,C/G)
        const std::size_t x_base =
            ((std::size_t(n) * pb.h + h) * pb.w + w) * pb.c + std::size_t(group) * c_per_group;
        const std::size_t w_base = ((std::size_t(k) * pb.r + r) * pb.s + s) * c_per_group;
        for (int c = 0; c < c_per_group; ++c) {
          const double product = load_as_double(a.x, a.in_type, x_base + c) *
                                 load_as_double(a.w, a.in_type, w_base + c);
          sum += product;
          magnitude += fabs(product);
        }
      }
    }
    finish(a, i, k, sum, magnitude);
  }
}

// The output row (or column) that tap `r` of input row h meets: p with
// h = p stride - pad + r' dilation, or -1 when there is none (between strides, or outside).
__device__ int output_index(int h, int r, int taps, ConvMode mode, int pad, int stride,
                            int dilation, int extent) {
  const int numerator = h + pad - tap(r, taps, mode) * dilation;
  if (numerator < 0 || numerator % stride != 0) return -1;
  const int p = numerator / stride;
  return p < extent ? p : -1;
}

// dgrad: one thread per dX[n,h,w,c].
__global__ void dgrad_reference_kernel(ReferenceArgs a) {
  const Conv2dProblem& pb = a.pb;
  const int c_per_group = pb.c / pb.groups, k_per_group = pb.k / pb.groups;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < a.count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    // i = ((n H + h) W + w) C + c   (NHWC)
    const int c = static_cast<int>(i % pb.c);
    const int w = static_cast<int>(i / pb.c % pb.w);
    const int h = static_cast<int>(i / pb.c / pb.w % pb.h);
    const int n = static_cast<int>(i / pb.c / pb.w / pb.h);
    const int group = c / c_per_group, c_in_group = c % c_per_group;
    double sum = 0, magnitude = 0;
    for (int r = 0; r < pb.r; ++r) {
      const int p = output_index(h, r, pb.r, pb.mode, pb.pad_h, pb.stride_h, pb.dilation_h, a.p);
      if (p < 0) continue;
      for (int s = 0; s < pb.s; ++s) {
        const int q = output_index(w, s, pb.s, pb.mode, pb.pad_w, pb.stride_w, pb.dilation_w, a.q);
        if (q < 0) continue;
        // dY (N,P,Q,K) and W (K,R,S,C/G), over the group's filters
        const std::size_t y_base = ((std::size_t(n) * a.p + p) * a.q + q) * pb.k;
        for (int k = group * k_per_group; k < (group + 1) * k_per_group; ++k) {
          const std::size_t w_index =
              ((std::size_t(k) * pb.r + r) * pb.s + s) * c_per_group + c_in_group;
          const double product =
              load_as_double(a.y, a.in_type, y_base + k) * load_as_double(a.w, a.in_type, w_index);
          sum += product;
          magnitude += fabs(product);
        }
      }
    }
    finish(a, i, c, sum, magnitude);
  }
}

// wgrad, part 1: slice `slice` of the N P Q sum of dW element e, for every (slice, e) pair
// i = slice * count + e; partial[2 i] = the sum, partial[2 i + 1] = its magnitude.
__global__ void wgrad_slices_kernel(ReferenceArgs a, long long slice_length, int slices,
                                    double* partial) {
  const Conv2dProblem& pb = a.pb;
  const int c_per_group = pb.c / pb.groups, k_per_group = pb.k / pb.groups;
  const long long npq = (long long)pb.n * a.p * a.q;
  const std::size_t pairs = a.count * slices;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < pairs;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t e = i % a.count;
    const long long slice = static_cast<long long>(i / a.count);
    // e = ((k R + r) S + s) C/G + c   (KRSC)
    const int c = static_cast<int>(e % c_per_group);
    const int s = static_cast<int>(e / c_per_group % pb.s);
    const int r = static_cast<int>(e / c_per_group / pb.s % pb.r);
    const int k = static_cast<int>(e / c_per_group / pb.s / pb.r);
    const std::size_t x_channel = std::size_t(k / k_per_group) * c_per_group + c;
    const int tap_r = tap(r, pb.r, pb.mode), tap_s = tap(s, pb.s, pb.mode);
    double sum = 0, magnitude = 0;
    const long long slice_end = (slice + 1) * slice_length;
    const long long end = slice_end < npq ? slice_end : npq;
    for (long long j = slice * slice_length; j < end; ++j) {
      // j = (n P + p) Q + q
      const int q = static_cast<int>(j % a.q);
      const int p = static_cast<int>(j / a.q % a.p);
      const int n = static_cast<int>(j / a.q / a.p);
      const int h = p * pb.stride_h - pb.pad_h + tap_r * pb.dilation_h;
      const int w = q * pb.stride_w - pb.pad_w + tap_s * pb.dilation_w;
      if (h < 0 || h >= pb.h || w < 0 || w >= pb.w) continue;
      const double product =
          load_as_double(a.y, a.in_type, std::size_t(j) * pb.k + k) *
          load_as_double(a.x, a.in_type,
                         ((std::size_t(n) * pb.h + h) * pb.w + w) * pb.c + x_channel);
      sum += product;
      magnitude += fabs(product);
    }
    partial[2 * i] = sum;
    partial[2 * i + 1] = magnitude;
  }
}

// wgrad, part 2: the slices of each dW element summed in order, then the epilogue.
__global__ void wgrad_finish_kernel(ReferenceArgs a, int slices, const double* partial) {
  for (std::size_t e = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; e < a.count;
       e += std::size_t{gridDim.x} * blockDim.x) {
    double sum = 0, magnitude = 0;
    for (int slice = 0; slice < slices; ++slice) {
      const std::size_t i = std::size_t(slice) * a.count + e;
      sum += partial[2 * i];
      magnitude += partial[2 * i + 1];
    }
    finish(a, e, 0, sum, magnitude);
  }
}

void wgrad_reference(const ReferenceArgs& a, cudaStream_t stream) {
  const long long npq = (long long)a.pb.n * a.p * a.q;
  const long long wanted = static_cast<long long>((kWgradTargetThreads + a.count - 1) / a.count);
  const long long most = std::max(1LL, npq / kMinSlice);
  const int slices = static_cast<int>(std::clamp(wanted, 1LL, std::min(most, 65536LL)));
  const long long slice_length = (npq + slices - 1) / slices;
  DeviceBuffer partial(a.count * slices * 2 * sizeof(double), "the wgrad reference's slices");
  wgrad_slices_kernel<<<blocks_for(a.count * slices), kThreads, 0, stream>>>(
      a, slice_length, slices, partial.as<double>());
  check_cuda(cudaGetLastError(), "launch of the wgrad reference (slices)");
  wgrad_finish_kernel<<<blocks_for(a.count), kThreads, 0, stream>>>(a, slices,
                                                                    partial.as<double>());
  check_cuda(cudaGetLastError(), "launch of the wgrad reference (sum of the slices)");
  check_cuda(cudaStreamSynchronize(stream), "the wgrad reference");  // before `partial` goes
}

}  // namespace

void conv2d_reference(const ConvProblem& p, const ConvBuffers& b, float* ref, float* scale,
                      cudaStream_t stream) {
  const void* residual = nullptr;
  if (p.reads_residual()) residual = p.residual_is_output() ? b.at(p.output_role()) : b.residual;
  ReferenceArgs a{p.shape,       p.shape.p(),
                  p.shape.q(),   p.input_type,
                  p.output_type, b.x,
                  b.w,           b.y,
                  residual,      p.bias_elements() > 0 ? b.bias : nullptr,
                  p.alpha,       p.beta,
                  p.activation,  ref,
                  scale,         static_cast<std::size_t>(p.output_elements())};
  if (a.count == 0) return;
  switch (p.pass) {
    case ConvPass::kFprop:
      fprop_reference_kernel<<<blocks_for(a.count), kThreads, 0, stream>>>(a);
      check_cuda(cudaGetLastError(), "launch of the fprop reference");
      return;
    case ConvPass::kDgrad:
      dgrad_reference_kernel<<<blocks_for(a.count), kThreads, 0, stream>>>(a);
      check_cuda(cudaGetLastError(), "launch of the dgrad reference");
      return;
    case ConvPass::kWgrad:
      wgrad_reference(a, stream);
      return;
  }
}

}  // namespace tessel::prof
