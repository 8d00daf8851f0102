// Named (thread, value) layouts for `tessel-layout show`, read from the library's own types so
// that a picture cannot drift from the code:
//   --atom   one instruction: the MMA atoms (MmaTraits, parts A, B, C) and the copy atoms
//            (CopyTraits, parts S: which lane reads which element, D: which lane and value
//            receives it), 16-bit elements
//   --tiled  the sm80 GEMM's own TiledMMA and TiledCopies, of the shipped configuration
//            GemmConfigSm80<128, 128, 32, 4> (2x2 warps, f16)
//   --fragment  one thread's registers of that kernel, as its TiledMMA partitions them
//               (sm80_mma) or as its ldmatrix copy sees them after retile_D (sm80_s2r)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "picture.hpp"

namespace tessel::tool {

// A TV layout as `show --tv` takes it: the layout's text and the tile (rows, columns) that
// its column-major index addresses.
struct TvLayout {
  std::string layout;
  int64_t rows = 0, cols = 0;
};

// One name with its parts, e.g. "sm80_ldmatrix_x4" with parts "SD".
struct CatalogEntry {
  std::string name;
  std::string parts;             // the part letters, in order
  std::vector<TvLayout> layout;  // one per letter
  std::string part_help;         // e.g. "NAME:A, NAME:B or NAME:C (the operand to draw)"
};

// The instructions: MMA atoms first, then copy atoms.
const std::vector<CatalogEntry>& atom_catalog();
// The sm80 kernel's tiled MMA (with and without the permutation) and tiled copies.
const std::vector<CatalogEntry>& tiled_catalog();

// "NAME:PART" of `catalog` -> that layout; `option` names the flag in error messages
// (PictureError: unknown name, with the known names; missing or wrong part, with the parts).
TvLayout find_catalog_layout(const std::vector<CatalogEntry>& catalog, const std::string& spec,
                             const std::string& option, const std::string& what);
std::string catalog_names(const std::vector<CatalogEntry>& catalog);

// Thread `thread`'s register fragment of the sm80 kernel's A, B or C ("sm80_mma:B", or
// "sm80_s2r:B" for the view retile_D gives the ldmatrix copy): rows = the fragment's first
// mode (values per MMA atom or per copy), columns = its other modes, each cell labelled
// "R<register> (<row>,<col>)" with the element of the stage tile (A, B: (128,32); C:
// (128,128)) that the register holds, coloured by the ldmatrix.x4 that fills it (registers
// 8j..8j+7; C: by 4). The notes say whether the copy delivers to each register the element
// the MMA partition expects there.
Grid fragment_grid(const std::string& spec, int thread);
std::string fragment_names();

}  // namespace tessel::tool
