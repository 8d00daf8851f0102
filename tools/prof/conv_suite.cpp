// run_conv_suite: the shared stream and cuDNN handle, the report, the progress line.
#include "conv_suite.hpp"

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <iostream>

#include "cuda_check.hpp"
#include "cudnn_common.hpp"
#include "exit_codes.hpp"

namespace tessel::prof {
namespace {

Conv2dProblem layer(int n, int hw, int c, int k, int rs, int pad, int stride) {
  Conv2dProblem s;
  s.n = n;
  s.h = s.w = hw;
  s.c = c;
  s.k = k;
  s.r = s.s = rs;
  s.pad_h = s.pad_w = pad;
  s.stride_h = s.stride_w = stride;
  return s;
}

}  // namespace

std::vector<Conv2dProblem> default_conv_shapes(int n) {
  std::vector<Conv2dProblem> shapes;
  const std::vector<int> batches = n > 0 ? std::vector<int>{n} : std::vector<int>{32, 128};
  for (int b : batches) {
    // (H=W, C, K, R=S, pad, stride)
    shapes.push_back(layer(b, 224, 3, 64, 7, 3, 2));  // stem
    shapes.push_back(layer(b, 56, 64, 64, 1, 0, 1));  // stage 2
    shapes.push_back(layer(b, 56, 64, 64, 3, 1, 1));
    shapes.push_back(layer(b, 56, 64, 256, 1, 0, 1));
    shapes.push_back(layer(b, 56, 128, 128, 3, 1, 2));  // stage 3
    shapes.push_back(layer(b, 28, 128, 128, 3, 1, 1));
    shapes.push_back(layer(b, 28, 128, 512, 1, 0, 1));
    shapes.push_back(layer(b, 28, 512, 128, 1, 0, 1));
    shapes.push_back(layer(b, 28, 256, 256, 3, 1, 2));  // stage 4
    shapes.push_back(layer(b, 14, 256, 256, 3, 1, 1));
    shapes.push_back(layer(b, 14, 256, 1024, 1, 0, 1));
    shapes.push_back(layer(b, 14, 512, 512, 3, 1, 2));  // stage 5
    shapes.push_back(layer(b, 7, 512, 512, 3, 1, 1));
    shapes.push_back(layer(b, 7, 512, 2048, 1, 0, 1));
  }
  return shapes;
}

int run_conv_suite(const std::vector<ConvProblem>& problems, const ConvBenchOptions& options,
                   const DeviceInfo& device, ReportFormat format) {
  try {
    const Stream stream;
    const CudnnHandle cudnn(stream.get());
    const ConvBenchContext context{stream.get(), cudnn.get(), device.l2_bytes};
    const ConvRunInfo info{device.text(), cudnn_version(), problems.front(), options};
    ConvReport report(format, std::cout, std::cerr);
    report.begin(info);
    const bool progress = problems.size() > 1 && isatty(STDERR_FILENO);
    int status = kExitOk;
    for (std::size_t i = 0; i < problems.size(); ++i) {
      if (progress) {
        std::fprintf(stderr, "\r[%zu/%zu] %s ...\033[K", i + 1, problems.size(),
                     problems[i].shape_text().c_str());
      }
      ConvBenchOptions row_options = options;
      row_options.seed = options.seed + i;  // fresh values for every problem
      const ConvResult r = run_conv_bench(problems[i], row_options, context);
      if (progress) std::fprintf(stderr, "\r\033[K");
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
