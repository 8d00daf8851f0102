// The profiler's output: a table for people (default), CSV (a header line, then one line per
// problem) or JSON Lines (one object per problem per line), always on stdout, one row as
// soon as its problem is measured. Columns, in every format:
//
//   m n k batch layout dtype out         the problem
//   alpha beta bias activation           its epilogue (CSV / JSON only)
//   config variant access swapped        tessel::plan(): what tessel ran
//   copies                               rotation copies of the operands (CSV / JSON only)
//   tessel_us tessel_tflops              median time per launch, and 2 M N K batch / time
//   cublas_us cublas_tflops              the same for cuBLAS (without bias / activation)
//   ratio                                cublas_us / tessel_us: above 1, tessel is faster
//   max_err fp64_err tolerance           verify.hpp's error against cuBLAS, against fp64
//   status message                       PASS, FAIL, ERROR or - (--no-verify); the reason
#pragma once

#include <ostream>
#include <string>

#include "gemm_bench.hpp"

namespace tessel::prof {

enum class ReportFormat { kTable, kCsv, kJson };

// What the header of a run says.
struct RunInfo {
  std::string device;          // "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, L2 50 MiB)"
  std::string cublas_version;  // "13.0.0"
  GemmProblem common;          // the epilogue every row shares
  BenchOptions options;
};

class Report {
 public:
  Report(ReportFormat format, std::ostream& out) : format_(format), out_(out) {}
  void begin(const RunInfo& info);
  void row(const BenchResult& r);
  void end(const RunInfo& info);  // the table's summary and notes; nothing for CSV / JSON

 private:
  ReportFormat format_;
  std::ostream& out_;
  int rows_ = 0, passed_ = 0, failed_ = 0, errors_ = 0;
};

// "bias+relu", "gelu", "" : what cuBLAS's time leaves out.
std::string cublas_excludes(const GemmProblem& p);

}  // namespace tessel::prof
