// time_launches: see timing.hpp for the procedure.
#include "timing.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <vector>

#include "cuda_check.hpp"

namespace tessel::prof {
namespace {

constexpr int kDefaultWarmup = 5;
constexpr double kCalibrationMs = 2.0;
constexpr int kCalibrationMaxLaunches = 4096;
constexpr int kMaxIterations = 100000;

class Event {
 public:
  Event() { check_cuda(cudaEventCreate(&event_), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// The milliseconds between two events recorded around `enqueue()` on `stream`.
float elapsed_ms(cudaStream_t stream, const std::function<void()>& enqueue) {
  Event start, stop;
  check_cuda(cudaEventRecord(start.get(), stream), "cudaEventRecord");
  enqueue();
  check_cuda(cudaEventRecord(stop.get(), stream), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(stop.get()), "the timed launches");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime");
  return ms;
}

// One CUDA graph of `count` launches, captured from `launch` (relaxed capture: a library
// may query attributes while it launches).
class LaunchGraph {
 public:
  LaunchGraph(const std::function<void(long)>& launch, long first, int count, cudaStream_t stream) {
    check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed),
               "cudaStreamBeginCapture");
    try {
      for (int i = 0; i < count; ++i) launch(first + i);
    } catch (...) {
      cudaGraph_t broken = nullptr;
      cudaStreamEndCapture(stream, &broken);  // leaves the stream usable
      if (broken != nullptr) cudaGraphDestroy(broken);
      throw;
    }
    check_cuda(cudaStreamEndCapture(stream, &graph_), "cudaStreamEndCapture");
    check_cuda(cudaGraphInstantiate(&exec_, graph_, 0), "cudaGraphInstantiate");
    check_cuda(cudaGraphUpload(exec_, stream), "cudaGraphUpload");
  }
  ~LaunchGraph() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
  }
  LaunchGraph(const LaunchGraph&) = delete;
  LaunchGraph& operator=(const LaunchGraph&) = delete;
  void replay(cudaStream_t stream) const {
    check_cuda(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch");
  }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

Timing time_launches(const std::function<void(long)>& launch, cudaStream_t stream,
                     const TimingOptions& options) {
  long next = 0;  // the number of the next launch
  auto enqueue = [&](int count) {
    for (int i = 0; i < count; ++i) launch(next++);
  };
  enqueue(options.warmup.value_or(kDefaultWarmup));
  check_cuda(cudaStreamSynchronize(stream), "the warm-up launches");

  Timing t;
  if (options.iterations) {
    t.iterations = *options.iterations;
  } else {
    double per_launch_ms = 0;
    for (int count = 1;; count *= 4) {
      const float ms = elapsed_ms(stream, [&] { enqueue(count); });
      if (ms >= kCalibrationMs || count >= kCalibrationMaxLaunches) {
        per_launch_ms = ms / count;
        break;
      }
    }
    const double wanted = std::ceil(options.target_batch_ms / std::max(per_launch_ms, 1e-6));
    t.iterations = static_cast<int>(std::clamp(wanted, 1.0, double(kMaxIterations)));
  }

  std::vector<double> per_launch_us;
  if (options.graph) {
    const LaunchGraph graph(launch, next, t.iterations, stream);
    graph.replay(stream);  // the graph's own warm-up
    for (int r = 0; r < options.repeats; ++r) {
      const float ms = elapsed_ms(stream, [&] { graph.replay(stream); });
      per_launch_us.push_back(1e3 * ms / t.iterations);
    }
  } else {
    for (int r = 0; r < options.repeats; ++r) {
      const float ms = elapsed_ms(stream, [&] { enqueue(t.iterations); });
      per_launch_us.push_back(1e3 * ms / t.iterations);
    }
  }
  std::sort(per_launch_us.begin(), per_launch_us.end());
  t.median_us = per_launch_us[per_launch_us.size() / 2];
  return t;
}

Timing time_launches_or_host(const std::function<void(long)>& launch, cudaStream_t stream,
                             const TimingOptions& options, std::string& note) {
  note.clear();
  if (!options.graph) return time_launches(launch, stream, options);
  try {
    return time_launches(launch, stream, options);
  } catch (const std::exception& e) {
    std::string why;
    if (context_lost(why)) throw;  // nothing more can run
    note = std::string("timed from the host: the CUDA graph failed: ") + e.what();
  }
  TimingOptions host = options;
  host.graph = false;
  return time_launches(launch, stream, host);
}

}  // namespace tessel::prof
