// The API's enumerations, DataType, MatrixLayout and Activation: defined below the runtime
// layer (tessel/types.hpp), where the kernels use them too.
#pragma once

#include "tessel/types.hpp"
