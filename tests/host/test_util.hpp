// Helpers shared by the layout algebra tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tessel/layout.hpp"

namespace tessel::test {

// The layout function over its whole (colexicographic) domain.
template <class L>
std::vector<long long> values(L const& l) {
  std::vector<long long> v;
  long long n = static_cast<long long>(size(l));
  v.reserve(n);
  for (long long i = 0; i < n; ++i) v.push_back(static_cast<long long>(l(i)));
  return v;
}

// The same IntTuple with every integer dynamic (int).
template <class T>
auto dynamic(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return transform(t, [](auto const& x) { return dynamic(x); });
  } else {
    return static_cast<int>(t);
  }
}
template <class S, class D>
auto dynamic(Layout<S, D> const& l) {
  return make_layout(dynamic(l.shape()), dynamic(l.stride()));
}

// A seeded generator whose seed shows up in failure messages.
struct Rng {
  explicit Rng(unsigned seed) : seed(seed), engine(seed) {}
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(engine); }
  unsigned seed;
  std::mt19937 engine;
};

}  // namespace tessel::test
