// tessel-prof's cuDNN side as specifications, without a GPU: the names of the legacy
// algorithms and the graph API's configurations, the backend tensors' dimensions and strides,
// the --cudnn names, and how the report shows cuDNN's pick, each API's time, the candidates
// and the notes.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "conv_bench.hpp"
#include "conv_report.hpp"
#include "conv_test_problems.hpp"
#include "cudnn_best.hpp"
#include "cudnn_graph.hpp"
#include "cudnn_legacy.hpp"

namespace tessel::prof {
namespace {

using test::count_of;
using test::grouped;

TEST(ProfCudnnApi, NamesComeBackFromTheCommandLine) {
  EXPECT_EQ(cudnn_api_from("best"), CudnnApi::kBest);
  EXPECT_EQ(cudnn_api_from("legacy"), CudnnApi::kLegacy);
  EXPECT_EQ(cudnn_api_from("graph"), CudnnApi::kGraph);
}

TEST(ProfCudnnLegacy, AlgorithmNamesDependOnThePass) {
  EXPECT_STREQ(
      legacy_algorithm_name(ConvPass::kFprop, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM),
      "IMPLICIT_PRECOMP_GEMM");
  EXPECT_STREQ(legacy_algorithm_name(ConvPass::kDgrad, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1),
               "ALGO_1");
  EXPECT_STREQ(legacy_algorithm_name(ConvPass::kWgrad, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3),
               "ALGO_3");
  EXPECT_STREQ(legacy_algorithm_name(ConvPass::kDgrad, 99), "?");
}

TEST(ProfCudnnGraph, TensorsAreNchwDimensionsOverNhwcMemory) {
  const ConvProblem p = grouped(ConvPass::kFprop);
  const BackendTensorShape x = backend_tensor_shape(p, ConvRole::kX);
  EXPECT_EQ(x.dims, (std::array<std::int64_t, 4>{2, 16, 9, 10}));
  EXPECT_EQ(x.strides, (std::array<std::int64_t, 4>{9 * 10 * 16, 1, 10 * 16, 16}));
  const BackendTensorShape y = backend_tensor_shape(p, ConvRole::kY);
  EXPECT_EQ(y.dims, (std::array<std::int64_t, 4>{2, 32, 5, 5}));
  EXPECT_EQ(y.strides, (std::array<std::int64_t, 4>{5 * 5 * 32, 1, 5 * 32, 32}));
}

TEST(ProfCudnnGraph, FiltersHoldTheGroupsChannelsOnly) {
  const BackendTensorShape w = backend_tensor_shape(grouped(ConvPass::kWgrad), ConvRole::kW);
  EXPECT_EQ(w.dims, (std::array<std::int64_t, 4>{32, 8, 3, 3}));  // K, C/G, R, S
  EXPECT_EQ(w.strides, (std::array<std::int64_t, 4>{3 * 3 * 8, 1, 3 * 8, 8}));
}

TEST(ProfCudnnGraph, ConfigurationNamesGiveTheEngineAndItsKnobs) {
  EXPECT_EQ(backend_config_name(12, {}), "eng12");
  EXPECT_EQ(backend_config_name(7, {{40, 2}, {14, 3}}), "eng7 tile_m=2 stages=3");
  EXPECT_EQ(backend_knob_name(CUDNN_KNOB_TYPE_SWIZZLE), "swizzle");
  EXPECT_EQ(backend_knob_name(1000), "knob1000");  // from a later cuDNN: still named
}

TEST(ProfCudnnGraph, ErrorsNameTheAttributeAndTheDescriptor) {
  EXPECT_EQ(backend_attribute_name(CUDNN_ATTR_TENSOR_STRIDES), "CUDNN_ATTR_TENSOR_STRIDES");
  EXPECT_EQ(backend_attribute_name(CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW),
            "CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW");
  EXPECT_EQ(backend_descriptor_name(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR),
            "CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR");
  EXPECT_EQ(backend_attribute_name(static_cast<cudnnBackendAttributeName_t>(99999)),
            "attribute 99999");
}

// A measured wgrad row whose cuDNN time came from a graph plan.
ConvResult graph_won() {
  ConvResult r;
  r.problem = grouped(ConvPass::kWgrad);
  r.tessel = Timing{10.0, 100};
  r.cudnn = Timing{8.0, 100};
  r.cudnn_legacy = Timing{80.0, 100};
  r.cudnn_graph = Timing{8.0, 100};
  r.cudnn_algorithm = "graph:eng12 tile_m=2 stages=3";
  r.cudnn_candidates = {{"legacy:ALGO_1", 9.5, std::nullopt, 0, ""},
                        {"graph:eng12 tile_m=2 stages=3", 7.9, 1e-4, 1024, ""},
                        {"graph:eng3", std::nullopt, 0.5, 0, "wrong result: max_err ..."}};
  r.max_err = 1e-6;
  r.cudnn_err = 1e-4;
  r.outcome = Outcome::kPass;
  r.notes = {"2x9x10x16 -> 32 3x3 pad 1 stride 2 g 2 wgrad: the cuDNN legacy API failed (...)"};
  return r;
}

TEST(ProfCudnnReport, CsvGivesThePickAndEachApisTime) {
  std::ostringstream out, notes;
  ConvReport report(ReportFormat::kCsv, out, notes);
  ConvRunInfo info;
  report.begin(info);
  report.row(graph_won());
  std::istringstream lines(out.str());
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_EQ(count_of(header, ','), count_of(row, ','));
  EXPECT_NE(header.find(",cudnn_algo,"), std::string::npos);
  EXPECT_NE(header.find(",cudnn_legacy_us,cudnn_graph_us,"), std::string::npos);
  EXPECT_NE(row.find(",wgrad,"), std::string::npos);
  EXPECT_NE(row.find(",graph:eng12 tile_m=2 stages=3,"), std::string::npos) << row;
  EXPECT_NE(row.find(",80.000,8.000,"), std::string::npos) << row;
}

TEST(ProfCudnnReport, CsvAlgorithmCellsHoldNoComma) {
  std::ostringstream out, notes;
  ConvReport report(ReportFormat::kCsv, out, notes);
  report.begin(ConvRunInfo{});
  ConvResult r = graph_won();
  r.cudnn_algorithm = "graph:eng1 a=1,b=2";
  report.row(r);
  EXPECT_NE(out.str().find(",graph:eng1 a=1;b=2,"), std::string::npos) << out.str();
}

TEST(ProfCudnnReport, JsonListsEveryCandidate) {
  std::ostringstream out, notes;
  ConvReport report(ReportFormat::kJson, out, notes);
  report.begin(ConvRunInfo{});
  report.row(graph_won());
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["cudnn_algo"], "graph:eng12 tile_m=2 stages=3");
  EXPECT_EQ(j["cudnn_graph_us"], 8.0);
  ASSERT_EQ(j["cudnn_candidates"].size(), 3u);
  EXPECT_EQ(j["cudnn_candidates"][0]["name"], "legacy:ALGO_1");
  EXPECT_TRUE(j["cudnn_candidates"][2]["us"].is_null());
  EXPECT_NE(j["cudnn_candidates"][2]["excluded"].get<std::string>().find("wrong result"),
            std::string::npos);
}

TEST(ProfCudnnReport, TableShowsThePickAndNotesGoToStderr) {
  std::ostringstream out, notes;
  ConvReport report(ReportFormat::kTable, out, notes);
  ConvRunInfo info;
  info.common = grouped(ConvPass::kWgrad);
  report.begin(info);
  report.row(graph_won());
  EXPECT_NE(out.str().find("cudnn_algo"), std::string::npos);
  EXPECT_NE(out.str().find("PASS   graph:eng12 tile_m=2 stages=3"), std::string::npos) << out.str();
  EXPECT_NE(notes.str().find("tessel-prof: 2x9x10x16 -> 32 3x3 pad 1 stride 2 g 2 wgrad: the cuDNN "
                             "legacy API failed"),
            std::string::npos)
      << notes.str();
  EXPECT_EQ(notes.str().find("graph:eng3"), std::string::npos);  // candidates: only --verbose
}

TEST(ProfCudnnReport, VerboseListsTheCandidatesOnStderr) {
  std::ostringstream out, notes;
  ConvReport report(ReportFormat::kCsv, out, notes);
  ConvRunInfo info;
  info.options.verbose = true;
  report.begin(info);
  report.row(graph_won());
  EXPECT_NE(notes.str().find("cuDNN's candidates for 2x9x10x16 -> 32 3x3 pad 1 stride 2 g 2 wgrad"),
            std::string::npos)
      << notes.str();
  EXPECT_NE(notes.str().find("graph:eng3  us -  err 5.0e-01  workspace 0  excluded: wrong result"),
            std::string::npos)
      << notes.str();
}

}  // namespace
}  // namespace tessel::prof
