// CudnnLegacyConvolution: descriptors, the algorithm search and the launches
// (cudnn_legacy.hpp).
#include "cudnn_legacy.hpp"

#include <algorithm>

#include "cuda_check.hpp"

namespace tessel::prof {

const char* legacy_algorithm_name(ConvPass pass, int algo) {
  switch (pass) {
    case ConvPass::kFprop:
      switch (static_cast<cudnnConvolutionFwdAlgo_t>(algo)) {
        case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
          return "IMPLICIT_GEMM";
        case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
          return "IMPLICIT_PRECOMP_GEMM";
        case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
          return "GEMM";
        case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
          return "DIRECT";
        case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
          return "FFT";
        case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
          return "FFT_TILING";
        case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
          return "WINOGRAD";
        case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
          return "WINOGRAD_NONFUSED";
        default:
          return "?";
      }
    case ConvPass::kDgrad:
      switch (static_cast<cudnnConvolutionBwdDataAlgo_t>(algo)) {
        case CUDNN_CONVOLUTION_BWD_DATA_ALGO_0:
          return "ALGO_0";
        case CUDNN_CONVOLUTION_BWD_DATA_ALGO_1:
          return "ALGO_1";
        case CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT:
          return "FFT";
        case CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING:
          return "FFT_TILING";
        case CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD:
          return "WINOGRAD";
        case CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED:
          return "WINOGRAD_NONFUSED";
        default:
          return "?";
      }
    case ConvPass::kWgrad:
      switch (static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo)) {
        case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0:
          return "ALGO_0";
        case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1:
          return "ALGO_1";
        case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT:
          return "FFT";
        case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3:
          return "ALGO_3";
        case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD:
          return "WINOGRAD";
        case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED:
          return "WINOGRAD_NONFUSED";
        case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING:
          return "FFT_TILING";
        default:
          return "?";
      }
  }
  return "?";
}

CudnnLegacyConvolution::CudnnLegacyConvolution(cudnnHandle_t handle, const ConvProblem& p,
                                               const ConvBuffers& b)
    : handle_(handle), pass_(p.pass) {
  try {
    set_up(p, b);
  } catch (...) {
    destroy_descriptors();  // the destructor does not run when the constructor throws
    throw;
  }
}

// Keeps the fastest successful result that fits the workspace (the list is sorted fastest
// first), and the math type it was measured with: the search tries more than the descriptor's,
// and cudnnConvolution* runs the descriptor's.
template <class Perf>
void CudnnLegacyConvolution::choose(const std::vector<Perf>& perf, int returned,
                                    std::size_t workspace_limit, const std::string& call) {
  const Perf* best = nullptr;
  for (int i = 0; i < returned; ++i) {
    CudnnCandidate c;
    c.name = std::string("legacy:") + legacy_algorithm_name(pass_, perf[i].algo);
    c.workspace = perf[i].memory;
    if (perf[i].status != CUDNN_STATUS_SUCCESS) {
      c.excluded = cudnnGetErrorString(perf[i].status);
    } else if (perf[i].memory > workspace_limit) {
      c.excluded = "workspace of " + std::to_string(perf[i].memory) + " bytes";
    } else {
      c.us = 1e3 * perf[i].time;
      if (best == nullptr) best = &perf[i];
    }
    candidates_.push_back(c);
  }
  if (best == nullptr) throw ProfError(call + " found no algorithm that runs");
  algo_ = static_cast<int>(best->algo);
  check_cudnn(cudnnSetConvolutionMathType(conv_desc_, best->mathType),
              "cudnnSetConvolutionMathType (the searched algorithm's)");
  workspace_ = DeviceBuffer(best->memory, "cuDNN's workspace");
}

void CudnnLegacyConvolution::set_up(const ConvProblem& p, const ConvBuffers& b) {
  const Conv2dProblem& s = p.shape;
  const cudnnDataType_t in = cudnn_data_type(p.input_type);
  const std::string shape = " (" + p.shape_text() + ")";
  check_cudnn(cudnnCreateTensorDescriptor(&x_desc_), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnCreateTensorDescriptor(&y_desc_), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnCreateFilterDescriptor(&w_desc_), "cudnnCreateFilterDescriptor");
  check_cudnn(cudnnCreateConvolutionDescriptor(&conv_desc_), "cudnnCreateConvolutionDescriptor");
  check_cudnn(cudnnSetTensor4dDescriptor(x_desc_, CUDNN_TENSOR_NHWC, in, s.n, s.c, s.h, s.w),
              "cudnnSetTensor4dDescriptor of X" + shape);
  check_cudnn(cudnnSetFilter4dDescriptor(w_desc_, in, CUDNN_TENSOR_NHWC, s.k,
                                         s.channels_per_group(), s.r, s.s),
              "cudnnSetFilter4dDescriptor of W" + shape);
  check_cudnn(cudnnSetConvolution2dDescriptor(
                  conv_desc_, s.pad_h, s.pad_w, s.stride_h, s.stride_w, s.dilation_h, s.dilation_w,
                  s.mode == ConvMode::kConvolution ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
                  CUDNN_DATA_FLOAT),
              "cudnnSetConvolution2dDescriptor" + shape);
  check_cudnn(cudnnSetConvolutionGroupCount(conv_desc_, s.groups),
              "cudnnSetConvolutionGroupCount" + shape);
  check_cudnn(cudnnSetConvolutionMathType(conv_desc_, CUDNN_TENSOR_OP_MATH),
              "cudnnSetConvolutionMathType" + shape);
  int n = 0, c = 0, h = 0, wd = 0;
  check_cudnn(cudnnGetConvolution2dForwardOutputDim(conv_desc_, x_desc_, w_desc_, &n, &c, &h, &wd),
              "cudnnGetConvolution2dForwardOutputDim" + shape);
  if (n != s.n || c != s.k || h != s.p() || wd != s.q()) {
    throw ProfError("cuDNN's output " + std::to_string(n) + "x" + std::to_string(h) + "x" +
                    std::to_string(wd) + "x" + std::to_string(c) + " differs from tessel's " +
                    std::to_string(s.n) + "x" + std::to_string(s.p()) + "x" +
                    std::to_string(s.q()) + "x" + std::to_string(s.k) + shape);
  }
  check_cudnn(cudnnSetTensor4dDescriptor(y_desc_, CUDNN_TENSOR_NHWC, in, n, c, h, wd),
              "cudnnSetTensor4dDescriptor of Y" + shape);

  // cuDNN's own timed search over the algorithms, with a workspace it may use.
  std::size_t free_bytes = 0, total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const std::size_t workspace_bytes = std::min(kMaxCudnnWorkspaceBytes, free_bytes / 4);
  DeviceBuffer search_workspace(workspace_bytes, "cuDNN's search workspace");
  void* ws = search_workspace.get();
  int returned = 0;
  switch (pass_) {
    case ConvPass::kFprop: {
      const std::string call = "cudnnFindConvolutionForwardAlgorithmEx" + shape;
      std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
      check_cudnn(cudnnFindConvolutionForwardAlgorithmEx(
                      handle_, x_desc_, b.x, w_desc_, b.w, conv_desc_, y_desc_, b.y,
                      static_cast<int>(perf.size()), &returned, perf.data(), ws, workspace_bytes),
                  call);
      choose(perf, returned, workspace_bytes, call);
      return;
    }
    case ConvPass::kDgrad: {
      const std::string call = "cudnnFindConvolutionBackwardDataAlgorithmEx" + shape;
      std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
      check_cudnn(cudnnFindConvolutionBackwardDataAlgorithmEx(
                      handle_, w_desc_, b.w, y_desc_, b.y, conv_desc_, x_desc_, b.x,
                      static_cast<int>(perf.size()), &returned, perf.data(), ws, workspace_bytes),
                  call);
      choose(perf, returned, workspace_bytes, call);
      return;
    }
    case ConvPass::kWgrad: {
      const std::string call = "cudnnFindConvolutionBackwardFilterAlgorithmEx" + shape;
      std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(
          CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
      check_cudnn(cudnnFindConvolutionBackwardFilterAlgorithmEx(
                      handle_, x_desc_, b.x, y_desc_, b.y, conv_desc_, w_desc_, b.w,
                      static_cast<int>(perf.size()), &returned, perf.data(), ws, workspace_bytes),
                  call);
      choose(perf, returned, workspace_bytes, call);
      return;
    }
  }
}

CudnnLegacyConvolution::~CudnnLegacyConvolution() { destroy_descriptors(); }

void CudnnLegacyConvolution::destroy_descriptors() {
  if (conv_desc_ != nullptr) cudnnDestroyConvolutionDescriptor(conv_desc_);
  if (w_desc_ != nullptr) cudnnDestroyFilterDescriptor(w_desc_);
  if (y_desc_ != nullptr) cudnnDestroyTensorDescriptor(y_desc_);
  if (x_desc_ != nullptr) cudnnDestroyTensorDescriptor(x_desc_);
}

void CudnnLegacyConvolution::run(const ConvBuffers& b, float alpha, float beta) const {
  void* ws = workspace_.get();
  const std::size_t ws_bytes = workspace_.bytes();
  switch (pass_) {
    case ConvPass::kFprop:
      check_cudnn(cudnnConvolutionForward(handle_, &alpha, x_desc_, b.x, w_desc_, b.w, conv_desc_,
                                          static_cast<cudnnConvolutionFwdAlgo_t>(algo_), ws,
                                          ws_bytes, &beta, y_desc_, b.y),
                  "cudnnConvolutionForward");
      return;
    case ConvPass::kDgrad:
      check_cudnn(
          cudnnConvolutionBackwardData(handle_, &alpha, w_desc_, b.w, y_desc_, b.y, conv_desc_,
                                       static_cast<cudnnConvolutionBwdDataAlgo_t>(algo_), ws,
                                       ws_bytes, &beta, x_desc_, b.x),
          "cudnnConvolutionBackwardData");
      return;
    case ConvPass::kWgrad:
      check_cudnn(
          cudnnConvolutionBackwardFilter(handle_, &alpha, x_desc_, b.x, y_desc_, b.y, conv_desc_,
                                         static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo_), ws,
                                         ws_bytes, &beta, w_desc_, b.w),
          "cudnnConvolutionBackwardFilter");
      return;
  }
}

std::string CudnnLegacyConvolution::algorithm() const {
  return legacy_algorithm_name(pass_, algo_);
}

}  // namespace tessel::prof
