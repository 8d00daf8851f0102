// Products of run-time layouts, tile_to_shape, upcast and downcast.
#include <algorithm>
#include <string>

#include "checked_math.hpp"
#include "runtime_algebra.hpp"
#include "runtime_tiling.hpp"

namespace tessel::rt {

// (A, complement(A, size(A)*cosize(B)) o B): B's elements index copies of A.
Layout logical_product(const Layout& a, const Layout& b) {
  validate(a, "logical_product");
  validate(b, "logical_product");
  const int64_t cotarget = checked::mul(a.size(), b.cosize());
  return make_layout({a, composition(complement(a, IntTree(cotarget)), b)});
}

Layout logical_product(const Layout& a, const Tiler& b) {
  return by_mode(a, b, "logical_product",
                 [](const Layout& l, const Layout& t) { return logical_product(l, t); });
}

Layout zipped_product(const Layout& a, const Layout& b) { return logical_product(a, b); }
Layout zipped_product(const Layout& a, const Tiler& b) {
  return zip_by_tiler(logical_product(a, b), b);
}
Layout tiled_product(const Layout& a, const Layout& b) { return unpack_rest(zipped_product(a, b)); }
Layout tiled_product(const Layout& a, const Tiler& b) { return unpack_rest(zipped_product(a, b)); }
Layout flat_product(const Layout& a, const Layout& b) { return unpack_both(zipped_product(a, b)); }
Layout flat_product(const Layout& a, const Tiler& b) { return unpack_both(zipped_product(a, b)); }

namespace {

// CuTe's append<R>: pads with 1:0 modes up to rank r; a leaf stays a leaf when r == 1.
Layout pad_to_rank(const Layout& l, int r) {
  Layout out = l;
  while (out.rank() < r) out = append(out, Layout{IntTree(1), IntTree(0)});
  return out;
}

// logical_product of the padded operands, then mode i = (A_i, tile_i) or (tile_i, A_i),
// each coalesced.
Layout rank_sensitive_product(const Layout& a, const Layout& b, bool raked) {
  const int r = std::max(a.rank(), b.rank());
  const Layout pa = pad_to_rank(a, r), pb = pad_to_rank(b, r);
  const Layout product = logical_product(pa, pb);
  const Layout block = product.mode(0), tiles = product.mode(1);
  std::vector<Layout> modes;
  for (int i = 0; i < r; ++i) {
    const Layout bi = r == 1 ? block : block.mode(i);
    const Layout ti = r == 1 ? tiles : tiles.mode(i);
    modes.push_back(coalesce(raked ? make_layout({ti, bi}) : make_layout({bi, ti})));
  }
  return make_layout(modes);
}

}  // namespace

Layout blocked_product(const Layout& a, const Layout& b) {
  return rank_sensitive_product(a, b, false);
}

Layout raked_product(const Layout& a, const Layout& b) {
  return rank_sensitive_product(a, b, true);
}

Layout tile_to_shape(const Layout& a, const IntTree& target) {
  validate(a, "tile_to_shape");
  check_shape(target, "tile_to_shape: target");
  const int r = target.rank();
  if (a.rank() > r) {
    throw AlgebraError("tile_to_shape: the layout " + to_string(a) + " has rank " +
                       std::to_string(a.rank()) + ", more than the target shape " +
                       to_string(target) + " (rank " + std::to_string(r) + ")");
  }
  const Layout padded = pad_to_rank(a, r);
  std::vector<IntTree> counts;
  for (int i = 0; i < r; ++i) {
    const int64_t block = product(padded.shape[i]), want = product(target[i]);
    if (want % block != 0) {
      throw AlgebraError("tile_to_shape: block shape does not divide the target shape: mode " +
                         std::to_string(i) + " of " + to_string(target) + " has size " +
                         std::to_string(want) + ", not a multiple of the block's " +
                         std::to_string(block));
    }
    counts.emplace_back(want / block);
  }
  const IntTree product_shape = target.is_leaf() ? counts.front() : make_tuple(counts);
  return coalesce(blocked_product(padded, make_layout(product_shape)), product_shape);
}

namespace {
IntTree map_leaves(const IntTree& shape, const IntTree& stride, bool want_shape,
                   const std::function<std::pair<int64_t, int64_t>(int64_t, int64_t)>& f) {
  if (shape.is_leaf()) {
    auto [s, d] = f(shape.value(), stride.value());
    return IntTree(want_shape ? s : d);
  }
  std::vector<IntTree> out;
  for (int i = 0; i < shape.rank(); ++i) {
    out.push_back(map_leaves(shape[i], stride[i], want_shape, f));
  }
  return make_tuple(std::move(out));
}

Layout map_layout(const Layout& l,
                  const std::function<std::pair<int64_t, int64_t>(int64_t, int64_t)>& f) {
  return {map_leaves(l.shape, l.stride, true, f), map_leaves(l.shape, l.stride, false, f)};
}

void check_factor(int64_t n, const char* what) {
  if (n <= 0)
    throw AlgebraError(std::string(what) + ": the factor " + std::to_string(n) +
                       " is not positive");
}
}  // namespace

// Stride 0 stays; otherwise shape / (N / |d|) and stride / N, both with CuTe's shape_div:
// a stride-1 mode of 8 elements becomes 8/N elements, a stride-8 mode keeps its shape.
Layout upcast(const Layout& a, int64_t n) {
  validate(a, "upcast");
  check_factor(n, "upcast");
  return map_layout(a, [&](int64_t s, int64_t d) -> std::pair<int64_t, int64_t> {
    if (d == 0) return {s, d};
    try {
      return {shape_div(s, shape_div(n, checked::abs(d))), shape_div(d, n)};
    } catch (const AlgebraError& e) {
      throw AlgebraError("upcast: mode " + std::to_string(s) + ":" + std::to_string(d) +
                         " cannot be regrouped by " + std::to_string(n) + " (" + e.what() + ")");
    }
  });
}

// A stride-±1 mode gets N times the elements; every other stride is scaled by N.
Layout downcast(const Layout& a, int64_t n) {
  validate(a, "downcast");
  check_factor(n, "downcast");
  const std::vector<int64_t> strides = leaves(a.stride);
  if (std::find(strides.begin(), strides.end(), 1) == strides.end()) {
    throw AlgebraError("downcast requires adjacent elements: " + to_string(a) +
                       " has no stride-1 mode");
  }
  return map_layout(a, [&](int64_t s, int64_t d) -> std::pair<int64_t, int64_t> {
    if (d == 1 || d == -1) return {checked::mul(s, n), d};
    return {s, checked::mul(d, n)};
  });
}

}  // namespace tessel::rt
