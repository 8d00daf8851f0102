// Run-time layouts of any nesting: the engine of `tessel-layout`.
//
// The compile-time algebra (include/tessel/layout/) fixes the nesting of every shape in the
// type system; the calculator reads layouts from text, so it needs the same algebra over values
// whose nesting is only known at run time. tests/host/static_runtime_agreement_test.cpp proves
// that the two agree on many generated cases.
//
// Conventions are CuTe's: coordinates are colexicographic (the leftmost mode varies fastest),
// a layout is a function from its (flattened) domain [0, size) to offsets.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace tessel::rt {

// Raised when an operation's precondition does not hold (e.g. composition's stride
// divisibility); the message names the rule that was broken and the values involved.
class AlgebraError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An integer or a tuple of IntTrees: the run-time form of CuTe's IntTuple.
// "4" is a leaf, "(4,(2,3))" a tuple of rank 2. A tuple of rank 1 stays a tuple.
class IntTree {
 public:
  IntTree() : IntTree(int64_t{0}) {}
  IntTree(int64_t value) : leaf_(true), value_(value) {}  // NOLINT: ints are trees
  static IntTree tuple(std::vector<IntTree> children);

  bool is_leaf() const { return leaf_; }
  int64_t value() const;  // throws unless is_leaf()
  const std::vector<IntTree>& children() const { return children_; }
  int rank() const { return leaf_ ? 1 : static_cast<int>(children_.size()); }
  int depth() const;                       // 0 for a leaf
  const IntTree& operator[](int i) const;  // mode i; a leaf is its own mode 0

  friend bool operator==(const IntTree& a, const IntTree& b);

 private:
  bool leaf_ = true;
  int64_t value_ = 0;
  std::vector<IntTree> children_;
};

// Shape:stride. Invariant: shape and stride are congruent (same tree structure).
struct Layout {
  IntTree shape;
  IntTree stride;

  int rank() const { return shape.rank(); }
  Layout mode(int i) const { return {shape[i], stride[i]}; }
  int64_t size() const;                     // product of the shape
  int64_t cosize() const;                   // max offset + 1 (0 for an empty layout)
  int64_t operator()(int64_t index) const;  // L(index), index in [0, size)
  friend bool operator==(const Layout& a, const Layout& b) {
    return a.shape == b.shape && a.stride == b.stride;
  }
};

// Swizzle<B,M,S>: y = x ^ ((x & (mask << S)) >> S) with mask = ((1<<B)-1) << M (S may be < 0).
struct Swizzle {
  int bits = 0, base = 0, shift = 0;
  int64_t operator()(int64_t offset) const;
  // Throws AlgebraError unless 0 <= B, 0 <= M, |S| >= B and B + M + |S| <= 40 (CuTe's rules,
  // plus a bound that keeps every mask inside int64_t).
  void validate() const;
  friend bool operator==(const Swizzle&, const Swizzle&) = default;
};

// swizzle ∘ offset ∘ layout: i -> swizzle(offset + layout(i)) (CuTe's ComposedLayout).
struct SwizzledLayout {
  Swizzle swizzle;
  int64_t offset = 0;
  Layout layout;
  int64_t size() const { return layout.size(); }
  // max value + 1 over the domain; enumerates it, so throws AlgebraError past kMaxEnumerated.
  int64_t cosize() const;
  static constexpr int64_t kMaxEnumerated = int64_t{1} << 20;
  int64_t operator()(int64_t index) const;
};

struct Tiler;
// What an expression evaluates to. The int64_t alternative is a plain number: the result of
// `size(...)` and `cosize(...)`.
using Value = std::variant<Layout, SwizzledLayout, Swizzle, Tiler, int64_t>;
// A by-mode tiler `[L0, L1, ...]`, CuTe's Tile<...>; each entry a Layout (a plain shape N
// means N:1).
struct Tiler {
  std::vector<Layout> modes;
};

// Text forms, CuTe's notation: "(4,2):(1,4)", "Sw<3,3,3> o 0 o (8,64):(64,1)", "[4:1,(2,2):(1,8)]".
std::string to_string(const IntTree& t);
std::string to_string(const Layout& l);
std::string to_string(const Swizzle& s);
std::string to_string(const SwizzledLayout& l);
std::string to_string(const Tiler& t);
std::string to_string(const Value& v);  // an int64_t prints as a decimal number

}  // namespace tessel::rt
