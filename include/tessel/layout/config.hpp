// Macros and run-time error reporting shared by the whole layout algebra.
#pragma once

#if defined(__CUDACC__)
#define TESSEL_HOST_DEVICE __host__ __device__
#else
#define TESSEL_HOST_DEVICE
#endif

#if !defined(__CUDA_ARCH__)
#include <cstdio>
#include <stdexcept>
#include <string>
#else
#include <cstdio>
#endif

namespace tessel {

#if !defined(__CUDA_ARCH__)
// A run-time layout operation whose precondition does not hold (the static case of the same
// rule is a static_assert). The message names the rule and the values that broke it.
class LayoutError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};
#endif

// Reports a broken rule: on the host a LayoutError, on the device a message and a trap.
// `a` and `b` are the values involved (printed after the rule).
[[noreturn]] TESSEL_HOST_DEVICE inline void layout_error(const char* rule, long long a,
                                                         long long b) {
#if defined(__CUDA_ARCH__)
  printf("tessel layout error: %s (values %lld, %lld)\n", rule, a, b);
  __trap();
#else
  char values[96];
  std::snprintf(values, sizeof(values), " (values %lld, %lld)", a, b);
  throw LayoutError(std::string(rule) + values);
#endif
}

}  // namespace tessel
