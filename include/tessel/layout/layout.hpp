// Layout = Shape:Stride, a function from coordinates to offsets.
// (4,2):(1,4) maps (i,j) -> i + 4j; its 1-D domain is [0,8) read colexicographically.
#pragma once

#include "int_tuple.hpp"

namespace tessel {

template <class ShapeT, class StrideT = decltype(compact_col_major(std::declval<ShapeT>()))>
struct Layout {
  static_assert(IntTuple<ShapeT> && IntTuple<StrideT>, "Layout: shape and stride must be IntTuples");
  static_assert(is_congruent_v<ShapeT, StrideT>,
                "Layout: shape and stride must be congruent (same nesting)");

  ShapeT shape_;
  StrideT stride_;

  constexpr Layout() = default;
  TESSEL_HOST_DEVICE constexpr Layout(ShapeT const& shape, StrideT const& stride)
      : shape_(shape), stride_(stride) {}
  TESSEL_HOST_DEVICE constexpr explicit Layout(ShapeT const& shape)
      : shape_(shape), stride_(compact_col_major(shape)) {}

  TESSEL_HOST_DEVICE constexpr ShapeT const& shape() const { return shape_; }
  TESSEL_HOST_DEVICE constexpr StrideT const& stride() const { return stride_; }

  // layout(c): the offset of coordinate c (an integer index or a congruent coordinate).
  // With `_` in c, the sub-layout of those modes instead (see slice()).
  template <class Coord>
  TESSEL_HOST_DEVICE constexpr auto operator()(Coord const& c) const {
    if constexpr (has_underscore<Coord>()) {
      return Layout<decltype(slice(c, shape_)), decltype(slice(c, stride_))>(slice(c, shape_),
                                                                            slice(c, stride_));
    } else {
      return crd2idx(c, shape_, stride_);
    }
  }
  template <class C0, class C1, class... Cs>
  TESSEL_HOST_DEVICE constexpr auto operator()(C0 const& c0, C1 const& c1, Cs const&... cs) const {
    return (*this)(make_coord(c0, c1, cs...));
  }
};

template <class T>
struct is_layout : std::false_type {};
template <class S, class D>
struct is_layout<Layout<S, D>> : std::true_type {};
template <class T>
inline constexpr bool is_layout_v = is_layout<std::remove_cvref_t<T>>::value;

// ---- construction -------------------------------------------------------------------------

// make_layout((4,2), (1,4)) -> (4,2):(1,4); make_layout((4,2)) -> (4,2):(1,4) (column-major).
template <IntTuple S, IntTuple D>
TESSEL_HOST_DEVICE constexpr auto make_layout(S const& shape, D const& stride) {
  return Layout<S, D>(shape, stride);
}
template <IntTuple S>
TESSEL_HOST_DEVICE constexpr auto make_layout(S const& shape) {
  return make_layout(shape, compact_col_major(shape));
}
template <IntTuple S>
TESSEL_HOST_DEVICE constexpr auto make_layout(S const& shape, LayoutLeft) {
  return make_layout(shape, compact_col_major(shape));
}
// make_layout((4,2), LayoutRight{}) -> (4,2):(2,1).
template <IntTuple S>
TESSEL_HOST_DEVICE constexpr auto make_layout(S const& shape, LayoutRight) {
  return make_layout(shape, compact_row_major(shape));
}
// Concatenation of layouts as modes: make_layout(4:1, 2:4) -> (4,2):(1,4).
template <class S0, class D0, class... Ls>
  requires(is_layout_v<Ls> && ...)
TESSEL_HOST_DEVICE constexpr auto make_layout(Layout<S0, D0> const& l0, Ls const&... ls) {
  return make_layout(make_shape(l0.shape(), ls.shape()...),
                     make_stride(l0.stride(), ls.stride()...));
}

// Compact layout whose modes are ordered by `order` (smaller order = smaller stride):
// make_ordered_layout((2,2,2,2), (0,2,3,1)) -> (2,2,2,2):(1,4,8,2). Shape and order flat;
// order static.
namespace detail {
// Stride of mode I: the product of the sizes of the modes ordered before it.
template <std::size_t I, std::size_t J, class S, class Order>
TESSEL_HOST_DEVICE constexpr auto ordered_factor(S const& shape) {
  constexpr auto oi = std::remove_cvref_t<decltype(get<I>(Order{}))>::value;
  constexpr auto oj = std::remove_cvref_t<decltype(get<J>(Order{}))>::value;
  if constexpr (oj < oi || (oj == oi && J < I)) {
    return product(get<J>(shape));
  } else {
    return C<1>{};
  }
}
template <std::size_t I, class S, class Order, std::size_t... Js>
TESSEL_HOST_DEVICE constexpr auto ordered_stride(S const& shape, std::index_sequence<Js...>) {
  return (C<1>{} * ... * ordered_factor<I, Js, S, Order>(shape));
}
template <class S, class Order, std::size_t... Is>
TESSEL_HOST_DEVICE constexpr auto ordered_strides(S const& shape, std::index_sequence<Is...> is) {
  return make_stride(ordered_stride<Is, S, Order>(shape, is)...);
}
}  // namespace detail

template <class S, class Order>
TESSEL_HOST_DEVICE constexpr auto make_ordered_layout(S const& shape, Order const&) {
  static_assert(is_static_v<Order>, "make_ordered_layout: the order must be static");
  static_assert(tuple_size_v<Order> == tuple_size_v<S>,
                "make_ordered_layout: order and shape must have the same rank");
  return make_layout(shape, detail::ordered_strides<S, Order>(
                                shape, std::make_index_sequence<tuple_size_v<S>>{}));
}

// ---- queries ------------------------------------------------------------------------------

template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto shape(Layout<S, D> const& l) {
  return l.shape();
}
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto stride(Layout<S, D> const& l) {
  return l.stride();
}
// size(layout) = size of its domain; size of an IntTuple = its product.
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto size(Layout<S, D> const& l) {
  return product(l.shape());
}
template <IntTuple T>
TESSEL_HOST_DEVICE constexpr auto size(T const& t) {
  return product(t);
}
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto rank(Layout<S, D> const& l) {
  return rank(l.shape());
}
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto depth(Layout<S, D> const& l) {
  return depth(l.shape());
}
// cosize = 1 + the largest offset (for non-negative strides): (4,2):(1,8) -> 12.
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto cosize(Layout<S, D> const& l) {
  auto fs = flatten_to_tuple(l.shape());
  auto fd = flatten_to_tuple(l.stride());
  return fold(transform(fs, fd, [](auto s, auto d) { return (s - C<1>{}) * d; }), C<1>{},
              [](auto acc, auto x) { return acc + x; });
}

// Mode I (possibly nested: get<1,0>(l)) as a layout.
template <std::size_t... Is, class S, class D>
TESSEL_HOST_DEVICE constexpr auto get(Layout<S, D> const& l) {
  return make_layout(get<Is...>(l.shape()), get<Is...>(l.stride()));
}

// Modes [B, E) as a layout.
template <std::size_t B, std::size_t E, class S, class D>
TESSEL_HOST_DEVICE constexpr auto take(Layout<S, D> const& l) {
  return make_layout(take<B, E>(wrap(l.shape())), take<B, E>(wrap(l.stride())));
}

// ---- restructuring ------------------------------------------------------------------------

// append((4,2):(1,4), 3:8) -> (4,2,3):(1,4,8).
template <class S, class D, class S2, class D2>
TESSEL_HOST_DEVICE constexpr auto append(Layout<S, D> const& l, Layout<S2, D2> const& x) {
  return make_layout(append(l.shape(), x.shape()), append(l.stride(), x.stride()));
}
template <class S, class D, class S2, class D2>
TESSEL_HOST_DEVICE constexpr auto prepend(Layout<S, D> const& l, Layout<S2, D2> const& x) {
  return make_layout(prepend(l.shape(), x.shape()), prepend(l.stride(), x.stride()));
}

// group_modes<1,3>((2,3,4,5):(1,2,6,24)) -> (2,(3,4),5):(1,(2,6),24).
template <std::size_t B, std::size_t E, class S, class D>
TESSEL_HOST_DEVICE constexpr auto group_modes(Layout<S, D> const& l) {
  auto group = [](auto const& t) {
    auto w = wrap(t);
    return tuple_cat(take<0, B>(w), make_tuple(take<B, E>(w)), take<E, tuple_size_v<decltype(w)>>(w));
  };
  return make_layout(group(l.shape()), group(l.stride()));
}

// flatten(((2,3),4):((1,2),6)) -> (2,3,4):(1,2,6).
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto flatten(Layout<S, D> const& l) {
  return make_layout(flatten(l.shape()), flatten(l.stride()));
}

// The modes selected by `_` in c, and the offset of the fixed ones:
// slice_and_offset((_,2), (4,8):(1,4)) -> (4:1, 8).
template <class Coord, class S, class D>
TESSEL_HOST_DEVICE constexpr auto slice_and_offset(Coord const& c, Layout<S, D> const& l) {
  return make_tuple(l(c), crd2idx(underscore_to_zero(c), l.shape(), l.stride()));
}

// Equality as values: same shape and stride trees and numbers.
template <class S0, class D0, class S1, class D1>
TESSEL_HOST_DEVICE constexpr bool operator==(Layout<S0, D0> const& a, Layout<S1, D1> const& b) {
  return equal(a.shape(), b.shape()) && equal(a.stride(), b.stride());
}

}  // namespace tessel
