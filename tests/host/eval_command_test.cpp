// `tessel-layout eval` (tools/layout/eval_command.cpp): golden outputs of the binary in text
// and --json form (tests/host/data/eval_*), and the contract's details through run_eval().
#include "eval_command.hpp"

#include <gtest/gtest.h>

#include "tool_test_util.hpp"
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace tessel::tool {
namespace {

using test::read_file;

// The binary's stdout; stderr is discarded.
test::ToolRun run_binary(const std::string& args) { return test::run_tool(args, false); }


const std::string kData = TESSEL_TEST_DATA;

TEST(EvalCommand, TextOutputMatchesTheGoldenFile) {
  const test::ToolRun r = run_binary("eval - < " + kData + "/eval_inputs.txt");
  EXPECT_EQ(r.output, read_file(kData + "/eval_expected.txt"));
  EXPECT_EQ(r.status, 1) << "the last input is invalid";
}

TEST(EvalCommand, JsonOutputMatchesTheGoldenFile) {
  const test::ToolRun r = run_binary("eval --json - < " + kData + "/eval_inputs.txt");
  EXPECT_EQ(r.output, read_file(kData + "/eval_expected.jsonl"));
  EXPECT_EQ(r.status, 1);
}

TEST(EvalCommand, ArgumentsAreEvaluatedInOrderAndTilersAreNotSplit) {
  const test::ToolRun r = run_binary("eval '[4:1,8:1]' '(4,2)' 'size((4,2))'");
  EXPECT_EQ(r.output, "[4:1,8:1]\n(4,2):(1,4)\n8\n");
  EXPECT_EQ(r.status, 0);
}

TEST(EvalCommand, ErrorsGiveANonZeroStatusAfterEvaluatingEverything) {
  const test::ToolRun r = run_binary("eval --json 'foo(1)' '4:1'");
  EXPECT_NE(r.output.find("\"error\":\"unknown function 'foo'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"layout\":\"4:1\""), std::string::npos) << r.output;
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(run_binary("eval").status, 2) << "no expression at all";
}

TEST(EvalJson, LayoutFieldsInTheContractsOrder) {
  EXPECT_EQ(eval_json("(2,2):(2,1)").dump(),
            R"j({"expr":"(2,2):(2,1)","layout":"(2,2):(2,1)","shape":[2,2],"stride":[2,1],)j"
            R"j("size":4,"cosize":4,"values":[0,2,1,3]})j");
}

TEST(EvalJson, SwizzledLayoutsHaveNoStride) {
  const auto j = eval_json("composition(Sw<1,1,1>, (2,4):(4,1))");
  EXPECT_FALSE(j.contains("stride"));
  EXPECT_EQ(j["values"].dump(), "[0,6,1,7,2,4,3,5]");
  EXPECT_EQ(j["cosize"], 8);
}

TEST(EvalJson, LargeLayoutsOmitValuesWithAReason) {
  const auto j = eval_json("(1048576,2):(1,1048576)");
  EXPECT_EQ(j["size"], 2097152);
  EXPECT_EQ(j["cosize"], 2097152);
  EXPECT_FALSE(j.contains("values"));
  EXPECT_EQ(j["values_omitted"], "size 2097152 exceeds the limit of 1048576 listed values");
  const auto s = eval_json("composition(Sw<1,1,1>, (1048576,2):(1,1048576))");
  EXPECT_TRUE(s.contains("cosize_omitted"));
  EXPECT_EQ(eval_json("(1048576):(1)")["values"].size(), 1048576u);
}

TEST(EvalJson, ErrorsAndOtherValues) {
  EXPECT_EQ(eval_json("(4,2").dump(),
            R"j({"expr":"(4,2","error":"expected ',' or ')' in the tuple, found the end of the )j"
            R"j(expression (at column 5)"})j");
  EXPECT_EQ(eval_json("cosize(4:2)").dump(), R"j({"expr":"cosize(4:2)","value":7})j");
  EXPECT_EQ(eval_json("(4294967296,4294967296)")["error"],
            "overflow: 4294967296 * 4294967296 does not fit in 64 bits");
}

TEST(RunEval, StdinGivesOneLinePerExpression) {
  std::istringstream in("4:1\r\n\ncoalesce((2,2))\n");
  std::ostringstream out, err;
  EXPECT_EQ(run_eval({"-"}, true, in, out, err), 1) << "the blank line is an error";
  std::istringstream lines(out.str());
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) ++n;
  EXPECT_EQ(n, 3);
  EXPECT_NE(out.str().find("empty expression"), std::string::npos);
}

TEST(RunEval, TextErrorsGoToStderrWithACaret) {
  std::istringstream in;
  std::ostringstream out, err;
  EXPECT_EQ(run_eval({"4:1", "coalesce(4:1"}, false, in, out, err), 1);
  EXPECT_EQ(out.str(), "4:1\n");
  EXPECT_EQ(err.str(),
            "error: expected ',' or ')' in the arguments of coalesce(...), found the end of the "
            "expression (at column 13)\n  coalesce(4:1\n              ^\n");
}

}  // namespace
}  // namespace tessel::tool
