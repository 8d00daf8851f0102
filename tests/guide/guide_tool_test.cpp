// The tessel-layout commands the guide added (tools/layout/layout_catalog.hpp, conv_command.cpp):
// every named layout draws, and every wrong use fails with a message that says what to change.
// Their outputs are golden-tested by the guide's pages (check_guide.py); these are the rest.
#include <gtest/gtest.h>

#include <string>

#include "layout_catalog.hpp"
#include "tool_test_util.hpp"

namespace tessel::tool {
namespace {

using test::expect_failures;
using test::run_tool;
using test::ToolRun;

TEST(GuideTool, EveryCatalogLayoutDraws) {
  for (const auto* catalog : {&atom_catalog(), &tiled_catalog()}) {
    const std::string option = catalog == &atom_catalog() ? "--atom " : "--tiled ";
    for (const CatalogEntry& e : *catalog) {
      for (char part : e.parts) {
        const std::string args = "show " + option + e.name + ":" + part;
        const ToolRun run = run_tool(args);
        EXPECT_EQ(run.status, 0) << args << "\n" << run.output;
        // A copy atom's source and destination, and every TiledMMA operand, cover the tile.
        EXPECT_EQ(run.output.find("covered by no"), std::string::npos) << args << "\n"
                                                                       << run.output;
      }
    }
  }
}

TEST(GuideTool, EveryFragmentIsWhatTheMmaExpects) {
  for (const char* spec : {"sm80_s2r:A", "sm80_s2r:B"}) {
    for (int thread : {0, 37, 127}) {
      const Grid g = fragment_grid(spec, thread);
      ASSERT_FALSE(g.notes.empty());
      EXPECT_EQ(g.notes.back(),
                "every register receives the element the TiledMMA partition expects in it")
          << spec << " thread " << thread;
    }
  }
}

TEST(GuideTool, WrongUsesFailWithAMessage) {
  const std::pair<const char*, const char*> cases[] = {
      {"show --atom sm80_ldmatrix_x4:A", "NAME:S or NAME:D"},
      {"show --atom sm80_ldmatrix_x4", "NAME:S or NAME:D"},
      {"show --tiled sm80_g2s:C", "NAME:A or NAME:B"},
      {"show --tiled nope:A", "known tiled layouts: sm80_mma"},
      {"show --fragment sm80_s2r:C", "known fragments"},
      {"show --fragment sm80_mma:B --thread 128", "--thread must be in [0, 128)"},
      {"show --atom sm80_ldmatrix_x4:D --tiled sm80_mma:A",
       "one of --atom, --tiled and --fragment"},
      {"show --tiled sm80_mma:A --tv --tile 32,16", "drop the expression"},
      {"show --tiled sm80_mma:C --colour rainbow", "--colour takes thread or warp"},
      {"conv fprop --input 1,7,1,8 --filter 1,40,1", "output height P"},
      {"conv fprop --input 1,7,1,8 --filter 1,3,1 --rows 0,1,17", "COUNT <= 16"},
      {"conv dgrad --input 1,8,1,8 --filter 8,3,1 --tile-k 4", "--tile-k must equal K"},
      {"conv", "A subcommand is required"},
  };
  expect_failures(cases);
}

TEST(GuideTool, ConvIteratorsAgreeOnAStridedDilatedGroupedProblem) {
  const ToolRun fprop = run_tool(
      "conv fprop --input 2,6,5,16 --filter 4,3,2 --pad 1,1 --stride 2,1 --dilation 1,2 --groups 2 "
      "--rows 1,3,5");
  EXPECT_EQ(fprop.status, 0) << fprop.output;
  EXPECT_NE(fprop.output.find("visit the same addresses with the same predicates"),
            std::string::npos);
  const ToolRun dgrad =
      run_tool("conv dgrad --input 1,5,4,8 --filter 8,3,3 --pad 1,1 --stride 2,2 --convolution");
  EXPECT_EQ(dgrad.status, 0) << dgrad.output;
  EXPECT_NE(dgrad.output.find("each once"), std::string::npos) << dgrad.output;
}

}  // namespace
}  // namespace tessel::tool
