// The conv2d profiler's output, in the GEMM report's three formats (report.hpp): a table
// (default), CSV or JSON Lines on stdout, one row as soon as its problem is measured.
// Columns:
//
//   n h w c k r s pad stride dilation groups mode   the problem (CSV / JSON: each of pad,
//                                                   stride and dilation as _h and _w)
//   pass dtype out                                  fprop / dgrad / wgrad and the types
//   alpha beta bias activation                      the epilogue (CSV / JSON only)
//   copies                                          rotation copies
//   cudnn_algo                                      the faster cuDNN API and its pick:
//                                                   "legacy:IMPLICIT_PRECOMP_GEMM",
//                                                   "graph:eng12 tile_m=2 stages=3"
//   tessel_us tessel_tflops                         median time per launch, 2 N P Q K R S C/G / t
//   cudnn_us cudnn_tflops                           the same for cuDNN (without bias / act)
//   cudnn_legacy_us cudnn_graph_us                  each cuDNN API's time (CSV / JSON only)
//   ratio                                           cudnn_us / tessel_us: above 1, tessel wins
//   max_err tolerance                               tessel against the fp64 reference
//   cudnn_err                                       cuDNN (16-bit output) against it
//   status message                                  PASS, FAIL, ERROR or -; the reason
//   cudnn_candidates                                JSON only: every algorithm and plan cuDNN
//                                                   offered, its time, error or exclusion
//
// The table ends with the summary: counts, and the geometric mean and the minimum of the
// ratios (the conv2d target metric); CSV and JSON write that summary to stderr. A row's notes
// (a cuDNN API that failed, the other one used) go to stderr, and with `verbose` the list of
// cuDNN's candidates.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "conv_bench.hpp"
#include "report.hpp"  // ReportFormat

namespace tessel::prof {

struct ConvRunInfo {
  std::string device;         // "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, L2 50 MiB)"
  std::string cudnn_version;  // "9.19.0"
  ConvProblem common;         // the pass and epilogue every row shares
  ConvBenchOptions options;
};

// The geometric mean and the minimum of the positive, finite ratios (count 0 when none).
struct RatioSummary {
  int count = 0;
  double geomean = 0, min = 0;
};
RatioSummary summarize_ratios(const std::vector<double>& ratios);

class ConvReport {
 public:
  ConvReport(ReportFormat format, std::ostream& out, std::ostream& notes)
      : format_(format), out_(out), notes_(notes) {}
  void begin(const ConvRunInfo& info);
  void row(const ConvResult& r);
  void end(const ConvRunInfo& info);

 private:
  ReportFormat format_;
  std::ostream& out_;
  std::ostream& notes_;   // where CSV / JSON runs put the summary (stderr)
  bool verbose_ = false;  // from begin(): list cuDNN's candidates on `notes_`
  int rows_ = 0, passed_ = 0, failed_ = 0, errors_ = 0;
  std::vector<double> ratios_;
};

}  // namespace tessel::prof
