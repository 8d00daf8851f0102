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

Conv2dProblem layer(int n, int hw, int c, int k, int rs, int pad, int stride, int groups = 1) {
  Conv2dProblem s;
  s.n = n;
  s.h = s.w = hw;
  s.c = c;
  s.k = k;
  s.r = s.s = rs;
  s.pad_h = s.pad_w = pad;
  s.stride_h = s.stride_w = stride;
  s.groups = groups;
  return s;
}

// One layer of a suite at every batch: (H=W, C, K, R=S, pad, stride, groups).
struct Layer {
  int hw, c, k, rs, pad, stride, groups;
};

std::vector<Conv2dProblem> at_batches(const std::vector<Layer>& layers, int n) {
  std::vector<Conv2dProblem> shapes;
  const std::vector<int> batches = n > 0 ? std::vector<int>{n} : std::vector<int>{32, 128};
  for (int b : batches) {
    for (const Layer& l : layers) shapes.push_back(layer(b, l.hw, l.c, l.k, l.rs, l.pad, l.stride, l.groups));
  }
  return shapes;
}

// ResNeXt-50 (32x4d): ResNet-50's stages with twice the bottleneck width and 3x3 convolutions
// of 32 groups (stride 2 on the first 3x3 of stages 3 to 5).
const std::vector<Layer> kResNeXt50 = {
    {224, 3, 64, 7, 3, 2, 1},                                                         // stem
    {56, 64, 128, 1, 0, 1, 1},    {56, 128, 128, 3, 1, 1, 32},  {56, 128, 256, 1, 0, 1, 1},
    {56, 256, 128, 1, 0, 1, 1},                                                       // stage 2
    {56, 256, 256, 1, 0, 1, 1},   {56, 256, 256, 3, 1, 2, 32},  {28, 256, 512, 1, 0, 1, 1},
    {28, 512, 256, 1, 0, 1, 1},   {28, 256, 256, 3, 1, 1, 32},                        // stage 3
    {28, 512, 512, 1, 0, 1, 1},   {28, 512, 512, 3, 1, 2, 32},  {14, 512, 1024, 1, 0, 1, 1},
    {14, 1024, 512, 1, 0, 1, 1},  {14, 512, 512, 3, 1, 1, 32},                        // stage 4
    {14, 1024, 1024, 1, 0, 1, 1}, {14, 1024, 1024, 3, 1, 2, 32}, {7, 1024, 2048, 1, 0, 1, 1},
    {7, 2048, 1024, 1, 0, 1, 1},  {7, 1024, 1024, 3, 1, 1, 32},                       // stage 5
};

// MobileNetV2: the stem, then inverted residual blocks: a 1x1 expansion (6x), a 3x3 depthwise
// convolution (groups = C; stride 2 where the resolution halves), a 1x1 projection.
const std::vector<Layer> kMobileNetV2 = {
    {224, 3, 32, 3, 1, 2, 1},                                                          // stem
    {112, 32, 32, 3, 1, 1, 32},    {112, 32, 16, 1, 0, 1, 1},                          // t = 1
    {112, 16, 96, 1, 0, 1, 1},     {112, 96, 96, 3, 1, 2, 96},    {56, 96, 24, 1, 0, 1, 1},
    {56, 24, 144, 1, 0, 1, 1},     {56, 144, 144, 3, 1, 1, 144},  {56, 144, 24, 1, 0, 1, 1},
    {56, 144, 144, 3, 1, 2, 144},  {28, 144, 32, 1, 0, 1, 1},     {28, 32, 192, 1, 0, 1, 1},
    {28, 192, 192, 3, 1, 1, 192},  {28, 192, 32, 1, 0, 1, 1},     {28, 192, 192, 3, 1, 2, 192},
    {14, 192, 64, 1, 0, 1, 1},     {14, 64, 384, 1, 0, 1, 1},     {14, 384, 384, 3, 1, 1, 384},
    {14, 384, 64, 1, 0, 1, 1},     {14, 384, 96, 1, 0, 1, 1},     {14, 96, 576, 1, 0, 1, 1},
    {14, 576, 576, 3, 1, 1, 576},  {14, 576, 96, 1, 0, 1, 1},     {14, 576, 576, 3, 1, 2, 576},
    {7, 576, 160, 1, 0, 1, 1},     {7, 160, 960, 1, 0, 1, 1},     {7, 960, 960, 3, 1, 1, 960},
    {7, 960, 160, 1, 0, 1, 1},     {7, 960, 320, 1, 0, 1, 1},     {7, 320, 1280, 1, 0, 1, 1},
};

// ConvNeXt-T: a 4x4 stride-4 stem, blocks of a 7x7 depthwise convolution and 1x1 layers to 4C
// and back, 2x2 stride-2 downsampling between the stages (96, 192, 384, 768 channels).
const std::vector<Layer> kConvNeXtT = {
    {224, 3, 96, 4, 0, 4, 1},                                                            // stem
    {56, 96, 96, 7, 3, 1, 96},     {56, 96, 384, 1, 0, 1, 1},    {56, 384, 96, 1, 0, 1, 1},
    {56, 96, 192, 2, 0, 2, 1},     {28, 192, 192, 7, 3, 1, 192}, {28, 192, 768, 1, 0, 1, 1},
    {28, 768, 192, 1, 0, 1, 1},    {28, 192, 384, 2, 0, 2, 1},   {14, 384, 384, 7, 3, 1, 384},
    {14, 384, 1536, 1, 0, 1, 1},   {14, 1536, 384, 1, 0, 1, 1},  {14, 384, 768, 2, 0, 2, 1},
    {7, 768, 768, 7, 3, 1, 768},   {7, 768, 3072, 1, 0, 1, 1},   {7, 3072, 768, 1, 0, 1, 1},
};

}  // namespace

std::vector<std::string> conv_suite_names() { return {"resnet50", "resnext50", "mobilenetv2", "convnext-t"}; }

std::vector<Conv2dProblem> conv_suite_shapes(const std::string& name, int n) {
  if (name == "resnet50") return default_conv_shapes(n);
  if (name == "resnext50") return at_batches(kResNeXt50, n);
  if (name == "mobilenetv2") return at_batches(kMobileNetV2, n);
  if (name == "convnext-t") return at_batches(kConvNeXtT, n);
  return {};
}

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
