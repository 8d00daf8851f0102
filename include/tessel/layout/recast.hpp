// upcast<N> / downcast<N>: the same layout seen in elements N times wider / narrower,
// e.g. to view a fp16 layout as 128-bit vectors: upcast<8>((8,64):(64,1)) -> (8,8):(8,1).
// Strides of 1 (the contiguous mode) change the shape; other strides are rescaled.
#pragma once

#include "layout.hpp"

namespace tessel {

namespace detail {
template <int N, class S, class D>
TESSEL_HOST_DEVICE constexpr auto upcast_mode(S const& s, D const& d) {
  if constexpr (is_tuple_v<S>) {
    auto both = transform(s, d, [](auto const& x, auto const& y) { return upcast_mode<N>(x, y); });
    return make_tuple(transform(both, [](auto const& m) { return get<0>(m); }),
                      transform(both, [](auto const& m) { return get<1>(m); }));
  } else if constexpr (is_const_v<0, D>) {
    return make_tuple(s, d);
  } else if constexpr (is_static_v<D>) {
    // |d| < N: N/|d| consecutive offsets become one element.
    return make_tuple(ceil_div(s, shape_div(C<N>{}, d)), shape_div(d, C<N>{}));
  } else {
    if (d % N != 0) {
      layout_error("upcast: a dynamic stride is not a multiple of the cast factor (stride, N)", d,
                   N);
    }
    return make_tuple(s, d / N);
  }
}
template <int N, class S, class D>
TESSEL_HOST_DEVICE constexpr auto downcast_mode(S const& s, D const& d) {
  if constexpr (is_tuple_v<S>) {
    auto both = transform(s, d, [](auto const& x, auto const& y) { return downcast_mode<N>(x, y); });
    return make_tuple(transform(both, [](auto const& m) { return get<0>(m); }),
                      transform(both, [](auto const& m) { return get<1>(m); }));
  } else if constexpr (is_const_v<1, D>) {
    return make_tuple(s * C<N>{}, d);
  } else {
    return make_tuple(s, d * C<N>{});
  }
}
}  // namespace detail

template <int N, class S, class D>
TESSEL_HOST_DEVICE constexpr auto upcast(Layout<S, D> const& l) {
  static_assert(N >= 1, "upcast: the factor must be >= 1");
  auto r = detail::upcast_mode<N>(l.shape(), l.stride());
  return make_layout(get<0>(r), get<1>(r));
}

template <int N, class S, class D>
TESSEL_HOST_DEVICE constexpr auto downcast(Layout<S, D> const& l) {
  static_assert(N >= 1, "downcast: the factor must be >= 1");
  auto r = detail::downcast_mode<N>(l.shape(), l.stride());
  return make_layout(get<0>(r), get<1>(r));
}

}  // namespace tessel
