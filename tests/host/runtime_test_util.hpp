// Helpers for the run-time algebra tests: parsing shorthand and random layouts.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <random>
#include <string>

#include "expression.hpp"
#include "runtime_algebra.hpp"

namespace tessel::rt::testing {

// L("(4,2):(1,4)") -> the Layout, through the expression parser.
inline Layout L(const std::string& text) { return std::get<Layout>(evaluate(text)); }
inline IntTree T(const std::string& text) { return L(text).shape; }
inline std::string S(const Value& v) { return to_string(v); }

// Random layouts for property tests; the seed is fixed and printed by the tests on failure.
class RandomLayouts {
 public:
  explicit RandomLayouts(uint64_t seed) : rng_(seed) {}

  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool coin(int percent) { return uniform(0, 99) < percent; }

  // Random nesting up to `depth`, ranks 1..3, leaves 1..6 (1 now and then), size <= 4096 so
  // that tests can enumerate the domain.
  IntTree shape(int depth = 2) {
    while (true) {
      IntTree s = any_shape(depth);
      if (product(s) <= 4096) return s;
    }
  }

  IntTree any_shape(int depth) {
    if (depth == 0 || coin(40)) return IntTree(coin(15) ? 1 : uniform(2, 6));
    std::vector<IntTree> children;
    const int64_t r = uniform(1, 3);
    for (int64_t i = 0; i < r; ++i) children.push_back(any_shape(depth - 1));
    return IntTree::tuple(std::move(children));
  }

  // Injective strides: the leaves placed in a random order, with random gaps between them.
  Layout injective(int depth = 2, int gap_percent = 30) {
    const IntTree s = shape(depth);
    std::vector<int64_t> sizes = leaves(s);
    std::vector<size_t> order(sizes.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng_);
    std::vector<int64_t> strides(sizes.size());
    int64_t running = 1;
    for (size_t k : order) {
      if (coin(gap_percent)) running *= uniform(2, 3);
      strides[k] = running;
      running *= sizes[k];
    }
    return {s, rebuild(s, strides)};
  }

  // Anything: injective, with stride-0 modes, or with small arbitrary strides.
  Layout any(int depth = 2) {
    const int kind = static_cast<int>(uniform(0, 2));
    Layout l = injective(depth);
    if (kind == 0) return l;
    std::vector<int64_t> strides = leaves(l.stride);
    for (int64_t& d : strides) {
      if (kind == 1 && coin(30)) d = 0;
      if (kind == 2) d = uniform(0, 12);
    }
    return {l.shape, rebuild(l.shape, strides)};
  }

  // A layout with the same nesting as `shape` and the given leaf values.
  static IntTree rebuild(const IntTree& shape, const std::vector<int64_t>& values) {
    size_t next = 0;
    return rebuild_impl(shape, values, next);
  }

 private:
  static IntTree rebuild_impl(const IntTree& t, const std::vector<int64_t>& v, size_t& next) {
    if (t.is_leaf()) return IntTree(v[next++]);
    std::vector<IntTree> c;
    for (const IntTree& child : t.children()) c.push_back(rebuild_impl(child, v, next));
    return IntTree::tuple(std::move(c));
  }
  std::mt19937_64 rng_;
};

}  // namespace tessel::rt::testing

namespace tessel::rt {
// gtest prints layouts in their text form.
inline void PrintTo(const Layout& l, std::ostream* os) { *os << to_string(l); }
inline void PrintTo(const IntTree& t, std::ostream* os) { *os << to_string(t); }
}  // namespace tessel::rt
