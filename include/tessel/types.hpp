// The enumerations the runtime and the kernels share (no CUDA headers: kernels' host-side
// parameters and host-only tests use them too), below both layers so that the kernels do not
// include the API (runtime/types.hpp re-exports them). Numeric values are the C API's (tessel.h).
#pragma once

namespace tessel {

enum class DataType : int { kF16 = 0, kBF16 = 1, kF32 = 2 };
enum class MatrixLayout : int { kRowMajor = 0, kColumnMajor = 1 };
enum class Activation : int { kNone = 0, kReLU = 1, kGELU = 2 };  // GELU: tanh approximation

// A GEMM operand (MN, K) as the kernels see it: which extent is contiguous.
enum class Major { kK, kMN };

}  // namespace tessel
