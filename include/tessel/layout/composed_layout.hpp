// ComposedLayout: outer ∘ offset ∘ inner, i.e. c -> outer(offset + inner(c)). The shape is the
// inner layout's. With a Swizzle as outer function this is a swizzled shared-memory layout:
// composition(Swizzle<3,3,3>{}, Layout<Shape<_8,_64>, Stride<_64,_1>>{}) (seed 004).
#pragma once

#include "product.hpp"
#include "swizzle.hpp"

namespace tessel {

// A swizzle moves bits below its period only: swizzle(x + h) == swizzle(x) + h for every
// multiple h of the period. split_under_swizzle<Outer>(off) -> (rest, h): a static offset's
// largest such multiple h, which may leave the swizzle (into a pointer, or an address's
// immediate), and the rest, which stays under it. A dynamic offset, or an outer function that
// is not a swizzle, stays whole: (off, 0). This is what keeps a swizzled partition cheap: a
// thread's fragments at static coordinates share one swizzled base per distinct rest.
template <class Outer, class Off>
TESSEL_HOST_DEVICE constexpr auto split_under_swizzle(Off const& off) {
  if constexpr (is_swizzle_v<Outer> && is_constant<Off>::value) {
    constexpr long long v = Off::value, period = Outer::period;
    constexpr long long h = (v >= 0 ? v / period : -((-v + period - 1) / period)) * period;
    return make_tuple(C<static_cast<decltype(Off::value)>(v - h)>{}, C<static_cast<decltype(Off::value)>(h)>{});
  } else {
    return make_tuple(off, C<0>{});
  }
}

template <class Outer, class Offset, class Inner>
struct ComposedLayout {
  Outer outer_;
  Offset offset_;
  Inner inner_;

  TESSEL_HOST_DEVICE constexpr Outer const& outer() const { return outer_; }
  TESSEL_HOST_DEVICE constexpr Offset const& offset() const { return offset_; }
  TESSEL_HOST_DEVICE constexpr Inner const& inner() const { return inner_; }
  TESSEL_HOST_DEVICE constexpr auto shape() const { return inner_.shape(); }

  template <class Coord>
  TESSEL_HOST_DEVICE constexpr auto operator()(Coord const& c) const {
    if constexpr (has_underscore<Coord>()) {
      // A slice keeps the swizzle; the fixed coordinates move into the offset.
      auto sliced = slice_and_offset(c, inner_);
      auto sub = get<0>(sliced);
      auto off = get<1>(sliced);
      return ComposedLayout<Outer, decltype(offset_ + off), decltype(sub)>{outer_, offset_ + off,
                                                                         sub};
    } else {
      auto parts = split_under_swizzle<Outer>(inner_(c));
      return outer_(offset_ + get<0>(parts)) + get<1>(parts);
    }
  }
  template <class C0, class C1, class... Cs>
  TESSEL_HOST_DEVICE constexpr auto operator()(C0 const& c0, C1 const& c1, Cs const&... cs) const {
    return (*this)(make_coord(c0, c1, cs...));
  }
};

template <class T>
struct is_composed_layout : std::false_type {};
template <class A, class O, class B>
struct is_composed_layout<ComposedLayout<A, O, B>> : std::true_type {};

template <class A, class O, class B>
TESSEL_HOST_DEVICE constexpr auto size(ComposedLayout<A, O, B> const& l) {
  return size(l.inner());
}
template <class A, class O, class B>
TESSEL_HOST_DEVICE constexpr auto rank(ComposedLayout<A, O, B> const& l) {
  return rank(l.inner());
}
template <class A, class O, class B>
TESSEL_HOST_DEVICE constexpr auto shape(ComposedLayout<A, O, B> const& l) {
  return l.shape();
}
// A swizzle stays inside each aligned 2^(M+B+|S|) block, so the cosize is the inner one
// rounded up to the swizzle's period (exact for the tiles it is meant for).
template <int B, int M, int S, class O, class L>
TESSEL_HOST_DEVICE constexpr auto cosize(ComposedLayout<Swizzle<B, M, S>, O, L> const& l) {
  constexpr auto period = Swizzle<B, M, S>::period;
  auto inner = l.offset() + cosize(l.inner());
  return ((inner + period - 1) / period) * period;
}

// swizzle ∘ layout.
template <int B, int M, int S, class SL, class DL>
TESSEL_HOST_DEVICE constexpr auto composition(Swizzle<B, M, S> const& sw, Layout<SL, DL> const& l) {
  return ComposedLayout<Swizzle<B, M, S>, C<0>, Layout<SL, DL>>{sw, {}, l};
}

// (outer ∘ offset ∘ inner) ∘ B = outer ∘ offset ∘ (inner ∘ B): layouts and tilers alike.
template <class A, class O, class L, class Rhs>
TESSEL_HOST_DEVICE constexpr auto composition(ComposedLayout<A, O, L> const& c, Rhs const& rhs) {
  auto inner = composition(c.inner(), rhs);
  return ComposedLayout<A, O, decltype(inner)>{c.outer(), c.offset(), inner};
}

// f applied to the layout part: f(l) for a Layout; for outer ∘ offset ∘ inner, the same
// outer function and offset over f(inner). For restructuring that keeps the codomain
// (regrouping modes), so that it works on swizzled layouts too.
template <class L, class F>
TESSEL_HOST_DEVICE constexpr auto transform_inner(L const& l, F&& f) {
  if constexpr (is_composed_layout<L>::value) {
    auto inner = f(l.inner());
    return ComposedLayout<std::remove_cvref_t<decltype(l.outer())>, std::remove_cvref_t<decltype(l.offset())>,
                          decltype(inner)>{l.outer(), l.offset(), inner};
  } else {
    return f(l);
  }
}

// The divisions and tile_to_shape act on the inner layout and keep the outer function.
#define TESSEL_COMPOSED_FORWARD(NAME)                                                        \
  template <class A, class O, class L, class Tiler>                                          \
  TESSEL_HOST_DEVICE constexpr auto NAME(ComposedLayout<A, O, L> const& c, Tiler const& t) { \
    auto inner = NAME(c.inner(), t);                                                         \
    return ComposedLayout<A, O, decltype(inner)>{c.outer(), c.offset(), inner};              \
  }
TESSEL_COMPOSED_FORWARD(logical_divide)
TESSEL_COMPOSED_FORWARD(zipped_divide)
TESSEL_COMPOSED_FORWARD(tiled_divide)
TESSEL_COMPOSED_FORWARD(flat_divide)
TESSEL_COMPOSED_FORWARD(tile_to_shape)
#undef TESSEL_COMPOSED_FORWARD

}  // namespace tessel
