// Names of the runtime's enumerations, for messages and tools.
#include "tessel/runtime/status.hpp"

#include "tessel/runtime/gemm.hpp"

namespace tessel {

// status_code_name(StatusCode::kMisaligned) -> "misaligned"; a value outside the enumeration
// (possible through the C API) -> "unknown status".
const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kSuccess:
      return "success";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kNotSupported:
      return "not supported";
    case StatusCode::kMisaligned:
      return "misaligned";
    case StatusCode::kNoDevice:
      return "no device";
    case StatusCode::kCudaError:
      return "CUDA error";
    case StatusCode::kInternal:
      return "internal error";
  }
  return "unknown status";
}

// data_type_name(DataType::kBF16) -> "bf16"; outside the enumeration -> "unknown type".
const char* data_type_name(DataType t) {
  switch (t) {
    case DataType::kF16:
      return "f16";
    case DataType::kBF16:
      return "bf16";
    case DataType::kF32:
      return "f32";
  }
  return "unknown type";
}

// data_type_bytes(DataType::kF32) -> 4; outside the enumeration -> 0 (no element has that size,
// so a caller that forgot to validate fails loudly instead of reading past a buffer).
int data_type_bytes(DataType t) {
  switch (t) {
    case DataType::kF16:
      return 2;
    case DataType::kBF16:
      return 2;
    case DataType::kF32:
      return 4;
  }
  return 0;
}

}  // namespace tessel
