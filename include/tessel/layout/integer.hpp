// Integers of the algebra: static ones (`Int<4>`, the value lives in the type and folds at
// compile time) and dynamic ones (any built-in integer). Arithmetic on two static integers
// stays static; as soon as one side is dynamic the result is a plain integer.
#pragma once

#include <concepts>
#include <type_traits>

#include "config.hpp"

namespace tessel {

// A compile-time constant: C<4>{} * C<2>{} is C<8>{}, C<4>{} * 2 is the int 8.
template <auto V>
struct C {
  using value_type = decltype(V);
  static constexpr value_type value = V;
  TESSEL_HOST_DEVICE constexpr operator value_type() const { return V; }  // NOLINT
};

template <int N>
using Int = C<N>;
template <bool B>
using Bool = C<B>;
using true_c = C<true>;
using false_c = C<false>;

// `_`: "all of this mode" when slicing; `Underscore{}` in a tiler keeps a mode untouched.
struct Underscore {};
#if defined(__CUDA_ARCH__)
static constexpr __device__ Underscore _{};  // device pass: a device-side constant
#else
inline constexpr Underscore _{};
#endif

// ---- traits ------------------------------------------------------------------------------
template <class T>
struct is_constant : std::false_type {};
template <auto V>
struct is_constant<C<V>> : std::true_type {};

// An integer of the algebra: static or dynamic (bool excluded).
template <class T>
concept Integral =
    is_constant<std::remove_cvref_t<T>>::value ||
    (std::integral<std::remove_cvref_t<T>> && !std::same_as<std::remove_cvref_t<T>, bool>);

// True when the integer is static and equals N.
template <auto N, class T>
struct is_const : std::false_type {};
template <auto N, auto V>
struct is_const<N, C<V>> : std::bool_constant<V == N> {};
template <auto N, class T>
inline constexpr bool is_const_v = is_const<N, std::remove_cvref_t<T>>::value;

// ---- arithmetic: static op static stays static --------------------------------------------
#define TESSEL_STATIC_BINARY_OP(OP)                                      \
  template <auto A, auto B>                                              \
  TESSEL_HOST_DEVICE constexpr C<(A OP B)> operator OP(C<A>, C<B>) { \
    return {};                                                           \
  }
TESSEL_STATIC_BINARY_OP(+)
TESSEL_STATIC_BINARY_OP(-)
TESSEL_STATIC_BINARY_OP(*)
TESSEL_STATIC_BINARY_OP(/)
TESSEL_STATIC_BINARY_OP(%)
TESSEL_STATIC_BINARY_OP(==)
TESSEL_STATIC_BINARY_OP(!=)
TESSEL_STATIC_BINARY_OP(<)
TESSEL_STATIC_BINARY_OP(<=)
TESSEL_STATIC_BINARY_OP(>)
TESSEL_STATIC_BINARY_OP(>=)
TESSEL_STATIC_BINARY_OP(&&)
TESSEL_STATIC_BINARY_OP(||)
TESSEL_STATIC_BINARY_OP(&)
TESSEL_STATIC_BINARY_OP(|)
TESSEL_STATIC_BINARY_OP(^)
TESSEL_STATIC_BINARY_OP(<<)
TESSEL_STATIC_BINARY_OP(>>)
#undef TESSEL_STATIC_BINARY_OP

template <auto A>
TESSEL_HOST_DEVICE constexpr C<-A> operator-(C<A>) {
  return {};
}
template <auto A>
TESSEL_HOST_DEVICE constexpr C<!A> operator!(C<A>) {
  return {};
}

// Static when both are static; a + b with the usual promotions otherwise.
template <Integral A, Integral B>
TESSEL_HOST_DEVICE constexpr auto min(A a, B b) {
  if constexpr (is_constant<A>::value && is_constant<B>::value) {
    return C<(A::value < B::value ? A::value : B::value)>{};
  } else {
    using T = decltype(a + b);
    return T(a) < T(b) ? T(a) : T(b);
  }
}
template <Integral A, Integral B>
TESSEL_HOST_DEVICE constexpr auto max(A a, B b) {
  if constexpr (is_constant<A>::value && is_constant<B>::value) {
    return C<(A::value < B::value ? B::value : A::value)>{};
  } else {
    using T = decltype(a + b);
    return T(a) < T(b) ? T(b) : T(a);
  }
}

// ceil(a / b) for positive b.
template <Integral A, Integral B>
TESSEL_HOST_DEVICE constexpr auto ceil_div(A a, B b) {
  return (a + b - C<1>{}) / b;
}

// Returns one of two integers chosen by a run-time or compile-time condition, as the common
// dynamic type when the condition is dynamic.
template <class Cond, Integral A, Integral B>
TESSEL_HOST_DEVICE constexpr auto select(Cond cond, A a, B b) {
  if constexpr (is_constant<Cond>::value) {
    if constexpr (Cond::value) {
      return a;
    } else {
      return b;
    }
  } else {
    using T = decltype(a + b);
    return cond ? T(a) : T(b);
  }
}

}  // namespace tessel
