// cuDNN at its best on one conv2d problem: the legacy API's pick (cudnnFind*AlgorithmEx, its
// own timed search) and the graph API's fastest verified execution plan, each timed like
// tessel; the faster of the two is the row's cuDNN.
//
//   legacy  CudnnLegacyConvolution: the search's fastest algorithm; verified; timed
//   graph   CudnnGraphConvolution: up to `plans` plans from the heuristics; each run once on a
//           zeroed output and verified (a plan beyond the tolerance is excluded, with a note),
//           timed briefly (a few short batches); the fastest is timed in full
//
// Verification: cuDNN computes out = alpha op + beta out without bias or activation, so it
// runs on an output zeroed first and is compared with the reference of the plain problem
// (alpha only), with the tolerance of its 16-bit output. The timed launches use the row's alpha
// and beta (beta reads cuDNN's own output). When one API fails for the problem (the graph
// API's NOT_SUPPORTED, the legacy API's BAD_PARAM), the other one is the row's cuDNN and a
// note says why; when both fail, the outcome's error says so.
#pragma once

#include <cudnn.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "conv_problem.hpp"
#include "cudnn_common.hpp"
#include "timing.hpp"

namespace tessel::prof {

enum class CudnnApi { kBest, kLegacy, kGraph };  // --cudnn best|legacy|graph
// "legacy" -> kLegacy, "graph" -> kGraph, anything else kBest.
CudnnApi cudnn_api_from(const std::string& name);

struct CudnnRequest {
  cudnnHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  CudnnApi api = CudnnApi::kBest;
  int plans = 10;  // graph plans to try at most
  TimingOptions timing;
  // The error of cuDNN's output (copy 0, p.input_type) against the plain reference; empty
  // without verification (--no-verify: every plan is eligible).
  std::function<double(const void* out)> error_of;
  double tolerance = 0;
};

struct CudnnOutcome {
  std::optional<Timing> legacy, graph;  // each API's timing, when it ran
  std::optional<Timing> best;           // the faster of the two
  std::string algorithm;                // the faster one's name: "legacy:...", "graph:eng..."
  std::optional<double> err;            // the faster one's error against the reference
  std::vector<CudnnCandidate> candidates;
  std::vector<std::string> notes;    // for stderr: an API that failed, the other one used
  std::vector<std::string> remarks;  // for the row's message: exclusions, host timing
  std::string error;                 // both failed (or the one asked for): why
};

// `copies` are cuDNN's buffers, one per rotation copy: the inputs by role and cuDNN's own
// output (in p.input_type) at the output's role. Never throws: failures are in the outcome.
CudnnOutcome measure_cudnn(const ConvProblem& p, const std::vector<ConvBuffers>& copies,
                           const CudnnRequest& request);

}  // namespace tessel::prof
