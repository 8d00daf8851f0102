// `tessel-layout show`: a layout as a table of offsets (CuTe's print_layout), or a
// (thread, value) layout over a tile; optionally drawn as SVG or LaTeX (picture.hpp).
//
//   tessel-layout show "composition(Sw<3,3,3>, (8,64):(64,1))" --svg sw333.svg
//   tessel-layout show --tv --tile 16,8 "((4,8),(2,2)):((32,1),(16,8))" --latex c_frag.tex
//   tessel-layout show --atom sm80_16x8x16_f32f16f16f32:A     (the TV layout and tile of an MMA
//                                                           atom, from its MmaTraits)
//   tessel-layout show --atom sm80_ldmatrix_x4:D              (a copy atom, from its CopyTraits)
//   tessel-layout show --tiled sm80_mma:C --colour warp       (the sm80 kernel's TiledMMA)
//   tessel-layout show --fragment sm80_s2r:B --thread 0       (a thread's registers, retiled)
// The named layouts come from layout_catalog.hpp.
#include <fstream>
#include <iostream>
#include <vector>

#include "commands.hpp"
#include "expression.hpp"
#include "layout_catalog.hpp"
#include "picture.hpp"

namespace tessel::tool {
namespace {

struct ShowOptions {
  std::string expr;
  std::string atom;      // NAME:PART of atom_catalog()
  std::string tiled;     // NAME:PART of tiled_catalog()
  std::string fragment;  // NAME:PART, with thread
  int thread = 0;
  std::string colour = "thread";  // thread | warp
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

void write_pictures(const ShowOptions& o, const Grid& grid) {
  std::cout << render_text(grid);
  if (!o.svg_file.empty()) write_file(o.svg_file, render_svg(grid), "SVG");
  if (!o.latex_file.empty()) write_file(o.latex_file, render_latex(grid), "LaTeX");
}

int run_show(const ShowOptions& o) {
  try {
    const int named = !o.atom.empty() + !o.tiled.empty() + !o.fragment.empty();
    if (named > 1) throw PictureError("give one of --atom, --tiled and --fragment");
    if (o.colour != "thread" && o.colour != "warp") {
      throw PictureError("--colour takes thread or warp, got '" + o.colour + "'");
    }
    if (named == 1 && (!o.expr.empty() || o.tv || o.tile.first != 0 || o.tile.second != 0)) {
      throw PictureError(
          "--atom, --tiled and --fragment give the layout and its tile; drop the expression, --tv "
          "and --tile");
    }
    if (!o.fragment.empty()) {
      write_pictures(o, fragment_grid(o.fragment, o.thread));
      return 0;
    }
    if (!o.atom.empty() || !o.tiled.empty()) {
      const TvLayout named_layout =
          !o.atom.empty()
              ? find_catalog_layout(atom_catalog(), o.atom, "--atom", "atom")
              : find_catalog_layout(tiled_catalog(), o.tiled, "--tiled", "tiled layout");
      ShowOptions tv = o;
      tv.atom.clear();
      tv.tiled.clear();
      tv.expr = named_layout.layout;
      tv.tv = true;
      tv.tile = {named_layout.rows, named_layout.cols};
      return run_show(tv);
    }
    if (o.expr.empty()) {
      throw PictureError(
          "show needs a layout expression, or --atom NAME:PART, --tiled NAME:PART or --fragment "
          "NAME:PART");
    }
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
    const Grid grid = o.tv
                          ? tv_grid(value, o.tile.first, o.tile.second, o.colour == "warp" ? 32 : 1)
                          : offset_grid(value);
    write_pictures(o, grid);
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
                  "layout expression, e.g. \"composition(Sw<3,3,3>, (8,64):(64,1))\"");
  cmd->add_flag("--tv", options->tv,
                "EXPR maps (thread, value) to an index of the --tile, column-major; label each "
                "cell T<t>V<v>");
  cmd->add_option("--tile", options->tile, "M,N: the tile a --tv layout indexes, e.g. 16,8")
      ->delimiter(',');
  cmd->add_option("--atom", options->atom,
                  "NAME:PART: draw an instruction's (thread, value) layout over its tile instead "
                  "of EXPR. MMA atoms: PART A (MxK), B (NxK) or C (MxN). Copy atoms, in 16-bit "
                  "elements over the (rows, 8) block they move: PART S (the element each lane "
                  "reads) or D (the lane and value that receive it). NAME is one of " +
                      catalog_names(atom_catalog()));
  cmd->add_option("--tiled", options->tiled,
                  "NAME:PART: the sm80 GEMM's own TiledMMA (sm80_mma, sm80_mma_unpermuted: "
                  "PART A, B or C) or TiledCopy (sm80_g2s, sm80_s2r: PART A or B), of "
                  "GemmConfigSm80<128,128,32,4>; NAME is one of " +
                      catalog_names(tiled_catalog()));
  cmd->add_option("--fragment", options->fragment,
                  "NAME:PART: one thread's registers of that kernel, as the TiledMMA partitions "
                  "them (sm80_mma) or as the ldmatrix copy sees them after retile_D (sm80_s2r); "
                  "one of " +
                      fragment_names());
  cmd->add_option("--thread", options->thread, "the thread whose --fragment to draw (default 0)");
  cmd->add_option("--colour", options->colour,
                  "thread (default) or warp: colour a (thread, value) picture by thread, or by "
                  "warp (thread / 32)");
  cmd->add_option("--svg", options->svg_file, "also write an SVG picture to FILE");
  cmd->add_option("--latex", options->latex_file, "also write a LaTeX (TikZ) picture to FILE");
  cmd->footer(
      "Examples:\n"
      "  show \"composition(Sw<3,3,3>, (8,64):(64,1))\" --svg sw333.svg\n"
      "  show --tv --tile 16,8 \"((4,8),(2,2)):((32,1),(16,8))\" --latex sm80_c.tex\n"
      "  show --atom sm80_16x8x16_f32f16f16f32:A --svg sm80_a.svg\n"
      "  show --atom sm80_ldmatrix_x4:D\n"
      "  show --tiled sm80_mma:C --colour warp\n"
      "  show --fragment sm80_s2r:B --thread 0");
  cmd->callback([options, &status] { status = std::max(status, run_show(*options)); });
}

}  // namespace tessel::tool
