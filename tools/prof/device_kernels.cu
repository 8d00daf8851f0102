// Kernels behind device_kernels.hpp. Grid-stride loops over size_t indices: buffers of
// rotation copies exceed 2^31 elements.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "device_kernels.hpp"

namespace tessel::prof {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 4096;  // enough to fill any GPU; the loops stride over the rest

unsigned blocks_for(std::size_t count) {
  return static_cast<unsigned>(
      std::clamp<std::size_t>((count + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

__device__ std::size_t global_index() { return std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; }
__device__ std::size_t grid_stride() { return std::size_t{gridDim.x} * blockDim.x; }

// splitmix64's finaliser: consecutive indices give independent-looking 64-bit values.
__device__ std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__device__ float load_as_float(const void* p, DataType t, std::size_t i) {
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

__device__ void store_from_float(void* p, DataType t, std::size_t i, float x) {
  switch (t) {
    case DataType::kF16:
      static_cast<__half*>(p)[i] = __float2half_rn(x);
      return;
    case DataType::kBF16:
      static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(x);
      return;
    case DataType::kF32:
      static_cast<float*>(p)[i] = x;
      return;
  }
}

__global__ void fill_uniform_kernel(void* dst, DataType t, std::size_t count, std::uint64_t seed) {
  constexpr int kMantissaBits = 24;  // exact in f32; rounded once to f16 / bf16
  for (std::size_t i = global_index(); i < count; i += grid_stride()) {
    const std::uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ull + i);
    const float unit = static_cast<float>(h >> (64 - kMantissaBits)) * 0x1p-24f;  // [0, 1)
    store_from_float(dst, t, i, 2.0f * unit - 1.0f);
  }
}

__global__ void convert_to_float_kernel(const void* src, DataType t, std::size_t count, float* dst,
                                        bool absolute) {
  for (std::size_t i = global_index(); i < count; i += grid_stride()) {
    const float x = load_as_float(src, t, i);
    dst[i] = absolute ? fabsf(x) : x;
  }
}

__global__ void abs_16bit_kernel(const std::uint16_t* src, std::size_t count, std::uint16_t* dst) {
  constexpr std::uint16_t kMagnitudeBits = 0x7fff;  // sign is bit 15 in f16 and bf16
  for (std::size_t i = global_index(); i < count; i += grid_stride()) {
    dst[i] = src[i] & kMagnitudeBits;
  }
}

// GELU as tessel defines it (tanh approximation), in double: the reference's own error is
// negligible next to the tolerance.
__device__ double gelu_tanh(double x) {
  constexpr double kSqrt2OverPi = 0.7978845608028654;
  constexpr double kCubic = 0.044715;
  return 0.5 * x * (1.0 + tanh(kSqrt2OverPi * (x + kCubic * x * x * x)));
}

__global__ void reference_epilogue_kernel(float* ref, float* scale, const void* bias,
                                          DataType bias_type, int m, int n, std::size_t count,
                                          Activation act) {
  for (std::size_t i = global_index(); i < count; i += grid_stride()) {
    const int col = static_cast<int>((i / m) % n);  // column-major (M,N,batch)
    double x = ref[i];
    if (bias != nullptr) {
      const float b = load_as_float(bias, bias_type, col);
      x += b;
      scale[i] += fabsf(b);
    }
    if (act == Activation::kReLU) x = x > 0.0 ? x : 0.0;
    if (act == Activation::kGELU) x = gelu_tanh(x);
    ref[i] = static_cast<float>(x);
  }
}

// The rounding error an output of type t may carry whatever its magnitude: half the spacing of
// its subnormals (f16 2^-25, bf16 2^-134; f32 its smallest subnormal). Without it an output
// below f16's smallest subnormal, one small product, fails its own scale: it rounds to 0 or
// 2^-24 (an error of 1.0 on stride-2 depthwise dgrad rows with one tap, 2026-11-26).
__device__ float subnormal_floor(DataType t) {
  switch (t) {
    case DataType::kF16: return 0x1p-25f;
    case DataType::kBF16: return 0x1p-134f;
    default: return 0x1p-149f;
  }
}

__global__ void max_scaled_error_kernel(const void* d, DataType d_type, const float* ref,
                                        const float* scale, std::size_t count, unsigned* max_bits) {
  float worst = 0.0f;
  const float floor = subnormal_floor(d_type);
  for (std::size_t i = global_index(); i < count; i += grid_stride()) {
    const float got = load_as_float(d, d_type, i);
    const float diff = got != got ? got : fmaxf(fabsf(got - ref[i]) - floor, 0.0f);  // keeps NaN
    float err = scale[i] > 0.0f ? diff / scale[i] : (diff == 0.0f ? 0.0f : INFINITY);
    if (!(err <= FLT_MAX)) err = INFINITY;  // NaN (the poison left in D) and Inf
    worst = fmaxf(worst, err);
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    worst = fmaxf(worst, __shfl_xor_sync(0xffffffffu, worst, offset));
  }
  // Non-negative floats order like their bit patterns, +inf above every finite value.
  if (threadIdx.x % 32 == 0) atomicMax(max_bits, __float_as_uint(worst));
}

}  // namespace

void fill_uniform(void* dst, DataType t, std::size_t count, std::uint64_t seed,
                  cudaStream_t stream) {
  if (count == 0) return;
  fill_uniform_kernel<<<blocks_for(count), kThreads, 0, stream>>>(dst, t, count, seed);
  check_cuda(cudaGetLastError(), "launch of fill_uniform");
}

void convert_to_float(const void* src, DataType t, std::size_t count, float* dst, bool absolute,
                      cudaStream_t stream) {
  if (count == 0) return;
  convert_to_float_kernel<<<blocks_for(count), kThreads, 0, stream>>>(src, t, count, dst, absolute);
  check_cuda(cudaGetLastError(), "launch of convert_to_float");
}

void abs_16bit(const void* src, std::size_t count, void* dst, cudaStream_t stream) {
  if (count == 0) return;
  abs_16bit_kernel<<<blocks_for(count), kThreads, 0, stream>>>(
      static_cast<const std::uint16_t*>(src), count, static_cast<std::uint16_t*>(dst));
  check_cuda(cudaGetLastError(), "launch of abs_16bit");
}

void apply_reference_epilogue(float* ref, float* scale, const void* bias, DataType bias_type, int m,
                              int n, int batch, Activation act, cudaStream_t stream) {
  const std::size_t count = std::size_t(m) * n * batch;
  if (count == 0 || (bias == nullptr && act == Activation::kNone)) return;
  reference_epilogue_kernel<<<blocks_for(count), kThreads, 0, stream>>>(ref, scale, bias, bias_type,
                                                                        m, n, count, act);
  check_cuda(cudaGetLastError(), "launch of the reference epilogue");
}

float max_scaled_error(const void* d, DataType d_type, const float* ref, const float* scale,
                       std::size_t count, cudaStream_t stream) {
  DeviceBuffer result(sizeof(unsigned), "the error reduction's result");
  check_cuda(cudaMemsetAsync(result.get(), 0, sizeof(unsigned), stream),
             "cudaMemsetAsync of the error reduction's result");
  if (count > 0) {
    max_scaled_error_kernel<<<blocks_for(count), kThreads, 0, stream>>>(
        d, d_type, ref, scale, count, result.as<unsigned>());
    check_cuda(cudaGetLastError(), "launch of the error reduction");
  }
  unsigned bits = 0;
  check_cuda(cudaMemcpyAsync(&bits, result.get(), sizeof bits, cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync of the error reduction's result");
  check_cuda(cudaStreamSynchronize(stream), "the error reduction (or a kernel before it)");
  float err;
  static_assert(sizeof err == sizeof bits);
  std::memcpy(&err, &bits, sizeof err);
  return err;
}

}  // namespace tessel::prof
