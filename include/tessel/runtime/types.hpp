// The enumerations the runtime and the kernels share (no CUDA headers: kernels' host-side
// parameters and host-only tests use them too). Numeric values are the C API's (tessel.h).
#pragma once

namespace tessel {

enum class DataType : int { kF16 = 0, kBF16 = 1, kF32 = 2 };
enum class MatrixLayout : int { kRowMajor = 0, kColumnMajor = 1 };
enum class Activation : int { kNone = 0, kReLU = 1, kGELU = 2 };  // GELU: tanh approximation

}  // namespace tessel
