// Divides of run-time layouts: logical_divide and its zipped / tiled / flat arrangements, and
// the by-mode (Tiler) forms they share with the products.
#include <string>

#include "runtime_algebra.hpp"
#include "runtime_tiling.hpp"

namespace tessel::rt {

// composition(A, make_layout(B, complement(B, size(A)))), as CuTe 3.x and the compile-time
// algebra. (CuTe 4.x takes the complement up to shape(coalesce(A)), which ceil_divs mode by
// mode; the two agree whenever B tiles A evenly.)
Layout logical_divide(const Layout& a, const Layout& b) {
  validate(a, "logical_divide");
  validate(b, "logical_divide");
  return composition(a, make_layout({b, complement(b, IntTree(a.size()))}));
}

Layout logical_divide(const Layout& a, const Tiler& b) {
  return by_mode(a, b, "logical_divide",
                 [](const Layout& l, const Layout& t) { return logical_divide(l, t); });
}

Layout zipped_divide(const Layout& a, const Layout& b) { return logical_divide(a, b); }
Layout zipped_divide(const Layout& a, const Tiler& b) {
  return zip_by_tiler(logical_divide(a, b), b);
}

Layout tiled_divide(const Layout& a, const Layout& b) { return unpack_rest(zipped_divide(a, b)); }
Layout tiled_divide(const Layout& a, const Tiler& b) { return unpack_rest(zipped_divide(a, b)); }

Layout flat_divide(const Layout& a, const Layout& b) { return unpack_both(zipped_divide(a, b)); }
Layout flat_divide(const Layout& a, const Tiler& b) { return unpack_both(zipped_divide(a, b)); }

// A by-mode operation: f(A_i, B_i) for the tiler's modes, A's further modes kept as they are.
Layout by_mode(const Layout& a, const Tiler& b, const char* what,
               const std::function<Layout(const Layout&, const Layout&)>& f) {
  validate(a, what);
  if (b.modes.empty()) throw AlgebraError(std::string(what) + ": the tiler is empty");
  if (static_cast<int>(b.modes.size()) > a.rank()) {
    throw AlgebraError(std::string(what) + ": the tiler " + to_string(b) + " has " +
                       std::to_string(b.modes.size()) + " modes but the layout " + to_string(a) +
                       " only " + std::to_string(a.rank()));
  }
  std::vector<Layout> modes;
  for (int i = 0; i < a.rank(); ++i) {
    const size_t k = static_cast<size_t>(i);
    modes.push_back(k < b.modes.size() ? f(a.mode(i), b.modes[k]) : a.mode(i));
  }
  return make_layout(modes);
}

// CuTe's tile_unzip with a tuple guide: ((A0,a0),(A1,a1),x) -> ((A0,A1),(a0,a1,x)).
Layout zip_by_tiler(const Layout& l, const Tiler& b) {
  std::vector<Layout> tiles, rests;
  for (int i = 0; i < l.rank(); ++i) {
    if (static_cast<size_t>(i) < b.modes.size()) {
      const Layout m = l.mode(i);
      tiles.push_back(m.mode(0));
      rests.push_back(m.mode(1));
    } else {
      rests.push_back(l.mode(i));
    }
  }
  return make_layout({make_layout(tiles), make_layout(rests)});
}

namespace {
// CuTe's result(_, repeat<R>(_)) on one mode: a mode of rank > 1 is spliced into the top
// level; a mode of rank 1 (a leaf or a rank-1 tuple) stays whole.
void unpack_into(const Layout& m, std::vector<Layout>& out) {
  if (m.rank() > 1) {
    for (int i = 0; i < m.rank(); ++i) out.push_back(m.mode(i));
  } else {
    out.push_back(m);
  }
}
}  // namespace

Layout unpack_rest(const Layout& zipped) {
  std::vector<Layout> modes{zipped.mode(0)};
  unpack_into(zipped.mode(1), modes);
  return make_layout(modes);
}

Layout unpack_both(const Layout& zipped) {
  std::vector<Layout> modes;
  unpack_into(zipped.mode(0), modes);
  unpack_into(zipped.mode(1), modes);
  return make_layout(modes);
}

}  // namespace tessel::rt
