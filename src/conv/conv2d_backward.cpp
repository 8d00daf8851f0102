// TEMPORARY: replaced by the dgrad and wgrad kernels later this session.
#include "tessel/runtime/conv2d.hpp"

namespace tessel {
Status conv2d_dgrad(const Conv2dDgradArguments& args, cudaStream_t) {
  if (Status s = validate(args); !s) return s;
  return {StatusCode::kNotSupported, "conv2d: dgrad: not implemented yet"};
}
Status conv2d_wgrad(const Conv2dWgradArguments& args, cudaStream_t) {
  if (Status s = validate(args); !s) return s;
  return {StatusCode::kNotSupported, "conv2d: wgrad: not implemented yet"};
}
}  // namespace tessel
