// run_gemm_bench: the steps of one row, each failure recorded and the rest still attempted
// where it makes sense (cuBLAS is timed even when tessel refuses the problem).
#include "gemm_bench.hpp"

#include <cstdio>
#include <exception>
#include <memory>

#include "cublas_reference.hpp"
#include "cuda_check.hpp"
#include "operands.hpp"

namespace tessel::prof {
namespace {

std::string status_text(const Status& s) {
  return std::string(status_code_name(s.code())) + ": " + s.message();
}

void add_message(BenchResult& r, const std::string& text) {
  if (!r.message.empty()) r.message += "; ";
  r.message += text;
}

// Runs tessel once on copy 0 with D poisoned (0xFF bytes: NaN in f16, bf16 and f32), so an
// element the kernel does not write fails the comparison.
void run_verified_launch(const RotatingOperands& ops, cudaStream_t stream) {
  check_cuda(cudaMemsetAsync(ops.d(0), 0xFF, ops.d_bytes(), stream), "poisoning D");
  if (Status s = gemm(ops.arguments(0), stream); !s) throw ProfError(status_text(s));
  check_cuda(cudaStreamSynchronize(stream), "tessel::gemm (the verified launch)");
}

}  // namespace

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kPass:
      return "PASS";
    case Outcome::kFail:
      return "FAIL";
    case Outcome::kError:
      return "ERROR";
    case Outcome::kUnverified:
      return "-";
  }
  return "?";
}

BenchResult run_gemm_bench(const GemmProblem& p, const BenchOptions& options,
                           const BenchContext& context) {
  BenchResult r;
  r.problem = p;
  bool failed = false;
  std::unique_ptr<RotatingOperands> ops;
  try {
    ops = std::make_unique<RotatingOperands>(p, context.l2_bytes, options.seed, context.stream);
    r.copies = ops->copies();
  } catch (const std::exception& e) {
    r.message = std::string("operands: ") + e.what();
    return r;  // kError: nothing to measure without operands
  }

  // Each step records its failure as "<step>: <what>" and says whether it succeeded.
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

  const bool tessel_ok = attempt("tessel", [&] {
    GemmPlan plan;
    if (Status s = tessel::plan(ops->arguments(0), &plan); !s) throw ProfError(status_text(s));
    r.plan = plan;
    run_verified_launch(*ops, context.stream);
  });
  if (tessel_ok && options.verify) {
    attempt("verification",
            [&] { r.verification = verify_gemm(p, *ops, context.cublas, context.stream); });
  }
  if (tessel_ok) {
    attempt("tessel timing", [&] {
      r.tessel = time_launches(
          [&](long i) {
            if (Status s = gemm(ops->arguments(i % ops->copies()), context.stream); !s) {
              throw ProfError(status_text(s) + " (launch " + std::to_string(i) + ")");
            }
          },
          context.stream, options.timing);
    });
  }
  // cuBLAS: alpha and beta as tessel, in place on D (holding C); no bias, no activation.
  attempt("cuBLAS timing", [&] {
    ops->copy_c_into_d(context.stream);
    r.cublas = time_launches(
        [&](long i) {
          const int copy = static_cast<int>(i % ops->copies());
          cublas_gemm(context.cublas, p, ops->a(copy), ops->b(copy), ops->d(copy), p.output_type,
                      p.alpha, p.beta);
        },
        context.stream, options.timing);
  });

  if (failed) {
    r.outcome = Outcome::kError;
  } else if (!r.verification) {
    r.outcome = Outcome::kUnverified;
  } else if (r.verification->passed()) {
    r.outcome = Outcome::kPass;
  } else {
    r.outcome = Outcome::kFail;
    const Verification& v = *r.verification;
    char text[160];
    std::snprintf(text, sizeof text, "max_err %.3e, fp64_err %.3e, tolerance %.3e", v.max_err,
                  v.fp64_err.value_or(0.0), v.tolerance);
    add_message(r, std::string("beyond the tolerance: ") + text);
  }
  return r;
}

}  // namespace tessel::prof
