// IntTree, Layout, Swizzle and their text forms. The algebra on them is in runtime_algebra*.
#include "runtime_layout.hpp"

#include <algorithm>

#include "checked_math.hpp"

namespace tessel::rt {

IntTree IntTree::tuple(std::vector<IntTree> children) {
  IntTree t;
  t.leaf_ = false;
  t.value_ = 0;
  t.children_ = std::move(children);
  return t;
}

int64_t IntTree::value() const {
  if (!leaf_) throw AlgebraError("expected an integer, found the tuple " + to_string(*this));
  return value_;
}

int IntTree::depth() const {
  if (leaf_) return 0;
  int d = 0;
  for (const IntTree& c : children_) d = std::max(d, c.depth());
  return d + 1;
}

const IntTree& IntTree::operator[](int i) const {
  if (leaf_) {
    if (i != 0)
      throw AlgebraError("mode " + std::to_string(i) + " of the integer " + std::to_string(value_) +
                         " (rank 1)");
    return *this;
  }
  if (i < 0 || i >= static_cast<int>(children_.size())) {
    throw AlgebraError("mode " + std::to_string(i) + " of " + to_string(*this) + " (rank " +
                       std::to_string(children_.size()) + ")");
  }
  return children_[static_cast<size_t>(i)];
}

bool operator==(const IntTree& a, const IntTree& b) {
  if (a.leaf_ != b.leaf_) return false;
  if (a.leaf_) return a.value_ == b.value_;
  return a.children_ == b.children_;
}

namespace {

// Calls f(shape, stride) on every leaf pair, colexicographic order (leftmost first).
template <class F>
void for_each_leaf(const IntTree& shape, const IntTree& stride, F&& f) {
  if (shape.is_leaf()) {
    if (!stride.is_leaf()) {
      throw AlgebraError("shape " + to_string(shape) + " and stride " + to_string(stride) +
                         " are not congruent");
    }
    f(shape.value(), stride.value());
    return;
  }
  if (stride.is_leaf() || stride.rank() != shape.rank()) {
    throw AlgebraError("shape " + to_string(shape) + " and stride " + to_string(stride) +
                       " are not congruent");
  }
  for (int i = 0; i < shape.rank(); ++i) for_each_leaf(shape[i], stride[i], f);
}

}  // namespace

int64_t Layout::size() const {
  int64_t n = 1;
  for_each_leaf(shape, stride, [&](int64_t s, int64_t) { n = checked::mul(n, s); });
  return n;
}

// CuTe's cosize: 1 + sum (s_i - 1) * |d_i|, the extent of the image; 0 when empty.
int64_t Layout::cosize() const {
  if (size() == 0) return 0;
  int64_t extent = 1;
  for_each_leaf(shape, stride, [&](int64_t s, int64_t d) {
    extent = checked::add(extent, checked::mul(s - 1, checked::abs(d)));
  });
  return extent;
}

namespace {
// Colexicographic: the leftmost leaf varies fastest; the last leaf takes what is left, as
// CuTe's crd2idx does, so indices past size() continue the last mode.
int64_t offset_of(const IntTree& shape, const IntTree& stride, int64_t& index, bool last) {
  if (shape.is_leaf()) {
    if (!stride.is_leaf()) {
      throw AlgebraError("shape " + to_string(shape) + " and stride " + to_string(stride) +
                         " are not congruent");
    }
    int64_t coord = index;
    if (last) {
      index = 0;
    } else {
      const int64_t s = shape.value();
      if (s <= 0) throw AlgebraError("layout shape " + std::to_string(s) + " is not positive");
      coord = index % s;
      index /= s;
    }
    return checked::mul(coord, stride.value());
  }
  if (stride.is_leaf() || stride.rank() != shape.rank()) {
    throw AlgebraError("shape " + to_string(shape) + " and stride " + to_string(stride) +
                       " are not congruent");
  }
  int64_t offset = 0;
  const int r = shape.rank();
  for (int i = 0; i < r; ++i) {
    offset = checked::add(offset, offset_of(shape[i], stride[i], index, last && i + 1 == r));
  }
  return offset;
}
}  // namespace

int64_t Layout::operator()(int64_t index) const {
  if (index < 0) throw AlgebraError("layout index " + std::to_string(index) + " is negative");
  return offset_of(shape, stride, index, true);
}

void Swizzle::validate() const {
  const int abs_shift = shift < 0 ? -shift : shift;
  if (bits < 0 || base < 0 || abs_shift < bits || bits + base + abs_shift > 40) {
    throw AlgebraError("swizzle " + to_string(*this) +
                       " is invalid: need B >= 0, M >= 0, |S| >= B and B + M + |S| <= 40");
  }
}

// CuTe's Swizzle: the B bits at [M + max(S,0), ...) are XOR-ed into the B bits at
// [M - min(S,0), ...); e.g. Sw<3,3,3> XORs bits 6..8 into bits 3..5.
int64_t Swizzle::operator()(int64_t offset) const {
  validate();
  const int64_t bit_mask = (int64_t{1} << bits) - 1;
  const int64_t yyy_mask = bit_mask << (base + std::max(0, shift));
  const int64_t moved = offset & yyy_mask;
  return offset ^ (shift >= 0 ? moved >> shift : moved << -shift);
}

int64_t SwizzledLayout::operator()(int64_t index) const {
  return swizzle(checked::add(offset, layout(index)));
}

int64_t SwizzledLayout::cosize() const {
  const int64_t n = size();
  if (n > kMaxEnumerated) {
    throw AlgebraError("cosize of a swizzled layout enumerates its domain; size " +
                       std::to_string(n) + " is past the limit " + std::to_string(kMaxEnumerated));
  }
  int64_t max_value = -1;
  for (int64_t i = 0; i < n; ++i) max_value = std::max(max_value, (*this)(i));
  return n == 0 ? 0 : checked::add(max_value, 1);
}

std::string to_string(const IntTree& t) {
  if (t.is_leaf()) return std::to_string(t.value());
  std::string s = "(";
  for (int i = 0; i < t.rank(); ++i) {
    if (i) s += ',';
    s += to_string(t[i]);
  }
  return s + ")";
}

std::string to_string(const Layout& l) { return to_string(l.shape) + ":" + to_string(l.stride); }

std::string to_string(const Swizzle& s) {
  return "Sw<" + std::to_string(s.bits) + "," + std::to_string(s.base) + "," +
         std::to_string(s.shift) + ">";
}

std::string to_string(const SwizzledLayout& l) {
  return to_string(l.swizzle) + " o " + std::to_string(l.offset) + " o " + to_string(l.layout);
}

std::string to_string(const Tiler& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.modes.size(); ++i) {
    if (i) s += ',';
    s += to_string(t.modes[i]);
  }
  return s + "]";
}

std::string to_string(const Value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, int64_t>) {
          return std::to_string(x);
        } else {
          return to_string(x);
        }
      },
      v);
}

}  // namespace tessel::rt
