// `tessel-layout banks`: the shared-memory bank-conflict checker (bank_checker.hpp) on the
// command line.
//
//   tessel-layout banks --preset ldmatrix-x4 --layout "composition(Sw<3,3,3>, (8,64):(64,1))"
//   tessel-layout banks --layout "(32,32):(32,1)" --threads "(8,4):(4,1)" --vector-bytes 16
//   tessel-layout banks --layout "(8,64):(64,1)" --lanes 0,0 1,0 --vector-bytes 4 --json
#include <charconv>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "bank_checker.hpp"
#include "commands.hpp"
#include "expression.hpp"

namespace tessel::tool {
namespace {

struct BanksOptions {
  std::string layout;
  int elem_bytes = 2;
  std::string preset;
  std::string threads;
  std::vector<std::string> lanes;
  std::optional<int> vector_bytes;
  std::pair<int64_t, int64_t> origin{0, 0};
  std::pair<int64_t, int64_t> region{0, 0};
  int warp = 0;
  bool json = false;
  bool summary = false;
};

// "R,C" -> {R, C}; the error names the token.
Coord parse_coord(const std::string& token) {
  const auto comma = token.find(',');
  Coord c;
  auto parse = [&](std::string_view text, int64_t& out) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc{} && end == text.data() + text.size() && !text.empty();
  };
  const std::string_view view = token;
  if (comma == std::string::npos || !parse(view.substr(0, comma), c.row) ||
      !parse(view.substr(comma + 1), c.col)) {
    throw BankCheckError("expected a lane coordinate ROW,COL such as 3,8, found '" + token +
                         "'; give one ROW,COL per lane, separated by spaces");
  }
  return c;
}

WarpAccess make_access(const SmemTile& tile, const BanksOptions& o) {
  const Coord origin{o.origin.first, o.origin.second};
  const int given = !o.preset.empty() + !o.threads.empty() + !o.lanes.empty();
  if (given != 1) {
    throw BankCheckError("expected exactly one access pattern, found " + std::to_string(given) +
                         "; pass one of --preset (cp-async-128, ldmatrix-x1, ldmatrix-x2, "
                         "ldmatrix-x4), --threads LAYOUT or --lanes ROW,COL...");
  }
  const bool has_region = o.region.first != 0 || o.region.second != 0;
  if (has_region && o.preset.rfind("ldmatrix", 0) != 0) {
    throw BankCheckError(
        "--region chooses the blocks of an ldmatrix preset; drop it or pass "
        "--preset ldmatrix-x1/-x2/-x4");
  }
  if (!o.preset.empty()) {
    const int fixed = o.preset == "cp-async-128" ? 16 : kLdmatrixRowBytes;
    if (o.vector_bytes && *o.vector_bytes != fixed) {
      throw BankCheckError("--preset " + o.preset + " reads 16-byte vectors, found " +
                           "--vector-bytes " + std::to_string(*o.vector_bytes) +
                           "; drop --vector-bytes or use --threads/--lanes");
    }
    if (o.preset == "cp-async-128") return row_major_access(tile, 16, origin);
    if (o.preset == "ldmatrix-x1")
      return ldmatrix_access(tile, 1, origin, {o.region.first, o.region.second});
    if (o.preset == "ldmatrix-x2")
      return ldmatrix_access(tile, 2, origin, {o.region.first, o.region.second});
    if (o.preset == "ldmatrix-x4")
      return ldmatrix_access(tile, 4, origin, {o.region.first, o.region.second});
    throw BankCheckError("unknown preset '" + o.preset +
                         "'; expected cp-async-128, ldmatrix-x1, ldmatrix-x2 or ldmatrix-x4");
  }
  const int vector_bytes = o.vector_bytes.value_or(16);
  if (!o.threads.empty()) {
    const rt::Value threads = rt::evaluate(o.threads);
    const rt::Layout* layout = std::get_if<rt::Layout>(&threads);
    if (layout == nullptr) {
      throw BankCheckError(
          "expected --threads to be a plain layout (rows, column vectors) -> "
          "thread id, found '" +
          rt::to_string(threads) + "'; e.g. (8,4):(4,1)");
    }
    return thread_layout_access(tile, *layout, vector_bytes, origin, o.warp);
  }
  std::vector<Coord> coords;
  for (const std::string& token : o.lanes) {
    std::istringstream words(token);  // a quoted list "0,0 1,8" counts as several tokens
    for (std::string word; words >> word;) {
      const Coord c = parse_coord(word);
      Coord at;
      if (__builtin_add_overflow(origin.row, c.row, &at.row) ||
          __builtin_add_overflow(origin.col, c.col, &at.col)) {
        throw BankCheckError("lane coordinate '" + word +
                             "' is out of range; give ROW,COL "
                             "inside the tile");
      }
      coords.push_back(at);
    }
  }
  return explicit_access(coords, vector_bytes);
}

// "0-3", "4-5", "7": the banks of one lane's vector (contiguous for aligned vectors).
std::string bank_ranges(const std::vector<int>& banks) {
  std::string text;
  for (size_t i = 0; i < banks.size();) {
    size_t j = i;
    while (j + 1 < banks.size() && banks[j + 1] == banks[j] + 1) ++j;
    if (!text.empty()) text += ",";
    text += std::to_string(banks[i]) + (j > i ? "-" + std::to_string(banks[j]) : "");
    i = j + 1;
  }
  return text;
}

std::string coord_text(Coord c) {
  return "(" + std::to_string(c.row) + "," + std::to_string(c.col) + ")";
}

void print_text(std::ostream& out, const SmemTile& tile, const WarpAccess& access,
                const BankReport& report, bool summary) {
  char line[160];
  out << "layout   " << tile.text() << ": " << tile.rows << " x " << tile.cols << " elements of "
      << tile.elem_bytes << " bytes\n";
  out << "access   " << access.description << "\n";
  out << "phases   " << access.lanes_per_phase() << " lanes each (" << access.vector_bytes
      << "-byte vectors, one " << kWavefrontBytes << "-byte wavefront per phase)\n";
  if (summary) out << "\n";
  for (const PhaseResult& phase : report.phases) {
    out << (summary ? "" : "\n") << "phase " << phase.index << ", lanes " << phase.first_lane << "-"
        << phase.last_lane << ": ";
    if (phase.n_way == 1) {
      out << "conflict-free";
    } else {
      out << phase.n_way << "-way (bank " << phase.busiest_bank << " holds "
          << phase.busiest_words.size() << " distinct words)";
    }
    if (phase.broadcast_words > 0) {
      out << ", " << phase.broadcast_words << " word(s) broadcast to several lanes";
    }
    out << "\n";
    if (summary) continue;
    out << "   lane  coord       offset  bytes          banks\n";
    for (const LaneResult& lane : phase.lanes) {
      const std::string bytes = std::to_string(lane.byte_address) + "-" +
                                std::to_string(lane.byte_address + access.vector_bytes - 1);
      std::snprintf(line, sizeof line, "  %5d  %-10s %7lld  %-13s  %s\n", lane.lane,
                    coord_text(lane.coord).c_str(), static_cast<long long>(lane.offset),
                    bytes.c_str(), bank_ranges(lane.banks).c_str());
      out << line;
    }
  }
  out << "\nresult   ";
  if (report.worst_n_way == 1) {
    out << "conflict-free: every phase is served in one wavefront\n";
  } else {
    out << report.worst_n_way << "-way bank conflict (worst: phase " << report.worst_phase
        << "); that phase takes " << report.worst_n_way << " wavefronts instead of 1\n";
  }
}

nlohmann::json to_json(const SmemTile& tile, const WarpAccess& access, const BankReport& report) {
  nlohmann::json phases = nlohmann::json::array();
  for (const PhaseResult& phase : report.phases) {
    nlohmann::json lanes = nlohmann::json::array();
    for (const LaneResult& lane : phase.lanes) {
      lanes.push_back({{"lane", lane.lane},
                       {"row", lane.coord.row},
                       {"col", lane.coord.col},
                       {"offset", lane.offset},
                       {"byte_address", lane.byte_address},
                       {"banks", lane.banks}});
    }
    phases.push_back({{"phase", phase.index},
                      {"first_lane", phase.first_lane},
                      {"last_lane", phase.last_lane},
                      {"n_way", phase.n_way},
                      {"busiest_bank", phase.busiest_bank},
                      {"busiest_words", phase.busiest_words},
                      {"broadcast_words", phase.broadcast_words},
                      {"lanes", lanes}});
  }
  return {{"layout", tile.text()},
          {"rows", tile.rows},
          {"cols", tile.cols},
          {"elem_bytes", tile.elem_bytes},
          {"access", access.description},
          {"vector_bytes", access.vector_bytes},
          {"lanes_per_phase", access.lanes_per_phase()},
          {"phases", phases},
          {"worst_n_way", report.worst_n_way},
          {"worst_phase", report.worst_phase},
          {"conflict_free", report.worst_n_way == 1}};
}

int run_banks(const BanksOptions& o) {
  try {
    const SmemTile tile = make_smem_tile(rt::evaluate(o.layout), o.elem_bytes);
    const WarpAccess access = make_access(tile, o);
    const BankReport report = check_banks(tile, access);
    if (o.json) {
      std::cout << to_json(tile, access, report).dump() << "\n";
    } else {
      print_text(std::cout, tile, access, report, o.summary);
    }
    return 0;
  } catch (const std::exception& e) {  // BankCheckError, ExpressionError, AlgebraError
    if (o.json) {
      std::cout << nlohmann::json{{"layout", o.layout}, {"error", e.what()}}.dump() << "\n";
    } else {
      std::cerr << "tessel-layout banks: " << e.what() << "\n";
    }
    return 1;
  }
}

}  // namespace

void add_banks_command(CLI::App& app, int& status) {
  auto options = std::make_shared<BanksOptions>();
  CLI::App* cmd = app.add_subcommand(
      "banks",
      "Shared-memory bank conflicts of one warp's access to a tile: per phase (one 128-byte "
      "wavefront), the banks each lane touches and the n-way conflict");
  cmd->add_option("layout,--layout", options->layout,
                  "shared-memory layout (rows, cols) -> element offset, e.g. "
                  "\"composition(Sw<3,3,3>, (8,64):(64,1))\"")
      ->required();
  cmd->add_option("--elem-bytes", options->elem_bytes, "bytes per element: 1, 2, 4 or 8")
      ->capture_default_str();
  cmd->add_option("--preset", options->preset,
                  "cp-async-128: lanes row-major over the tile's 16-byte vectors (a cp.async "
                  "tile copy's writes); ldmatrix-x1/-x2/-x4: 8x8 blocks (8 rows x 16 bytes) in "
                  "column-major block order from --origin, over --region");
  cmd->add_option("--threads", options->threads,
                  "thread layout (rows, column vectors) -> thread id, like make_tiled_copy's, "
                  "e.g. \"(8,4):(4,1)\"; the lanes of --warp take part");
  cmd->add_option("--lanes", options->lanes,
                  "explicit lane coordinates ROW,COL (lane i at the i-th), relative to --origin");
  cmd->add_option("--vector-bytes", options->vector_bytes,
                  "bytes per lane for --threads/--lanes: 4, 8 or 16 (default 16)");
  cmd->add_option("--origin", options->origin, "ROW,COL where the access starts (default 0,0)")
      ->delimiter(',');
  cmd->add_option("--region", options->region,
                  "ROWS,COLS of the region whose 8x8 blocks ldmatrix reads (default: to the "
                  "tile's end; 16,16 gives the mma A-operand order)")
      ->delimiter(',');
  cmd->add_option("--warp", options->warp, "which warp of --threads to check (threads 32W..)")
      ->capture_default_str();
  cmd->add_flag("--json", options->json, "one JSON object on one line");
  cmd->add_flag("--summary", options->summary, "phases and result only, no per-lane table");
  cmd->footer(
      "Examples:\n"
      "  banks --preset ldmatrix-x4 --layout \"composition(Sw<3,3,3>, (8,64):(64,1))\"\n"
      "  banks --preset ldmatrix-x4 --region 16,16 \"(128,32):(32,1)\"\n"
      "  banks --threads \"(8,4):(4,1)\" --vector-bytes 16 \"(32,32):(32,1)\"\n"
      "  banks --layout \"(8,64):(64,1)\" --vector-bytes 4 --lanes 0,0 0,0 1,2");
  cmd->callback([options, &status] { status = std::max(status, run_banks(*options)); });
}

}  // namespace tessel::tool
