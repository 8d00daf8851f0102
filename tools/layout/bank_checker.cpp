#include "bank_checker.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace tessel::tool {
namespace {

std::string coord_text(Coord c) {
  return "(" + std::to_string(c.row) + "," + std::to_string(c.col) + ")";
}

// Floor division and modulo: offsets of exotic layouts may be negative.
int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

std::string kind_of(const rt::Value& value) {
  struct {
    std::string operator()(const rt::Layout&) const { return "layout"; }
    std::string operator()(const rt::SwizzledLayout&) const { return "swizzled layout"; }
    std::string operator()(const rt::Swizzle&) const { return "swizzle"; }
    std::string operator()(const rt::Tiler&) const { return "tiler"; }
    std::string operator()(int64_t) const { return "number"; }
  } name;
  return std::visit(name, value);
}

// Elements per vector; vector_bytes must be 4, 8 or 16 and hold whole elements.
int64_t elements_per_vector(const SmemTile& tile, int vector_bytes) {
  if (vector_bytes != 4 && vector_bytes != 8 && vector_bytes != 16) {
    throw BankCheckError(
        "expected a vector of 4, 8 or 16 bytes (32-, 64- or 128-bit shared "
        "memory access), found " +
        std::to_string(vector_bytes) + " bytes; pass --vector-bytes 4, 8 or 16");
  }
  if (vector_bytes % tile.elem_bytes != 0) {
    throw BankCheckError("a " + std::to_string(vector_bytes) + "-byte vector does not hold a " +
                         "whole number of " + std::to_string(tile.elem_bytes) +
                         "-byte elements; use a vector of at least " +
                         std::to_string(tile.elem_bytes) + " bytes");
  }
  return vector_bytes / tile.elem_bytes;
}

void check_origin(const SmemTile& tile, Coord origin) {
  if (origin.row < 0 || origin.col < 0 || origin.row >= tile.rows || origin.col >= tile.cols) {
    throw BankCheckError("expected an origin inside the " + std::to_string(tile.rows) + " x " +
                         std::to_string(tile.cols) + " tile, found " + coord_text(origin) +
                         "; pass --origin ROW,COL with 0 <= ROW < " + std::to_string(tile.rows) +
                         " and 0 <= COL < " + std::to_string(tile.cols));
  }
}

// The offset of the vector's first element, after checking the vector is inside the tile,
// contiguous and aligned; the errors name the lane and what was found.
int64_t vector_offset(const SmemTile& tile, const LaneRequest& req, int64_t elems) {
  const Coord c = req.coord;
  const std::string who = "lane " + std::to_string(req.lane) + " at " + coord_text(c);
  if (c.row < 0 || c.col < 0 || c.row >= tile.rows || c.col > tile.cols - elems) {
    throw BankCheckError(who + ": its vector of " + std::to_string(elems) +
                         " elements along the row does not fit in the " +
                         std::to_string(tile.rows) + " x " + std::to_string(tile.cols) +
                         " tile; move the access inside the tile or use a larger tile");
  }
  std::vector<int64_t> offsets;
  for (int64_t k = 0; k < elems; ++k) offsets.push_back(tile.offset({c.row, c.col + k}));
  bool contiguous = true;
  for (int64_t k = 1; k < elems; ++k) contiguous &= offsets[k] == offsets[0] + k;
  if (!contiguous || floor_mod(offsets[0], elems) != 0) {
    std::string found;
    for (int64_t o : offsets) found += (found.empty() ? "" : ",") + std::to_string(o);
    throw BankCheckError(who + " cannot be vectorised: a " +
                         std::to_string(elems * tile.elem_bytes) + "-byte access needs " +
                         std::to_string(elems) + " consecutive offsets starting at a multiple of " +
                         std::to_string(elems) + ", the layout gives offsets " + found +
                         "; use a layout whose columns are contiguous in groups of " +
                         std::to_string(elems) + ", or a smaller vector");
  }
  return offsets[0];
}

}  // namespace

int64_t SmemTile::offset(Coord c) const {
  const int64_t index = c.row + c.col * rows;  // colexicographic over (rows, cols)
  return std::visit([index](const auto& l) { return l(index); }, layout);
}

std::string SmemTile::text() const {
  return std::visit([](const auto& l) { return rt::to_string(l); }, layout);
}

SmemTile make_smem_tile(const rt::Value& value, int elem_bytes) {
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8) {
    throw BankCheckError("expected an element size of 1, 2, 4 or 8 bytes, found " +
                         std::to_string(elem_bytes) +
                         "; pass --elem-bytes 2 for fp16/bf16, 4 for fp32/tf32, 1 for int8");
  }
  const rt::Layout* plain = std::get_if<rt::Layout>(&value);
  const rt::SwizzledLayout* swizzled = std::get_if<rt::SwizzledLayout>(&value);
  if (plain == nullptr && swizzled == nullptr) {
    throw BankCheckError("expected a shared-memory layout (rows, cols) -> offset, found a " +
                         kind_of(value) + " '" + rt::to_string(value) +
                         "'; give a layout such as (8,64):(64,1) or "
                         "composition(Sw<3,3,3>, (8,64):(64,1))");
  }
  const rt::Layout& base = plain != nullptr ? *plain : swizzled->layout;
  if (base.rank() != 2) {
    throw BankCheckError("expected a rank-2 layout (rows, cols) -> offset, found rank " +
                         std::to_string(base.rank()) + " in '" + rt::to_string(value) +
                         "'; group the modes into rows and columns, e.g. (8,(4,16)):(64,(16,1))");
  }
  SmemTile tile;
  if (plain != nullptr) {
    tile.layout = *plain;
  } else {
    tile.layout = *swizzled;
  }
  tile.rows = base.mode(0).size();
  tile.cols = base.mode(1).size();
  tile.elem_bytes = elem_bytes;
  return tile;
}

WarpAccess ldmatrix_access(const SmemTile& tile, int matrices, Coord origin, Coord region) {
  if (matrices != 1 && matrices != 2 && matrices != 4) {
    throw BankCheckError("expected ldmatrix .x1, .x2 or .x4, found " + std::to_string(matrices) +
                         " matrices");
  }
  const int64_t block_cols = elements_per_vector(tile, kLdmatrixRowBytes);
  check_origin(tile, origin);
  const Coord extent{region.row > 0 ? region.row : tile.rows - origin.row,
                     region.col > 0 ? region.col : tile.cols - origin.col};
  if (region.row < 0 || region.col < 0 || extent.row > tile.rows - origin.row ||
      extent.col > tile.cols - origin.col) {
    throw BankCheckError("expected a region inside the tile, found " + coord_text(extent) +
                         " from " + coord_text(origin) + " in a " + std::to_string(tile.rows) +
                         " x " + std::to_string(tile.cols) + " tile; shrink --region");
  }
  const int64_t block_rows_n = extent.row / kLdmatrixRows;
  const int64_t block_cols_n = extent.col / block_cols;
  // Capped at 4 x 4 (no overflow on huge tiles): enough to tell whether `matrices` fit.
  const int64_t blocks = std::min<int64_t>(block_rows_n, 4) * std::min<int64_t>(block_cols_n, 4);
  if (blocks < matrices) {
    throw BankCheckError(
        "tile too small for ldmatrix.x" + std::to_string(matrices) + ": it reads " +
        std::to_string(matrices) + " blocks of 8 rows x 16 bytes (8 x " +
        std::to_string(block_cols) + " elements), the " + std::to_string(extent.row) + " x " +
        std::to_string(extent.col) + " region from " + coord_text(origin) + " holds " +
        std::to_string(blocks) +
        "; use a larger tile, a smaller --origin, or fewer matrices (ldmatrix-x1/-x2)");
  }
  WarpAccess access;
  access.vector_bytes = kLdmatrixRowBytes;
  access.description = "ldmatrix.x" + std::to_string(matrices) + ": " + std::to_string(matrices) +
                       " matrices of 8 rows x 16 bytes at";
  for (int m = 0; m < matrices; ++m) {
    const Coord block{origin.row + (m % block_rows_n) * kLdmatrixRows,
                      origin.col + (m / block_rows_n) * block_cols};
    access.description += " " + coord_text(block);
    for (int r = 0; r < kLdmatrixRows; ++r) {
      access.lanes.push_back({m * kLdmatrixRows + r, {block.row + r, block.col}});
    }
  }
  return access;
}

WarpAccess row_major_access(const SmemTile& tile, int vector_bytes, Coord origin) {
  const int64_t elems = elements_per_vector(tile, vector_bytes);
  check_origin(tile, origin);
  const int64_t width = tile.cols - origin.col;
  if (width % elems != 0) {
    throw BankCheckError(
        "expected the tile's width to be a whole number of " + std::to_string(vector_bytes) +
        "-byte vectors, found " + std::to_string(width) + " columns of " +
        std::to_string(tile.elem_bytes) + " bytes from column " + std::to_string(origin.col) +
        "; use a width that is a multiple of " + std::to_string(elems) + " elements");
  }
  const int64_t per_row = width / elems;
  const int64_t rows_needed = (kWarpSize + per_row - 1) / per_row;
  if (tile.rows - origin.row < rows_needed) {
    throw BankCheckError("tile too small for 32 lanes of " + std::to_string(vector_bytes) +
                         "-byte vectors: " + std::to_string(per_row) + " vectors per row need " +
                         std::to_string(rows_needed) + " rows, the tile has " +
                         std::to_string(tile.rows - origin.row) + " from row " +
                         std::to_string(origin.row) + "; use a taller or wider tile");
  }
  WarpAccess access;
  access.vector_bytes = vector_bytes;
  // As a thread layout over one warp: (rows, vectors) -> lane, vectors capped at 32.
  const int64_t lanes_per_row = std::min<int64_t>(per_row, kWarpSize);
  access.description = "row-major " + std::to_string(vector_bytes) + "-byte vectors: thread " +
                       "layout (" + std::to_string(rows_needed) + "," +
                       std::to_string(lanes_per_row) + "):(" + std::to_string(lanes_per_row) +
                       ",1)";
  for (int lane = 0; lane < kWarpSize; ++lane) {
    access.lanes.push_back(
        {lane, {origin.row + lane / per_row, origin.col + lane % per_row * elems}});
  }
  return access;
}

WarpAccess thread_layout_access(const SmemTile& tile, const rt::Layout& threads, int vector_bytes,
                                Coord origin, int warp) {
  const int64_t elems = elements_per_vector(tile, vector_bytes);
  if (threads.rank() != 2) {
    throw BankCheckError(
        "expected a rank-2 thread layout (rows, column vectors) -> thread id, "
        "found rank " +
        std::to_string(threads.rank()) + " in '" + rt::to_string(threads) +
        "'; e.g. (8,4):(4,1) for 8 rows of 4 vectors");
  }
  if (warp < 0) throw BankCheckError("expected --warp >= 0, found " + std::to_string(warp));
  const int64_t rows = threads.mode(0).size();
  const int64_t size = threads.size();
  constexpr int64_t kMaxThreads = 1 << 16;
  if (size > kMaxThreads) {
    throw BankCheckError("expected a thread layout of at most " + std::to_string(kMaxThreads) +
                         " coordinates, found " + std::to_string(size) + "; use a smaller one");
  }
  std::map<int, Coord> by_lane;
  for (int64_t i = 0; i < size; ++i) {
    const int64_t lane = threads(i) - int64_t{kWarpSize} * warp;
    if (lane < 0 || lane >= kWarpSize) continue;
    const Coord c{origin.row + i % rows, origin.col + i / rows * elems};
    auto [it, fresh] = by_lane.emplace(static_cast<int>(lane), c);
    if (!fresh) {
      throw BankCheckError("expected a one-to-one thread layout, found thread " +
                           std::to_string(threads(i)) + " at both " + coord_text(it->second) +
                           " and " + coord_text(c) + " in '" + rt::to_string(threads) +
                           "'; give every thread its own stride");
    }
  }
  if (by_lane.empty()) {
    throw BankCheckError(
        "the thread layout '" + rt::to_string(threads) + "' has no thread of warp " +
        std::to_string(warp) + " (threads " + std::to_string(kWarpSize * warp) + ".." +
        std::to_string(kWarpSize * warp + kWarpSize - 1) + "); pick another --warp");
  }
  WarpAccess access;
  access.vector_bytes = vector_bytes;
  access.description = std::to_string(vector_bytes) + "-byte vectors by thread layout " +
                       rt::to_string(threads) + ", warp " + std::to_string(warp);
  for (auto [lane, c] : by_lane) access.lanes.push_back({lane, c});
  return access;
}

WarpAccess explicit_access(const std::vector<Coord>& coords, int vector_bytes) {
  if (coords.empty() || coords.size() > static_cast<size_t>(kWarpSize)) {
    throw BankCheckError("expected 1 to 32 lane coordinates, found " +
                         std::to_string(coords.size()) + "; give one ROW,COL per lane");
  }
  WarpAccess access;
  access.vector_bytes = vector_bytes;
  access.description = std::to_string(vector_bytes) + "-byte vectors at " +
                       std::to_string(coords.size()) + " given lane coordinates";
  for (size_t i = 0; i < coords.size(); ++i) {
    access.lanes.push_back({static_cast<int>(i), coords[i]});
  }
  return access;
}

BankReport check_banks(const SmemTile& tile, const WarpAccess& access) {
  const int64_t elems = elements_per_vector(tile, access.vector_bytes);
  const int per_phase = access.lanes_per_phase();
  const int64_t words_per_lane = access.vector_bytes / kBankWordBytes;
  std::map<int, PhaseResult> phases;                      // by phase index
  std::map<int, std::map<int, std::set<int64_t>>> words;  // phase -> bank -> distinct words
  std::map<int, std::map<int64_t, int>> requests;         // phase -> word -> lanes asking
  std::set<int> seen;
  for (const LaneRequest& req : access.lanes) {
    if (req.lane < 0 || req.lane >= kWarpSize || !seen.insert(req.lane).second) {
      throw BankCheckError("expected distinct lane ids 0..31, found lane " +
                           std::to_string(req.lane) + " out of range or given twice");
    }
    LaneResult lane{req.lane, req.coord, vector_offset(tile, req, elems), 0, {}};
    lane.byte_address = lane.offset * tile.elem_bytes;
    const int p = req.lane / per_phase;
    for (int64_t w = 0; w < words_per_lane; ++w) {
      const int64_t word = floor_div(lane.byte_address, kBankWordBytes) + w;
      const int bank = static_cast<int>(floor_mod(word, kBankCount));
      lane.banks.push_back(bank);
      words[p][bank].insert(word);
      ++requests[p][word];
    }
    PhaseResult& phase = phases[p];
    phase.index = p;
    phase.first_lane = p * per_phase;
    phase.last_lane = p * per_phase + per_phase - 1;
    phase.lanes.push_back(std::move(lane));
  }
  BankReport report;
  for (auto& [p, phase] : phases) {
    std::sort(phase.lanes.begin(), phase.lanes.end(),
              [](const LaneResult& a, const LaneResult& b) { return a.lane < b.lane; });
    phase.n_way = 0;
    for (const auto& [bank, distinct] : words[p]) {
      if (static_cast<int>(distinct.size()) > phase.n_way) {
        phase.n_way = static_cast<int>(distinct.size());
        phase.busiest_bank = bank;
        phase.busiest_words.assign(distinct.begin(), distinct.end());
      }
    }
    for (const auto& [word, lanes] : requests[p]) phase.broadcast_words += lanes > 1;
    if (phase.n_way > report.worst_n_way || report.phases.empty()) {
      report.worst_n_way = phase.n_way;
      report.worst_phase = p;
    }
    report.phases.push_back(std::move(phase));
  }
  return report;
}

}  // namespace tessel::tool
