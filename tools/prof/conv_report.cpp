// ConvReport: one row type, three renderings (conv_report.hpp lists the columns).
#include "conv_report.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "report_text.hpp"

namespace tessel::prof {
namespace {

constexpr const char* kCsvHeader =
    "n,h,w,c,k,r,s,pad_h,pad_w,stride_h,stride_w,dilation_h,dilation_w,groups,mode,pass,dtype,"
    "out,alpha,beta,bias,activation,copies,cudnn_algo,tessel_us,tessel_tflops,cudnn_us,"
    "cudnn_tflops,cudnn_legacy_us,cudnn_graph_us,ratio,max_err,tolerance,cudnn_err,status,message";

struct RowValues {
  std::optional<double> tessel_us, tessel_tflops, cudnn_us, cudnn_tflops, ratio;
  std::optional<double> cudnn_legacy_us, cudnn_graph_us;
};

RowValues values_of(const ConvResult& r) {
  RowValues v;
  if (r.tessel) {
    v.tessel_us = r.tessel->median_us;
    v.tessel_tflops = r.tflops(*r.tessel);
  }
  if (r.cudnn) {
    v.cudnn_us = r.cudnn->median_us;
    v.cudnn_tflops = r.tflops(*r.cudnn);
  }
  if (r.cudnn_legacy) v.cudnn_legacy_us = r.cudnn_legacy->median_us;
  if (r.cudnn_graph) v.cudnn_graph_us = r.cudnn_graph->median_us;
  if (r.tessel && r.cudnn) v.ratio = r.cudnn->median_us / r.tessel->median_us;
  return v;
}

const char* mode_name(ConvMode m) { return m == ConvMode::kConvolution ? "conv" : "xcorr"; }

// cuDNN's pick, never empty in a table or CSV cell; no commas (CSV cells stay unquoted).
std::string algorithm_cell(const ConvResult& r) {
  std::string a = r.cudnn_algorithm.empty() ? "-" : r.cudnn_algorithm;
  for (char& ch : a) {
    if (ch == ',') ch = ';';
  }
  return a;
}

constexpr const char* kTableFormat =
    "%4s %4s %4s %5s %5s %3s %3s %5s %6s %4s %4s %5s %5s %4s %4s %10s %7s %10s %7s %6s %9s %9s  "
    "%-6s %s";

void table_header(std::ostream& out) {
  char line[320];
  std::snprintf(line, sizeof line, kTableFormat, "N", "H", "W", "C", "K", "R", "S", "pad", "stride",
                "dil", "grp", "mode", "pass", "in", "out", "tessel_us", "TFLOP/s", "cudnn_us",
                "TFLOP/s", "ratio", "max_err", "cudnn_err", "status", "cudnn_algo");
  out << line << "\n";
}

void table_row(std::ostream& out, const ConvResult& r) {
  const Conv2dProblem& s = r.problem.shape;
  const RowValues v = values_of(r);
  auto i = [](int x) { return std::to_string(x); };
  char line[768];
  std::snprintf(
      line, sizeof line, kTableFormat, i(s.n).c_str(), i(s.h).c_str(), i(s.w).c_str(),
      i(s.c).c_str(), i(s.k).c_str(), i(s.r).c_str(), i(s.s).c_str(),
      pair_text(s.pad_h, s.pad_w).c_str(), pair_text(s.stride_h, s.stride_w).c_str(),
      pair_text(s.dilation_h, s.dilation_w).c_str(), i(s.groups).c_str(), mode_name(s.mode),
      conv_pass_name(r.problem.pass), data_type_name(r.problem.input_type),
      data_type_name(r.problem.output_type), number_or(v.tessel_us, "%.2f", "-").c_str(),
      number_or(v.tessel_tflops, "%.1f", "-").c_str(), number_or(v.cudnn_us, "%.2f", "-").c_str(),
      number_or(v.cudnn_tflops, "%.1f", "-").c_str(), number_or(v.ratio, "%.3f", "-").c_str(),
      number_or(r.max_err, "%.1e", "-").c_str(), number_or(r.cudnn_err, "%.1e", "-").c_str(),
      outcome_name(r.outcome), algorithm_cell(r).c_str());
  out << line;
  if (!r.message.empty()) out << "  " << r.message;
  out << "\n";
}

void csv_row(std::ostream& out, const ConvResult& r) {
  const ConvProblem& p = r.problem;
  const Conv2dProblem& s = p.shape;
  const RowValues v = values_of(r);
  out << s.n << ',' << s.h << ',' << s.w << ',' << s.c << ',' << s.k << ',' << s.r << ',' << s.s
      << ',' << s.pad_h << ',' << s.pad_w << ',' << s.stride_h << ',' << s.stride_w << ','
      << s.dilation_h << ',' << s.dilation_w << ',' << s.groups << ',' << mode_name(s.mode) << ','
      << conv_pass_name(p.pass) << ',' << data_type_name(p.input_type) << ','
      << data_type_name(p.output_type) << ',' << format_number("%g", p.alpha) << ','
      << format_number("%g", p.beta) << ',' << (p.bias ? 1 : 0) << ','
      << activation_name(p.activation) << ',' << r.copies << ',' << algorithm_cell(r) << ','
      << number_or(v.tessel_us, "%.3f", "") << ',' << number_or(v.tessel_tflops, "%.2f", "") << ','
      << number_or(v.cudnn_us, "%.3f", "") << ',' << number_or(v.cudnn_tflops, "%.2f", "") << ','
      << number_or(v.cudnn_legacy_us, "%.3f", "") << ',' << number_or(v.cudnn_graph_us, "%.3f", "")
      << ',' << number_or(v.ratio, "%.4f", "") << ',' << number_or(r.max_err, "%.3e", "") << ','
      << format_number("%.3e", r.tolerance) << ',' << number_or(r.cudnn_err, "%.3e", "") << ','
      << outcome_name(r.outcome) << ',' << csv_quoted(r.message) << "\n";
}

nlohmann::ordered_json or_null(const std::optional<double>& x) {
  return x ? nlohmann::ordered_json(*x) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json candidates_json(const ConvResult& r) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const CudnnCandidate& c : r.cudnn_candidates) {
    nlohmann::ordered_json j;
    j["name"] = c.name;
    j["us"] = or_null(c.us);
    j["err"] = or_null(c.err);
    j["workspace"] = c.workspace;
    j["excluded"] = c.excluded;
    list.push_back(j);
  }
  return list;
}

void json_row(std::ostream& out, const ConvResult& r) {
  const ConvProblem& p = r.problem;
  const Conv2dProblem& s = p.shape;
  const RowValues v = values_of(r);
  nlohmann::ordered_json j;
  j["n"] = s.n;
  j["h"] = s.h;
  j["w"] = s.w;
  j["c"] = s.c;
  j["k"] = s.k;
  j["r"] = s.r;
  j["s"] = s.s;
  j["pad_h"] = s.pad_h;
  j["pad_w"] = s.pad_w;
  j["stride_h"] = s.stride_h;
  j["stride_w"] = s.stride_w;
  j["dilation_h"] = s.dilation_h;
  j["dilation_w"] = s.dilation_w;
  j["groups"] = s.groups;
  j["mode"] = mode_name(s.mode);
  j["pass"] = conv_pass_name(p.pass);
  j["dtype"] = data_type_name(p.input_type);
  j["out"] = data_type_name(p.output_type);
  j["alpha"] = p.alpha;
  j["beta"] = p.beta;
  j["bias"] = p.bias;
  j["activation"] = activation_name(p.activation);
  j["copies"] = r.copies;
  j["cudnn_algo"] = r.cudnn_algorithm;
  j["tessel_us"] = or_null(v.tessel_us);
  j["tessel_tflops"] = or_null(v.tessel_tflops);
  j["cudnn_us"] = or_null(v.cudnn_us);
  j["cudnn_tflops"] = or_null(v.cudnn_tflops);
  j["cudnn_legacy_us"] = or_null(v.cudnn_legacy_us);
  j["cudnn_graph_us"] = or_null(v.cudnn_graph_us);
  j["ratio"] = or_null(v.ratio);
  j["max_err"] = or_null(r.max_err);
  j["tolerance"] = r.tolerance;
  j["cudnn_err"] = or_null(r.cudnn_err);
  j["status"] = outcome_name(r.outcome);
  j["message"] = r.message;
  j["cudnn_candidates"] = candidates_json(r);
  // An infinite error (NaN left in the output) has no JSON number: null, and the message
  // says "inf".
  out << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

// --verbose: cuDNN's candidates of one row, one per line.
void candidate_lines(std::ostream& out, const ConvResult& r) {
  out << "tessel-prof: cuDNN's candidates for " << r.problem.shape_text() << " "
      << conv_pass_name(r.problem.pass) << " (chosen: " << algorithm_cell(r) << ")\n";
  for (const CudnnCandidate& c : r.cudnn_candidates) {
    out << "  " << c.name << "  us " << number_or(c.us, "%.2f", "-") << "  err "
        << number_or(c.err, "%.1e", "-") << "  workspace " << c.workspace;
    if (!c.excluded.empty()) out << "  excluded: " << c.excluded;
    out << "\n";
  }
}

}  // namespace

RatioSummary summarize_ratios(const std::vector<double>& ratios) {
  RatioSummary s;
  double log_sum = 0;
  for (double x : ratios) {
    if (!(x > 0) || !std::isfinite(x)) continue;
    s.min = s.count == 0 ? x : std::min(s.min, x);
    log_sum += std::log(x);
    ++s.count;
  }
  if (s.count > 0) s.geomean = std::exp(log_sum / s.count);
  return s;
}

void ConvReport::begin(const ConvRunInfo& info) {
  verbose_ = info.options.verbose;
  if (format_ == ReportFormat::kCsv) out_ << kCsvHeader << "\n";
  if (format_ != ReportFormat::kTable) return;
  const ConvProblem& p = info.common;
  out_ << "tessel-prof conv2d on " << info.device << "; cuDNN " << info.cudnn_version << "\n"
       << "epilogue: alpha " << format_number("%g", p.alpha) << ", beta "
       << format_number("%g", p.beta) << ", bias " << (p.bias ? "yes" : "no") << ", activation "
       << activation_name(p.activation) << "; times: median of " << info.options.timing.repeats
       << " timed batches, tensors rotated past 2 x L2"
       << (info.options.timing.graph ? ", launches in a CUDA graph" : ", launches from the host")
       << "\n\n";
  table_header(out_);
}

void ConvReport::row(const ConvResult& r) {
  ++rows_;
  passed_ += r.outcome == Outcome::kPass;
  failed_ += r.outcome == Outcome::kFail;
  errors_ += r.outcome == Outcome::kError;
  if (r.tessel && r.cudnn) ratios_.push_back(r.cudnn->median_us / r.tessel->median_us);
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
  for (const std::string& note : r.notes) notes_ << "tessel-prof: " << note << "\n";
  if (verbose_) candidate_lines(notes_, r);
  notes_.flush();
}

void ConvReport::end(const ConvRunInfo& info) {
  std::ostream& out = format_ == ReportFormat::kTable ? out_ : notes_;
  const RatioSummary ratio = summarize_ratios(ratios_);
  out << (format_ == ReportFormat::kTable ? "\n" : "") << rows_ << " problem(s): " << passed_
      << " PASS, " << failed_ << " FAIL, " << errors_ << " ERROR"
      << (info.options.verify ? "" : " (not verified: --no-verify)") << "\n";
  if (ratio.count > 0) {
    out << "cudnn_us / tessel_us over " << ratio.count << " problem(s): geometric mean "
        << format_number("%.3f", ratio.geomean) << ", minimum " << format_number("%.3f", ratio.min)
        << " (above 1: tessel is faster)\n";
  }
  if (format_ != ReportFormat::kTable) return;
  out_ << "max_err: max |out - ref| / (|alpha| sum |products| + |beta R| + |bias|), ref a direct "
          "fp64 convolution on the GPU; cudnn_err: cuDNN's 16-bit output (alpha only) against "
          "it\n"
       << "PASS when max_err is within 2^-23 (2 sqrt(L) + 8) + u_out (2^-11 f16, 2^-8 bf16) "
          "(+ 2^-11 with GELU), L = R S C/G (fprop), R S K/G (dgrad), N P Q (wgrad)\n"
       << "cuDNN: the faster of the legacy API's FindEx pick and the graph API's fastest "
          "verified plan (cudnn_algo)\n";
  const ConvProblem& p = info.common;
  if (p.bias || p.activation != Activation::kNone) {
    out_ << "cuDNN times exclude bias / activation (alpha and beta are the same)\n";
  }
}

}  // namespace tessel::prof
