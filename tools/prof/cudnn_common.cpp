// cuDNN status checks, handle, version and types (cudnn_common.hpp).
#include "cudnn_common.hpp"

#include "cuda_check.hpp"

namespace tessel::prof {

std::string cudnn_status_text(cudnnStatus_t s) {
  std::string text = cudnnGetErrorString(s);
  char detail[512] = {};
  cudnnGetLastErrorString(detail, sizeof detail);  // cuDNN 9: why the last call failed
  if (detail[0] != '\0') text += std::string(" (") + detail + ")";
  return text;
}

void check_cudnn(cudnnStatus_t s, const std::string& what) {
  if (s == CUDNN_STATUS_SUCCESS) return;
  throw ProfError(what + ": " + cudnn_status_text(s));
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

}  // namespace tessel::prof
