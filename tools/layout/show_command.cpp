// `tessel-layout show`: a layout as a table of offsets (CuTe's print_layout), or a
// (thread, value) layout over a tile; optionally drawn as SVG or LaTeX (picture.hpp).
//
//   tessel-layout show "composition(Sw<3,3,3>, (8,64):(64,1))" --svg sw333.svg
//   tessel-layout show --tv --tile 16,8 "((4,8),(2,2)):((32,1),(16,8))" --latex c_frag.tex
//   tessel-layout show --atom sm80_16x8x16_f32f16f16f32:A     (the TV layout and tile of an MMA
//                                                           atom, from its MmaTraits)
#include <fstream>
#include <iostream>
#include <vector>

#include "commands.hpp"
#include "expression.hpp"
#include "picture.hpp"
#include "tessel/atom/mma_traits_sm80.hpp"

namespace tessel::tool {
namespace {

struct ShowOptions {
  std::string expr;
  std::string atom;  // NAME:A|B|C
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

// An MMA atom's operand as `show --tv` takes it: the TV layout's text and its tile (A: (M,K),
// B: (N,K), C: (M,N)), read from the atom's MmaTraits.
struct AtomOperand {
  std::string layout;
  std::pair<int64_t, int64_t> tile;
};
struct AtomEntry {
  std::string name;
  AtomOperand a, b, c;
};

template <class Op>
AtomEntry atom_entry(const std::string& name) {
  using T = MmaTraits<Op>;
  typename T::ShapeMNK mnk{};
  const int64_t m = get<0>(mnk), n = get<1>(mnk), k = get<2>(mnk);
  return {name,
          {to_string(typename T::ALayout{}), {m, k}},
          {to_string(typename T::BLayout{}), {n, k}},
          {to_string(typename T::CLayout{}), {m, n}}};
}

const std::vector<AtomEntry>& atom_catalog() {
  static const std::vector<AtomEntry> catalog = {
      atom_entry<SM80_16x8x16_F32F16F16F32_TN>("sm80_16x8x16_f32f16f16f32"),
      atom_entry<SM80_16x8x16_F32BF16BF16F32_TN>("sm80_16x8x16_f32bf16bf16f32"),
      atom_entry<SM80_16x8x16_F16F16F16F16_TN>("sm80_16x8x16_f16f16f16f16"),
      atom_entry<SM80_16x8x8_F32F16F16F32_TN>("sm80_16x8x8_f32f16f16f32"),
      atom_entry<SM80_16x8x8_F32BF16BF16F32_TN>("sm80_16x8x8_f32bf16bf16f32"),
  };
  return catalog;
}

std::string atom_names() {
  std::string names;
  for (const AtomEntry& e : atom_catalog()) names += (names.empty() ? "" : ", ") + e.name;
  return names;
}

// "sm80_16x8x16_f32f16f16f32:C" -> the C operand of that atom.
AtomOperand find_atom_operand(const std::string& spec) {
  const size_t colon = spec.rfind(':');
  const std::string name = spec.substr(0, colon);
  const std::string operand = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (operand != "A" && operand != "B" && operand != "C") {
    throw PictureError("--atom takes NAME:A, NAME:B or NAME:C (the operand to draw), got '" + spec +
                       "'; e.g. --atom sm80_16x8x16_f32f16f16f32:C");
  }
  for (const AtomEntry& e : atom_catalog()) {
    if (e.name == name) return operand == "A" ? e.a : operand == "B" ? e.b : e.c;
  }
  throw PictureError("--atom: no MMA atom named '" + name + "'; known atoms: " + atom_names());
}

int run_show(const ShowOptions& o) {
  try {
    if (!o.atom.empty()) {
      if (!o.expr.empty() || o.tv || o.tile.first != 0 || o.tile.second != 0) {
        throw PictureError(
            "--atom gives the layout and its tile; drop the expression, --tv and --tile");
      }
      const AtomOperand atom = find_atom_operand(o.atom);
      ShowOptions tv = o;
      tv.atom.clear();
      tv.expr = atom.layout;
      tv.tv = true;
      tv.tile = atom.tile;
      return run_show(tv);
    }
    if (o.expr.empty()) {
      throw PictureError("show needs a layout expression, or --atom NAME:A|B|C");
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
                  "layout expression, e.g. \"composition(Sw<3,3,3>, (8,64):(64,1))\"");
  cmd->add_flag("--tv", options->tv,
                "EXPR maps (thread, value) to an index of the --tile, column-major; label each "
                "cell T<t>V<v>");
  cmd->add_option("--tile", options->tile, "M,N: the tile a --tv layout indexes, e.g. 16,8")
      ->delimiter(',');
  cmd->add_option("--atom", options->atom,
                  "NAME:A|B|C: draw that operand's (thread, value) layout of an MMA atom over "
                  "its tile (A: MxK, B: NxK, C: MxN), instead of EXPR; NAME is one of " +
                      atom_names());
  cmd->add_option("--svg", options->svg_file, "also write an SVG picture to FILE");
  cmd->add_option("--latex", options->latex_file, "also write a LaTeX (TikZ) picture to FILE");
  cmd->footer(
      "Examples:\n"
      "  show \"composition(Sw<3,3,3>, (8,64):(64,1))\" --svg sw333.svg\n"
      "  show --tv --tile 16,8 \"((4,8),(2,2)):((32,1),(16,8))\" --latex sm80_c.tex\n"
      "  show --atom sm80_16x8x16_f32f16f16f32:A --svg sm80_a.svg");
  cmd->callback([options, &status] { status = std::max(status, run_show(*options)); });
}

}  // namespace tessel::tool
