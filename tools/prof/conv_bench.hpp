// One measured conv2d: allocate and fill the tensors, run tessel once on poisoned Y and verify
// it against the fp64 direct convolution, then time tessel and cuDNN the same way over the
// same rotating tensors. Every failure becomes the row's message; nothing escapes.
#pragma once

#include <cudnn.h>

#include <optional>
#include <string>

#include "conv_problem.hpp"
#include "gemm_bench.hpp"  // BenchOptions, Outcome
#include "timing.hpp"

namespace tessel::prof {

// What every conv2d row shares: created once per suite.
struct ConvBenchContext {
  cudaStream_t stream = nullptr;
  cudnnHandle_t cudnn = nullptr;
  std::size_t l2_bytes = 0;
};

struct ConvResult {
  ConvProblem problem;
  int copies = 0;  // rotation copies of the tensors
  std::optional<Timing> tessel, cudnn;
  std::string cudnn_algorithm;      // cuDNN's pick, e.g. "IMPLICIT_PRECOMP_GEMM"
  std::optional<double> max_err;    // tessel against the fp64 reference
  std::optional<double> cudnn_err;  // cuDNN (16-bit Y) against it: a check of the reference
  double tolerance = 0;
  Outcome outcome = Outcome::kError;
  std::string message;  // the error(s), "; "-separated; empty on PASS

  double tflops(const Timing& t) const { return problem.flops() / (t.median_us * 1e6); }
};

// The tolerance of conv2d's error (verify.hpp's, with K the reduction R S C/G); cuDNN's
// check uses the same with its 16-bit output.
double conv_tolerance(const ConvProblem& p, DataType output_type);

ConvResult run_conv_bench(const ConvProblem& p, const BenchOptions& options,
                          const ConvBenchContext& context);

}  // namespace tessel::prof
