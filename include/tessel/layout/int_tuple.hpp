// Hierarchical integer tuples (IntTuple): an integer, or a tuple of IntTuples. Shapes,
// strides and coordinates are all IntTuples; e.g. the shape ((2,4),8) has rank 2, depth 2,
// size 64. Coordinates are colexicographic: the leftmost mode varies fastest.
#pragma once

#include "tuple.hpp"

namespace tessel {

// ---- traits -------------------------------------------------------------------------------
template <class T>
struct is_static : std::false_type {};
template <auto V>
struct is_static<C<V>> : std::true_type {};
template <class... Ts>
struct is_static<tuple<Ts...>> : std::bool_constant<(is_static<Ts>::value && ...)> {};
template <class T>
inline constexpr bool is_static_v = is_static<std::remove_cvref_t<T>>::value;

template <class T>
concept IntTuple = Integral<T> || is_tuple_v<T>;

// ---- rank, depth, size --------------------------------------------------------------------

// rank((2,(3,4))) == 2; rank(7) == 1.
template <class T>
TESSEL_HOST_DEVICE constexpr auto rank(T const&) {
  if constexpr (is_tuple_v<T>) {
    return C<int(tuple_size_v<T>)>{};
  } else {
    return C<1>{};
  }
}
template <class T>
using rank_t = decltype(rank(std::declval<T>()));

// depth(7) == 0; depth((2,(3,4))) == 2.
template <class T>
TESSEL_HOST_DEVICE constexpr auto depth(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return fold(t, C<1>{}, [](auto d, auto const& x) { return max(d, depth(x) + C<1>{}); });
  } else {
    return C<0>{};
  }
}

// product((2,(3,4))) == 24; static when every leaf is static.
template <class T>
TESSEL_HOST_DEVICE constexpr auto product(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return fold(t, C<1>{}, [](auto p, auto const& x) { return p * product(x); });
  } else {
    return t;
  }
}
// product_each((2,(3,4))) == (2,12).
template <class T>
TESSEL_HOST_DEVICE constexpr auto product_each(T const& t) {
  return transform(wrap(t), [](auto const& x) { return product(x); });
}

template <class T>
TESSEL_HOST_DEVICE constexpr auto sum(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return fold(t, C<0>{}, [](auto s, auto const& x) { return s + sum(x); });
  } else {
    return t;
  }
}

// flatten(((2,3),(4,(5,6)))) == (2,3,4,5,6); an integer stays an integer.
template <class T>
TESSEL_HOST_DEVICE constexpr auto flatten_to_tuple(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return fold(t, tuple<>{}, [](auto const& acc, auto const& x) {
      return tuple_cat(acc, flatten_to_tuple(x));
    });
  } else {
    return make_tuple(t);
  }
}
template <class T>
TESSEL_HOST_DEVICE constexpr auto flatten(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return flatten_to_tuple(t);
  } else {
    return t;
  }
}

// ---- congruence and compatibility -----------------------------------------------------------

// Same tree structure: (2,(3,4)) and (1,(5,6)) are congruent, (2,12) is not.
template <class A, class B>
struct is_congruent : std::bool_constant<!is_tuple_v<A> && !is_tuple_v<B>> {};
namespace detail {
template <bool SameRank, class A, class B>
struct congruent_modes : std::false_type {};
template <class... As, class... Bs>
struct congruent_modes<true, tuple<As...>, tuple<Bs...>>
    : std::bool_constant<(is_congruent<As, Bs>::value && ...)> {};
}  // namespace detail
template <class... As, class... Bs>
struct is_congruent<tuple<As...>, tuple<Bs...>>
    : detail::congruent_modes<sizeof...(As) == sizeof...(Bs), tuple<As...>, tuple<Bs...>> {};
template <class A, class B>
inline constexpr bool is_congruent_v =
    is_congruent<std::remove_cvref_t<A>, std::remove_cvref_t<B>>::value;

// Shape A is compatible with shape B when B refines A: every coordinate of A is also one of
// B. 24 is compatible with (2,(3,4)); (6,4) is compatible with ((2,3),4).
template <class A, class B>
TESSEL_HOST_DEVICE constexpr bool compatible(A const& a, B const& b) {
  if constexpr (is_tuple_v<A>) {
    if constexpr (is_tuple_v<B>) {
      if constexpr (tuple_size_v<A> == tuple_size_v<B>) {
        return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
          return (compatible(get<Is>(a), get<Is>(b)) && ...);
        }(std::make_index_sequence<tuple_size_v<A>>{});
      } else {
        return false;
      }
    } else {
      return false;
    }
  } else {
    return a == product(b);
  }
}

// ---- prefix products and compact strides --------------------------------------------------

namespace detail {
// Returns (prefix products congruent to t, the running product after t).
template <class T, class Init>
TESSEL_HOST_DEVICE constexpr auto prefix_product_and_total(T const& t, Init const& init) {
  if constexpr (is_tuple_v<T>) {
    auto r = fold(t, make_tuple(tuple<>{}, init), [](auto const& acc, auto const& x) {
      auto sub = prefix_product_and_total(x, get<1>(acc));
      return make_tuple(append(get<0>(acc), get<0>(sub)), get<1>(sub));
    });
    return r;
  } else {
    return make_tuple(init, init * t);
  }
}
}  // namespace detail

// Exclusive prefix product, colexicographic: prefix_product((2,(3,4))) == (1,(2,6)).
template <class T, class Init = C<1>>
TESSEL_HOST_DEVICE constexpr auto prefix_product(T const& t, Init const& init = {}) {
  return get<0>(detail::prefix_product_and_total(t, init));
}

// Column-major (LayoutLeft) and row-major (LayoutRight) compact strides.
struct LayoutLeft {};
struct LayoutRight {};

namespace detail {
// A static mode of size 1 gets stride 0 (as in CuTe): its only coordinate is 0 anyway, and a
// 0 stride lets coalesce and filter see that it contributes nothing.
template <class Shape, class Stride>
TESSEL_HOST_DEVICE constexpr auto zero_unit_strides(Shape const& shape, Stride const& stride) {
  if constexpr (is_tuple_v<Shape>) {
    return transform(shape, stride, [](auto const& s, auto const& d) { return zero_unit_strides(s, d); });
  } else if constexpr (is_const_v<1, Shape>) {
    return C<0>{};
  } else {
    return stride;
  }
}
}  // namespace detail

// compact_col_major((2,(3,4))) == (1,(2,6)); compact_col_major((4,1,2)) == (1,0,4) for a
// static 1.
template <class Shape>
TESSEL_HOST_DEVICE constexpr auto compact_col_major(Shape const& shape) {
  return detail::zero_unit_strides(shape, prefix_product(shape));
}

namespace detail {
template <class T>
TESSEL_HOST_DEVICE constexpr auto reverse_tree(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return make_tuple(reverse_tree(get<tuple_size_v<T> - 1 - Is>(t))...);
    }(std::make_index_sequence<tuple_size_v<T>>{});
  } else {
    return t;
  }
}
}  // namespace detail

// compact_row_major((2,(3,4))) == (12,(4,1)): the rightmost mode varies fastest.
template <class Shape>
TESSEL_HOST_DEVICE constexpr auto compact_row_major(Shape const& shape) {
  return detail::zero_unit_strides(shape,
                                   detail::reverse_tree(prefix_product(detail::reverse_tree(shape))));
}

// ---- shape division -----------------------------------------------------------------------

// shape_div(a, b): a / b when b divides a, 1 when a divides b (b "consumes" all of a); any
// other pair is an error. For a tuple a, b is divided out of the modes from left to right:
// shape_div((4,6), 8) == (1,3). For tuples a and b, mode by mode.
template <class A, class B>
TESSEL_HOST_DEVICE constexpr auto shape_div(A const& a, B const& b) {
  if constexpr (is_tuple_v<A> && is_tuple_v<B>) {
    return transform(a, b, [](auto const& x, auto const& y) { return shape_div(x, y); });
  } else if constexpr (is_tuple_v<A>) {
    auto r = fold(a, make_tuple(tuple<>{}, b), [](auto const& acc, auto const& x) {
      auto rest = get<1>(acc);
      return make_tuple(append(get<0>(acc), shape_div(x, rest)), shape_div(rest, product(x)));
    });
    return get<0>(r);
  } else if constexpr (is_tuple_v<B>) {
    return shape_div(a, product(b));
  } else if constexpr (is_static_v<A> && is_static_v<B>) {
    static_assert(A::value % B::value == 0 || B::value % A::value == 0,
                  "shape_div: neither of the two shapes divides the other");
    return C<(A::value % B::value == 0 ? A::value / B::value : 1)>{};
  } else {
    if (!(a % b == 0 || b % a == 0)) {
      layout_error("shape_div: neither of the two shapes divides the other", a, b);
    }
    return select(a % b == 0, a / b, C<1>{});
  }
}

// ---- coordinates <-> indices -------------------------------------------------------------

// Index of a coordinate. The coordinate may be hierarchical like the shape, or an integer
// (then it is first split colexicographically; the last mode takes whatever remains, so an
// index past the size continues the last mode's stride).
// crd2idx((1,2), (4,8), (1,4)) == 9; crd2idx(9, (4,8), (1,4)) == 9.
template <class Coord, class Shape, class Stride>
TESSEL_HOST_DEVICE constexpr auto crd2idx(Coord const& coord, Shape const& shape,
                                          Stride const& stride) {
  if constexpr (is_tuple_v<Coord>) {
    static_assert(tuple_size_v<Coord> == rank_t<Shape>::value,
                  "crd2idx: the coordinate's rank differs from the shape's");
    return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return (C<0>{} + ... + crd2idx(get<Is>(coord), get<Is>(shape), get<Is>(stride)));
    }(std::make_index_sequence<tuple_size_v<Coord>>{});
  } else if constexpr (is_tuple_v<Shape>) {
    // Split the integer over the modes: every mode but the last takes coord % size.
    constexpr std::size_t R = tuple_size_v<Shape>;
    auto r = fold(take<0, R - 1>(transform(shape, stride, [](auto const& s, auto const& d) {
                    return make_tuple(s, d);
                  })),
                  make_tuple(coord, C<0>{}), [](auto const& acc, auto const& sd) {
                    auto c = get<0>(acc);
                    auto n = product(get<0>(sd));
                    return make_tuple(c / n, get<1>(acc) + crd2idx(c % n, get<0>(sd), get<1>(sd)));
                  });
    return get<1>(r) + crd2idx(get<0>(r), get<R - 1>(shape), get<R - 1>(stride));
  } else {
    return coord * stride;
  }
}

// Coordinate of an index in a shape, congruent to the shape (colexicographic); the last mode
// is not reduced, mirroring crd2idx. idx2crd(9, (4,8)) == (1,2).
template <class Index, class Shape>
TESSEL_HOST_DEVICE constexpr auto idx2crd(Index const& idx, Shape const& shape) {
  if constexpr (is_tuple_v<Shape>) {
    constexpr std::size_t R = tuple_size_v<Shape>;
    auto r = fold(take<0, R - 1>(shape), make_tuple(tuple<>{}, idx),
                  [](auto const& acc, auto const& s) {
                    auto i = get<1>(acc);
                    auto n = product(s);
                    return make_tuple(append(get<0>(acc), idx2crd(i % n, s)), i / n);
                  });
    return append(get<0>(r), idx2crd(get<1>(r), get<R - 1>(shape)));
  } else {
    return idx;
  }
}

// ---- slicing ------------------------------------------------------------------------------

template <class T>
struct is_underscore : std::is_same<std::remove_cvref_t<T>, Underscore> {};

// True when the coordinate holds a `_` anywhere.
template <class Coord>
struct has_underscore_t : is_underscore<Coord> {};
template <class... Ts>
struct has_underscore_t<tuple<Ts...>> : std::bool_constant<(has_underscore_t<Ts>::value || ...)> {};
template <class Coord>
TESSEL_HOST_DEVICE constexpr bool has_underscore() {
  return has_underscore_t<std::remove_cvref_t<Coord>>::value;
}

// The parts of t selected by the `_` of coord, flattened one level per tuple:
// slice((_,1), (4,8)) == (4); slice(((_,0),_), ((2,3),8)) == (2,8).
template <class Coord, class T>
TESSEL_HOST_DEVICE constexpr auto slice_tuple(Coord const& coord, T const& t) {
  if constexpr (is_underscore<Coord>::value) {
    return make_tuple(t);
  } else if constexpr (is_tuple_v<Coord>) {
    static_assert(rank_t<T>::value == tuple_size_v<Coord>,
                  "slice: the coordinate's rank differs from the shape's");
    return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return tuple_cat(slice_tuple(get<Is>(coord), get<Is>(t))...);
    }(std::make_index_sequence<tuple_size_v<Coord>>{});
  } else {
    return tuple<>{};
  }
}
template <class Coord, class T>
TESSEL_HOST_DEVICE constexpr auto slice(Coord const& coord, T const& t) {
  return unwrap(slice_tuple(coord, t));
}

// The coordinate with every `_` replaced by 0 (for the offset of a slice).
template <class Coord>
TESSEL_HOST_DEVICE constexpr auto underscore_to_zero(Coord const& coord) {
  if constexpr (is_underscore<Coord>::value) {
    return C<0>{};
  } else if constexpr (is_tuple_v<Coord>) {
    return transform(coord, [](auto const& c) { return underscore_to_zero(c); });
  } else {
    return coord;
  }
}

// Elementwise equality of two IntTuples (structure and values).
template <class A, class B>
TESSEL_HOST_DEVICE constexpr bool equal(A const& a, B const& b) {
  if constexpr (is_tuple_v<A> != is_tuple_v<B>) {
    return false;
  } else if constexpr (is_tuple_v<A>) {
    if constexpr (tuple_size_v<A> != tuple_size_v<B>) {
      return false;
    } else {
      return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
        return (equal(get<Is>(a), get<Is>(b)) && ...);
      }(std::make_index_sequence<tuple_size_v<A>>{});
    }
  } else {
    return a == b;
  }
}

template <class... Ts>
TESSEL_HOST_DEVICE constexpr auto make_shape(Ts const&... ts) {
  return make_tuple(ts...);
}
template <class... Ts>
TESSEL_HOST_DEVICE constexpr auto make_stride(Ts const&... ts) {
  return make_tuple(ts...);
}
template <class... Ts>
TESSEL_HOST_DEVICE constexpr auto make_coord(Ts const&... ts) {
  return make_tuple(ts...);
}
// A by-mode tiler: make_tile(Layout<_8>{}, _) tiles mode 0 and keeps mode 1.
template <class... Ts>
TESSEL_HOST_DEVICE constexpr auto make_tile(Ts const&... ts) {
  return make_tuple(ts...);
}
// A projection for local_tile: make_step(Int<1>{}, _, Int<1>{}) keeps modes 0 and 2.
template <class... Ts>
TESSEL_HOST_DEVICE constexpr auto make_step(Ts const&... ts) {
  return make_tuple(ts...);
}
template <class... Ts>
using Shape = tuple<Ts...>;
template <class... Ts>
using Stride = tuple<Ts...>;
template <class... Ts>
using Coord = tuple<Ts...>;
template <class... Ts>
using Tile = tuple<Ts...>;
template <class... Ts>
using Step = tuple<Ts...>;

}  // namespace tessel
