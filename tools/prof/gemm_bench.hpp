// One measured GEMM: allocate and fill the operands, run tessel once on poisoned D and
// verify it, time tessel and cuBLAS the same way over the same rotating operands.
// Every failure becomes the row's message; nothing escapes to the caller.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "problem.hpp"
#include "timing.hpp"
#include "verify.hpp"

namespace tessel::prof {

struct BenchOptions {
  TimingOptions timing;
  bool verify = true;
  std::uint64_t seed = 1;
};

// What every run shares: created once per suite.
struct BenchContext {
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  std::size_t l2_bytes = 0;
};

enum class Outcome {
  kPass,        // verified within the tolerance
  kFail,        // verified, beyond the tolerance
  kError,       // tessel returned an error Status, or CUDA / cuBLAS failed
  kUnverified,  // --no-verify: timed only
};
const char* outcome_name(Outcome o);  // "PASS", "FAIL", "ERROR", "-"

struct BenchResult {
  GemmProblem problem;
  std::optional<GemmPlan> plan;  // from tessel::plan()
  int copies = 0;                // rotation copies of the operands
  std::optional<Timing> tessel, cublas;
  std::optional<Verification> verification;
  Outcome outcome = Outcome::kError;
  std::string message;  // the error(s), "; "-separated; empty on PASS

  double tflops(const Timing& t) const { return problem.flops() / (t.median_us * 1e6); }
};

BenchResult run_gemm_bench(const GemmProblem& p, const BenchOptions& options,
                           const BenchContext& context);

}  // namespace tessel::prof
