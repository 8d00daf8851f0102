// What the three conv2d directions share on the host: alignment, the device check, the
// launch-error status and split-K.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "conv/conv_configs_sm80.hpp"
#include "gemm/split_k_reduce.hpp"
#include "tessel/gemm/kernel_sm80.hpp"
#include "tessel/runtime/status.hpp"

namespace tessel::conv_detail {

bool aligned(const void* p, int bytes);

// kNoDevice when there is no CUDA device or it is older than sm_80; else success.
inline Status check_device(const char* direction) {
  int device = 0, major = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) {
    cudaGetLastError();
    return {StatusCode::kNoDevice,
            std::string("conv2d: ") + direction + ": no CUDA device: " + cudaGetErrorString(e)};
  }
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (major < 8)
    return {StatusCode::kNoDevice,
            std::string("conv2d: ") + direction + ": tessel's kernels need sm_80 or newer"};
  return {};
}

// kCudaError for a failed launch of group g (clearing CUDA's sticky-free last error).
inline Status launch_error(const char* direction, int group, cudaError_t e) {
  cudaGetLastError();
  return {StatusCode::kCudaError, std::string("conv2d: ") + direction + " launch failed (group " +
                                      std::to_string(group) + "): " + cudaGetErrorString(e)};
}

// Split-K for one implicit GEMM: when its tiles fill less than half the SMs, as
// many slices of K as fill them about twice, each of at least 16 K tiles (on the wgmma
// kernels 1024 K: 32 tiles of 32, 16 of 64), at most 64. E.g.
// wgrad 64 -> 64 3x3 at N = 32, 56x56: 5 tiles, 3136 K tiles on 132 SMs -> 53 slices of 60.
// (Slices of 8 K tiles lost to 16 where both split; splitting at up to 2 tiles per SM lost
// overall: docs/PERFORMANCE.md.)
struct Split {
  int splits = 1, k_tiles_per_split = 1 << 30;  // no split: one slice of everything
  // Output columns the GEMM computes but D does not have (wgrad on channel-padded
  // activations); with any, the GEMM goes through the workspace even unsplit.
  sm80::ColumnCompaction columns{};
  bool partials() const { return splits > 1 || columns.block > 0; }
  std::size_t workspace_bytes(int m, int n) const {
    return partials() ? std::size_t(splits) * m * n * sizeof(float) : 0;
  }
};
Split choose_split(int m, int n, int k, sm80::ConvTile tile, int sms);

// The SM count of the current device.
int device_sms();

// Whether the wgmma kernels run: the current device is compute capability 9.0, libtessel was
// built for sm_90a, and TESSEL_DISABLE_SM90 is unset or "0" in the environment (it selects the
// sm80 kernels, e.g. to test or compare them on a Hopper GPU).
bool wgmma_available();

// The epilogue of a row-major output D (and residual C) with rows `ld` elements apart:
// D = act(alpha * acc + beta * C + bias), bias per column or null.
inline EpilogueParams output_epilogue(void* d, const void* c, const void* bias, std::int64_t ld,
                                      float alpha, float beta, Activation act, DataType out,
                                      bool vector_ok) {
  return {d,   c,   bias,     ld,   ld,
          0,   0,   alpha,    beta, bias ? BiasMode::kPerColumn : BiasMode::kNone,
          act, out, vector_ok};
}

// Runs params (its epilogue the real one) through `launch`, split as `split` says. With
// partials, the slices first write fp32 partial sums to `workspace`
// (split.workspace_bytes(m, n) bytes), then split_k_reduce sums them in a fixed order through
// the real epilogue, keeping split.columns.
template <class Launch>
cudaError_t run_split(GemmParamsSm80 params, Split split, float* workspace, cudaStream_t stream,
                      Launch&& launch) {
  if (!split.partials()) return launch(params);
  const EpilogueParams out = params.epilogue;
  params.splits = split.splits;
  params.k_tiles_per_split = split.k_tiles_per_split;
  params.epilogue = output_epilogue(workspace, nullptr, nullptr, params.n, 1.0f, 0.0f,
                                    Activation::kNone, DataType::kF32, params.n % 4 == 0);
  params.epilogue.d_batch_stride = std::int64_t(params.m) * params.n;  // slice z at z * M * N
  cudaError_t e = launch(params);
  if (e == cudaSuccess) {
    e = sm80::split_k_reduce(workspace, split.splits, params.m, params.n, 1, out, split.columns,
                             stream);
  }
  return e;
}

// A stream-ordered allocation freed on the stream when it goes out of scope.
class StreamBuffer {
 public:
  StreamBuffer(cudaStream_t stream) : stream_(stream) {}
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  ~StreamBuffer() {
    if (ptr_ != nullptr) cudaFreeAsync(ptr_, stream_);
  }
  // Allocates `bytes` (nothing for 0); kCudaError naming `what` on failure.
  Status allocate(std::size_t bytes, const char* direction, const char* what) {
    if (bytes == 0) return {};
    if (cudaError_t e = cudaMallocAsync(&ptr_, bytes, stream_); e != cudaSuccess) {
      cudaGetLastError();
      ptr_ = nullptr;
      return {StatusCode::kCudaError, std::string("conv2d: ") + direction + ": allocating " + what +
                                          " failed: " + cudaGetErrorString(e)};
    }
    return {};
  }
  template <class T = void>
  T* get() const {
    return static_cast<T*>(ptr_);
  }

 private:
  cudaStream_t stream_;
  void* ptr_ = nullptr;
};

}  // namespace tessel::conv_detail
