// Complement, right inverse and left inverse of run-time layouts.
#include <algorithm>
#include <string>

#include "checked_math.hpp"
#include "runtime_algebra.hpp"

namespace tessel::rt {

// Sorts A's (filtered) modes by stride; each stride must be a multiple of the extent
// s_prev*d_prev of the modes below it, and the quotient is a gap the result fills. Then the
// rest ceil_div(cotarget, extent) at stride `extent`; the result is coalesced:
//   complement((2,4):(1,8), 64): gaps 1 (below 2:1) and 8/2 = 4 (at stride 2), rest 64/32 = 2
//   -> (4,2):(2,32).
Layout complement(const Layout& a, const IntTree& cotarget) {
  validate(a, "complement");
  check_shape(cotarget, "complement: cotarget");
  for (int64_t d : leaves(a.stride)) {
    if (d < 0) {
      throw AlgebraError("complement: stride " + std::to_string(d) + " of " + to_string(a) +
                         " is negative; complement needs non-negative strides");
    }
  }
  const Layout f = filter(a);
  if (f.stride.is_leaf() && f.stride.value() == 0) {
    // Nothing left (all stride-0 or shape-1): the complement is all of the cotarget.
    return make_layout(IntTree(product(cotarget)));  // 1:0 when the cotarget is 1
  }
  std::vector<int64_t> shapes = leaves(f.shape), strides = leaves(f.stride);

  std::vector<IntTree> result_shape, result_stride{IntTree(1)};
  int64_t extent = 1;  // stride * shape of the modes placed so far
  while (true) {
    const size_t k =
        static_cast<size_t>(std::min_element(strides.begin(), strides.end()) - strides.begin());
    const int64_t min_stride = strides[k], min_shape = shapes[k];
    if (min_stride < extent) {
      throw AlgebraError("complement: layout " + to_string(a) + " is not injective: stride " +
                         std::to_string(min_stride) + " falls inside the extent " +
                         std::to_string(extent) + " of the modes with smaller strides");
    }
    if (min_stride % extent != 0) {
      throw AlgebraError("complement: stride " + std::to_string(min_stride) +
                         " is not divisible by " + std::to_string(extent) +
                         " (the shape*stride of the mode below it) in " + to_string(a) +
                         "; complement needs ordered-divisible strides");
    }
    result_shape.emplace_back(min_stride / extent);
    extent = checked::mul(min_stride, min_shape);
    shapes.erase(shapes.begin() + static_cast<long>(k));
    strides.erase(strides.begin() + static_cast<long>(k));
    if (strides.empty()) break;
    result_stride.emplace_back(extent);
  }
  // The rest: what is left of the cotarget past the extent, folded over its modes.
  const int64_t rest_shape = product(ceil_div(cotarget, IntTree(extent)));
  result_shape.emplace_back(rest_shape);
  result_stride.emplace_back(extent);
  return coalesce(
      Layout{make_tuple(std::move(result_shape)), make_tuple(std::move(result_stride))});
}

Layout complement(const Layout& a) {
  validate(a, "complement");
  return complement(a, IntTree(filter(a).cosize()));
}

// Follows strides 1, s1*d1, ... through the coalesced layout; the chain found is inverted.
Layout right_inverse(const Layout& a) {
  const Layout flat = coalesce(a);
  const std::vector<int64_t> shapes = leaves(flat.shape), strides = leaves(flat.stride);
  const IntTree col_major = compact_col_major(flat.shape);
  const std::vector<int64_t> rstride = leaves(col_major);
  std::vector<IntTree> inv_shape, inv_stride;
  std::vector<bool> used(shapes.size(), false);
  int64_t next = 1;
  while (true) {
    size_t i = 0;
    while (i < shapes.size() && (used[i] || checked::abs(strides[i]) != next)) ++i;
    if (i == shapes.size()) break;
    used[i] = true;
    inv_shape.emplace_back(shapes[i]);
    inv_stride.emplace_back(strides[i] < 0 ? -rstride[i] : rstride[i]);
    const int64_t following = checked::mul(shapes[i], checked::abs(strides[i]));
    if (following == next) break;  // a shape-1 mode: stop, as CuTe does
    next = following;
  }
  if (inv_shape.empty()) return {IntTree(1), IntTree(0)};
  if (inv_shape.size() == 1) return {inv_shape.front(), inv_stride.front()};
  return {make_tuple(std::move(inv_shape)), make_tuple(std::move(inv_stride))};
}

Layout left_inverse(const Layout& a) {
  validate(a, "left_inverse");
  const Layout flat = flatten(a);
  const std::vector<int64_t> shapes = leaves(flat.shape), strides = leaves(flat.stride);
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (shapes[i] > 1 && strides[i] == 0) {
      throw AlgebraError("left_inverse: layout " + to_string(a) +
                         " is not injective: a mode of shape " + std::to_string(shapes[i]) +
                         " has stride 0");
    }
  }
  Layout c;
  try {
    c = complement(a);
  } catch (const AlgebraError& e) {
    throw AlgebraError(std::string("left_inverse needs an injective layout with ordered-divisible "
                                   "strides: ") +
                       e.what());
  }
  return right_inverse(make_layout({a, c}));
}

}  // namespace tessel::rt
