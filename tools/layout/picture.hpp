// Pictures of layouts for `tessel-layout show`: a grid of labelled, coloured cells, built from
// a layout (offset tables, like CuTe's print_layout) or from a thread/value layout over a tile
// (like CuTe's print_latex of an MMA atom), and rendered as text, SVG or LaTeX (TikZ).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime_layout.hpp"

namespace tessel::tool {

// Raised for a value that cannot be drawn (wrong kind or rank, too large, a TV layout that
// leaves the tile); the message says what was expected, what was found and what to change.
class PictureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Larger tables are refused rather than printed: a picture nobody can read, and a way to hang.
inline constexpr int64_t kMaxGridSide = 256;
inline constexpr int kPaletteSize = 8;  // colours cycle over offsets or thread ids

// rows x cols cells, row-major. colour is a palette index in [0, kPaletteSize), or -1 for a
// blank cell (a tile cell no thread/value covers).
struct Grid {
  std::string title;
  int64_t rows = 0, cols = 0;
  std::vector<std::string> labels;
  std::vector<int> colours;
  std::vector<std::string> notes;  // remarks printed under the table

  const std::string& label(int64_t r, int64_t c) const { return labels[r * cols + c]; }
  int colour(int64_t r, int64_t c) const { return colours[r * cols + c]; }
};

// The offsets of a layout (plain or swizzled) as a table: rank 2 -> rows = size of mode 0,
// columns = size of mode 1 (each mode indexed by its flattened size); rank 1 -> one row.
// Cells are coloured by offset mod kPaletteSize.
// offset_grid((2,4):(4,1)) -> rows {0 1 2 3}, {4 5 6 7}.
Grid offset_grid(const rt::Value& value);

// A (thread, value) -> index layout over a tile_rows x tile_cols tile, the index column-major
// in the tile (CuTe's convention for MMA atoms). Each cell is labelled T<t>V<v> and coloured
// by thread; cells covered twice or never are listed in the notes (legal for some layouts).
// tv_grid(((4,8),(2,2)):((32,1),(16,8)), 16, 8) -> the SM80 16x8x16 C fragment: cell (0,0)
// is T0V0, (0,1) T0V1, (8,0) T0V2, (1,0) T4V0. threads_per_colour > 1 colours by thread group
// instead (32: by warp, which shows a TiledMMA's atom layout).
Grid tv_grid(const rt::Value& value, int64_t tile_rows, int64_t tile_cols,
             int64_t threads_per_colour = 1);

// CuTe's print_layout look: column indices on top, row indices on the left, +---+ borders.
std::string render_text(const Grid& grid);
// A standalone SVG document: one <rect> and one <text> per cell, plus the indices and title.
std::string render_svg(const Grid& grid);
// A standalone LaTeX document (TikZ): one filled rectangle and one node per cell.
std::string render_latex(const Grid& grid);

}  // namespace tessel::tool
