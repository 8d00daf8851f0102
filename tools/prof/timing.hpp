// Timing of back-to-back launches with CUDA events: warm-up, a calibration that picks the
// batch size, then `repeats` timed batches; the median batch gives the time per launch.
//
//   warm-up      `warmup` launches (default 5), not timed
//   calibration  batches of 1, 4, 16, ... launches until one lasts >= 2 ms (also warms up
//                tiny kernels); skipped when `iterations` is given
//   iterations   launches per timed batch: enough for ~50 ms (target_batch_ms), 1 to 100000
//   result       median over `repeats` batches of (batch time / iterations)
//
// With `graph`, each timed batch is one CUDA graph holding the `iterations` launches (no
// host launch overhead between them); without, the launches are issued from the host.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <optional>
#include <string>

namespace tessel::prof {

inline constexpr double kTargetBatchMs = 50.0;

struct TimingOptions {
  std::optional<int> warmup;      // default 5
  std::optional<int> iterations;  // default: calibrated to ~target_batch_ms
  int repeats = 7;
  bool graph = false;
  double target_batch_ms = kTargetBatchMs;
};

struct Timing {
  double median_us = 0;  // per launch
  int iterations = 0;    // launches per timed batch
};

// `launch(i)` enqueues launch number i on `stream` (i counts up over the whole measurement,
// so the caller rotates operands with i % copies) and throws on failure.
Timing time_launches(const std::function<void(long)>& launch, cudaStream_t stream,
                     const TimingOptions& options);

// time_launches, and when options.graph fails (a library that cannot be captured into a CUDA
// graph), once more with the launches issued from the host; `note` then says so and why
// ("timed from the host: the CUDA graph failed: cudaStreamEndCapture: ..."), else stays empty.
Timing time_launches_or_host(const std::function<void(long)>& launch, cudaStream_t stream,
                             const TimingOptions& options, std::string& note);

}  // namespace tessel::prof
