// A list of conv2d problems measured one after the other into one report, and the suites:
// ResNet-50's layers (the default), ResNeXt-50's, MobileNetV2's and ConvNeXt-T's.
#pragma once

#include <string>
#include <vector>

#include "conv_bench.hpp"
#include "conv_problem.hpp"
#include "conv_report.hpp"
#include "device.hpp"

namespace tessel::prof {

// ResNet-50's distinct kinds of layer, H x W x C -> K R x S (pad 1 on the 3x3s):
//   224x224x3 -> 64 7x7 pad 3 stride 2       the stem (C = 3: the narrow path)
//   56x56x64 -> 64 1x1, 56x56x64 -> 64 3x3, 56x56x64 -> 256 1x1           stage 2
//   56x56x128 -> 128 3x3 stride 2, 28x28x128 -> 128 3x3, 28x28x128 -> 512 1x1,
//   28x28x512 -> 128 1x1                                                  stage 3
//   28x28x256 -> 256 3x3 stride 2, 14x14x256 -> 256 3x3, 14x14x256 -> 1024 1x1    stage 4
//   14x14x512 -> 512 3x3 stride 2, 7x7x512 -> 512 3x3, 7x7x512 -> 2048 1x1        stage 5
// each at N = 32 and N = 128 (or only at `n` when given).
std::vector<Conv2dProblem> default_conv_shapes(int n = 0);

// The suites `tessel-prof conv2d --suite NAME` runs, each network's distinct layers at N = 32
// and N = 128 (or only at `n`), the residual downsampling projections left out:
//   resnet50     the default above
//   resnext50    ResNeXt-50 (32x4d): 3x3 convolutions of 32 groups, 20 layers
//   mobilenetv2  MobileNetV2: 3x3 depthwise (groups = C) and 1x1 expansions and projections, 30
//   convnext-t   ConvNeXt-T: 7x7 depthwise, 1x1 to 4C and back, 4x4/4 stem, 2x2/2 downsampling, 16
std::vector<std::string> conv_suite_names();
// The suite called `name`; empty when there is none.
std::vector<Conv2dProblem> conv_suite_shapes(const std::string& name, int n = 0);

// Measures every problem and prints a row for each as it completes (progress on a terminal's
// stderr). Returns kExitOk when every row passed (or was not verified), kExitFailed otherwise,
// also when the CUDA context is lost (the remaining problems are then skipped).
int run_conv_suite(const std::vector<ConvProblem>& problems, const ConvBenchOptions& options,
                   const DeviceInfo& device, ReportFormat format);

}  // namespace tessel::prof
