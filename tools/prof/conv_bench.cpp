// run_conv_bench: the steps of one conv2d row (conv_bench.hpp), each failure recorded and the
// rest still attempted where it makes sense (cuDNN is timed even when tessel refuses).
#include "conv_bench.hpp"

#include <climits>
#include <cstdio>
#include <exception>
#include <memory>
#include <vector>

#include "conv_reference.hpp"
#include "conv_tensors.hpp"
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "device_kernels.hpp"
#include "verify.hpp"

namespace tessel::prof {
namespace {

std::string status_text(const Status& s) {
  return std::string(status_code_name(s.code())) + ": " + s.message();
}

void add_message(ConvResult& r, const std::string& text) {
  if (!r.message.empty()) r.message += "; ";
  r.message += text;
}

// The fp64 reference of copy 0 for `p`, kept while the results are checked against it.
struct Reference {
  DeviceBuffer ref, scale;
  Reference(const ConvProblem& p, const ConvBuffers& b, cudaStream_t stream)
      : ref(p.output_elements() * sizeof(float), "the conv2d reference"),
        scale(p.output_elements() * sizeof(float),
              "the error's denominator |alpha| sum |products| + |beta R| + |bias|") {
    conv2d_reference(p, b, ref.as<float>(), scale.as<float>(), stream);
  }
  double error_of(const void* out, DataType t, std::size_t count, cudaStream_t stream) const {
    return max_scaled_error(out, t, ref.as<float>(), scale.as<float>(), count, stream);
  }
};

}  // namespace

double conv_tolerance(const ConvProblem& p, DataType output_type) {
  GemmProblem g;  // the same reduction as a GEMM of that depth
  g.shape = {1, 1, static_cast<int>(std::min<std::int64_t>(p.reduction(), INT_MAX))};
  g.output_type = output_type;
  g.activation = p.activation;
  return tolerance(g);
}

ConvResult run_conv_bench(const ConvProblem& p, const ConvBenchOptions& options,
                          const ConvBenchContext& context) {
  ConvResult r;
  r.problem = p;
  r.tolerance = conv_tolerance(p, p.output_type);
  if (const auto why = epilogue_error(p.pass, p.bias, p.activation)) {
    r.message = "tessel-prof: " + *why;
    return r;  // kError
  }
  if (Status s = validate(p.shape); !s) {
    r.message = "tessel: " + status_text(s);
    return r;  // no tensors to allocate for an impossible problem
  }
  std::unique_ptr<ConvTensors> t;
  try {
    t = std::make_unique<ConvTensors>(p, context.l2_bytes, options.seed, context.stream);
    r.copies = t->copies;
  } catch (const std::exception& e) {
    r.message = std::string("tensors: ") + e.what();
    return r;
  }
  bool failed = false;
  auto attempt = [&](const char* step, auto&& body) {
    try {
      body();
      return true;
    } catch (const std::exception& e) {
      add_message(r, std::string(step) + ": " + e.what());
      failed = true;
      return false;
    }
  };
  const std::size_t out_count = p.output_elements();
  const cudaStream_t stream = context.stream;
  const CopiedTensor& output = t->output(p);

  // The references first: dgrad and wgrad read their residual from the output tensor, which
  // tessel's launch overwrites. cuDNN (no bias, no activation, beta on a zeroed output) is
  // checked against the plain problem's.
  std::unique_ptr<Reference> reference, plain_reference;
  if (options.verify) {
    attempt("reference", [&] {
      reference = std::make_unique<Reference>(p, t->tessel(0), stream);
      if (!p.is_plain())
        plain_reference = std::make_unique<Reference>(p.plain(), t->tessel(0), stream);
    });
  }

  // tessel once; the output poisoned with 0xFF bytes (NaN in f16, bf16 and f32) unless it is
  // the residual: an element the kernel does not write fails the comparison.
  const bool tessel_ok = attempt("tessel", [&] {
    if (Status s = validate_tessel(p, t->tessel(0)); !s) throw ProfError(status_text(s));
    if (!(p.reads_residual() && p.residual_is_output())) {
      check_cuda(cudaMemsetAsync(output.at(0), 0xFF, output.copy_bytes(), stream),
                 "poisoning the output");
    }
    if (Status s = run_tessel(p, t->tessel(0), stream); !s) throw ProfError(status_text(s));
    check_cuda(cudaStreamSynchronize(stream),
               std::string("tessel conv2d ") + conv_pass_name(p.pass) + " (the verified launch)");
  });
  if (tessel_ok && reference) {
    attempt("verification", [&] {
      r.max_err = reference->error_of(output.at(0), p.output_type, out_count, stream);
    });
  }
  if (tessel_ok) {
    attempt("tessel timing", [&] {
      std::string note;
      r.tessel = time_launches_or_host(
          [&](long i) {
            const int copy = static_cast<int>(i % t->copies);
            if (Status s = run_tessel(p, t->tessel(copy), stream); !s) {
              throw ProfError(status_text(s) + " (launch " + std::to_string(i) + ")");
            }
          },
          stream, options.timing, note);
      if (!note.empty()) add_message(r, "tessel " + note);
    });
  }

  // cuDNN at its best: alpha and beta as tessel (beta reads its own output), no bias, no
  // activation.
  {
    CudnnRequest request;
    request.handle = context.cudnn;
    request.stream = stream;
    request.api = options.cudnn_api;
    request.plans = options.cudnn_plans;
    request.timing = options.timing;
    request.tolerance = conv_tolerance(p.plain(), p.input_type);
    const Reference* cudnn_reference = plain_reference ? plain_reference.get() : reference.get();
    if (cudnn_reference != nullptr) {
      request.error_of = [&](const void* out) {
        return cudnn_reference->error_of(out, p.input_type, out_count, stream);
      };
    }
    std::vector<ConvBuffers> copies;
    for (int c = 0; c < t->copies; ++c) copies.push_back(t->cudnn(p, c));
    const CudnnOutcome c = measure_cudnn(p, copies, request);
    r.cudnn = c.best;
    r.cudnn_legacy = c.legacy;
    r.cudnn_graph = c.graph;
    r.cudnn_algorithm = c.algorithm;
    r.cudnn_err = c.err;
    r.cudnn_candidates = c.candidates;
    r.notes = c.notes;
    for (const std::string& remark : c.remarks) add_message(r, remark);
    if (!c.error.empty()) {
      add_message(r, "cuDNN: " + c.error);
      failed = true;
    }
  }

  if (failed) {
    r.outcome = Outcome::kError;
  } else if (!r.max_err) {
    r.outcome = Outcome::kUnverified;
  } else if (*r.max_err <= r.tolerance) {
    r.outcome = Outcome::kPass;
  } else {
    r.outcome = Outcome::kFail;
    char text[96];
    std::snprintf(text, sizeof text, "max_err %.3e, tolerance %.3e", *r.max_err, r.tolerance);
    add_message(r, std::string("beyond the tolerance: ") + text);
  }
  return r;
}

}  // namespace tessel::prof
