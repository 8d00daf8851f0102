// UniversalCopy<T>: one thread copies one T with a plain load and store. The fallback atom
// for any memory, and the narrow-access path where 16-byte alignment cannot be guaranteed.
#pragma once

#include "copy_traits.hpp"

namespace tessel {

template <class T>
struct UniversalCopy {
  using SRegisters = T[1];
  using DRegisters = T[1];
  template <class S, class D>
  TESSEL_HOST_DEVICE static constexpr void copy(S const& src, D& dst) {
    dst = src;
  }
};

// The same with a predicate, like cp.async's zero-fill form: false writes a zero T and reads
// nothing (copy_if hands it a valid address). T is an unsigned integer of the element's width,
// so that "zero" is all bits clear for any element type.
template <class T>
struct UniversalCopyZfill {
  using SRegisters = T[1];
  using DRegisters = T[1];
  TESSEL_HOST_DEVICE static void copy(T const& src, T& dst, bool pred) { dst = pred ? src : T(0); }
};

namespace detail {
// (1, bits):(0, 1) on both sides: one thread, one contiguous T.
template <class T>
struct OneThreadCopyTraits {
  using ThrID = Layout<Int<1>, Int<0>>;
  using SrcLayout = Layout<Shape<Int<1>, Int<int(sizeof(T) * 8)>>, Stride<Int<0>, Int<1>>>;
  using DstLayout = SrcLayout;
  using RefLayout = SrcLayout;
};
}  // namespace detail

template <class T>
struct CopyTraits<UniversalCopy<T>> : detail::OneThreadCopyTraits<T> {};
template <class T>
struct CopyTraits<UniversalCopyZfill<T>> : detail::OneThreadCopyTraits<T> {};

}  // namespace tessel
