// run_gemm_suite: the shared stream and cuBLAS handle, the report, the progress line.
#include "gemm_suite.hpp"

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <iostream>

#include "cublas_reference.hpp"
#include "cuda_check.hpp"
#include "exit_codes.hpp"

namespace tessel::prof {
namespace {

// "[3/13] 4096x4096x4096 ..." on a terminal's stderr, erased before the row is printed.
class Progress {
 public:
  explicit Progress(std::size_t total) : total_(total), on_(total > 1 && isatty(STDERR_FILENO)) {}
  void show(std::size_t index, const GemmProblem& p) const {
    if (on_)
      std::fprintf(stderr, "\r[%zu/%zu] %s ...\033[K", index + 1, total_, p.shape_text().c_str());
  }
  void clear() const {
    if (on_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  std::size_t total_;
  bool on_;
};

}  // namespace

std::vector<GemmShape> default_gemm_shapes() {
  return {{81920, 256, 256},  {1024, 1024, 1024},  {2048, 2048, 2048},  {4096, 4096, 4096},
          {8192, 8192, 8192}, {4096, 14336, 4096}, {14336, 4096, 4096}, {128, 4096, 4096},
          {16, 4096, 4096},   {256, 256, 65536},   {1024, 1024, 65536}, {1000, 1000, 1000},
          {4095, 4097, 1031}, {3000, 5000, 700}};
}

int run_gemm_suite(const std::vector<GemmProblem>& problems, const BenchOptions& options,
                   const DeviceInfo& device, ReportFormat format) {
  try {
    const Stream stream;
    const CublasHandle cublas(stream.get());
    const BenchContext context{stream.get(), cublas.get(), device.l2_bytes};
    RunInfo info{device.text(), cublas_version(cublas.get()), problems.front(), options};
    Report report(format, std::cout);
    report.begin(info);
    const Progress progress(problems.size());
    int status = kExitOk;
    for (std::size_t i = 0; i < problems.size(); ++i) {
      progress.show(i, problems[i]);
      BenchOptions row_options = options;
      row_options.seed = options.seed + i;  // fresh values for every problem
      const BenchResult r = run_gemm_bench(problems[i], row_options, context);
      progress.clear();
      report.row(r);
      if (r.outcome == Outcome::kPass || r.outcome == Outcome::kUnverified) continue;
      status = kExitFailed;
      if (std::string why; r.outcome == Outcome::kError && context_lost(why)) {
        std::cerr << "tessel-prof: the CUDA context is lost (" << why << "); the remaining "
                  << problems.size() - i - 1 << " problem(s) are not run\n";
        break;
      }
    }
    report.end(info);
    return status;
  } catch (const std::exception& e) {
    std::cerr << "tessel-prof: " << e.what() << "\n";
    return kExitFailed;
  }
}

}  // namespace tessel::prof
