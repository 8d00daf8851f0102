// Division: split a layout into tiles and the layout of the tiles.
// logical_divide(A, B) = composition(A, make_layout(B, complement(B, size(A)))):
// logical_divide((4,2,3):(2,1,8), 4:2) -> ((2,2),(2,3)):((4,1),(2,8)).
// With a tiler [B0, B1, ...] each mode is divided by its own Bi ("by mode").
#pragma once

#include "composition.hpp"
#include "complement.hpp"

namespace tessel {

namespace detail {
// A tiler entry as a layout: an integer N means make_layout(N), i.e. N:1.
template <class T>
TESSEL_HOST_DEVICE constexpr auto as_tile_layout(T const& t) {
  if constexpr (Integral<T>) {
    return make_layout(t);
  } else {
    return t;
  }
}

// Applies op(mode_i, tiler_i) to the first rank(tiler) modes, keeps the rest.
template <class S, class D, class Tiler, class Op>
TESSEL_HOST_DEVICE constexpr auto by_mode(Layout<S, D> const& a, Tiler const& tiler, Op&& op) {
  constexpr std::size_t R = tuple_size_v<Tiler>;
  static_assert(R <= rank_t<S>::value, "the tiler has more modes than the layout it tiles");
  auto done = [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    return make_tuple([&](auto const& mode, auto const& t) {
      if constexpr (is_underscore<decltype(t)>::value) {
        return mode;
      } else {
        return op(mode, t);
      }
    }(get<Is>(a), get<Is>(tiler))...);
  }(std::make_index_sequence<R>{});
  auto rest = [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    return make_tuple(get<R + Is>(a)...);
  }(std::make_index_sequence<rank_t<S>::value - R>{});
  return layout_of_modes(tuple_cat(done, rest));
}

// Splits a divided (or multiplied) layout into (tiles, rests) following the tiler: mode i of
// ((t0,r0),(t1,r1),...,x,...) gives t_i to the tiles and r_i to the rests; modes past the
// tiler go to the rests. A nested tiler entry splits its mode recursively, so tiling
// ((a,b)) by [_, [4,2]] gives ((A0,(B0,C0)),(A1,(B1,C1))).
template <class L, class Tiler>
TESSEL_HOST_DEVICE constexpr auto unzip_tiles(L const& l, Tiler const& tiler) {
  constexpr std::size_t R = tuple_size_v<Tiler>;
  constexpr std::size_t N = rank_t<std::remove_cvref_t<decltype(l.shape())>>::value;
  auto parts = [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    return make_tuple([&](auto const& mode, auto const& t) {
      if constexpr (is_tuple_v<decltype(t)>) {
        auto sub = unzip_tiles(mode, t);
        return make_tuple(get<0>(sub), get<1>(sub));
      } else if constexpr (rank_t<std::remove_cvref_t<decltype(mode.shape())>>::value == 1) {
        return make_tuple(mode, make_layout(C<1>{}, C<0>{}));  // `_` over a single mode
      } else {
        return make_tuple(get<0>(mode), get<1>(mode));
      }
    }(get<Is>(l), get<Is>(tiler))...);
  }(std::make_index_sequence<R>{});
  auto tiles = transform(parts, [](auto const& p) { return get<0>(p); });
  auto rests = transform(parts, [](auto const& p) { return get<1>(p); });
  auto others = [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    return make_tuple(get<R + Is>(l)...);
  }(std::make_index_sequence<N - R>{});
  return make_tuple(layout_of_modes(tiles), layout_of_modes(tuple_cat(rests, others)));
}

template <class L, class Tiler>
TESSEL_HOST_DEVICE constexpr auto zip_tiles(L const& l, Tiler const& tiler) {
  auto parts = unzip_tiles(l, tiler);
  return make_layout(get<0>(parts), get<1>(parts));
}

// (A, (b0, b1, ...)) -> (A, b0, b1, ...): unpacks mode 1 one level.
template <class L>
TESSEL_HOST_DEVICE constexpr auto unpack_second(L const& l) {
  auto second = get<1>(l);
  if constexpr (is_tuple_v<decltype(second.shape())>) {
    constexpr std::size_t N = tuple_size_v<decltype(second.shape())>;
    return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return layout_of_modes(make_tuple(get<0>(l), get<Is>(second)...));
    }(std::make_index_sequence<N>{});
  } else {
    return l;
  }
}
// (A, B) -> (a0, a1, ..., b0, b1, ...): unpacks both modes one level.
template <class L>
TESSEL_HOST_DEVICE constexpr auto unpack_both(L const& l) {
  auto modes_of = [](auto const& x) {
    if constexpr (is_tuple_v<decltype(x.shape())>) {
      return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
        return make_tuple(get<Is>(x)...);
      }(std::make_index_sequence<tuple_size_v<decltype(x.shape())>>{});
    } else {
      return make_tuple(x);
    }
  };
  return layout_of_modes(tuple_cat(modes_of(get<0>(l)), modes_of(get<1>(l))));
}
}  // namespace detail

template <class S, class D, class Tiler>
TESSEL_HOST_DEVICE constexpr auto logical_divide(Layout<S, D> const& a, Tiler const& tiler) {
  if constexpr (is_tuple_v<Tiler>) {
    return detail::by_mode(a, tiler, [](auto const& m, auto const& t) { return logical_divide(m, t); });
  } else {
    auto b = detail::as_tile_layout(tiler);
    return composition(a, make_layout(b, complement(b, size(a))));
  }
}

// ((tile modes), (rest modes)): zipped_divide((12,8):(1,12), [3, 4]) -> ((3,4),(4,2)):((1,12),(3,48)).
template <class S, class D, class Tiler>
TESSEL_HOST_DEVICE constexpr auto zipped_divide(Layout<S, D> const& a, Tiler const& tiler) {
  if constexpr (is_tuple_v<Tiler>) {
    return detail::zip_tiles(logical_divide(a, tiler), tiler);
  } else {
    return logical_divide(a, tiler);
  }
}

// ((tile modes), rest0, rest1, ...).
template <class S, class D, class Tiler>
TESSEL_HOST_DEVICE constexpr auto tiled_divide(Layout<S, D> const& a, Tiler const& tiler) {
  return detail::unpack_second(zipped_divide(a, tiler));
}

// (tile0, tile1, ..., rest0, rest1, ...).
template <class S, class D, class Tiler>
TESSEL_HOST_DEVICE constexpr auto flat_divide(Layout<S, D> const& a, Tiler const& tiler) {
  return detail::unpack_both(zipped_divide(a, tiler));
}

}  // namespace tessel
