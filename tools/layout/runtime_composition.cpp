// Composition of run-time layouts: (A o B)(i) = A(B(i)), CuTe's composition_impl.
//
// B distributes: A o (B0,B1) = (A o B0, A o B1). For one mode N:D of B, A is coalesced to
// s0..s_{R-1} : d0..d_{R-1} and
//   1. D is divided out of A's leading shapes ("stride divisibility": D and each s_i must
//      divide one another while D lasts), e.g. 3 into (6,2) leaves (2,2) with strides (24,2);
//   2. N is taken from what remains, mode by mode ("shape divisibility": what is left of N
//      must fit in s_i or be a multiple of it), the rest of N going to A's last mode;
//   3. the pieces are coalesced from the back.
#include <string>

#include "checked_math.hpp"
#include "runtime_algebra.hpp"

namespace tessel::rt {

namespace {

bool divide_each_other(int64_t a, int64_t b) { return a % b == 0 || b % a == 0; }

// `lhs` is coalesced (a leaf or a flat tuple); `what` describes lhs for error messages.
Layout compose_mode(const Layout& lhs, const IntTree& rshape, const IntTree& rstride,
                    const std::string& lhs_note) {
  if (!rshape.is_leaf()) {
    std::vector<Layout> modes;
    for (int i = 0; i < rshape.rank(); ++i) {
      modes.push_back(compose_mode(lhs, rshape[i], rstride[i], lhs_note));
    }
    return make_layout(modes);
  }
  const int64_t n = rshape.value(), d = rstride.value();
  if (d == 0) return {IntTree(n), IntTree(0)};  // every index goes to A(0) = 0
  if (d < 0) {
    throw AlgebraError("composition: the right layout's stride " + std::to_string(d) +
                       " is negative; composition needs non-negative strides on the right");
  }
  if (lhs.shape.is_leaf()) return {IntTree(n), IntTree(checked::mul(d, lhs.stride.value()))};
  if (n == 1) return {IntTree(1), IntTree(0)};  // B never moves: its stride is irrelevant

  const std::vector<int64_t> s = leaves(lhs.shape), st = leaves(lhs.stride);
  const size_t r = s.size();
  std::vector<int64_t> shapes(r), strides(r);

  // 1. divide the stride out of the leading shapes.
  int64_t rest_stride = d;
  for (size_t i = 0; i + 1 < r; ++i) {
    if (!divide_each_other(s[i], rest_stride)) {
      const std::string which =
          rest_stride == d ? "stride " + std::to_string(d)
                           : "stride " + std::to_string(d) + " (" + std::to_string(rest_stride) +
                                 " after modes 0.." + std::to_string(i - 1) + ")";
      throw AlgebraError("composition: stride divisibility violated: " + which +
                         " of the right layout does not divide shape " + std::to_string(s[i]) +
                         " of the left layout's mode " + std::to_string(i) +
                         " (nor is it a multiple of it)" + lhs_note);
    }
    shapes[i] = shape_div(s[i], rest_stride);
    rest_stride = shape_div(rest_stride, s[i]);
    strides[i] = checked::mul(st[i], s[i] / shapes[i]);
  }

  // 2. take the shape from what remains: all of it if it fits in this mode, else a multiple
  // of the mode's shape (where CuTe's static shape_div would also demand the converse, e.g.
  // 2 elements at stride 2 in a mode of 6, this accepts what is a layout).
  int64_t rest_shape = n;
  for (size_t i = 0; i + 1 < r; ++i) {
    const int64_t si = shapes[i];
    if (rest_shape <= si) {
      shapes[i] = rest_shape;
      rest_shape = 1;
      continue;
    }
    if (rest_shape % si != 0) {
      throw AlgebraError("composition: shape divisibility violated: shape " + std::to_string(n) +
                         " of the right layout (" + std::to_string(rest_shape) +
                         " left at this mode) is not a multiple of shape " + std::to_string(si) +
                         " of the left layout's mode " + std::to_string(i) +
                         " (after dividing out stride " + std::to_string(d) + ")" + lhs_note);
    }
    rest_shape /= si;
  }
  shapes[r - 1] = rest_shape;
  strides[r - 1] = checked::mul(rest_stride, st[r - 1]);

  // 3. coalesce from the back (as CuTe's bw_coalesce); a composition of a single mode.
  std::vector<IntTree> flat_s, flat_d;
  for (size_t i = 0; i < r; ++i) {
    flat_s.emplace_back(shapes[i]);
    flat_d.emplace_back(strides[i]);
  }
  return coalesce(Layout{make_tuple(std::move(flat_s)), make_tuple(std::move(flat_d))});
}

// Composing B's modes one by one gives A o B only if, inside each of A's modes but the last,
// the digits B's modes reach add up without carrying into the next mode: otherwise
// A(B(i)) != sum of the parts and A o B is not a layout (CuTe does not check this; it would
// return a wrong layout). E.g. A = (4,3):(1,10), B = (2,4):(2,1): digits 2 + 3 > 3 in mode 0.
void check_no_carry(const Layout& lhs, const Layout& b, const std::string& lhs_note) {
  if (lhs.shape.is_leaf() || b.shape.is_leaf()) return;
  const std::vector<int64_t> s = leaves(lhs.shape);
  const std::vector<int64_t> bn = leaves(b.shape), br = leaves(b.stride);
  std::vector<int64_t> usage(s.size(), 0);
  for (size_t j = 0; j < bn.size(); ++j) {
    int64_t n = bn[j], r = br[j];
    for (size_t k = 0; k + 1 < s.size() && n > 1 && r > 0; ++k) {
      if (r >= s[k]) {
        r /= s[k];  // divisibility was checked by compose_mode
        continue;
      }
      const int64_t m = s[k] / r;  // digits of this mode that B's mode j visits
      const int64_t taken = std::min(n, m);
      usage[k] = checked::add(usage[k], checked::mul(taken - 1, r));
      n = n <= m ? 1 : n / m;
      r = 1;
    }
  }
  for (size_t k = 0; k + 1 < s.size(); ++k) {
    if (usage[k] > s[k] - 1) {
      throw AlgebraError("composition: the right layout's modes overlap inside mode " +
                         std::to_string(k) + " of the left layout: together they reach digit " +
                         std::to_string(usage[k]) + " there, past its shape " +
                         std::to_string(s[k]) + ", so their offsets carry into the next mode " +
                         "and the result is not a layout" + lhs_note);
    }
  }
}

}  // namespace

Layout composition(const Layout& a, const Layout& b) {
  validate(a, "composition");
  validate(b, "composition");
  const Layout flat = coalesce_extended(a);
  const std::string note =
      flat == a ? ""
                : " (the left layout " + to_string(a) + " coalesced to " + to_string(flat) + ")";
  Layout result = compose_mode(flat, b.shape, b.stride, note);
  check_no_carry(flat, b, note);
  return result;
}

Layout composition(const Layout& a, const Tiler& b) {
  if (static_cast<int>(b.modes.size()) > a.rank()) {
    throw AlgebraError("composition: the tiler " + to_string(b) + " has " +
                       std::to_string(b.modes.size()) + " modes but the layout " + to_string(a) +
                       " only " + std::to_string(a.rank()));
  }
  std::vector<Layout> modes;
  for (size_t i = 0; i < b.modes.size(); ++i) {
    modes.push_back(composition(a.mode(static_cast<int>(i)), b.modes[i]));
  }
  return make_layout(modes);  // A's modes past the tiler's rank are dropped, as in CuTe
}

SwizzledLayout composition(const Swizzle& s, const Layout& b) {
  s.validate();
  validate(b, "composition");
  return {s, 0, b};
}

SwizzledLayout composition(const SwizzledLayout& a, const Layout& b) {
  return {a.swizzle, a.offset, composition(a.layout, b)};
}

SwizzledLayout composition(const SwizzledLayout& a, const Tiler& b) {
  return {a.swizzle, a.offset, composition(a.layout, b)};
}

}  // namespace tessel::rt
