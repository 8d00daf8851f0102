// cuDNN's convolution of each pass through the legacy (descriptor) API, over the same NHWC /
// KRSC tensors tessel reads: one of the two baselines the conv2d rows are timed against
// (cudnn_graph.hpp is the other).
//
//   X  NHWC  input type   cudnnSetTensor4dDescriptor(CUDNN_TENSOR_NHWC, n, c, h, w)
//   W  KRSC  input type   cudnnSetFilter4dDescriptor(CUDNN_TENSOR_NHWC, k, c/g, r, s)
//   Y  NHWC  input type   (cuDNN's tensor-core paths write 16-bit outputs; fp32 compute)
//
//   fprop  cudnnFindConvolutionForwardAlgorithmEx         cudnnConvolutionForward
//   dgrad  cudnnFindConvolutionBackwardDataAlgorithmEx    cudnnConvolutionBackwardData
//   wgrad  cudnnFindConvolutionBackwardFilterAlgorithmEx  cudnnConvolutionBackwardFilter
//
// The algorithm is the fastest of the Find call (cuDNN's own timed search) that succeeded and
// fits kMaxCudnnWorkspaceBytes, run with the math type that search measured it with; its
// workspace stays allocated for the timed launches.
#pragma once

#include <cudnn.h>

#include <string>
#include <vector>

#include "conv_problem.hpp"
#include "cudnn_common.hpp"
#include "device_buffer.hpp"

namespace tessel::prof {

class CudnnLegacyConvolution {
 public:
  // Descriptors for `p` and the search, run on `b` (X, W and Y by role, the pass's output in
  // p.input_type); any buffers of the same sizes may be passed to run().
  CudnnLegacyConvolution(cudnnHandle_t handle, const ConvProblem& p, const ConvBuffers& b);
  ~CudnnLegacyConvolution();
  CudnnLegacyConvolution(const CudnnLegacyConvolution&) = delete;
  CudnnLegacyConvolution& operator=(const CudnnLegacyConvolution&) = delete;

  // out = alpha op(in, in) + beta out, asynchronous on the handle's stream.
  void run(const ConvBuffers& b, float alpha, float beta) const;
  std::string algorithm() const;  // "IMPLICIT_PRECOMP_GEMM", "ALGO_1", ...
  // Every algorithm the search returned, fastest first, with its time and workspace.
  const std::vector<CudnnCandidate>& candidates() const { return candidates_; }

 private:
  void set_up(const ConvProblem& p, const ConvBuffers& b);
  template <class Perf>
  void choose(const std::vector<Perf>& perf, int returned, std::size_t workspace_limit,
              const std::string& call);
  void destroy_descriptors();

  cudnnHandle_t handle_;
  ConvPass pass_ = ConvPass::kFprop;
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
  cudnnFilterDescriptor_t w_desc_ = nullptr;
  cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
  int algo_ = 0;  // a cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t, by pass_
  DeviceBuffer workspace_;
  std::vector<CudnnCandidate> candidates_;
};

// The name of algorithm `algo` of `pass`: legacy_algorithm_name(kDgrad, 1) == "ALGO_1".
const char* legacy_algorithm_name(ConvPass pass, int algo);

}  // namespace tessel::prof
