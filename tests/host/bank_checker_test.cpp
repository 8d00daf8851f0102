// The shared-memory bank-conflict checker (tools/layout/bank_checker.hpp) and `tessel-layout
// banks`. The central example is seed 004's: an (8,64) fp16 row-major tile, plain and under
// Swizzle<3,3,3>, read by ldmatrix.x4 and written by 128-bit cp.async.
#include "bank_checker.hpp"

#include <gtest/gtest.h>

#include "tool_test_util.hpp"
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tessel::tool {
namespace {

using rt::IntTree;
using test::expect_failures;
using test::expect_golden;
using test::read_file;
using test::run_tool;
using test::ToolRun;

// (rows, cols):(row_stride, col_stride)
rt::Layout layout2(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  return {IntTree::tuple({rows, cols}), IntTree::tuple({row_stride, col_stride})};
}

// The seeds' tile: 8 rows of 64 fp16 (128 bytes, all 32 banks) per row.
SmemTile plain_tile() { return make_smem_tile(layout2(8, 64, 64, 1), 2); }
SmemTile swizzled_tile() {
  return make_smem_tile(rt::SwizzledLayout{{3, 3, 3}, 0, layout2(8, 64, 64, 1)}, 2);
}

TEST(BankChecker, LdmatrixX4OnPlainRowMajorTileIsEightWay) {
  const BankReport report = check_banks(plain_tile(), ldmatrix_access(plain_tile(), 4));
  ASSERT_EQ(report.phases.size(), 4u);
  for (const PhaseResult& phase : report.phases) {
    EXPECT_EQ(phase.n_way, 8) << "phase " << phase.index;
    EXPECT_EQ(phase.busiest_words.size(), 8u);
  }
  EXPECT_EQ(report.worst_n_way, 8);
  // Every lane of matrix 0 reads column 0 of its row: banks 0-3, eight different rows.
  for (const LaneResult& lane : report.phases[0].lanes) {
    EXPECT_EQ(lane.banks, (std::vector<int>{0, 1, 2, 3})) << "lane " << lane.lane;
  }
}

TEST(BankChecker, LdmatrixX4OnSwizzle333IsConflictFree) {
  const BankReport report = check_banks(swizzled_tile(), ldmatrix_access(swizzled_tile(), 4));
  ASSERT_EQ(report.phases.size(), 4u);
  for (const PhaseResult& phase : report.phases) EXPECT_EQ(phase.n_way, 1);
  EXPECT_EQ(report.worst_n_way, 1);
  // Row 1, column 0: offset 64 -> 64 ^ (1 << 3) = 72, bytes 144..159, banks 4-7.
  EXPECT_EQ(report.phases[0].lanes[1].offset, 72);
  EXPECT_EQ(report.phases[0].lanes[1].banks, (std::vector<int>{4, 5, 6, 7}));
}

TEST(BankChecker, CpAsync128WritesAreConflictFreeOnBothLayouts) {
  for (const SmemTile& tile : {plain_tile(), swizzled_tile()}) {
    const WarpAccess access = row_major_access(tile, 16);
    EXPECT_EQ(access.lanes.size(), 32u);
    const BankReport report = check_banks(tile, access);
    EXPECT_EQ(report.phases.size(), 4u);
    EXPECT_EQ(report.worst_n_way, 1) << tile.text();
  }
}

TEST(BankChecker, CpAsync128OnA32x32TileIsCuteThreadLayout) {
  // CuTe's (32,4):(4,1) over a (32,32) fp16 tile: one warp covers rows 0-7, 4 vectors each.
  const SmemTile tile = make_smem_tile(layout2(32, 32, 32, 1), 2);
  const WarpAccess preset = row_major_access(tile, 16);
  const WarpAccess threads = thread_layout_access(tile, layout2(32, 4, 4, 1), 16);
  ASSERT_EQ(preset.lanes.size(), threads.lanes.size());
  for (size_t i = 0; i < preset.lanes.size(); ++i) {
    EXPECT_EQ(preset.lanes[i].coord, threads.lanes[i].coord) << "lane " << i;
  }
  EXPECT_EQ(preset.lanes[5].coord, (Coord{1, 8}));
  EXPECT_EQ(check_banks(tile, preset).worst_n_way, 1);
}

TEST(BankChecker, RowMajorAccessOnAWideTileStaysInTheFirstRow) {
  // 512 fp16 per row = 64 vectors: the warp takes the first 32, all in row 0.
  const SmemTile tile = make_smem_tile(layout2(2, 512, 512, 1), 2);
  const WarpAccess access = row_major_access(tile, 16);
  EXPECT_EQ(access.lanes[31].coord, (Coord{0, 248}));
  EXPECT_NE(access.description.find("(1,32):(32,1)"), std::string::npos) << access.description;
  EXPECT_EQ(check_banks(tile, access).worst_n_way, 1);
}

TEST(BankChecker, LdmatrixBlocksOfA16x16RegionFollowTheMmaAOperandOrder) {
  const SmemTile tile = make_smem_tile(layout2(16, 16, 16, 1), 2);
  const WarpAccess access = ldmatrix_access(tile, 4);
  EXPECT_EQ(access.lanes[0].coord, (Coord{0, 0}));
  EXPECT_EQ(access.lanes[8].coord, (Coord{8, 0}));
  EXPECT_EQ(access.lanes[16].coord, (Coord{0, 8}));
  EXPECT_EQ(access.lanes[24].coord, (Coord{8, 8}));
  EXPECT_EQ(access.lanes[31].coord, (Coord{15, 8}));
  // A 16x16 region inside a taller tile, from an origin.
  const SmemTile tall = make_smem_tile(layout2(64, 32, 32, 1), 2);
  const WarpAccess region = ldmatrix_access(tall, 4, {16, 8}, {16, 16});
  EXPECT_EQ(region.lanes[8].coord, (Coord{24, 8}));
  EXPECT_EQ(region.lanes[16].coord, (Coord{16, 16}));
}

TEST(BankChecker, LdmatrixConflictGrowsWithRowPitch) {
  // Rows of 32, 64, 128 bytes: 8 rows of one matrix fold onto 2, 4, 8 words per bank.
  const std::pair<int64_t, int> cases[] = {{16, 2}, {32, 4}, {64, 8}};
  for (auto [cols, n_way] : cases) {
    const SmemTile tile = make_smem_tile(layout2(8, cols, cols, 1), 2);
    EXPECT_EQ(check_banks(tile, ldmatrix_access(tile, 1)).worst_n_way, n_way) << cols;
  }
}

TEST(BankChecker, FourByteAccessesUseOneThirtyTwoLanePhase) {
  // 32 lanes along a row of 64 fp16: 4 bytes each, banks 0..31, one phase.
  const SmemTile tile = make_smem_tile(layout2(32, 64, 64, 1), 2);
  const BankReport row = check_banks(tile, row_major_access(tile, 4));
  ASSERT_EQ(row.phases.size(), 1u);
  EXPECT_EQ(row.phases[0].lanes.size(), 32u);
  EXPECT_EQ(row.worst_n_way, 1);
  // 32 lanes down column 0: every word in bank 0.
  const BankReport column = check_banks(tile, thread_layout_access(tile, layout2(32, 1, 1, 0), 4));
  EXPECT_EQ(column.worst_n_way, 32);
  EXPECT_EQ(column.phases[0].busiest_bank, 0);
}

TEST(BankChecker, EightByteAccessesUseSixteenLanePhases) {
  const SmemTile tile = make_smem_tile(layout2(8, 64, 64, 1), 2);
  // Row-major: lanes 0-15 fill row 0 (128 bytes), lanes 16-31 row 1.
  const BankReport rows = check_banks(tile, row_major_access(tile, 8));
  ASSERT_EQ(rows.phases.size(), 2u);
  EXPECT_EQ(rows.phases[1].first_lane, 16);
  EXPECT_EQ(rows.worst_n_way, 1);
  // Thread layout (2,16):(1,2): a phase covers 2 rows x 8 vectors = banks 0-15 twice: 2-way.
  const BankReport pairs = check_banks(tile, thread_layout_access(tile, layout2(2, 16, 1, 2), 8));
  EXPECT_EQ(pairs.phases[0].n_way, 2);
  EXPECT_EQ(pairs.worst_n_way, 2);
}

TEST(BankChecker, SameWordIsABroadcastNotAConflict) {
  const SmemTile tile = plain_tile();
  const BankReport report = check_banks(tile, explicit_access(std::vector<Coord>(32, {3, 8}), 4));
  EXPECT_EQ(report.worst_n_way, 1);
  EXPECT_EQ(report.phases[0].broadcast_words, 1);
  // Two lanes on the same 16-byte vector, two on another row of the same banks: 2-way.
  const BankReport mixed = check_banks(tile, explicit_access({{0, 0}, {0, 0}, {1, 0}}, 16));
  EXPECT_EQ(mixed.worst_n_way, 2);
  EXPECT_EQ(mixed.phases[0].broadcast_words, 4);
}

TEST(BankChecker, FourWayCaseFromExplicitLanes) {
  // Four lanes on rows 0..3 of column 0 (128-byte rows): bank 0 holds 4 distinct words.
  const BankReport report =
      check_banks(plain_tile(), explicit_access({{0, 0}, {1, 0}, {2, 0}, {3, 0}}, 16));
  EXPECT_EQ(report.worst_n_way, 4);
  EXPECT_EQ(report.phases[0].busiest_words, (std::vector<int64_t>{0, 32, 64, 96}));
}

TEST(BankChecker, ColumnMajorTileCannotBeVectorisedAlongColumns) {
  const SmemTile tile = make_smem_tile(layout2(64, 8, 1, 64), 2);
  try {
    check_banks(tile, row_major_access(tile, 16));
    FAIL() << "expected BankCheckError";
  } catch (const BankCheckError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot be vectorised"), std::string::npos) << what;
    EXPECT_NE(what.find("0,64,128"), std::string::npos) << what;
  }
}

TEST(BankChecker, MisalignedVectorCannotBeVectorised) {
  // Offsets 4..11 are consecutive but do not start at a multiple of 8.
  EXPECT_THROW(check_banks(plain_tile(), explicit_access({{0, 4}}, 16)), BankCheckError);
  // Swizzle<3,3,3> moves whole 8-element chunks, so a 4-byte pair stays contiguous: 74, 75.
  EXPECT_EQ(check_banks(swizzled_tile(), explicit_access({{1, 2}}, 4)).worst_n_way, 1);
}

TEST(BankChecker, RejectsBadInputWithMessages) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const BankCheckError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const rt::Layout rank3{IntTree::tuple({8, 8, 8}), IntTree::tuple({64, 8, 1})};
  EXPECT_NE(message([&] { make_smem_tile(rank3, 2); }).find("rank-2"), std::string::npos);
  EXPECT_NE(message([] {
              make_smem_tile(rt::Swizzle{3, 3, 3}, 2);
            }).find("found a swizzle"),
            std::string::npos);
  EXPECT_NE(message([] { make_smem_tile(layout2(8, 64, 64, 1), 3); }).find("found 3"),
            std::string::npos);
  EXPECT_NE(message([] { row_major_access(plain_tile(), 12); }).find("4, 8 or 16"),
            std::string::npos);
  EXPECT_NE(message([] {
              check_banks(plain_tile(), explicit_access({{0, 0}}, 2));
            }).find("4, 8 or 16"),
            std::string::npos);
  const SmemTile small = make_smem_tile(layout2(8, 16, 16, 1), 2);
  EXPECT_NE(message([&] { ldmatrix_access(small, 4); }).find("tile too small"), std::string::npos);
  const SmemTile short_tile = make_smem_tile(layout2(2, 64, 64, 1), 2);
  EXPECT_NE(message([&] { row_major_access(short_tile, 16); }).find("tile too small"),
            std::string::npos);
  EXPECT_NE(message([] {
              check_banks(plain_tile(), explicit_access({{8, 0}}, 16));
            }).find("does not fit"),
            std::string::npos);
  EXPECT_NE(message([] {
              thread_layout_access(plain_tile(), layout2(4, 8, 1, 0), 16);
            }).find("one-to-one"),
            std::string::npos);
}

// ---- the command line -------------------------------------------------------------------

TEST(BanksCommand, DemoInvocationsMatchGoldenOutput) {
  const ToolRun plain = run_tool("banks --preset ldmatrix-x4 --layout '(8,64):(64,1)'");
  EXPECT_EQ(plain.status, 0) << plain.output;
  expect_golden("banks_ldmatrix_x4_plain_8x64.txt", plain.output);
  const ToolRun swizzled =
      run_tool("banks --preset ldmatrix-x4 --layout 'composition(Sw<3,3,3>, (8,64):(64,1))'");
  EXPECT_EQ(swizzled.status, 0) << swizzled.output;
  expect_golden("banks_ldmatrix_x4_sw333_8x64.txt", swizzled.output);
}

TEST(BanksCommand, CpAsyncSummaryMatchesGoldenOutput) {
  const ToolRun run = run_tool(
      "banks --preset cp-async-128 --summary --layout 'composition(Sw<3,3,3>, (8,64):(64,1))'");
  EXPECT_EQ(run.status, 0) << run.output;
  expect_golden("banks_cp_async_128_sw333_8x64.txt", run.output);
}

TEST(BanksCommand, JsonReportsWorstNWay) {
  const ToolRun plain = run_tool("banks --json --preset ldmatrix-x4 '(8,64):(64,1)'");
  ASSERT_EQ(plain.status, 0) << plain.output;
  const auto j = nlohmann::json::parse(plain.output);
  EXPECT_EQ(j["worst_n_way"], 8);
  EXPECT_EQ(j["conflict_free"], false);
  EXPECT_EQ(j["phases"].size(), 4u);
  EXPECT_EQ(j["phases"][0]["lanes"][1]["banks"], nlohmann::json::parse("[0,1,2,3]"));
  const ToolRun lanes =
      run_tool("banks --json --vector-bytes 4 --layout '(8,64):(64,1)' --lanes 0,0 0,0 1,2");
  ASSERT_EQ(lanes.status, 0) << lanes.output;
  const auto k = nlohmann::json::parse(lanes.output);
  EXPECT_EQ(k["worst_n_way"], 1);
  EXPECT_EQ(k["phases"][0]["broadcast_words"], 1);
}

TEST(BanksCommand, BadInputFailsWithAMessage) {
  const std::pair<const char*, const char*> cases[] = {
      {"banks --preset ldmatrix-x4 '(8,8,8):(64,8,1)'", "rank-2"},
      {"banks --preset ldmatrix-x4 --elem-bytes 3 '(8,64):(64,1)'", "1, 2, 4 or 8"},
      {"banks --threads '(8,4):(4,1)' --vector-bytes 12 '(8,64):(64,1)'", "4, 8 or 16"},
      {"banks --preset ldmatrix-x4 '(8,16):(16,1)'", "tile too small"},
      {"banks --preset cp-async-128 '(64,8):(1,64)'", "cannot be vectorised"},
      {"banks --preset swizzle-me '(8,64):(64,1)'", "unknown preset"},
      {"banks '(8,64):(64,1)'", "exactly one access pattern"},
      {"banks --layout '(8,64):(64,1)' --lanes 0,x", "ROW,COL"},
      {"banks --preset ldmatrix-x4 '(8,64'", "banks:"},
      {"banks --preset ldmatrix-x4 '((100000000000,100000000000),100000000000):((1,1),1)'",
       "banks:"},
  };
  expect_failures(cases);
  const ToolRun json = run_tool("banks --json --preset ldmatrix-x4 '(8,16):(16,1)'");
  EXPECT_NE(json.status, 0);
  EXPECT_TRUE(nlohmann::json::parse(json.output).contains("error")) << json.output;
}

}  // namespace
}  // namespace tessel::tool
