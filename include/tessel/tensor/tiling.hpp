// Cutting a tensor into the part one block or one thread works on.
//   local_tile(gA, Shape<_128,_32>{}, make_coord(m, _))  // (128,32,k): block m's row of tiles
//   local_partition(sA, Layout<Shape<_32,_4>>{}, tid)   // thread tid's elements of every tile
#pragma once

#include "tensor.hpp"

namespace tessel {

// The tile at `coord` of the tiles of shape `tiler`: zipped_divide(t, tiler)(_, coord).
// A `_` in coord keeps that mode of tiles: local_tile(A, (128,32), (m,_)) -> (128,32,k).
template <class E, class L, class Tiler, class Coord>
TESSEL_HOST_DEVICE constexpr auto local_tile(Tensor<E, L> const& t, Tiler const& tiler,
                                             Coord const& coord) {
  auto tiled = zipped_divide(t, tiler);
  constexpr std::size_t R = rank_t<std::remove_cvref_t<decltype(get<0>(tiled.shape()))>>::value;
  if constexpr (R == 1) {
    return tiled(make_coord(_, coord));
  } else {
    return tiled(make_coord(repeat<R>(_), coord));  // the tile's modes come out flat
  }
}

namespace detail {
// The modes of t whose step is not `_` (CuTe's Step<_1, X, _1> projections).
template <class T, class Step>
TESSEL_HOST_DEVICE constexpr auto project(T const& t, Step const&) {
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    return tuple_cat([&] {
      if constexpr (is_underscore<decltype(get<Is>(Step{}))>::value) {
        return tuple<>{};
      } else {
        return make_tuple(get<Is>(t));
      }
    }()...);
  }(std::make_index_sequence<tuple_size_v<Step>>{});
}
}  // namespace detail

// local_tile with a projection: a (BLK_M,BLK_N,BLK_K) tiler and (m,n,_) coordinate, with
// Step<_1,_,_1>, tile only by the M and K modes: local_tile(A, cta_tiler, cta_coord,
// make_step(Int<1>{}, _, Int<1>{})) -> (BLK_M,BLK_K,k).
template <class E, class L, class Tiler, class Coord, class Step>
TESSEL_HOST_DEVICE constexpr auto local_tile(Tensor<E, L> const& t, Tiler const& tiler,
                                             Coord const& coord, Step const& step) {
  return local_tile(t, detail::project(tiler, step), detail::project(coord, step));
}

// Element `coord` of every tile of shape `tiler`: zipped_divide(t, tiler)(coord, _).
template <class E, class L, class Tiler, class Coord>
TESSEL_HOST_DEVICE constexpr auto outer_partition(Tensor<E, L> const& t, Tiler const& tiler,
                                                  Coord const& coord) {
  auto tiled = zipped_divide(t, tiler);
  constexpr std::size_t R = rank_t<std::remove_cvref_t<decltype(get<1>(tiled.shape()))>>::value;
  if constexpr (R == 1) {
    return tiled(make_coord(coord, _));
  } else {
    return tiled(make_coord(coord, repeat<R>(_)));
  }
}

namespace detail {
// The coordinate of `index` in a compact (possibly permuted) layout: per leaf (index/d) % s.
template <class S, class D, class I>
TESSEL_HOST_DEVICE constexpr auto coordinate_of(S const& s, D const& d, I const& index) {
  if constexpr (is_tuple_v<S>) {
    return transform(s, d, [&](auto const& x, auto const& y) { return coordinate_of(x, y, index); });
  } else if constexpr (is_const_v<0, D>) {
    return C<0>{};
  } else {
    return (index / d) % s;
  }
}
// A hierarchical coordinate of a mode as its 1-D (colexicographic) index.
template <class S, class Crd>
TESSEL_HOST_DEVICE constexpr auto linear_index(S const& s, Crd const& c) {
  return crd2idx(c, s, compact_col_major(s));
}
}  // namespace detail

// Thread `index` of the thread layout `threads` (index -> thread id, e.g. (32,4):(4,1): 32x4
// threads, row-major) takes the element at its coordinate in every tile of shape(threads):
// local_partition(sA (128,32), (32,4):(4,1), tid) -> (4,8): rows tid/4 + 32i, columns tid%4 + 4j.
template <class E, class L, class TS, class TD, Integral Index>
TESSEL_HOST_DEVICE constexpr auto local_partition(Tensor<E, L> const& t, Layout<TS, TD> const& threads,
                                                  Index index) {
  if constexpr (is_static_v<TS> && is_static_v<TD>) {
    static_assert(decltype(size(right_inverse(threads)))::value == decltype(size(threads))::value,
                  "local_partition: the thread layout must be a bijection onto [0, size) "
                  "(compact, in any mode order)");
  }
  auto crd = detail::coordinate_of(threads.shape(), threads.stride(), index);
  auto per_mode = transform(wrap(threads.shape()), wrap(crd), [](auto const& s, auto const& c) {
    return detail::linear_index(s, c);
  });
  return outer_partition(t, product_each(threads.shape()), unwrap(per_mode));
}

}  // namespace tessel
