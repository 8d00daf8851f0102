// A list of GEMM problems measured one after the other into one report, and the default
// list (the shapes tessel is tuned and judged on).
#pragma once

#include <vector>

#include "device.hpp"
#include "gemm_bench.hpp"
#include "problem.hpp"
#include "report.hpp"

namespace tessel::prof {

// The default suite, M x N x K:
//   81920x256x256                 the seeds' shape (tall and skinny)
//   1024^3, 2048^3, 4096^3, 8192^3
//   4096x14336x4096, 14336x4096x4096     LLM MLP projections (prefill)
//   128x4096x4096, 16x4096x4096          small M (decode)
//   256x256x65536                        large K, few tiles (split-K territory)
//   1000x1000x1000, 4095x4097x1031       odd sizes: edge tiles, narrow loads
std::vector<GemmShape> default_gemm_shapes();

// Measures every problem on `device` and prints a row for each as it completes, with a
// progress line on stderr when stderr is a terminal. Returns kExitOk when every row passed
// (or was not verified), kExitFailed otherwise, also when the CUDA context is lost (the
// remaining problems are then skipped, with a message on stderr).
int run_gemm_suite(const std::vector<GemmProblem>& problems, const BenchOptions& options,
                   const DeviceInfo& device, ReportFormat format);

}  // namespace tessel::prof
