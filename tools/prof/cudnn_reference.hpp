// cuDNN's forward convolution over the same NHWC / KRSC tensors tessel reads, through the
// legacy (descriptor) API: the baseline the conv2d rows are timed against.
//
//   X  NHWC  input type        cudnnSetTensor4dDescriptor(CUDNN_TENSOR_NHWC, n, c, h, w)
//   W  KRSC  input type        cudnnSetFilter4dDescriptor(CUDNN_TENSOR_NHWC, k, c/g, r, s)
//   Y  NHWC  input type        (cuDNN's tensor-core paths write 16-bit Y; fp32 compute)
//   algorithm: the fastest of cudnnFindConvolutionForwardAlgorithmEx (cuDNN's own timed
//   search) that fits the workspace, which stays allocated for the timed launches.
#pragma once

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <string>

#include "conv_problem.hpp"
#include "device_buffer.hpp"

namespace tessel::prof {

// Throws ProfError("<what>: CUDNN_STATUS_BAD_PARAM: <description>") unless s is success.
void check_cudnn(cudnnStatus_t s, const std::string& what);

class CudnnHandle {
 public:
  explicit CudnnHandle(cudaStream_t stream);
  ~CudnnHandle();
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;
  cudnnHandle_t get() const { return handle_; }

 private:
  cudnnHandle_t handle_ = nullptr;
};

// "9.19.0": the cuDNN library loaded at run time.
std::string cudnn_version();

// One problem's descriptors, chosen algorithm and workspace. `x`, `w` and `y` (Y in
// p.input_type) are the buffers the search runs on; any buffers of the same sizes may be
// passed to run().
class CudnnConvolution {
 public:
  CudnnConvolution(cudnnHandle_t handle, const ConvProblem& p, const void* x, const void* w,
                   void* y);
  ~CudnnConvolution();
  CudnnConvolution(const CudnnConvolution&) = delete;
  CudnnConvolution& operator=(const CudnnConvolution&) = delete;

  // Y = alpha conv(X, W) + beta Y, asynchronous on the handle's stream.
  void run(const void* x, const void* w, void* y, float alpha, float beta) const;
  std::string algorithm() const;  // "IMPLICIT_PRECOMP_GEMM", ...

 private:
  void set_up(const ConvProblem& p, const void* x, const void* w, void* y);
  void destroy_descriptors();

  cudnnHandle_t handle_;
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
  cudnnFilterDescriptor_t w_desc_ = nullptr;
  cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
  cudnnConvolutionFwdAlgo_t algo_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  DeviceBuffer workspace_;
};

}  // namespace tessel::prof
