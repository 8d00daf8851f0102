// measure_cudnn: the legacy pick and the graph API's plans, verified and timed
// (cudnn_best.hpp).
#include "cudnn_best.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>

#include "cuda_check.hpp"
#include "cudnn_graph.hpp"
#include "cudnn_legacy.hpp"
#include "tessel/runtime/gemm.hpp"  // data_type_bytes

namespace tessel::prof {
namespace {

// A short measurement of one graph plan, to rank the plans: a few batches of ~5 ms.
TimingOptions brief(const TimingOptions& full) {
  TimingOptions t = full;
  t.warmup = std::min(2, full.warmup.value_or(2));
  t.repeats = std::min(3, full.repeats);
  t.target_batch_ms = 5.0;
  return t;
}

std::string error_text(double err, double tolerance) {
  char text[96];
  std::snprintf(text, sizeof text, "max_err %.3e beyond the tolerance %.3e", err, tolerance);
  return text;
}

struct Measured {
  Timing timing;
  std::string name;
  std::optional<double> err;
};

class CudnnMeasurement {
 public:
  CudnnMeasurement(const ConvProblem& p, const std::vector<ConvBuffers>& copies,
                   const CudnnRequest& request, CudnnOutcome& out)
      : p_(p), copies_(copies), request_(request), out_(out) {}

  // Zeroes copy 0's output, runs `launch` once into it and returns its error.
  std::optional<double> verify(const std::function<void()>& launch) const {
    if (!request_.error_of) return std::nullopt;
    const std::size_t bytes = p_.output_elements() * data_type_bytes(p_.input_type);
    check_cuda(cudaMemsetAsync(copies_[0].at(p_.output_role()), 0, bytes, request_.stream),
               "zeroing cuDNN's output");
    launch();
    check_cuda(cudaStreamSynchronize(request_.stream), "cuDNN's verified launch");
    return request_.error_of(copies_[0].at(p_.output_role()));
  }

  // Times `launch`; a full timing that fell back to host launches says so in the row (the
  // brief timings of the graph plans fall back silently, all alike).
  Timing time(const std::function<void(long)>& launch, const TimingOptions& options,
              const std::string& what, bool full = true) {
    std::string note;
    const Timing t = time_launches_or_host(launch, request_.stream, options, note);
    if (full && !note.empty()) out_.remarks.push_back("cuDNN " + what + " " + note);
    return t;
  }

  Measured legacy() {
    const CudnnLegacyConvolution conv(request_.handle, p_, copies_[0]);
    for (const CudnnCandidate& c : conv.candidates()) out_.candidates.push_back(c);
    Measured m;
    m.name = "legacy:" + conv.algorithm();
    m.err = verify([&] { conv.run(copies_[0], p_.alpha, p_.beta); });
    if (m.err && *m.err > request_.tolerance) {
      // Kept, as the legacy result always was: a suspect reference shows here first.
      out_.remarks.push_back("note: cuDNN " + m.name + " differs from the fp64 reference: " +
                             error_text(*m.err, request_.tolerance));
    }
    m.timing = time([&](long i) { conv.run(copies_[i % copies_.size()], p_.alpha, p_.beta); },
                    request_.timing, m.name);
    return m;
  }

  Measured graph() {
    CudnnGraphConvolution conv(request_.handle, p_, p_.alpha, p_.beta, request_.plans);
    for (const CudnnCandidate& c : conv.rejected()) out_.candidates.push_back(c);
    conv.bind(copies_);
    int best = -1;
    std::optional<double> best_us, best_err;
    std::string failures;
    for (int plan = 0; plan < conv.plan_count(); ++plan) {
      CudnnCandidate c;
      c.name = conv.plan_name(plan);
      c.workspace = conv.plan_workspace(plan);
      try {
        c.err = verify([&] { conv.run(plan, 0); });
        if (c.err && *c.err > request_.tolerance) {
          c.excluded = "wrong result: " + error_text(*c.err, request_.tolerance);
          out_.remarks.push_back("note: cuDNN " + c.name + " excluded: " + c.excluded);
        } else {
          const Timing t =
              time([&](long i) { conv.run(plan, static_cast<int>(i % copies_.size())); },
                   brief(request_.timing), c.name, false);
          c.us = t.median_us;
          if (!best_us || t.median_us < *best_us) {
            best = plan;
            best_us = t.median_us;
            best_err = c.err;
          }
        }
      } catch (const std::exception& e) {
        if (std::string why; context_lost(why)) throw;
        c.excluded = e.what();
        failures += "; " + c.name + ": " + e.what();
      }
      out_.candidates.push_back(c);
    }
    if (best < 0) throw ProfError("no plan ran correctly" + failures);
    Measured m;
    m.name = conv.plan_name(best);
    m.err = best_err;
    m.timing = time([&](long i) { conv.run(best, static_cast<int>(i % copies_.size())); },
                    request_.timing, m.name);
    return m;
  }

 private:
  const ConvProblem& p_;
  const std::vector<ConvBuffers>& copies_;
  const CudnnRequest& request_;
  CudnnOutcome& out_;
};

}  // namespace

CudnnApi cudnn_api_from(const std::string& name) {
  if (name == "legacy") return CudnnApi::kLegacy;
  if (name == "graph") return CudnnApi::kGraph;
  return CudnnApi::kBest;
}

CudnnOutcome measure_cudnn(const ConvProblem& p, const std::vector<ConvBuffers>& copies,
                           const CudnnRequest& request) {
  CudnnOutcome out;
  CudnnMeasurement measurement(p, copies, request, out);
  std::optional<Measured> legacy, graph;
  std::string legacy_error, graph_error;
  if (request.api != CudnnApi::kGraph) {
    try {
      legacy = measurement.legacy();
      out.legacy = legacy->timing;
    } catch (const std::exception& e) {
      legacy_error = e.what();
    }
  }
  std::string why;
  const bool lost = !legacy_error.empty() && context_lost(why);
  if (request.api != CudnnApi::kLegacy && !lost) {
    try {
      graph = measurement.graph();
      out.graph = graph->timing;
    } catch (const std::exception& e) {
      graph_error = e.what();
    }
  }
  const Measured* best = nullptr;
  if (legacy && graph) {
    best = graph->timing.median_us < legacy->timing.median_us ? &*graph : &*legacy;
  } else if (legacy || graph) {
    best = legacy ? &*legacy : &*graph;
  }
  const std::string shape = p.shape_text() + " " + conv_pass_name(p.pass);
  if (best == nullptr) {
    if (!legacy_error.empty()) out.error = "legacy: " + legacy_error;
    if (!graph_error.empty()) {
      out.error += (out.error.empty() ? "graph: " : "; graph: ") + graph_error;
    }
    if (lost) out.error += "; graph: not tried (the CUDA context is lost)";
    return out;
  }
  if (!graph_error.empty()) {
    out.notes.push_back(shape + ": the cuDNN graph API failed (" + graph_error +
                        "); cuDNN's time is the legacy API's");
  }
  if (!legacy_error.empty()) {
    out.notes.push_back(shape + ": the cuDNN legacy API failed (" + legacy_error +
                        "); cuDNN's time is the graph API's");
  }
  out.best = best->timing;
  out.algorithm = best->name;
  out.err = best->err;
  return out;
}

}  // namespace tessel::prof
