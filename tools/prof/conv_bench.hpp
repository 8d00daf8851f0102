// One measured conv2d, any pass: allocate and fill the tensors, compute the fp64 reference,
// run tessel once and verify it, then time tessel and cuDNN (at its best: cudnn_best.hpp) the
// same way over the same rotating tensors. Every failure becomes the row's message; nothing
// escapes.
#pragma once

#include <cudnn.h>

#include <optional>
#include <string>
#include <vector>

#include "conv_problem.hpp"
#include "cudnn_best.hpp"
#include "gemm_bench.hpp"  // BenchOptions, Outcome
#include "timing.hpp"

namespace tessel::prof {

// What every conv2d row shares: created once per suite.
struct ConvBenchContext {
  cudaStream_t stream = nullptr;
  cudnnHandle_t cudnn = nullptr;
  std::size_t l2_bytes = 0;
};

struct ConvBenchOptions : BenchOptions {
  CudnnApi cudnn_api = CudnnApi::kBest;
  int cudnn_plans = 10;  // graph-API plans tried at most
  bool verbose = false;  // list cuDNN's candidates on stderr
};

struct ConvResult {
  ConvProblem problem;
  int copies = 0;  // rotation copies of the tensors
  std::optional<Timing> tessel;
  std::optional<Timing> cudnn;                      // the faster of the two APIs
  std::optional<Timing> cudnn_legacy, cudnn_graph;  // each API's own
  std::string cudnn_algorithm;  // the faster one: "legacy:IMPLICIT_PRECOMP_GEMM", "graph:eng12 ..."
  std::vector<CudnnCandidate> cudnn_candidates;
  std::optional<double> max_err;    // tessel against the fp64 reference
  std::optional<double> cudnn_err;  // cuDNN (16-bit output, alpha only) against it
  double tolerance = 0;
  Outcome outcome = Outcome::kError;
  std::string message;             // the error(s) and remarks, "; "-separated; empty on PASS
  std::vector<std::string> notes;  // for stderr (an API that failed and the fallback)

  double tflops(const Timing& t) const { return problem.flops() / (t.median_us * 1e6); }
};

// The tolerance of conv2d's error (verify.hpp's, with K the pass's reduction length: R S C/G,
// R S K/G or N P Q); cuDNN's check uses the same with its 16-bit output.
double conv_tolerance(const ConvProblem& p, DataType output_type);

ConvResult run_conv_bench(const ConvProblem& p, const ConvBenchOptions& options,
                          const ConvBenchContext& context);

}  // namespace tessel::prof
