// Division by a divisor fixed for a whole launch, as a multiplication. The GPU has no integer
// divide instruction: n / d by a run-time d is a sequence of about 30 instructions (IABS,
// I2F, MUFU.RCP, F2I, corrections). A persistent kernel whose items are short (one K tile:
// skinny GEMMs) decodes every item's tile, batch and split with several such divisions in
// every warp: a large share of what its MMA warps issue per tile (docs/PERFORMANCE.md). With the
// divisor's magic number computed once, the quotient is one multiply-high, an add and a shift
// (Granlund and Montgomery's division by invariant integers, the round-up method):
//   s = ceil(log2(d)),  m = floor(2^32 * (2^s - d) / d) + 1  (< 2^32),
//   n / d = (mulhi(n, m) + n) >> s   for 0 <= n < 2^31 (so the sum fits 32 bits).
// tests/host/fast_divmod_test.cpp checks it against / and % for divisors up to 2^31 - 1.
#pragma once

#include <cstdint>

#include "tessel/layout/config.hpp"

namespace tessel {

struct FastDivmod {
  int divisor = 1;
  std::uint32_t multiplier = 1;
  int shift = 0;

  FastDivmod() = default;
  // Its one 64-bit division is done once, by whoever builds it. d < 1 (an empty grid, whose
  // items are never decoded) is taken as 1 rather than divided by.
  TESSEL_HOST_DEVICE explicit FastDivmod(int d) : divisor(d > 0 ? d : 1) {
    while ((1LL << shift) < divisor) ++shift;  // ceil(log2(d)): 0 for d = 1
    const std::uint64_t dd = std::uint64_t(divisor);
    multiplier = std::uint32_t((std::uint64_t(1) << 32) * ((std::uint64_t(1) << shift) - dd) / dd + 1);
  }
  // n / divisor, for 0 <= n < 2^31.
  TESSEL_HOST_DEVICE int div(int n) const {
#if defined(__CUDA_ARCH__)
    const std::uint32_t high = __umulhi(std::uint32_t(n), multiplier);
#else
    const std::uint32_t high = std::uint32_t((std::uint64_t(std::uint32_t(n)) * multiplier) >> 32);
#endif
    return int((high + std::uint32_t(n)) >> shift);
  }
  // n / divisor and n % divisor.
  TESSEL_HOST_DEVICE void divmod(int n, int& quotient, int& remainder) const {
    quotient = div(n);
    remainder = n - quotient * divisor;
  }
};

}  // namespace tessel
