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

// Fills every integer of a skeleton IntTuple with gen(): the skeleton fixes the nesting,
// gen() the values.
template <class T, class Gen>
auto fill(T const& skeleton, Gen&& gen) {
  if constexpr (is_tuple_v<T>) {
    return transform(skeleton, [&](auto const& x) { return fill(x, gen); });
  } else {
    return static_cast<int>(gen());
  }
}

// Shapes 1..6; strides with 0, 1 and gaps.
template <class Skeleton>
auto random_layout(Skeleton const& k, Rng& rng) {
  static constexpr int kStrides[] = {0, 1, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
  return make_layout(fill(k, [&] { return rng.uniform(1, 6); }),
                     fill(k, [&] { return kStrides[rng.uniform(0, int(std::size(kStrides)) - 1)]; }));
}

}  // namespace tessel::test
