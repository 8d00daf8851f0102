// tessel-prof's host-side pieces as specifications: layout letters, the tolerance, the
// rotation count, the fp64 reference's error measure and the CSV rows. No GPU needed.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "host_reference.hpp"
#include "operands.hpp"
#include "problem.hpp"
#include "report.hpp"
#include "verify.hpp"

namespace tessel::prof {
namespace {

GemmProblem problem(int m, int n, int k, const std::string& layout) {
  GemmProblem p;
  p.shape = {m, n, k};
  p.layout = layout;
  return p;
}

TEST(ProfLayout, TnIsARowMajorAndBColumnMajorBothKContiguous) {
  const GemmArguments args =
      make_arguments(problem(64, 32, 16, "tn"), nullptr, nullptr, nullptr, nullptr, nullptr);
  EXPECT_EQ(args.a_layout, MatrixLayout::kRowMajor);
  EXPECT_EQ(args.lda, 16);
  EXPECT_EQ(args.b_layout, MatrixLayout::kColumnMajor);
  EXPECT_EQ(args.ldb, 16);
  EXPECT_EQ(args.d_layout, MatrixLayout::kColumnMajor);
  EXPECT_EQ(args.ldd, 64);
}

TEST(ProfLayout, NtIsAColumnMajorAndBRowMajor) {
  const GemmArguments args =
      make_arguments(problem(64, 32, 16, "nt"), nullptr, nullptr, nullptr, nullptr, nullptr);
  EXPECT_EQ(args.a_layout, MatrixLayout::kColumnMajor);
  EXPECT_EQ(args.lda, 64);
  EXPECT_EQ(args.b_layout, MatrixLayout::kRowMajor);
  EXPECT_EQ(args.ldb, 32);
}

TEST(ProfLayout, BatchesArePackedAndBetaZeroReadsNoC) {
  GemmProblem p = problem(8, 4, 2, "nn");
  p.batch = 3;
  int c = 0;
  const GemmArguments args = make_arguments(p, nullptr, nullptr, &c, nullptr, nullptr);
  EXPECT_EQ(args.a_batch_stride, 8 * 2);
  EXPECT_EQ(args.b_batch_stride, 2 * 4);
  EXPECT_EQ(args.d_batch_stride, 8 * 4);
  EXPECT_EQ(args.c, nullptr);
  p.beta = 0.5f;
  EXPECT_EQ(make_arguments(p, nullptr, nullptr, &c, nullptr, nullptr).c, &c);
}

TEST(ProfTolerance, GrowsWithSqrtKAndAddsTheOutputRounding) {
  GemmProblem p = problem(1, 1, 4096, "tn");
  const double f32 = 0x1p-23 * (2 * 64 + 8);
  EXPECT_DOUBLE_EQ(tolerance(p), f32);
  p.output_type = DataType::kF16;
  EXPECT_DOUBLE_EQ(tolerance(p), f32 + 0x1p-11);
  p.output_type = DataType::kBF16;
  EXPECT_DOUBLE_EQ(tolerance(p), f32 + 0x1p-8);
  p.activation = Activation::kGELU;
  EXPECT_DOUBLE_EQ(tolerance(p), f32 + 0x1p-8 + 0x1p-11);
}

TEST(ProfRotation, CopiesExceedTwiceTheL2UnlessOneCopyAlreadyDoes) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  EXPECT_EQ(rotation_copies(32 * kMiB, 50 * kMiB), 4);  // 128 MiB > 100 MiB
  EXPECT_EQ(rotation_copies(100 * kMiB, 50 * kMiB), 1);
  EXPECT_EQ(rotation_copies(99 * kMiB, 50 * kMiB), 2);
  EXPECT_EQ(rotation_copies(1, 0), 1);
}

// Logical A (M,K) and B (K,N) stored as `layout` says, and D = A B column-major in f32.
HostOperands exact_operands(const GemmProblem& p) {
  const auto [m, n, k] = p.shape;
  HostOperands h;
  h.a.resize(std::size_t(m) * k);
  h.b.resize(std::size_t(k) * n);
  h.d.resize(std::size_t(m) * n);
  auto a_value = [](int i, int kk) { return float((3 * i + 5 * kk) % 7 - 3); };
  auto b_value = [](int kk, int j) { return float((2 * kk + 3 * j) % 5 - 2) * 0.5f; };
  for (int i = 0; i < m; ++i) {
    for (int kk = 0; kk < k; ++kk) {
      h.a[p.a_transposed() ? i * p.lda() + kk : i + kk * p.lda()] = a_value(i, kk);
    }
  }
  for (int kk = 0; kk < k; ++kk) {
    for (int j = 0; j < n; ++j) {
      h.b[p.b_transposed() ? kk * p.ldb() + j : kk + j * p.ldb()] = b_value(kk, j);
    }
  }
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int kk = 0; kk < k; ++kk) sum += double(a_value(i, kk)) * b_value(kk, j);
      h.d[i + j * m] = float(sum);
    }
  }
  return h;
}

TEST(ProfHostReference, ExactResultHasNoErrorInEveryLayout) {
  for (const char* layout : {"tn", "nt", "nn", "tt"}) {
    const GemmProblem p = problem(5, 3, 7, layout);
    EXPECT_EQ(host_reference_error(p, exact_operands(p)), 0.0) << layout;
  }
}

TEST(ProfHostReference, OneWrongElementGivesItsDifferenceOverItsMagnitude) {
  const GemmProblem p = problem(1, 1, 2, "tn");
  HostOperands h;
  h.a = {1.0f, -2.0f};
  h.b = {3.0f, 4.0f};
  h.d = {-5.0f + 1.1f};  // 1*3 + (-2)*4 = -5, off by 1.1; |A||B| = 3 + 8 = 11
  EXPECT_NEAR(host_reference_error(p, h), 0.1, 1e-6);
}

TEST(ProfHostReference, EpilogueIsActOfAlphaABPlusBetaCPlusBias) {
  GemmProblem p = problem(1, 1, 1, "nn");
  p.alpha = 1.0f;
  p.beta = 0.5f;
  p.bias = true;
  p.activation = Activation::kReLU;
  HostOperands h;
  h.a = {2.0f};
  h.b = {3.0f};
  h.c = {1.0f};
  h.bias = {-10.0f};
  h.d = {0.0f};  // relu(6 + 0.5 - 10) = 0
  EXPECT_EQ(host_reference_error(p, h), 0.0);
  h.d = {1.65f};  // 1.65 / (6 + 0.5 + 10)
  EXPECT_NEAR(host_reference_error(p, h), 0.1, 1e-6);
}

TEST(ProfHostReference, NanInDIsAnInfiniteError) {
  const GemmProblem p = problem(1, 1, 1, "tn");
  const HostOperands h{{1.0f}, {1.0f}, {}, {}, {std::nanf("")}};
  EXPECT_TRUE(std::isinf(host_reference_error(p, h)));
}

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

TEST(ProfReport, CsvRowsHaveTheHeadersColumnsAndQuoteTheMessage) {
  BenchResult r;
  r.problem = problem(4096, 4096, 4096, "tn");
  r.problem.bias = true;
  r.problem.activation = Activation::kReLU;
  r.plan = GemmPlan{"128x128x32_s4_w2x2", "interior", "16B", false};
  r.copies = 1;
  r.tessel = Timing{1000.0, 50};
  r.cublas = Timing{900.0, 50};
  r.verification = Verification{1e-6, std::nullopt, 1.6e-5};
  r.outcome = Outcome::kError;
  r.message = "cuBLAS timing: a, b";
  std::ostringstream out;
  Report report(ReportFormat::kCsv, out);
  RunInfo info;
  info.common = r.problem;
  report.begin(info);
  report.row(r);
  std::istringstream lines(out.str());
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  const std::vector<std::string> names = csv_fields(header), values = csv_fields(row);
  ASSERT_EQ(names.size(), values.size()) << header << "\n" << row;
  auto value = [&](const std::string& name) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return values[i];
    }
    return std::string("<no column " + name + ">");
  };
  EXPECT_EQ(value("config"), "128x128x32_s4_w2x2");
  EXPECT_EQ(value("ratio"), "0.9000");
  EXPECT_EQ(value("tessel_tflops"), "137.44");
  EXPECT_EQ(value("fp64_err"), "");
  EXPECT_EQ(value("status"), "ERROR");
  EXPECT_EQ(value("cublas_excludes"), "bias+relu");
  EXPECT_EQ(value("message"), "cuBLAS timing: a, b");
}

TEST(ProfReport, JsonLinesHoldOneObjectPerProblemWithNullForWhatWasNotMeasured) {
  BenchResult r;
  r.problem = problem(16, 4096, 4096, "nt");
  r.outcome = Outcome::kError;
  r.message = "tessel: not supported: no kernel";
  r.cublas = Timing{20.0, 100};
  std::ostringstream out;
  Report report(ReportFormat::kJson, out);
  RunInfo info;
  info.common = r.problem;
  report.begin(info);
  report.row(r);
  report.row(r);
  report.end(info);
  std::istringstream lines(out.str());
  std::string line;
  int objects = 0;
  while (std::getline(lines, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_EQ(j["layout"], "nt");
    EXPECT_TRUE(j["tessel_us"].is_null());
    EXPECT_TRUE(j["config"].is_null());
    EXPECT_DOUBLE_EQ(j["cublas_us"].get<double>(), 20.0);
    EXPECT_EQ(j["status"], "ERROR");
    EXPECT_EQ(j["message"], "tessel: not supported: no kernel");
    ++objects;
  }
  EXPECT_EQ(objects, 2);
}

}  // namespace
}  // namespace tessel::prof
