// FastDivmod (tessel/gemm/fast_divmod.hpp) against / and %: every divisor to 4096 and every
// power of two with its neighbours up to 2^31 - 1, each with the numerators around its
// multiples, the ends of the range and random ones.
#include <gtest/gtest.h>

#include <climits>
#include <random>
#include <vector>

#include "tessel/gemm/fast_divmod.hpp"

namespace tessel {
namespace {

void expect_divides(int d, std::mt19937& rng) {
  const FastDivmod f(d);
  std::vector<long long> ns = {0, 1, d - 1LL, d, d + 1LL, 2LL * d - 1, 2LL * d, INT_MAX - 1LL, INT_MAX};
  const long long top = INT_MAX / d;  // the largest quotient: its multiple and neighbours
  for (long long q : {top - 1, top}) ns.insert(ns.end(), {q * d - 1, q * d, q * d + 1, q * d + d - 1});
  std::uniform_int_distribution<int> any(0, INT_MAX);
  for (int i = 0; i < 64; ++i) ns.push_back(any(rng));
  for (long long n : ns) {
    if (n < 0 || n > INT_MAX) continue;
    int q, r;
    f.divmod(int(n), q, r);
    ASSERT_EQ(q, int(n / d)) << n << " / " << d;
    ASSERT_EQ(r, int(n % d)) << n << " % " << d;
  }
}

TEST(FastDivmod, EqualsDivisionOverTheNonNegativeInts) {
  std::mt19937 rng(4242);
  for (int d = 1; d <= 4096; ++d) expect_divides(d, rng);
  for (int s = 12; s <= 31; ++s) {
    for (long long d : {(1LL << s) - 1, 1LL << s, (1LL << s) + 1}) {
      if (d <= INT_MAX) expect_divides(int(d), rng);
    }
  }
  std::uniform_int_distribution<int> any(1, INT_MAX);
  for (int i = 0; i < 2000; ++i) expect_divides(any(rng), rng);
}

TEST(FastDivmod, AnEmptyGridsDivisorIsOne) {
  for (int d : {0, -1, INT_MIN}) {
    const FastDivmod f(d);
    EXPECT_EQ(f.divisor, 1);
    EXPECT_EQ(f.div(12345), 12345);
  }
}

}  // namespace
}  // namespace tessel
