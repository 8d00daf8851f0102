// Layout construction, coalesce and filter of the run-time algebra.
#include "runtime_algebra.hpp"

#include <string>

#include "checked_math.hpp"

namespace tessel::rt {

void validate(const Layout& l, const char* what) {
  if (!congruent(l.shape, l.stride)) {
    throw AlgebraError(std::string(what) + ": shape " + to_string(l.shape) + " and stride " +
                       to_string(l.stride) + " are not congruent");
  }
  check_shape(l.shape, what);
}

Layout make_layout(const IntTree& shape) {
  check_shape(shape, "make_layout");
  return {shape, compact_col_major(shape)};
}

Layout make_layout_right(const IntTree& shape) {
  check_shape(shape, "make_layout");
  return {shape, compact_row_major(shape)};
}

Layout make_layout(const std::vector<Layout>& modes) {
  std::vector<IntTree> shapes, strides;
  for (const Layout& m : modes) {
    shapes.push_back(m.shape);
    strides.push_back(m.stride);
  }
  return {make_tuple(std::move(shapes)), make_tuple(std::move(strides))};
}

Layout flatten(const Layout& l) { return {flatten(l.shape), flatten(l.stride)}; }

Layout append(const Layout& l, const Layout& x) {
  return {append(l.shape, x.shape), append(l.stride, x.stride)};
}

Layout slice(const IntTree& coord, const Layout& l) {
  return {slice(coord, l.shape), slice(coord, l.stride)};
}

int64_t size(const Layout& l) { return l.size(); }
int64_t cosize(const Layout& l) { return l.cosize(); }

int64_t size(const Tiler& t) {
  int64_t n = 1;
  for (const Layout& m : t.modes) n = checked::mul(n, m.size());
  return n;
}

namespace {

// CuTe's bw_coalesce over flat shape/stride lists: walks from the back, keeping a "new"
// layout that starts as the last mode (shape `last_shape`) and
//   skips shape-1 modes,   replaces a shape-1 new layout,
//   merges s:d into a front s':d' when s*d == d',   prepends otherwise.
Layout bw_coalesce(const std::vector<int64_t>& shapes, const std::vector<int64_t>& strides,
                   int64_t last_shape) {
  std::vector<int64_t> new_shapes{last_shape}, new_strides{strides.back()};
  for (size_t i = shapes.size() - 1; i-- > 0;) {
    const int64_t s = shapes[i], d = strides[i];
    if (s == 1) continue;
    if (new_shapes.size() == 1 && new_shapes.front() == 1) {
      new_shapes.front() = s;
      new_strides.front() = d;
    } else if (checked::mul(s, d) == new_strides.front()) {
      new_shapes.front() = checked::mul(s, new_shapes.front());
      new_strides.front() = d;
    } else {
      new_shapes.insert(new_shapes.begin(), s);
      new_strides.insert(new_strides.begin(), d);
    }
  }
  if (new_shapes.size() == 1) {
    if (new_shapes.front() == 1) return {IntTree(1), IntTree(0)};
    return {IntTree(new_shapes.front()), IntTree(new_strides.front())};
  }
  std::vector<IntTree> shape, stride;
  for (size_t i = 0; i < new_shapes.size(); ++i) {
    shape.emplace_back(new_shapes[i]);
    stride.emplace_back(new_strides[i]);
  }
  return {make_tuple(std::move(shape)), make_tuple(std::move(stride))};
}

template <class F>
Layout by_profile(const Layout& l, const IntTree& profile, const char* what, F&& f) {
  if (profile.is_leaf()) return f(l);
  if (profile.rank() > l.rank()) {
    throw AlgebraError(std::string(what) + ": the profile " + to_string(profile) + " has " +
                       std::to_string(profile.rank()) + " modes but the layout " + to_string(l) +
                       " only " + std::to_string(l.rank()));
  }
  std::vector<Layout> modes;
  for (int i = 0; i < l.rank(); ++i) {
    modes.push_back(i < profile.rank() ? by_profile(l.mode(i), profile[i], what, f) : l.mode(i));
  }
  return make_layout(modes);
}

}  // namespace

Layout coalesce(const Layout& l) {
  validate(l, "coalesce");
  const std::vector<int64_t> shapes = leaves(l.shape), strides = leaves(l.stride);
  return bw_coalesce(shapes, strides, shapes.back());
}

Layout coalesce(const Layout& l, const IntTree& profile) {
  return by_profile(l, profile, "coalesce", [](const Layout& m) { return coalesce(m); });
}

// A trailing shape-1 mode still decides where indices past the end go, so it enters as a
// (never read) shape 2 instead of being dropped.
Layout coalesce_extended(const Layout& l) {
  validate(l, "coalesce");
  const std::vector<int64_t> shapes = leaves(l.shape), strides = leaves(l.stride);
  return bw_coalesce(shapes, strides, shapes.back() == 1 ? 2 : shapes.back());
}

namespace {
IntTree filter_zeros(const IntTree& stride, const IntTree& shape) {
  if (shape.is_leaf()) return IntTree(stride.value() == 0 ? 1 : shape.value());
  std::vector<IntTree> out;
  for (int i = 0; i < shape.rank(); ++i) out.push_back(filter_zeros(stride[i], shape[i]));
  return make_tuple(std::move(out));
}
}  // namespace

Layout filter(const Layout& l) {
  validate(l, "filter");
  return coalesce(Layout{filter_zeros(l.stride, l.shape), l.stride});
}

Layout filter(const Layout& l, const IntTree& profile) {
  return by_profile(l, profile, "filter", [](const Layout& m) { return filter(m); });
}

}  // namespace tessel::rt
