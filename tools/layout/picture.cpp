#include "picture.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <sstream>

namespace tessel::tool {
namespace {

// Pastel colours (RGB), light enough for black labels.
constexpr std::array<std::array<int, 3>, kPaletteSize> kPalette{{{255, 179, 186},
                                                                 {255, 223, 170},
                                                                 {250, 245, 160},
                                                                 {186, 240, 190},
                                                                 {170, 220, 255},
                                                                 {205, 190, 255},
                                                                 {255, 190, 240},
                                                                 {205, 205, 205}}};

// The function behind a layout or swizzled layout, with its (unswizzled) shape.
struct IndexFunction {
  const rt::Layout* shape_source = nullptr;
  std::function<int64_t(int64_t)> apply;
};

IndexFunction index_function(const rt::Value& value, const std::string& what) {
  if (const auto* l = std::get_if<rt::Layout>(&value)) {
    return {l, [l](int64_t i) { return (*l)(i); }};
  }
  if (const auto* s = std::get_if<rt::SwizzledLayout>(&value)) {
    return {&s->layout, [s](int64_t i) { return (*s)(i); }};
  }
  const bool swizzle = std::holds_alternative<rt::Swizzle>(value);
  throw PictureError("expected " + what + ", found '" + rt::to_string(value) +
                     "', which is not a layout; " +
                     (swizzle ? "compose the swizzle with a layout, e.g. "
                                "composition(Sw<3,3,3>, (8,64):(64,1))"
                              : "give a layout such as (8,64):(64,1)"));
}

// Product of the leaves, or max() when it passes `limit` (no overflow on absurd shapes).
int64_t bounded_size(const rt::IntTree& shape, int64_t limit) {
  if (shape.is_leaf()) return shape.value();
  int64_t size = 1;
  for (const rt::IntTree& child : shape.children()) {
    const int64_t s = bounded_size(child, limit);
    if (s == 0) return 0;
    if (s > limit || size > limit / s) return std::numeric_limits<int64_t>::max();
    size *= s;
  }
  return size;
}

// bounded_size's answer as text: "more than LIMIT" for the saturated value.
std::string size_text(int64_t n, int64_t limit) {
  return n == std::numeric_limits<int64_t>::max() ? "more than " + std::to_string(limit)
                                                  : std::to_string(n);
}

void check_side(int64_t n, const std::string& which, const std::string& text) {
  if (n > kMaxGridSide) {
    throw PictureError("expected at most " + std::to_string(kMaxGridSide) + " " + which +
                       ", found " + size_text(n, kMaxGridSide) + " in '" + text +
                       "'; show a slice or a smaller tile of it");
  }
}

std::string escape_xml(const std::string& text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string escape_latex(const std::string& text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '<':
        out += "\\textless{}";
        break;
      case '>':
        out += "\\textgreater{}";
        break;
      case '\\':
        out += "\\textbackslash{}";
        break;
      case '^':
        out += "\\textasciicircum{}";
        break;
      case '~':
        out += "\\textasciitilde{}";
        break;
      case '_':
      case '#':
      case '%':
      case '&':
      case '{':
      case '}':
      case '$':
        out += '\\';
        out += ch;
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string hex_colour(int colour) {
  if (colour < 0) return "#ffffff";
  char text[8];
  const auto& rgb = kPalette[colour];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return text;
}

size_t widest_label(const Grid& grid) {
  size_t width = std::to_string(grid.cols - 1).size();
  for (const std::string& l : grid.labels) width = std::max(width, l.size());
  return width;
}

}  // namespace

Grid offset_grid(const rt::Value& value) {
  const IndexFunction f = index_function(value, "a layout to show");
  const rt::Layout& layout = *f.shape_source;
  const std::string text = rt::to_string(value);
  Grid grid;
  grid.title = text;
  if (layout.rank() == 1) {
    grid.rows = 1;
    grid.cols = bounded_size(layout.shape, kMaxGridSide);
    check_side(grid.cols, "columns", text);
  } else if (layout.rank() == 2) {
    grid.rows = bounded_size(layout.shape[0], kMaxGridSide);
    grid.cols = bounded_size(layout.shape[1], kMaxGridSide);
    check_side(grid.rows, "rows", text);
    check_side(grid.cols, "columns", text);
  } else {
    throw PictureError("expected a layout of rank 1 or 2 (rows, columns), found rank " +
                       std::to_string(layout.rank()) + " in '" + text +
                       "'; group the modes into two, e.g. (2,2,4) -> ((2,2),4)");
  }
  for (int64_t r = 0; r < grid.rows; ++r) {
    for (int64_t c = 0; c < grid.cols; ++c) {
      const int64_t offset = f.apply(r + c * grid.rows);  // colexicographic (row, col)
      grid.labels.push_back(std::to_string(offset));
      grid.colours.push_back(
          static_cast<int>(((offset % kPaletteSize) + kPaletteSize) % kPaletteSize));
    }
  }
  return grid;
}

Grid tv_grid(const rt::Value& value, int64_t tile_rows, int64_t tile_cols,
             int64_t threads_per_colour) {
  const IndexFunction f = index_function(value, "a (thread, value) -> index layout");
  const rt::Layout& layout = *f.shape_source;
  const std::string text = rt::to_string(value);
  if (tile_rows <= 0 || tile_cols <= 0) {
    throw PictureError("expected a tile of positive size, found --tile " +
                       std::to_string(tile_rows) + "," + std::to_string(tile_cols) +
                       "; pass --tile M,N, e.g. --tile 16,8");
  }
  check_side(tile_rows, "tile rows", "--tile");
  check_side(tile_cols, "tile columns", "--tile");
  if (layout.rank() != 2) {
    throw PictureError("expected a rank-2 (thread, value) -> index layout, found rank " +
                       std::to_string(layout.rank()) + " in '" + text +
                       "'; group the modes into (threads, values), e.g. ((4,8),(2,2))");
  }
  const int64_t kMaxPairs = kMaxGridSide * kMaxGridSide;
  const int64_t threads = bounded_size(layout.shape[0], kMaxPairs);
  const int64_t values = bounded_size(layout.shape[1], kMaxPairs);
  if (threads > kMaxPairs || values > kMaxPairs || threads * values > kMaxPairs) {
    throw PictureError("expected at most " + std::to_string(kMaxPairs) +
                       " (thread, value) pairs, found " + size_text(threads, kMaxPairs) + " x " +
                       size_text(values, kMaxPairs) + " in '" + text + "'; show a smaller layout");
  }
  Grid grid;
  grid.title =
      text + " over a " + std::to_string(tile_rows) + "x" + std::to_string(tile_cols) + " tile";
  grid.rows = tile_rows;
  grid.cols = tile_cols;
  grid.labels.assign(tile_rows * tile_cols, "");
  grid.colours.assign(tile_rows * tile_cols, -1);
  std::vector<std::vector<std::string>> owners(tile_rows * tile_cols);
  for (int64_t v = 0; v < values; ++v) {
    for (int64_t t = 0; t < threads; ++t) {
      const int64_t index = f.apply(t + v * threads);
      const std::string name = "T" + std::to_string(t) + "V" + std::to_string(v);
      if (index < 0 || index >= tile_rows * tile_cols) {
        throw PictureError("expected every index inside the " + std::to_string(tile_rows) + "x" +
                           std::to_string(tile_cols) + " tile (0.." +
                           std::to_string(tile_rows * tile_cols - 1) + "), found " + name + " -> " +
                           std::to_string(index) + " in '" + text +
                           "'; pass the --tile M,N this layout indexes");
      }
      const int64_t row = index % tile_rows, col = index / tile_rows;  // column-major tile
      owners[row * tile_cols + col].push_back(name);
      if (owners[row * tile_cols + col].size() == 1) {
        grid.labels[row * tile_cols + col] = name;
        grid.colours[row * tile_cols + col] =
            static_cast<int>(t / std::max<int64_t>(threads_per_colour, 1) % kPaletteSize);
      }
    }
  }
  // Holes and overlaps: legal (e.g. a broadcast operand), so they are reported, not refused.
  constexpr int kListed = 8;
  int64_t holes = 0, doubles = 0;
  std::string hole_list, double_list;
  for (int64_t r = 0; r < tile_rows; ++r) {
    for (int64_t c = 0; c < tile_cols; ++c) {
      const auto& who = owners[r * tile_cols + c];
      const std::string cell = "(" + std::to_string(r) + "," + std::to_string(c) + ")";
      if (who.empty() && holes++ < kListed) hole_list += " " + cell;
      if (who.size() > 1) {
        grid.labels[r * tile_cols + c] += "+";
        if (doubles++ < kListed) {
          double_list += std::string(doubles > 1 ? ";" : "") + " " + cell + " by";
          for (const std::string& name : who) double_list += " " + name;
        }
      }
    }
  }
  if (holes > 0) {
    grid.notes.push_back(
        std::to_string(holes) + " cell(s) covered by no (thread, value):" + hole_list +
        (holes > kListed ? " ..." : "") + " (legal for a layout that covers part of the tile)");
  }
  if (doubles > 0) {
    grid.notes.push_back(
        std::to_string(doubles) + " cell(s) covered more than once, marked +:" + double_list +
        (doubles > kListed ? " ..." : "") + " (legal, e.g. for a broadcast operand)");
  }
  return grid;
}

std::string render_text(const Grid& grid) {
  const size_t width = widest_label(grid);
  const size_t margin = std::to_string(grid.rows - 1).size() + 1;
  std::ostringstream out;
  auto pad = [](const std::string& s, size_t w) { return std::string(w - s.size(), ' ') + s; };
  std::string rule = std::string(margin, ' ') + "+";
  for (int64_t c = 0; c < grid.cols; ++c) rule += std::string(width + 2, '-') + "+";
  std::string header = std::string(margin + 1, ' ');
  for (int64_t c = 0; c < grid.cols; ++c) header += " " + pad(std::to_string(c), width) + "  ";
  header.erase(header.find_last_not_of(' ') + 1);
  out << grid.title << "\n" << header << "\n" << rule << "\n";
  for (int64_t r = 0; r < grid.rows; ++r) {
    out << pad(std::to_string(r), margin - 1) << " |";
    for (int64_t c = 0; c < grid.cols; ++c) {
      out << " " << pad(grid.label(r, c).empty() ? "." : grid.label(r, c), width) << " |";
    }
    out << "\n" << rule << "\n";
  }
  for (const std::string& note : grid.notes) out << "note: " << note << "\n";
  return out.str();
}

std::string render_svg(const Grid& grid) {
  const int cell_w = static_cast<int>(std::max<size_t>(28, 8 * widest_label(grid) + 10));
  const int cell_h = 22, left = 36, top = 46;
  const int64_t width = left + grid.cols * cell_w + 10, height = top + grid.rows * cell_h + 10;
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height
      << "\" font-family=\"monospace\" font-size=\"12\">\n"
      << "<title>" << escape_xml(grid.title) << "</title>\n"
      << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height
      << "\" fill=\"white\" class=\"background\"/>\n"
      << "<text x=\"4\" y=\"16\">" << escape_xml(grid.title) << "</text>\n";
  out << "<g class=\"index\" text-anchor=\"middle\" fill=\"#555555\">\n";
  for (int64_t c = 0; c < grid.cols; ++c) {
    out << "<text x=\"" << left + c * cell_w + cell_w / 2 << "\" y=\"" << top - 6 << "\">" << c
        << "</text>\n";
  }
  for (int64_t r = 0; r < grid.rows; ++r) {
    out << "<text x=\"" << left / 2 << "\" y=\"" << top + r * cell_h + cell_h / 2 + 4 << "\">" << r
        << "</text>\n";
  }
  out << "</g>\n<g class=\"cells\" text-anchor=\"middle\">\n";
  for (int64_t r = 0; r < grid.rows; ++r) {
    for (int64_t c = 0; c < grid.cols; ++c) {
      const int64_t x = left + c * cell_w, y = top + r * cell_h;
      out << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cell_w << "\" height=\""
          << cell_h << "\" fill=\"" << hex_colour(grid.colour(r, c)) << "\" stroke=\"black\"/>"
          << "<text x=\"" << x + cell_w / 2 << "\" y=\"" << y + cell_h / 2 + 4 << "\">"
          << escape_xml(grid.label(r, c)) << "</text>\n";
    }
  }
  out << "</g>\n</svg>\n";
  return out.str();
}

std::string render_latex(const Grid& grid) {
  const double cell_w = 0.3 + 0.17 * static_cast<double>(widest_label(grid));
  std::ostringstream out;
  out << "% " << grid.title << "\n"
      << "\\documentclass[tikz,border=4pt]{standalone}\n"
      << "\\usepackage[T1]{fontenc}\n";
  for (int i = 0; i < kPaletteSize; ++i) {
    out << "\\definecolor{cell" << static_cast<char>('a' + i) << "}{RGB}{" << kPalette[i][0] << ","
        << kPalette[i][1] << "," << kPalette[i][2] << "}\n";
  }
  out << "\\begin{document}\n"
      << "\\begin{tikzpicture}[x={(" << cell_w << "cm,0cm)},y={(0cm,-0.5cm)},"
      << "every node/.style={font=\\ttfamily\\footnotesize}]\n"
      << "\\node[anchor=south west] at (0,-1.2) {" << escape_latex(grid.title) << "};\n";
  for (int64_t c = 0; c < grid.cols; ++c) {
    out << "\\node[gray] at (" << c << ".5,-0.5) {" << c << "};\n";
  }
  for (int64_t r = 0; r < grid.rows; ++r) {
    out << "\\node[gray,anchor=east] at (0," << r << ".5) {" << r << "};\n";
  }
  for (int64_t r = 0; r < grid.rows; ++r) {
    for (int64_t c = 0; c < grid.cols; ++c) {
      const int colour = grid.colour(r, c);
      const std::string fill =
          colour < 0 ? "white" : std::string("cell") + static_cast<char>('a' + colour);
      out << "\\filldraw[fill=" << fill << ",draw=black] (" << c << "," << r
          << ") rectangle +(1,1); \\node at (" << c << ".5," << r << ".5) {"
          << escape_latex(grid.label(r, c)) << "};\n";
    }
  }
  out << "\\end{tikzpicture}\n\\end{document}\n";
  return out.str();
}

}  // namespace tessel::tool
