#include "layout_catalog.hpp"

#include <map>

#include "tessel/atom/copy_atom.hpp"
#include "tessel/atom/copy_traits_sm80.hpp"
#include "tessel/atom/mma_traits_sm80.hpp"
#include "tessel/gemm/config_sm80.hpp"

namespace tessel::tool {
namespace {

const std::string kMmaParts = "NAME:A, NAME:B or NAME:C (the operand to draw)";
const std::string kCopyParts =
    "NAME:S or NAME:D (S: the element each lane reads; D: the lane and value that receive it)";
const std::string kTiledCopyParts = "NAME:A or NAME:B (the operand it copies)";

// ---- MMA atoms: A (M,K), B (N,K), C (M,N), read from MmaTraits -----------------------------

template <class Op>
CatalogEntry mma_atom(const std::string& name) {
  using T = MmaTraits<Op>;
  typename T::ShapeMNK mnk{};
  const int64_t m = get<0>(mnk), n = get<1>(mnk), k = get<2>(mnk);
  return {name,
          "ABC",
          {{to_string(typename T::ALayout{}), m, k},
           {to_string(typename T::BLayout{}), n, k},
           {to_string(typename T::CLayout{}), m, n}},
          kMmaParts};
}

// ---- copy atoms, in 16-bit elements -------------------------------------------------------
// CopyAtom<Op, Half>'s (thread, value) -> element layouts index the data the instruction moves
// as one block, row after row of 8 elements (16 bytes): for ldmatrix, row 8j + r is row r of
// matrix j. The picture is that block as a (Rows, 8) tile, whose column-major index is
// element e = 8 * row + col composed with (8,Rows):(Rows,1).

template <class Op>
CatalogEntry copy_atom(const std::string& name) {
  using Atom = CopyAtom<Op, Half>;
  constexpr int kElements = decltype(cosize(typename Atom::ValLayoutDst{}))::value;
  constexpr int kRows = kElements / 8;
  static_assert(kElements % 8 == 0, "a copy atom moves whole 16-byte rows");
  using ToTile = Layout<Shape<Int<8>, Int<kRows>>, Stride<Int<kRows>, Int<1>>>;
  return {name,
          "SD",
          {{to_string(composition(ToTile{}, typename Atom::ValLayoutSrc{})), kRows, 8},
           {to_string(composition(ToTile{}, typename Atom::ValLayoutDst{})), kRows, 8}},
          kCopyParts};
}

// ---- the sm80 kernel's tiled MMA and copies -----------------------------------------------

using Config = GemmConfigSm80<128, 128, 32, 4>;
using Unpermuted =
    TiledMMA<Config::MmaOp, Layout<Shape<Int<Config::kWarpsM>, Int<Config::kWarpsN>, Int<1>>>>;

template <class Mma>
CatalogEntry tiled_mma(const std::string& name) {
  const int64_t m = Mma::template tile_size<0>(), n = Mma::template tile_size<1>(),
                k = Mma::template tile_size<2>();
  return {name,
          "ABC",
          {{to_string(Mma::layout_A_TV()), m, k},
           {to_string(Mma::layout_B_TV()), n, k},
           {to_string(Mma::layout_C_TV()), m, n}},
          kMmaParts};
}

template <class CopyA, class CopyB>
CatalogEntry tiled_copy(const std::string& name) {
  auto tile_a = CopyA::tiler();
  auto tile_b = CopyB::tiler();
  return {name,
          "AB",
          {{to_string(CopyA::layout_tv()), int64_t(get<0>(tile_a)), int64_t(get<1>(tile_a))},
           {to_string(CopyB::layout_tv()), int64_t(get<0>(tile_b)), int64_t(get<1>(tile_b))}},
          kTiledCopyParts};
}

// ---- fragments ----------------------------------------------------------------------------

// One view of a thread's registers: for each flat index of the view (colexicographic), the
// register it names and the stage coordinate held there.
struct FragmentView {
  std::string layout;  // the view's layout (view coordinate -> register)
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> reg;
  std::vector<std::pair<int64_t, int64_t>> coord;
};

template <class RegLayout, class Coords>
FragmentView fragment_view(RegLayout const& regs, Coords const& coords) {
  FragmentView v;
  v.layout = to_string(regs);
  v.rows = int64_t(size(get<0>(regs)));
  v.cols = int64_t(size(regs)) / v.rows;
  for (int64_t i = 0; i < int64_t(size(regs)); ++i) {
    v.reg.push_back(int64_t(regs(i)));
    auto c = coords(int(i));
    v.coord.emplace_back(int64_t(get<0>(c)), int64_t(get<1>(c)));
  }
  return v;
}

// Operand 0 = A (TileM,TileK), 1 = B (TileN,TileK), 2 = C (TileM,TileN).
template <int Operand>
auto stage_identity() {
  if constexpr (Operand == 0)
    return make_identity_tensor(make_shape(Int<Config::kTileM>{}, Int<Config::kTileK>{}));
  if constexpr (Operand == 1)
    return make_identity_tensor(make_shape(Int<Config::kTileN>{}, Int<Config::kTileK>{}));
  if constexpr (Operand == 2)
    return make_identity_tensor(make_shape(Int<Config::kTileM>{}, Int<Config::kTileN>{}));
}

// The MMA's view (partition_fragment_X: compact, coordinate from partition_X of the identity)
// and, for A and B, the ldmatrix copy's (retile_D of that fragment; the coordinate its
// partition_D of the identity says the copy delivers).
template <int Operand>
std::pair<FragmentView, FragmentView> fragment_views(int thread, bool with_copy) {
  auto ident = stage_identity<Operand>();
  auto thr = Config::Mma{}.get_slice(thread);
  auto part = [&] {
    if constexpr (Operand == 0) return thr.partition_A(ident);
    if constexpr (Operand == 1) return thr.partition_B(ident);
    if constexpr (Operand == 2) return thr.partition_C(ident);
  }();
  auto frag = make_layout(part.shape());  // partition_fragment_X's layout
  FragmentView mma = fragment_view(frag, part);
  FragmentView copy;
  if constexpr (Operand != 2) {
    if (with_copy) {
      using S2R = std::conditional_t<Operand == 0, Config::S2RA, Config::S2RB>;
      auto retiled = S2R::retile(frag);
      copy = fragment_view(retiled, S2R::get_slice(thread).partition_D(ident));
    }
  }
  return {mma, copy};
}

Grid grid_of(const FragmentView& v, const std::string& title, int group) {
  Grid g;
  g.title = title;
  g.rows = v.rows;
  g.cols = v.cols;
  g.labels.assign(v.rows * v.cols, "");
  g.colours.assign(v.rows * v.cols, -1);
  for (int64_t i = 0; i < v.rows * v.cols; ++i) {
    const int64_t r = i % v.rows, c = i / v.rows;
    g.labels[r * v.cols + c] = "R" + std::to_string(v.reg[i]) + " (" +
                               std::to_string(v.coord[i].first) + "," +
                               std::to_string(v.coord[i].second) + ")";
    g.colours[r * v.cols + c] = static_cast<int>((v.reg[i] / group) % kPaletteSize);
  }
  return g;
}

const char* const kFragmentNames = "sm80_mma:A|B|C, sm80_s2r:A|B";

}  // namespace

const std::vector<CatalogEntry>& atom_catalog() {
  static const std::vector<CatalogEntry> catalog = {
      mma_atom<SM80_16x8x16_F32F16F16F32_TN>("sm80_16x8x16_f32f16f16f32"),
      mma_atom<SM80_16x8x16_F32BF16BF16F32_TN>("sm80_16x8x16_f32bf16bf16f32"),
      mma_atom<SM80_16x8x16_F16F16F16F16_TN>("sm80_16x8x16_f16f16f16f16"),
      mma_atom<SM80_16x8x8_F32F16F16F32_TN>("sm80_16x8x8_f32f16f16f32"),
      mma_atom<SM80_16x8x8_F32BF16BF16F32_TN>("sm80_16x8x8_f32bf16bf16f32"),
      copy_atom<SM80_LDMATRIX_X1>("sm80_ldmatrix_x1"),
      copy_atom<SM80_LDMATRIX_X2>("sm80_ldmatrix_x2"),
      copy_atom<SM80_LDMATRIX_X4>("sm80_ldmatrix_x4"),
      copy_atom<SM80_LDMATRIX_X1_TRANS>("sm80_ldmatrix_x1_trans"),
      copy_atom<SM80_LDMATRIX_X2_TRANS>("sm80_ldmatrix_x2_trans"),
      copy_atom<SM80_LDMATRIX_X4_TRANS>("sm80_ldmatrix_x4_trans"),
      copy_atom<SM80_CP_ASYNC_CG<16>>("sm80_cp_async_16"),
  };
  return catalog;
}

const std::vector<CatalogEntry>& tiled_catalog() {
  static const std::vector<CatalogEntry> catalog = {
      tiled_mma<Config::Mma>("sm80_mma"),
      tiled_mma<Unpermuted>("sm80_mma_unpermuted"),
      tiled_copy<Config::G2SA, Config::G2SB>("sm80_g2s"),
      tiled_copy<Config::S2RA, Config::S2RB>("sm80_s2r"),
  };
  return catalog;
}

std::string catalog_names(const std::vector<CatalogEntry>& catalog) {
  std::string names;
  for (const CatalogEntry& e : catalog) names += (names.empty() ? "" : ", ") + e.name;
  return names;
}

TvLayout find_catalog_layout(const std::vector<CatalogEntry>& catalog, const std::string& spec,
                             const std::string& option, const std::string& what) {
  const size_t colon = spec.rfind(':');
  const std::string name = spec.substr(0, colon);
  const std::string part = colon == std::string::npos ? "" : spec.substr(colon + 1);
  for (const CatalogEntry& e : catalog) {
    if (e.name != name) continue;
    const size_t at = part.size() == 1 ? e.parts.find(part[0]) : std::string::npos;
    if (at == std::string::npos) {
      throw PictureError(option + " takes " + e.part_help + ", got '" + spec + "'; e.g. " + option +
                         " " + e.name + ":" + e.parts.back());
    }
    return e.layout[at];
  }
  throw PictureError(option + ": no " + what + " named '" + name + "'; known " + what +
                     "s: " + catalog_names(catalog));
}

std::string fragment_names() { return kFragmentNames; }

Grid fragment_grid(const std::string& spec, int thread) {
  static const std::map<std::string, std::pair<int, bool>> kViews = {{"sm80_mma:A", {0, false}},
                                                                     {"sm80_mma:B", {1, false}},
                                                                     {"sm80_mma:C", {2, false}},
                                                                     {"sm80_s2r:A", {0, true}},
                                                                     {"sm80_s2r:B", {1, true}}};
  const auto found = kViews.find(spec);
  if (found == kViews.end()) {
    throw PictureError(
        "--fragment: no fragment named '" + spec + "'; known fragments: " + kFragmentNames +
        " (sm80_mma: the TiledMMA's partition, sm80_s2r: the ldmatrix copy's view of the "
        "same registers after retile_D)");
  }
  if (thread < 0 || thread >= Config::kThreads) {
    throw PictureError("--thread must be in [0, " + std::to_string(Config::kThreads) +
                       "), the kernel's threads; got " + std::to_string(thread));
  }
  const auto [operand, copy] = found->second;
  const auto [mma, retiled] = operand == 0   ? fragment_views<0>(thread, copy)
                              : operand == 1 ? fragment_views<1>(thread, copy)
                                             : fragment_views<2>(thread, copy);
  static const char* const kStage[] = {"A (128,32)", "B (128,32)", "C (128,128)"};
  const std::string who = "thread " + std::to_string(thread) + "'s registers of " + kStage[operand];
  if (!copy) {
    Grid g =
        grid_of(mma, who + " as the TiledMMA partitions them: " + mma.layout, operand == 2 ? 4 : 8);
    g.notes.push_back("columns: the MMA atoms (" + std::to_string(mma.rows) +
                      " values each); cell: R<register> (row,col) of the stage it holds");
    return g;
  }
  Grid g =
      grid_of(retiled, who + " as the ldmatrix copy sees them (retile_D): " + retiled.layout, 8);
  // Register -> the coordinate the MMA expects there; the copy must deliver exactly that.
  std::map<int64_t, std::pair<int64_t, int64_t>> expected;
  for (size_t i = 0; i < mma.reg.size(); ++i) expected[mma.reg[i]] = mma.coord[i];
  int64_t wrong = 0;
  for (size_t i = 0; i < retiled.reg.size(); ++i)
    wrong += expected[retiled.reg[i]] != retiled.coord[i];
  g.notes.push_back(
      "columns: the copies (" + std::to_string(retiled.rows) +
      " values each); cell: R<register> (row,col) the copy's partition_D delivers there");
  g.notes.push_back(wrong == 0
                        ? "every register receives the element the TiledMMA partition expects in it"
                        : std::to_string(wrong) +
                              " register(s) receive an element other than the one the TiledMMA "
                              "partition expects in them");
  return g;
}

}  // namespace tessel::tool
