// Overflow-checked int64 arithmetic for the run-time algebra: every product, sum and
// quotient the calculator forms goes through these, so a huge layout raises AlgebraError
// ("overflow: 4611686018427387904 * 4 does not fit in 64 bits") instead of wrapping.
#pragma once

#include <cstdint>
#include <string>

#include "runtime_layout.hpp"

namespace tessel::rt::checked {

namespace detail {
[[noreturn]] inline void overflow(int64_t a, const char* op, int64_t b) {
  throw AlgebraError("overflow: " + std::to_string(a) + " " + op + " " + std::to_string(b) +
                     " does not fit in 64 bits");
}
}  // namespace detail

inline int64_t mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) detail::overflow(a, "*", b);
  return r;
}

inline int64_t add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) detail::overflow(a, "+", b);
  return r;
}

inline int64_t sub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) detail::overflow(a, "-", b);
  return r;
}

// |a|, rejecting INT64_MIN whose magnitude has no int64 form.
inline int64_t abs(int64_t a) {
  if (a == INT64_MIN) throw AlgebraError("overflow: |" + std::to_string(a) + "| does not fit");
  return a < 0 ? -a : a;
}

// a / b truncating; b == 0 and INT64_MIN / -1 are errors, never traps.
inline int64_t div(int64_t a, int64_t b) {
  if (b == 0) throw AlgebraError("division by zero: " + std::to_string(a) + " / 0");
  if (a == INT64_MIN && b == -1) throw AlgebraError("overflow: INT64_MIN / -1");
  return a / b;
}

inline int64_t mod(int64_t a, int64_t b) {
  if (b == 0) throw AlgebraError("division by zero: " + std::to_string(a) + " % 0");
  if (b == -1) return 0;
  return a % b;
}

}  // namespace tessel::rt::checked
