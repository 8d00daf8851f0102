// CudnnConvolution: descriptors, the algorithm search and the launches (cudnn_reference.hpp).
#include "cudnn_reference.hpp"

#include <algorithm>
#include <vector>

#include "cuda_check.hpp"

namespace tessel::prof {
namespace {

// The most workspace the algorithm search may hand out: cuDNN's fastest algorithms for these
// layers need far less; an algorithm wanting more is skipped.
constexpr std::size_t kMaxWorkspaceBytes = std::size_t{1} << 30;

cudnnDataType_t cudnn_data_type(DataType t) {
  switch (t) {
    case DataType::kF16:
      return CUDNN_DATA_HALF;
    case DataType::kBF16:
      return CUDNN_DATA_BFLOAT16;
    case DataType::kF32:
      return CUDNN_DATA_FLOAT;
  }
  throw ProfError("cuDNN: unknown tessel::DataType " + std::to_string(static_cast<int>(t)));
}

const char* algorithm_name(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
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
}

}  // namespace

void check_cudnn(cudnnStatus_t s, const std::string& what) {
  if (s == CUDNN_STATUS_SUCCESS) return;
  throw ProfError(what + ": " + cudnnGetErrorString(s));
}

CudnnHandle::CudnnHandle(cudaStream_t stream) {
  check_cudnn(cudnnCreate(&handle_), "cudnnCreate");
  check_cudnn(cudnnSetStream(handle_, stream), "cudnnSetStream");
}

CudnnHandle::~CudnnHandle() { cudnnDestroy(handle_); }

std::string cudnn_version() {
  // CUDNN_VERSION = major * 10000 + minor * 100 + patch (cuDNN 9)
  const std::size_t v = cudnnGetVersion();
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

CudnnConvolution::CudnnConvolution(cudnnHandle_t handle, const ConvProblem& p, const void* x,
                                   const void* w, void* y)
    : handle_(handle) {
  try {
    set_up(p, x, w, y);
  } catch (...) {
    destroy_descriptors();  // the destructor does not run when the constructor throws
    throw;
  }
}

void CudnnConvolution::set_up(const ConvProblem& p, const void* x, const void* w, void* y) {
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
  const std::size_t workspace_bytes = std::min(kMaxWorkspaceBytes, free_bytes / 4);
  DeviceBuffer search_workspace(workspace_bytes, "cuDNN's search workspace");
  int max_count = 0;
  check_cudnn(cudnnGetConvolutionForwardAlgorithmMaxCount(handle_, &max_count),
              "cudnnGetConvolutionForwardAlgorithmMaxCount");
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(std::max(max_count, 1));
  int returned = 0;
  check_cudnn(
      cudnnFindConvolutionForwardAlgorithmEx(handle_, x_desc_, x, w_desc_, w, conv_desc_, y_desc_,
                                             y, static_cast<int>(perf.size()), &returned,
                                             perf.data(), search_workspace.get(), workspace_bytes),
      "cudnnFindConvolutionForwardAlgorithmEx" + shape);
  const cudnnConvolutionFwdAlgoPerf_t* best = nullptr;
  for (int i = 0; i < returned && best == nullptr; ++i) {  // sorted fastest first
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= workspace_bytes) {
      best = &perf[i];
    }
  }
  if (best == nullptr) {
    throw ProfError("cudnnFindConvolutionForwardAlgorithmEx found no algorithm that runs" + shape);
  }
  algo_ = best->algo;
  workspace_ = DeviceBuffer(best->memory, "cuDNN's workspace");
}

CudnnConvolution::~CudnnConvolution() { destroy_descriptors(); }

void CudnnConvolution::destroy_descriptors() {
  if (conv_desc_ != nullptr) cudnnDestroyConvolutionDescriptor(conv_desc_);
  if (w_desc_ != nullptr) cudnnDestroyFilterDescriptor(w_desc_);
  if (y_desc_ != nullptr) cudnnDestroyTensorDescriptor(y_desc_);
  if (x_desc_ != nullptr) cudnnDestroyTensorDescriptor(x_desc_);
}

void CudnnConvolution::run(const void* x, const void* w, void* y, float alpha, float beta) const {
  check_cudnn(cudnnConvolutionForward(handle_, &alpha, x_desc_, x, w_desc_, w, conv_desc_, algo_,
                                      workspace_.get(), workspace_.bytes(), &beta, y_desc_, y),
              "cudnnConvolutionForward");
}

std::string CudnnConvolution::algorithm() const { return algorithm_name(algo_); }

}  // namespace tessel::prof
