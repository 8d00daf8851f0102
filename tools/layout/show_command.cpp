// `tessel-layout show`: a layout as a table of offsets (CuTe's print_layout), or a
// (thread, value) layout over a tile; optionally drawn as SVG or LaTeX (picture.hpp).
//
//   tessel-layout show "composition(Sw<3,3,3>, (8,64):(64,1))" --svg sw333.svg
//   tessel-layout show --tv --tile 16,8 "((4,8),(2,2)):((32,1),(16,8))" --latex c_frag.tex
#include <fstream>
#include <iostream>

#include "commands.hpp"
#include "expression.hpp"
#include "picture.hpp"

namespace tessel::tool {
namespace {

struct ShowOptions {
  std::string expr;
  bool tv = false;
  std::pair<int64_t, int64_t> tile{0, 0};
  std::string latex_file;
  std::string svg_file;
};

void write_file(const std::string& path, const std::string& text, const char* what) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  file.close();
  if (!file) {
    throw PictureError(std::string("could not write the ") + what + " picture to '" + path +
                       "'; check that the folder exists and is writable");
  }
}

int run_show(const ShowOptions& o) {
  try {
    if (o.tv && o.tile.first == 0 && o.tile.second == 0) {
      throw PictureError(
          "--tv needs the tile the layout indexes: pass --tile M,N, e.g. "
          "--tile 16,8 for an SM80 16x8x16 C fragment");
    }
    if (!o.tv && (o.tile.first != 0 || o.tile.second != 0)) {
      throw PictureError(
          "--tile is the tile of a thread/value layout; add --tv, or drop --tile "
          "to show the layout's offsets");
    }
    const rt::Value value = rt::evaluate(o.expr);
    const Grid grid = o.tv ? tv_grid(value, o.tile.first, o.tile.second) : offset_grid(value);
    std::cout << render_text(grid);
    if (!o.svg_file.empty()) write_file(o.svg_file, render_svg(grid), "SVG");
    if (!o.latex_file.empty()) write_file(o.latex_file, render_latex(grid), "LaTeX");
    return 0;
  } catch (const std::exception& e) {  // PictureError, ExpressionError, AlgebraError
    std::cerr << "tessel-layout show: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

void add_show_command(CLI::App& app, int& status) {
  auto options = std::make_shared<ShowOptions>();
  CLI::App* cmd = app.add_subcommand(
      "show",
      "Print a layout as a table of offsets (rows = mode 0, columns = mode 1), or with --tv a "
      "(thread, value) -> index layout over an M x N tile; --svg/--latex draw it");
  cmd->add_option("expr", options->expr,
                  "layout expression, e.g. \"composition(Sw<3,3,3>, (8,64):(64,1))\"")
      ->required();
  cmd->add_flag("--tv", options->tv,
                "EXPR maps (thread, value) to an index of the --tile, column-major; label each "
                "cell T<t>V<v>");
  cmd->add_option("--tile", options->tile, "M,N: the tile a --tv layout indexes, e.g. 16,8")
      ->delimiter(',');
  cmd->add_option("--svg", options->svg_file, "also write an SVG picture to FILE");
  cmd->add_option("--latex", options->latex_file, "also write a LaTeX (TikZ) picture to FILE");
  cmd->footer(
      "Examples:\n"
      "  show \"composition(Sw<3,3,3>, (8,64):(64,1))\" --svg sw333.svg\n"
      "  show --tv --tile 16,8 \"((4,8),(2,2)):((32,1),(16,8))\" --latex sm80_c.tex");
  cmd->callback([options, &status] { status = std::max(status, run_show(*options)); });
}

}  // namespace tessel::tool
