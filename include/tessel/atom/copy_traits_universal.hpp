// UniversalCopy<T>: one thread copies one T with a plain load and store. The fallback atom
// for any memory, and the narrow-access path where 16-byte alignment cannot be guaranteed.
#pragma once

#include "copy_traits.hpp"

namespace tessel {

template <class T>
struct UniversalCopy {
  template <class S, class D>
  TESSEL_HOST_DEVICE static constexpr void copy(S const& src, D& dst) {
    dst = src;
  }
};

// (1, bits):(0, 1) on both sides: one thread, one contiguous T.
template <class T>
struct CopyTraits<UniversalCopy<T>> {
  using ThrID = Layout<Int<1>, Int<0>>;
  using SrcLayout = Layout<Shape<Int<1>, Int<int(sizeof(T) * 8)>>, Stride<Int<0>, Int<1>>>;
  using DstLayout = SrcLayout;
  using RefLayout = SrcLayout;
};

}  // namespace tessel
