// tessel-prof conv2d's host-side pieces as specifications: the default suite, the problem's
// sizes and text for each pass, the command line's checks, tessel's arguments, the tolerance,
// the ratio summary and the report rows. No GPU needed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "conv_bench.hpp"
#include "conv_problem.hpp"
#include "conv_report.hpp"
#include "conv_suite.hpp"
#include "conv_test_problems.hpp"
#include "verify.hpp"

namespace tessel::prof {
namespace {

using test::count_of;
using test::grouped;
using test::stem;

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

// The other suites: every layer valid, the grouped and depthwise layers each network is
// known for, and the stems' outputs at the resolution the next layer takes.
TEST(ProfConvSuite, NetworksWithGroupedAndDepthwiseLayers) {
  EXPECT_EQ(conv_suite_names().front(), "resnet50");
  EXPECT_EQ(conv_suite_shapes("resnet50", 32).size(), default_conv_shapes(32).size());
  EXPECT_TRUE(conv_suite_shapes("vgg16").empty());
  const struct {
    const char* name;
    std::size_t layers;
    int grouped, depthwise, stem_p;
  } expected[] = {{"resnext50", 20, 7, 0, 112}, {"mobilenetv2", 30, 0, 10, 112}, {"convnext-t", 16, 0, 4, 56}};
  for (const auto& e : expected) {
    SCOPED_TRACE(e.name);
    const std::vector<Conv2dProblem> shapes = conv_suite_shapes(e.name);
    ASSERT_EQ(shapes.size(), 2 * e.layers);  // at N = 32 and N = 128
    EXPECT_EQ(shapes.front().n, 32);
    EXPECT_EQ(shapes.back().n, 128);
    int grouped = 0, depthwise = 0;
    for (std::size_t i = 0; i < e.layers; ++i) {
      const Conv2dProblem& s = shapes[i];
      EXPECT_TRUE(validate(s)) << validate(s).message();
      if (s.groups > 1 && s.groups == s.c && s.c == s.k) ++depthwise;
      else if (s.groups > 1) ++grouped;
    }
    EXPECT_EQ(grouped, e.grouped);
    EXPECT_EQ(depthwise, e.depthwise);
    EXPECT_EQ(shapes.front().p(), e.stem_p);
    EXPECT_EQ(conv_suite_shapes(e.name, 8).size(), e.layers);
  }
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

TEST(ProfConvPass, NamesComeBackFromTheCommandLine) {
  EXPECT_EQ(conv_pass_from("fprop"), ConvPass::kFprop);
  EXPECT_EQ(conv_pass_from("dgrad"), ConvPass::kDgrad);
  EXPECT_EQ(conv_pass_from("wgrad"), ConvPass::kWgrad);
  for (ConvPass pass : {ConvPass::kFprop, ConvPass::kDgrad, ConvPass::kWgrad}) {
    EXPECT_EQ(conv_pass_from(conv_pass_name(pass)), pass);
  }
}

TEST(ProfConvPass, EachPassWritesItsOwnTensor) {
  const ConvProblem f = grouped(ConvPass::kFprop), d = grouped(ConvPass::kDgrad),
                    w = grouped(ConvPass::kWgrad);
  EXPECT_EQ(f.output_role(), ConvRole::kY);
  EXPECT_EQ(d.output_role(), ConvRole::kX);
  EXPECT_EQ(w.output_role(), ConvRole::kW);
  EXPECT_EQ(f.output_elements(), 2 * 5 * 5 * 32);
  EXPECT_EQ(d.output_elements(), 2 * 9 * 10 * 16);
  EXPECT_EQ(w.output_elements(), 32 * 3 * 3 * 8);
  EXPECT_STREQ(conv_role_name(ConvRole::kX, ConvPass::kDgrad), "dX");
  EXPECT_STREQ(conv_role_name(ConvRole::kY, ConvPass::kWgrad), "dY");
  EXPECT_STREQ(conv_role_name(ConvRole::kW, ConvPass::kFprop), "W");
}

TEST(ProfConvPass, InputsAreInputTypeAndTheOutputIsOutputType) {
  ConvProblem d = grouped(ConvPass::kDgrad);
  d.input_type = DataType::kBF16;
  d.output_type = DataType::kF32;
  EXPECT_EQ(d.type_of(ConvRole::kX), DataType::kF32);
  EXPECT_EQ(d.type_of(ConvRole::kW), DataType::kBF16);
  EXPECT_EQ(d.type_of(ConvRole::kY), DataType::kBF16);
}

TEST(ProfConvPass, TheReductionIsRSCOverGThenRSKOverGThenNPQ) {
  EXPECT_EQ(grouped(ConvPass::kFprop).reduction(), 3 * 3 * 8);
  EXPECT_EQ(grouped(ConvPass::kDgrad).reduction(), 3 * 3 * 16);
  EXPECT_EQ(grouped(ConvPass::kWgrad).reduction(), 2 * 5 * 5);
}

TEST(ProfConvPass, FlopsAreTheSameForEveryPass) {
  const double flops = 2.0 * 2 * 5 * 5 * 32 * 3 * 3 * 8;
  for (ConvPass pass : {ConvPass::kFprop, ConvPass::kDgrad, ConvPass::kWgrad}) {
    EXPECT_DOUBLE_EQ(grouped(pass).flops(), flops) << conv_pass_name(pass);
  }
}

TEST(ProfConvPass, BiasHasKValuesInFpropCInDgradNoneInWgrad) {
  for (ConvPass pass : {ConvPass::kFprop, ConvPass::kDgrad, ConvPass::kWgrad}) {
    ConvProblem p = grouped(pass);
    EXPECT_EQ(p.bias_elements(), 0);
    p.bias = true;
    EXPECT_EQ(p.bias_elements(),
              pass == ConvPass::kFprop ? 32 : (pass == ConvPass::kDgrad ? 16 : 0));
  }
}

TEST(ProfConvPass, OnlyFpropHasASeparateResidual) {
  EXPECT_FALSE(grouped(ConvPass::kFprop).residual_is_output());
  EXPECT_TRUE(grouped(ConvPass::kDgrad).residual_is_output());
  EXPECT_TRUE(grouped(ConvPass::kWgrad).residual_is_output());
}

TEST(ProfConvPass, PlainKeepsAlphaAndDropsTheRestOfTheEpilogue) {
  ConvProblem p = grouped(ConvPass::kDgrad);
  p.alpha = 2;
  p.beta = 0.5f;
  p.bias = true;
  p.activation = Activation::kGELU;
  EXPECT_FALSE(p.is_plain());
  const ConvProblem plain = p.plain();
  EXPECT_TRUE(plain.is_plain());
  EXPECT_EQ(plain.alpha, 2);
  EXPECT_EQ(plain.pass, ConvPass::kDgrad);
}

TEST(ProfConvEpilogue, WgradRefusesBiasAndActivationWithTheReason) {
  const auto bias = epilogue_error(ConvPass::kWgrad, true, Activation::kNone);
  ASSERT_TRUE(bias);
  EXPECT_NE(bias->find("--bias does not apply to --mode wgrad"), std::string::npos) << *bias;
  const auto act = epilogue_error(ConvPass::kWgrad, false, Activation::kReLU);
  ASSERT_TRUE(act);
  EXPECT_NE(act->find("--activation does not apply to --mode wgrad"), std::string::npos) << *act;
  EXPECT_FALSE(epilogue_error(ConvPass::kWgrad, false, Activation::kNone));
}

TEST(ProfConvEpilogue, FpropAndDgradTakeBiasAndActivation) {
  EXPECT_FALSE(epilogue_error(ConvPass::kFprop, true, Activation::kGELU));
  EXPECT_FALSE(epilogue_error(ConvPass::kDgrad, true, Activation::kReLU));
}

// Distinct, aligned, never dereferenced addresses for the argument tests.
ConvBuffers fake_buffers() {
  auto at = [](std::uintptr_t a) { return reinterpret_cast<void*>(a); };
  return {at(0x10000000), at(0x20000000), at(0x30000000), at(0x40000000), at(0x50000000)};
}

TEST(ProfConvArguments, DgradReadsDyAndWAndWritesXItsOwnResidual) {
  ConvProblem p = grouped(ConvPass::kDgrad);
  p.beta = 1;
  p.bias = true;
  p.activation = Activation::kReLU;
  const ConvBuffers b = fake_buffers();
  const Conv2dDgradArguments a = make_dgrad_arguments(p, b);
  EXPECT_EQ(a.dy, b.y);
  EXPECT_EQ(a.w, b.w);
  EXPECT_EQ(a.dx, b.x);
  EXPECT_EQ(a.residual, b.x);
  EXPECT_EQ(a.bias, b.bias);
  EXPECT_EQ(a.activation, Activation::kReLU);
  EXPECT_TRUE(validate_tessel(p, b)) << validate_tessel(p, b).message();
}

TEST(ProfConvArguments, WgradReadsDyAndXAndWritesWItsOwnResidual) {
  ConvProblem p = grouped(ConvPass::kWgrad);
  p.beta = 1;
  const ConvBuffers b = fake_buffers();
  const Conv2dWgradArguments a = make_wgrad_arguments(p, b);
  EXPECT_EQ(a.dy, b.y);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.dw, b.w);
  EXPECT_EQ(a.residual, b.w);
  EXPECT_TRUE(validate_tessel(p, b)) << validate_tessel(p, b).message();
}

TEST(ProfConvArguments, WithoutBetaNoResidualIsPassed) {
  const ConvBuffers b = fake_buffers();
  EXPECT_EQ(make_fprop_arguments(grouped(ConvPass::kFprop), b).residual, nullptr);
  EXPECT_EQ(make_dgrad_arguments(grouped(ConvPass::kDgrad), b).residual, nullptr);
  EXPECT_EQ(make_wgrad_arguments(grouped(ConvPass::kWgrad), b).residual, nullptr);
  EXPECT_EQ(make_dgrad_arguments(grouped(ConvPass::kDgrad), b).bias, nullptr);
}

TEST(ProfConvArguments, FpropKeepsItsSeparateResidual) {
  ConvProblem p = grouped(ConvPass::kFprop);
  p.beta = 0.5f;
  const ConvBuffers b = fake_buffers();
  EXPECT_EQ(make_fprop_arguments(p, b).residual, b.residual);
  EXPECT_TRUE(validate_tessel(p, b)) << validate_tessel(p, b).message();
}

TEST(ProfConvTolerance, WgradGrowsWithTheSumOverNPQ) {
  ConvProblem p = grouped(ConvPass::kWgrad);
  p.output_type = DataType::kF32;
  GemmProblem g;
  g.shape = {1, 1, 2 * 5 * 5};
  g.output_type = DataType::kF32;
  EXPECT_DOUBLE_EQ(conv_tolerance(p, DataType::kF32), tolerance(g));
  ConvProblem larger = p;
  larger.shape.n = 200;
  EXPECT_GT(conv_tolerance(larger, DataType::kF32), conv_tolerance(p, DataType::kF32));
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

ConvResult refused_dgrad() {
  ConvResult r;
  r.problem = stem(32);
  r.problem.pass = ConvPass::kDgrad;
  r.message = "cuDNN: legacy: CUDNN_STATUS_BAD_PARAM; graph: no execution plan";
  return r;  // outcome kError, nothing timed
}

TEST(ProfConvReport, CsvRowsHaveTheHeadersColumnsAndSayError) {
  std::ostringstream out, notes;
  ConvReport report(ReportFormat::kCsv, out, notes);
  ConvRunInfo info;
  info.common = stem(32);
  report.begin(info);
  report.row(refused_dgrad());
  report.end(info);
  std::istringstream lines(out.str());
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_EQ(count_of(header, ','), count_of(row, ','));
  EXPECT_NE(row.find(",dgrad,"), std::string::npos);
  EXPECT_NE(row.find(",ERROR,cuDNN: legacy: CUDNN_STATUS_BAD_PARAM; graph:"), std::string::npos);
  EXPECT_NE(notes.str().find("1 ERROR"), std::string::npos);
}

TEST(ProfConvReport, JsonHasNullForWhatWasNotMeasured) {
  std::ostringstream out, notes;
  ConvReport report(ReportFormat::kJson, out, notes);
  ConvRunInfo info;
  report.begin(info);
  report.row(refused_dgrad());
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
