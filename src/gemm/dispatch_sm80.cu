// TEMPORARY scaffold (replaced by the real dispatch in this session): lets the runtime, the
// C API and the profiler link while the kernels are generalised.
#include "tessel/runtime/gemm.hpp"

namespace tessel {

std::vector<std::string> gemm_config_names() {
  return {"128x256x64_s3_w2x4", "128x128x32_s4_w2x2", "64x128x32_s4_w2x2"};
}

Status plan(const GemmArguments& args, GemmPlan* out) {
  if (Status s = validate(args); !s) return s;
  if (out == nullptr) return {StatusCode::kInvalidArgument, "plan: out is null"};
  return {StatusCode::kNotSupported, "gemm: kernels not linked yet"};
}

Status gemm(const GemmArguments& args, cudaStream_t) {
  if (Status s = validate(args); !s) return s;
  return {StatusCode::kNotSupported, "gemm: kernels not linked yet"};
}

}  // namespace tessel
