// Report: one row type, three renderings (report.hpp lists the columns).
#include "report.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "report_text.hpp"

namespace tessel::prof {
namespace {

constexpr const char* kCsvHeader =
    "m,n,k,batch,layout,dtype,out,alpha,beta,bias,activation,config,variant,access,swapped,"
    "copies,tessel_us,tessel_tflops,cublas_us,cublas_tflops,ratio,max_err,fp64_err,tolerance,"
    "status,cublas_excludes,message";

// The row's numbers, each present only when measured.
struct RowValues {
  std::optional<double> tessel_us, tessel_tflops, cublas_us, cublas_tflops, ratio;
  std::optional<double> max_err, fp64_err, tolerance;
};

RowValues values_of(const BenchResult& r) {
  RowValues v;
  if (r.tessel) {
    v.tessel_us = r.tessel->median_us;
    v.tessel_tflops = r.tflops(*r.tessel);
  }
  if (r.cublas) {
    v.cublas_us = r.cublas->median_us;
    v.cublas_tflops = r.tflops(*r.cublas);
  }
  if (r.tessel && r.cublas) v.ratio = r.cublas->median_us / r.tessel->median_us;
  if (r.verification) {
    v.max_err = r.verification->max_err;
    v.fp64_err = r.verification->fp64_err;
    v.tolerance = r.verification->tolerance;
  }
  return v;
}

// "128x128x32_s4_w2x2/edge/16B" (+ "/swapped"), or "-" without a plan.
std::string plan_text(const BenchResult& r) {
  if (!r.plan) return "-";
  std::string text = r.plan->config + "/" + r.plan->variant + "/" + r.plan->access;
  if (r.plan->swapped) text += "/swapped";
  return text;
}

void table_header(std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line,
                "%6s %6s %6s %5s %3s %4s %4s  %-40s %10s %7s %10s %7s %6s %8s %8s  %s\n", "M", "N",
                "K", "batch", "lay", "in", "out", "config/variant/access", "tessel_us", "TFLOP/s",
                "cublas_us", "TFLOP/s", "ratio", "max_err", "fp64_err", "status");
  out << line;
}

void table_row(std::ostream& out, const BenchResult& r) {
  const GemmProblem& p = r.problem;
  const RowValues v = values_of(r);
  char line[512];
  std::snprintf(
      line, sizeof line, "%6d %6d %6d %5d %3s %4s %4s  %-40s %10s %7s %10s %7s %6s %8s %8s  %s",
      p.shape.m, p.shape.n, p.shape.k, p.batch, p.layout.c_str(), data_type_name(p.input_type),
      data_type_name(p.output_type), plan_text(r).c_str(),
      number_or(v.tessel_us, "%.2f", "-").c_str(), number_or(v.tessel_tflops, "%.1f", "-").c_str(),
      number_or(v.cublas_us, "%.2f", "-").c_str(), number_or(v.cublas_tflops, "%.1f", "-").c_str(),
      number_or(v.ratio, "%.3f", "-").c_str(), number_or(v.max_err, "%.1e", "-").c_str(),
      number_or(v.fp64_err, "%.1e", "-").c_str(), outcome_name(r.outcome));
  out << line;
  if (r.outcome == Outcome::kFail)
    out << " (tolerance " << format_number("%.1e", *v.tolerance) << ")";
  if (!r.message.empty() && r.outcome != Outcome::kFail) out << "  " << r.message;
  out << "\n";
}

void csv_row(std::ostream& out, const BenchResult& r) {
  const GemmProblem& p = r.problem;
  const RowValues v = values_of(r);
  out << p.shape.m << ',' << p.shape.n << ',' << p.shape.k << ',' << p.batch << ',' << p.layout
      << ',' << data_type_name(p.input_type) << ',' << data_type_name(p.output_type) << ','
      << format_number("%g", p.alpha) << ',' << format_number("%g", p.beta) << ','
      << (p.bias ? 1 : 0) << ',' << activation_name(p.activation) << ','
      << (r.plan ? r.plan->config : "") << ',' << (r.plan ? r.plan->variant : "") << ','
      << (r.plan ? r.plan->access : "") << ',' << (r.plan ? (r.plan->swapped ? "1" : "0") : "")
      << ',' << r.copies << ',' << number_or(v.tessel_us, "%.3f", "") << ','
      << number_or(v.tessel_tflops, "%.2f", "") << ',' << number_or(v.cublas_us, "%.3f", "") << ','
      << number_or(v.cublas_tflops, "%.2f", "") << ',' << number_or(v.ratio, "%.4f", "") << ','
      << number_or(v.max_err, "%.3e", "") << ',' << number_or(v.fp64_err, "%.3e", "") << ','
      << number_or(v.tolerance, "%.3e", "") << ',' << outcome_name(r.outcome) << ','
      << cublas_excludes(p) << ',' << csv_quoted(r.message) << "\n";
}

void json_row(std::ostream& out, const BenchResult& r) {
  const GemmProblem& p = r.problem;
  const RowValues v = values_of(r);
  auto or_null = [](const std::optional<double>& x) {
    return x ? nlohmann::ordered_json(*x) : nlohmann::ordered_json(nullptr);
  };
  nlohmann::ordered_json j;
  j["m"] = p.shape.m;
  j["n"] = p.shape.n;
  j["k"] = p.shape.k;
  j["batch"] = p.batch;
  j["layout"] = p.layout;
  j["dtype"] = data_type_name(p.input_type);
  j["out"] = data_type_name(p.output_type);
  j["alpha"] = p.alpha;
  j["beta"] = p.beta;
  j["bias"] = p.bias;
  j["activation"] = activation_name(p.activation);
  j["config"] = r.plan ? nlohmann::ordered_json(r.plan->config) : nullptr;
  j["variant"] = r.plan ? nlohmann::ordered_json(r.plan->variant) : nullptr;
  j["access"] = r.plan ? nlohmann::ordered_json(r.plan->access) : nullptr;
  j["swapped"] = r.plan ? nlohmann::ordered_json(r.plan->swapped) : nullptr;
  j["copies"] = r.copies;
  j["tessel_us"] = or_null(v.tessel_us);
  j["tessel_tflops"] = or_null(v.tessel_tflops);
  j["cublas_us"] = or_null(v.cublas_us);
  j["cublas_tflops"] = or_null(v.cublas_tflops);
  j["ratio"] = or_null(v.ratio);
  j["max_err"] = or_null(v.max_err);
  j["fp64_err"] = or_null(v.fp64_err);
  j["tolerance"] = or_null(v.tolerance);
  j["status"] = outcome_name(r.outcome);
  j["cublas_excludes"] = cublas_excludes(p);
  j["message"] = r.message;
  // An infinite error (NaN left in D) has no JSON number and is written as null; the FAIL
  // message then says "inf".
  out << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace

std::string cublas_excludes(const GemmProblem& p) {
  std::string text;
  if (p.bias) text = "bias";
  if (p.activation != Activation::kNone) {
    if (!text.empty()) text += '+';
    text += activation_name(p.activation);
  }
  return text;
}

void Report::begin(const RunInfo& info) {
  if (format_ == ReportFormat::kCsv) out_ << kCsvHeader << "\n";
  if (format_ != ReportFormat::kTable) return;
  const GemmProblem& p = info.common;
  out_ << "tessel-prof gemm on " << info.device << "; cuBLAS " << info.cublas_version << "\n"
       << "epilogue: alpha " << format_number("%g", p.alpha) << ", beta "
       << format_number("%g", p.beta) << ", bias " << (p.bias ? "yes" : "no") << ", activation "
       << activation_name(p.activation) << "; times: median of " << info.options.timing.repeats
       << " timed batches, operands rotated past 2 x L2"
       << (info.options.timing.graph ? ", launches in a CUDA graph" : "") << "\n\n";
  table_header(out_);
}

void Report::row(const BenchResult& r) {
  ++rows_;
  passed_ += r.outcome == Outcome::kPass;
  failed_ += r.outcome == Outcome::kFail;
  errors_ += r.outcome == Outcome::kError;
  switch (format_) {
    case ReportFormat::kTable:
      table_row(out_, r);
      break;
    case ReportFormat::kCsv:
      csv_row(out_, r);
      break;
    case ReportFormat::kJson:
      json_row(out_, r);
      break;
  }
  out_.flush();
}

void Report::end(const RunInfo& info) {
  if (format_ != ReportFormat::kTable) return;
  out_ << "\n"
       << rows_ << " problem(s): " << passed_ << " PASS, " << failed_ << " FAIL, " << errors_
       << " ERROR" << (info.options.verify ? "" : " (not verified: --no-verify)") << "\n"
       << "max_err: max |d - ref| / (|alpha| |A||B| + |beta C| + |bias|), ref from cuBLAS in "
          "f32; fp64_err: the same against an fp64 host GEMM (problems up to 2^30 "
          "multiply-adds)\n"
       << "PASS when both are within 2^-23 (2 sqrt(K) + 8) + u_out (2^-11 f16, 2^-8 bf16) "
          "(+ 2^-11 with GELU)\n";
  const std::string excluded = cublas_excludes(info.common);
  if (!excluded.empty()) {
    out_ << "cuBLAS times exclude " << excluded
         << ": cuBLAS cannot fuse them (alpha and beta are the same)\n";
  }
}

}  // namespace tessel::prof
