// Int-tuple helpers of the run-time algebra (CuTe's int_tuple.hpp over IntTree values).
#include <string>

#include "checked_math.hpp"
#include "runtime_algebra.hpp"

namespace tessel::rt {

IntTree make_tuple(std::vector<IntTree> children) { return IntTree::tuple(std::move(children)); }

int64_t product(const IntTree& t) {
  if (t.is_leaf()) return t.value();
  int64_t p = 1;
  for (const IntTree& c : t.children()) p = checked::mul(p, product(c));
  return p;
}

namespace {
void collect_leaves(const IntTree& t, std::vector<int64_t>& out) {
  if (t.is_leaf()) {
    out.push_back(t.value());
    return;
  }
  for (const IntTree& c : t.children()) collect_leaves(c, out);
}
}  // namespace

std::vector<int64_t> leaves(const IntTree& t) {
  std::vector<int64_t> out;
  collect_leaves(t, out);
  return out;
}

IntTree flatten(const IntTree& t) {
  if (t.is_leaf()) return t;
  std::vector<IntTree> flat;
  for (int64_t v : leaves(t)) flat.emplace_back(v);
  return make_tuple(std::move(flat));
}

bool congruent(const IntTree& a, const IntTree& b) {
  if (a.is_leaf() || b.is_leaf()) return a.is_leaf() && b.is_leaf();
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i) {
    if (!congruent(a[i], b[i])) return false;
  }
  return true;
}

bool compatible(const IntTree& a, const IntTree& b) {
  if (a.is_leaf()) return a.value() == product(b);
  if (b.is_leaf() || a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i) {
    if (!compatible(a[i], b[i])) return false;
  }
  return true;
}

namespace {
// `compact`: a shape-1 leaf gets stride 0, as CuTe's compact_major gives static _1 modes.
// The running product may pass 64 bits after the last stride it is needed for (the size of
// (2^32,2^32) does not fit, its strides do): only a stride that does not fit is an error.
struct Running {
  int64_t value;
  bool overflowed = false;
  int64_t next_stride() const {
    if (overflowed) throw AlgebraError("overflow: a compact stride does not fit in 64 bits");
    return value;
  }
  void times(int64_t s) { overflowed = overflowed || __builtin_mul_overflow(value, s, &value); }
};

IntTree prefix_product_impl(const IntTree& shape, Running& running, bool compact) {
  if (shape.is_leaf()) {
    IntTree r(compact && shape.value() == 1 ? 0 : running.next_stride());
    running.times(shape.value());
    return r;
  }
  std::vector<IntTree> out;
  for (const IntTree& c : shape.children()) {
    out.push_back(prefix_product_impl(c, running, compact));
  }
  return make_tuple(std::move(out));
}

IntTree suffix_product_impl(const IntTree& shape, Running& running) {
  if (shape.is_leaf()) {
    IntTree r(shape.value() == 1 ? 0 : running.next_stride());
    running.times(shape.value());
    return r;
  }
  std::vector<IntTree> out(shape.children().size());
  for (size_t i = out.size(); i-- > 0;) out[i] = suffix_product_impl(shape.children()[i], running);
  return make_tuple(std::move(out));
}
}  // namespace

IntTree prefix_product(const IntTree& shape, int64_t init) {
  Running running{init};
  return prefix_product_impl(shape, running, false);
}

IntTree compact_col_major(const IntTree& shape, int64_t init) {
  Running running{init};
  return prefix_product_impl(shape, running, true);
}

IntTree compact_row_major(const IntTree& shape, int64_t init) {
  Running running{init};
  return suffix_product_impl(shape, running);
}

int64_t shape_div(int64_t a, int64_t b) {
  if (b == 0 || a == 0 || (checked::mod(a, b) != 0 && checked::mod(b, a) != 0)) {
    throw AlgebraError("shape_div: " + std::to_string(a) + " and " + std::to_string(b) +
                       " do not divide each other");
  }
  const int64_t q = checked::div(a, b);
  if (q != 0) return q;
  return ((a < 0) != (b < 0)) ? -1 : 1;  // a divides b: rounds away from zero, CuTe's rule
}

IntTree shape_div(const IntTree& a, const IntTree& b) {
  if (a.is_leaf()) return IntTree(shape_div(a.value(), product(b)));
  if (!b.is_leaf()) {
    if (a.rank() != b.rank()) {
      throw AlgebraError("shape_div: ranks differ: " + to_string(a) + " and " + to_string(b));
    }
    std::vector<IntTree> out;
    for (int i = 0; i < a.rank(); ++i) out.push_back(shape_div(a[i], b[i]));
    return make_tuple(std::move(out));
  }
  // tuple / int: divide mode by mode, carrying what is left of b.
  std::vector<IntTree> out;
  IntTree rest = b;
  for (const IntTree& ai : a.children()) {
    out.push_back(shape_div(ai, rest));
    rest = shape_div(rest, ai);
  }
  return make_tuple(std::move(out));
}

int64_t ceil_div(int64_t a, int64_t b) {
  if (b <= 0 || a < 0) {
    throw AlgebraError("ceil_div: needs a >= 0 and b > 0, got " + std::to_string(a) + " and " +
                       std::to_string(b));
  }
  return a / b + (a % b != 0 ? 1 : 0);
}

IntTree ceil_div(const IntTree& a, const IntTree& b) {
  if (a.is_leaf()) return IntTree(ceil_div(a.value(), product(b)));
  if (!b.is_leaf()) {
    if (a.rank() < b.rank()) {
      throw AlgebraError("ceil_div: " + to_string(b) + " has more modes than " + to_string(a));
    }
    std::vector<IntTree> out;
    for (int i = 0; i < a.rank(); ++i) {
      out.push_back(i < b.rank() ? ceil_div(a[i], b[i]) : a[i]);  // missing modes of b are 1
    }
    return make_tuple(std::move(out));
  }
  std::vector<IntTree> out;
  IntTree rest = b;
  for (const IntTree& ai : a.children()) {
    out.push_back(ceil_div(ai, rest));
    rest = ceil_div(rest, ai);
  }
  return make_tuple(std::move(out));
}

IntTree append(const IntTree& t, const IntTree& x) {
  if (t.is_leaf()) return make_tuple({t, x});
  std::vector<IntTree> c = t.children();
  c.push_back(x);
  return make_tuple(std::move(c));
}

IntTree prepend(const IntTree& t, const IntTree& x) {
  if (t.is_leaf()) return make_tuple({x, t});
  std::vector<IntTree> c = t.children();
  c.insert(c.begin(), x);
  return make_tuple(std::move(c));
}

namespace {
IntTree idx2crd_impl(int64_t& index, const IntTree& shape, bool last) {
  if (shape.is_leaf()) {
    if (last) {
      const int64_t c = index;
      index = 0;
      return IntTree(c);
    }
    const int64_t s = shape.value();
    const int64_t c = index % s;
    index /= s;
    return IntTree(c);
  }
  std::vector<IntTree> out;
  const int r = shape.rank();
  for (int i = 0; i < r; ++i) out.push_back(idx2crd_impl(index, shape[i], last && i + 1 == r));
  return make_tuple(std::move(out));
}
}  // namespace

IntTree idx2crd(int64_t index, const IntTree& shape) {
  check_shape(shape, "idx2crd");
  if (index < 0) throw AlgebraError("idx2crd: index " + std::to_string(index) + " is negative");
  return idx2crd_impl(index, shape, true);
}

int64_t crd2idx(const IntTree& coord, const IntTree& shape, const IntTree& stride) {
  if (coord.is_leaf()) {
    // An integral coordinate into a (possibly nested) mode: colexicographic.
    return Layout{shape, stride}(coord.value());
  }
  if (shape.is_leaf() || coord.rank() != shape.rank() || !congruent(shape, stride)) {
    throw AlgebraError("crd2idx: coordinate " + to_string(coord) + " does not fit shape " +
                       to_string(shape));
  }
  int64_t offset = 0;
  for (int i = 0; i < coord.rank(); ++i) {
    offset = checked::add(offset, crd2idx(coord[i], shape[i], stride[i]));
  }
  return offset;
}

namespace {
bool is_underscore(const IntTree& t) { return t.is_leaf() && t.value() == kUnderscore; }

// CuTe's lift_slice: the kept modes of t as a flat list.
void lift_slice(const IntTree& coord, const IntTree& t, std::vector<IntTree>& out) {
  if (is_underscore(coord)) {
    out.push_back(t);
  } else if (!coord.is_leaf()) {
    if (t.is_leaf() || t.rank() != coord.rank()) {
      throw AlgebraError("slice: coordinate " + to_string(coord) + " does not fit " + to_string(t));
    }
    for (int i = 0; i < coord.rank(); ++i) lift_slice(coord[i], t[i], out);
  }
}
}  // namespace

IntTree slice(const IntTree& coord, const IntTree& t) {
  if (is_underscore(coord)) return t;
  std::vector<IntTree> kept;
  lift_slice(coord, t, kept);
  if (kept.size() == 1) return kept.front();
  return make_tuple(std::move(kept));
}

void check_shape(const IntTree& shape, const char* what) {
  for (int64_t s : leaves(shape)) {
    if (s <= 0) {
      throw AlgebraError(std::string(what) + ": shape " + std::to_string(s) +
                         " is not positive (shapes must be >= 1)");
    }
  }
}

}  // namespace tessel::rt
