// tessel-prof conv2d's host-side pieces as specifications: the default suite, the problem's
// sizes and text, the tolerance, the ratio summary and the report rows. No GPU needed.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "conv_bench.hpp"
#include "conv_problem.hpp"
#include "conv_report.hpp"
#include "conv_suite.hpp"
#include "verify.hpp"

namespace tessel::prof {
namespace {

ConvProblem stem(int n) {
  ConvProblem p;
  p.shape = {.n = n,
             .h = 224,
             .w = 224,
             .c = 3,
             .k = 64,
             .r = 7,
             .s = 7,
             .pad_h = 3,
             .pad_w = 3,
             .stride_h = 2,
             .stride_w = 2};
  return p;
}

std::size_t count_of(const std::string& text, char c) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), c));
}

TEST(ProfConvSuite, HoldsResNet50sLayersAtN32AndN128AllValid) {
  const std::vector<Conv2dProblem> shapes = default_conv_shapes();
  ASSERT_EQ(shapes.size(), 28u);
  EXPECT_EQ(shapes.front().n, 32);
  EXPECT_EQ(shapes.back().n, 128);
  for (const Conv2dProblem& s : shapes) EXPECT_TRUE(validate(s)) << validate(s).message();
}

TEST(ProfConvSuite, GivenNOnlyThatBatch) {
  const std::vector<Conv2dProblem> shapes = default_conv_shapes(64);
  ASSERT_EQ(shapes.size(), 14u);
  for (const Conv2dProblem& s : shapes) EXPECT_EQ(s.n, 64);
}

TEST(ProfConvSuite, StemIs224To112WithThreeChannels) {
  const Conv2dProblem s = default_conv_shapes().front();
  EXPECT_EQ(s.c, 3);
  EXPECT_EQ(s.p(), 112);
  EXPECT_EQ(s.q(), 112);
}

TEST(ProfConvProblem, FlopsAreTwoNPQKRSCOverGroups) {
  ConvProblem p = stem(32);
  EXPECT_EQ(p.y_elements(), 32LL * 112 * 112 * 64);
  EXPECT_EQ(p.reduction(), 7 * 7 * 3);
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 32 * 112 * 112 * 64 * 7 * 7 * 3);
  p.shape = {.n = 2,
             .h = 8,
             .w = 8,
             .c = 16,
             .k = 32,
             .r = 3,
             .s = 3,
             .pad_h = 1,
             .pad_w = 1,
             .groups = 2};
  EXPECT_EQ(p.w_elements(), 32 * 3 * 3 * 8);
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 2 * 8 * 8 * 32 * 3 * 3 * 8);
}

TEST(ProfConvProblem, TextNamesOnlyWhatDiffersFromTheDefault) {
  EXPECT_EQ(stem(32).shape_text(), "32x224x224x3 -> 64 7x7 pad 3 stride 2");
  ConvProblem p;
  p.shape = {.n = 1,
             .h = 9,
             .w = 9,
             .c = 4,
             .k = 4,
             .r = 3,
             .s = 3,
             .pad_h = 1,
             .pad_w = 2,
             .dilation_h = 2,
             .dilation_w = 2,
             .mode = ConvMode::kConvolution,
             .groups = 2};
  EXPECT_EQ(p.shape_text(), "1x9x9x4 -> 4 3x3 pad 1x2 dil 2 g 2 conv");
}

TEST(ProfConvTolerance, IsTheGemmToleranceWithKTheReductionRSCOverG) {
  ConvProblem p = stem(1);
  p.output_type = DataType::kF16;
  GemmProblem g;
  g.shape = {1, 1, 7 * 7 * 3};
  g.output_type = DataType::kF16;
  EXPECT_DOUBLE_EQ(conv_tolerance(p, p.output_type), tolerance(g));
  EXPECT_GT(conv_tolerance(p, DataType::kBF16), conv_tolerance(p, DataType::kF16));
}

TEST(ProfConvSummary, GeometricMeanAndMinimumOfTheRatios) {
  const RatioSummary s = summarize_ratios({2.0, 0.5, 1.0});
  EXPECT_EQ(s.count, 3);
  EXPECT_NEAR(s.geomean, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(s.min, 0.5);
  EXPECT_EQ(summarize_ratios({}).count, 0);
  EXPECT_EQ(summarize_ratios({0.0, NAN, INFINITY, 4.0}).count, 1);
}

ConvResult unimplemented_dgrad() {
  ConvResult r;
  r.problem = stem(32);
  r.problem.pass = ConvPass::kDgrad;
  r.message = "tessel: conv2d dgrad is not implemented yet (only fprop is)";
  return r;  // outcome kError, nothing timed
}

TEST(ProfConvReport, CsvRowsHaveTheHeadersColumnsAndSayError) {
  std::ostringstream out, notes;
  ConvReport report(ReportFormat::kCsv, out, notes);
  ConvRunInfo info;
  info.common = stem(32);
  report.begin(info);
  report.row(unimplemented_dgrad());
  report.end(info);
  std::istringstream lines(out.str());
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_EQ(count_of(header, ','), count_of(row, ','));
  EXPECT_NE(row.find(",dgrad,"), std::string::npos);
  EXPECT_NE(row.find(",ERROR,tessel: conv2d dgrad is not implemented yet"), std::string::npos);
  EXPECT_NE(notes.str().find("1 ERROR"), std::string::npos);
}

TEST(ProfConvReport, JsonHasNullForWhatWasNotMeasured) {
  std::ostringstream out, notes;
  ConvReport report(ReportFormat::kJson, out, notes);
  ConvRunInfo info;
  report.begin(info);
  report.row(unimplemented_dgrad());
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["status"], "ERROR");
  EXPECT_EQ(j["pass"], "dgrad");
  EXPECT_TRUE(j["tessel_us"].is_null());
  EXPECT_TRUE(j["ratio"].is_null());
  EXPECT_EQ(j["stride_h"], 2);
}

TEST(ProfConvReport, TableEndsWithTheRatiosGeometricMeanAndMinimum) {
  std::ostringstream out, notes;
  ConvReport report(ReportFormat::kTable, out, notes);
  ConvRunInfo info;
  info.common = stem(32);
  report.begin(info);
  ConvResult r;
  r.problem = stem(32);
  r.tessel = Timing{100.0, 10};
  r.cudnn = Timing{200.0, 10};
  r.max_err = 1e-7;
  r.outcome = Outcome::kPass;
  report.row(r);
  r.cudnn = Timing{50.0, 10};
  report.row(r);
  report.end(info);
  EXPECT_NE(out.str().find("2 PASS"), std::string::npos);
  EXPECT_NE(out.str().find("geometric mean 1.000, minimum 0.500"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace tessel::prof
