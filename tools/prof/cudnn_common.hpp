// What both cuDNN paths share: status checks that name the call, the handle, the version, the
// type mapping, and the record of one candidate (an algorithm or an execution plan) of cuDNN's
// search, as the report lists them.
#pragma once

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstddef>
#include <optional>
#include <string>

#include "tessel/runtime/types.hpp"

namespace tessel::prof {

// Throws ProfError("<what>: CUDNN_STATUS_BAD_PARAM (<cuDNN's last error text>)") unless s is
// success. Example: check_cudnn(cudnnCreate(&h), "cudnnCreate").
void check_cudnn(cudnnStatus_t s, const std::string& what);

// "CUDNN_STATUS_NOT_SUPPORTED (<cuDNN's last error text, when it has one>)".
std::string cudnn_status_text(cudnnStatus_t s);

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

// CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16 or CUDNN_DATA_FLOAT.
cudnnDataType_t cudnn_data_type(DataType t);

// The most workspace one algorithm or plan may take (cuDNN's fastest for these layers need
// far less); one that wants more is skipped.
inline constexpr std::size_t kMaxCudnnWorkspaceBytes = std::size_t{1} << 30;

// One candidate of cuDNN's search, e.g. {"legacy:IMPLICIT_PRECOMP_GEMM", 41.2, 3e-4, 0, ""}.
struct CudnnCandidate {
  std::string name;           // "legacy:<algorithm>" or "graph:eng<index> <knobs>"
  std::optional<double> us;   // its time per launch (legacy: FindEx's own measurement)
  std::optional<double> err;  // its result against the fp64 reference (graph plans)
  std::size_t workspace = 0;  // bytes
  std::string excluded;       // why it was not used, empty when it was eligible
};

}  // namespace tessel::prof
