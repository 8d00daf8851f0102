// Pictures of layouts (tools/layout/picture.hpp) and `tessel-layout show`: offset tables,
// thread/value tiles, and their SVG and LaTeX forms (checked for structure, not pixels).
#include <gtest/gtest.h>

#include "tool_test_util.hpp"
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "picture.hpp"

namespace tessel::tool {
namespace {

using rt::IntTree;
using test::expect_failures;
using test::expect_golden;
using test::read_file;
using test::run_tool;
using test::ToolRun;

rt::Layout layout2(IntTree shape0, IntTree shape1, IntTree stride0, IntTree stride1) {
  return {IntTree::tuple({shape0, shape1}), IntTree::tuple({stride0, stride1})};
}

// CuTe's SM80_16x8x16 C fragment: (thread, value) -> index of a 16x8 tile, column-major.
rt::Layout sm80_16x8x16_c() {
  return layout2(IntTree::tuple({4, 8}), IntTree::tuple({2, 2}), IntTree::tuple({32, 1}),
                 IntTree::tuple({16, 8}));
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// Every element opened is closed in order (a small well-formedness check for our own SVG).
bool tags_balanced(const std::string& xml) {
  std::vector<std::string> open;
  const std::regex tag(R"(<(/?)([A-Za-z][\w:-]*)[^>]*?(/?)>)");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), tag); it != std::sregex_iterator();
       ++it) {
    const auto& m = *it;
    if (m[3] == "/") continue;  // <rect .../>
    if (m[1] == "/") {
      if (open.empty() || open.back() != m[2]) return false;
      open.pop_back();
    } else {
      open.push_back(m[2]);
    }
  }
  return open.empty();
}

TEST(OffsetGrid, RowMajorLayoutReadsAcrossRows) {
  const Grid grid = offset_grid(layout2(2, 4, 4, 1));
  ASSERT_EQ(grid.rows, 2);
  ASSERT_EQ(grid.cols, 4);
  EXPECT_EQ(grid.label(0, 3), "3");
  EXPECT_EQ(grid.label(1, 0), "4");
  EXPECT_EQ(grid.colour(1, 0), 4);
}

TEST(OffsetGrid, HierarchicalModesAreIndexedByTheirFlattenedSize) {
  // ((2,2),(2,2)):((1,4),(2,8)): row r = r0 + 2 r1 -> r0 + 4 r1, col c = c0 + 2 c1 -> 2 c0 + 8 c1.
  const Grid grid = offset_grid(layout2(IntTree::tuple({2, 2}), IntTree::tuple({2, 2}),
                                        IntTree::tuple({1, 4}), IntTree::tuple({2, 8})));
  ASSERT_EQ(grid.rows, 4);
  ASSERT_EQ(grid.cols, 4);
  EXPECT_EQ(grid.label(1, 0), "1");
  EXPECT_EQ(grid.label(2, 0), "4");
  EXPECT_EQ(grid.label(0, 1), "2");
  EXPECT_EQ(grid.label(3, 3), "15");
}

TEST(OffsetGrid, RankOneLayoutIsASingleRow) {
  const Grid grid = offset_grid(rt::Layout{8, 2});
  EXPECT_EQ(grid.rows, 1);
  EXPECT_EQ(grid.cols, 8);
  EXPECT_EQ(grid.label(0, 7), "14");
}

TEST(OffsetGrid, SwizzledLayoutShowsSwizzledOffsets) {
  const Grid grid = offset_grid(rt::SwizzledLayout{{3, 3, 3}, 0, layout2(8, 64, 64, 1)});
  EXPECT_EQ(grid.rows, 8);
  EXPECT_EQ(grid.cols, 64);
  EXPECT_EQ(grid.label(0, 0), "0");
  EXPECT_EQ(grid.label(1, 0), "72");   // 64 ^ (1 << 3)
  EXPECT_EQ(grid.label(7, 8), "496");  // 456 = 448 + (1 << 3) -> 448 + ((1 ^ 7) << 3)
}

TEST(OffsetGrid, RefusesWhatItCannotDraw) {
  const rt::Layout rank3{IntTree::tuple({2, 2, 2}), IntTree::tuple({1, 2, 4})};
  EXPECT_THROW(offset_grid(rank3), PictureError);
  try {
    offset_grid(rank3);
  } catch (const PictureError& e) {
    EXPECT_NE(std::string(e.what()).find("group the modes"), std::string::npos) << e.what();
  }
  EXPECT_THROW(offset_grid(layout2(512, 4, 1, 512)), PictureError);
  // Absurd sizes are refused before anything is enumerated.
  EXPECT_THROW(offset_grid(layout2(IntTree::tuple({1 << 30, 1 << 30, 1 << 30}), 2,
                                   IntTree::tuple({1, 1, 1}), 0)),
               PictureError);
  EXPECT_THROW(offset_grid(rt::Swizzle{3, 3, 3}), PictureError);
}

TEST(TvGrid, Sm80CFragmentCoversTheTileOnce) {
  const Grid grid = tv_grid(sm80_16x8x16_c(), 16, 8);
  ASSERT_EQ(grid.rows, 16);
  ASSERT_EQ(grid.cols, 8);
  EXPECT_EQ(grid.label(0, 0), "T0V0");
  EXPECT_EQ(grid.label(0, 1), "T0V1");
  EXPECT_EQ(grid.label(8, 0), "T0V2");
  EXPECT_EQ(grid.label(1, 0), "T4V0");
  EXPECT_EQ(grid.label(0, 2), "T1V0");
  EXPECT_EQ(grid.label(15, 7), "T31V3");
  EXPECT_EQ(grid.colour(1, 0), 4);  // by thread
  EXPECT_TRUE(grid.notes.empty());
}

TEST(TvGrid, Sm80AFragmentCoversA16x16Tile) {
  // ((4,8),(2,2,2)):((32,1),(16,8,128))
  const Grid grid = tv_grid(layout2(IntTree::tuple({4, 8}), IntTree::tuple({2, 2, 2}),
                                    IntTree::tuple({32, 1}), IntTree::tuple({16, 8, 128})),
                            16, 16);
  EXPECT_TRUE(grid.notes.empty());
  EXPECT_EQ(grid.label(0, 8), "T0V4");
}

TEST(TvGrid, ReportsHolesAndOverlapsWithoutFailing) {
  // 4 threads, 1 value over a 2x4 tile: half the cells stay empty.
  const Grid holes = tv_grid(layout2(4, 1, 1, 0), 2, 4);
  ASSERT_EQ(holes.notes.size(), 1u);
  EXPECT_NE(holes.notes[0].find("4 cell(s) covered by no"), std::string::npos) << holes.notes[0];
  EXPECT_EQ(holes.colour(0, 2), -1);
  // Every value of a thread on the same cell (a broadcast): cells covered twice.
  const Grid twice = tv_grid(layout2(4, 2, 1, 0), 2, 2);
  EXPECT_EQ(twice.label(0, 0), "T0V0+");
  ASSERT_EQ(twice.notes.size(), 1u);
  EXPECT_NE(twice.notes[0].find("(0,0) by T0V0 T0V1"), std::string::npos) << twice.notes[0];
}

TEST(TvGrid, RefusesIndicesOutsideTheTile) {
  EXPECT_THROW(tv_grid(sm80_16x8x16_c(), 8, 8), PictureError);
  EXPECT_THROW(tv_grid(sm80_16x8x16_c(), 0, 8), PictureError);
  EXPECT_THROW(tv_grid(rt::Layout{32, 1}, 4, 8), PictureError);  // rank 1
}

TEST(RenderText, DrawsCuteStyleGrid) {
  const std::string text = render_text(offset_grid(layout2(2, 3, 3, 1)));
  EXPECT_EQ(text,
            "(2,3):(3,1)\n"
            "    0   1   2\n"
            "  +---+---+---+\n"
            "0 | 0 | 1 | 2 |\n"
            "  +---+---+---+\n"
            "1 | 3 | 4 | 5 |\n"
            "  +---+---+---+\n");
}

TEST(RenderSvg, IsWellFormedWithOneRectAndLabelPerCell) {
  const Grid grid = offset_grid(rt::SwizzledLayout{{3, 3, 3}, 0, layout2(8, 64, 64, 1)});
  const std::string svg = render_svg(grid);
  EXPECT_TRUE(tags_balanced(svg));
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_EQ(count(svg, "<rect "), 8u * 64u + 1u);  // cells + background
  EXPECT_NE(svg.find(">72</text>"), std::string::npos);
  EXPECT_NE(svg.find("Sw&lt;3,3,3&gt;"), std::string::npos);  // the title is escaped
  EXPECT_EQ(svg.find("Sw<3"), std::string::npos);
}

TEST(RenderSvg, TvCellsAreColouredByThread) {
  const std::string svg = render_svg(tv_grid(sm80_16x8x16_c(), 16, 8));
  EXPECT_TRUE(tags_balanced(svg));
  EXPECT_EQ(count(svg, "<rect "), 16u * 8u + 1u);
  EXPECT_NE(svg.find(">T31V3</text>"), std::string::npos);
  // T0 and T8 share a palette colour; T0 and T1 do not.
  const std::regex cell(R"re(fill="(#[0-9a-f]{6})" stroke="black"/><text[^>]*>(T(?:0|1|8)V0)<)re");
  std::map<std::string, std::string> fill;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), cell); it != std::sregex_iterator();
       ++it) {
    fill[(*it)[2]] = (*it)[1];
  }
  ASSERT_EQ(fill.size(), 3u);
  EXPECT_EQ(fill["T0V0"], fill["T8V0"]);
  EXPECT_NE(fill["T0V0"], fill["T1V0"]);
}

TEST(RenderLatex, IsAStandaloneTikzPictureWithOneRectanglePerCell) {
  const std::string tex = render_latex(tv_grid(sm80_16x8x16_c(), 16, 8));
  EXPECT_EQ(count(tex, "\\begin{document}"), 1u);
  EXPECT_EQ(count(tex, "\\end{document}"), 1u);
  EXPECT_EQ(count(tex, "\\begin{tikzpicture}"), 1u);
  EXPECT_EQ(count(tex, "\\end{tikzpicture}"), 1u);
  EXPECT_EQ(count(tex, "rectangle"), 16u * 8u);
  EXPECT_EQ(count(tex, "{"), count(tex, "}"));
  EXPECT_NE(tex.find("{T17V2}"), std::string::npos);
  const std::string swizzled =
      render_latex(offset_grid(rt::SwizzledLayout{{3, 3, 3}, 0, layout2(8, 8, 8, 1)}));
  EXPECT_NE(swizzled.find("Sw\\textless{}3,3,3\\textgreater{}"), std::string::npos);
}

// ---- the command line -------------------------------------------------------------------

TEST(ShowCommand, SwizzledTileMatchesGoldenOutput) {
  const ToolRun run = run_tool("show 'composition(Sw<3,3,3>, (8,64):(64,1))'");
  EXPECT_EQ(run.status, 0) << run.output;
  expect_golden("show_sw333_8x64.txt", run.output);
}

TEST(ShowCommand, TvLayoutMatchesGoldenOutput) {
  const ToolRun run = run_tool("show --tv --tile 16,8 '((4,8),(2,2)):((32,1),(16,8))'");
  EXPECT_EQ(run.status, 0) << run.output;
  expect_golden("show_tv_sm80_16x8x16_c.txt", run.output);
}

TEST(ShowCommand, WritesSvgAndLatexFiles) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("tessel_show_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const ToolRun run = run_tool("show --tv --tile 16,8 '((4,8),(2,2)):((32,1),(16,8))' --svg " +
                               (dir / "c.svg").string() + " --latex " + (dir / "c.tex").string());
  EXPECT_EQ(run.status, 0) << run.output;
  const std::string svg = read_file(dir / "c.svg");
  EXPECT_TRUE(tags_balanced(svg));
  EXPECT_EQ(count(svg, "<rect "), 16u * 8u + 1u);
  EXPECT_EQ(count(read_file(dir / "c.tex"), "rectangle"), 16u * 8u);
  std::filesystem::remove_all(dir);
}

// --atom reads the layout and tile from the atom's MmaTraits: the C operand of m16n8k16 is the
// same picture as the hand-written TV layout above.
TEST(ShowCommand, AtomCOperandMatchesTheHandWrittenTvLayout) {
  const ToolRun run = run_tool("show --atom sm80_16x8x16_f32f16f16f32:C");
  EXPECT_EQ(run.status, 0) << run.output;
  expect_golden("show_tv_sm80_16x8x16_c.txt", run.output);
}

TEST(ShowCommand, AtomOperandsUseTheirOwnTiles) {
  const std::pair<const char*, const char*> cases[] = {
      {"show --atom sm80_16x8x16_f32f16f16f32:A",
       "((4,8),(2,2,2)):((32,1),(16,8,128)) over a 16x16 tile"},
      {"show --atom sm80_16x8x16_f32bf16bf16f32:B",
       "((4,8),(2,2)):((16,1),(8,64)) over a 8x16 tile"},
      {"show --atom sm80_16x8x8_f32f16f16f32:A", "((4,8),(2,2)):((32,1),(16,8)) over a 16x8 tile"},
      {"show --atom sm80_16x8x8_f32bf16bf16f32:B", "((4,8),2):((16,1),8) over a 8x8 tile"},
      {"show --atom sm80_16x8x16_f16f16f16f16:C", "((4,8),(2,2)):((32,1),(16,8)) over a 16x8 tile"},
  };
  for (auto [args, first_line] : cases) {
    const ToolRun run = run_tool(args);
    EXPECT_EQ(run.status, 0) << args << "\n" << run.output;
    EXPECT_EQ(run.output.substr(0, run.output.find('\n')), first_line) << args;
  }
}

TEST(ShowCommand, BadAtomFailsWithAMessage) {
  const std::pair<const char*, const char*> cases[] = {
      {"show --atom nope:A", "known atoms: sm80_16x8x16_f32f16f16f32"},
      {"show --atom sm80_16x8x16_f32f16f16f32", "NAME:A, NAME:B or NAME:C"},
      {"show --atom sm80_16x8x16_f32f16f16f32:D", "NAME:A, NAME:B or NAME:C"},
      {"show --atom sm80_16x8x16_f32f16f16f32:C '(4,4)'", "drop the expression"},
      {"show --atom sm80_16x8x16_f32f16f16f32:C --tv --tile 16,8", "drop the expression"},
      {"show", "needs a layout expression, or --atom"},
  };
  expect_failures(cases);
}

TEST(ShowCommand, BadInputFailsWithAMessage) {
  const std::pair<const char*, const char*> cases[] = {
      {"show '(2,2,2):(1,2,4)'", "group the modes"},
      {"show '(512,512):(1,512)'", "at most 256"},
      {"show 'Sw<3,3,3>'", "compose the swizzle with a layout"},
      {"show 'size((4,4))'", "not a layout"},
      {"show --tv '((4,8),(2,2)):((32,1),(16,8))'", "--tile M,N"},
      {"show --tile 16,8 '(16,8)'", "add --tv"},
      {"show --tv --tile 8,8 '((4,8),(2,2)):((32,1),(16,8))'", "inside the 8x8 tile"},
      {"show '(8,64'", "show:"},
      {"show --tv --tile 4,4 '((100000000000,100000000000),100000000000):((1,1),1)'",
       "at most 65536 (thread, value) pairs"},
      {"show '(4,4)' --svg /nonexistent/dir/x.svg", "could not write"},
  };
  expect_failures(cases);
}

}  // namespace
}  // namespace tessel::tool
