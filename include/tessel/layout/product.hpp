// Products: repeat a block over the layout of a tiler.
// logical_product(A, B) = (A, composition(complement(A, size(A) * cosize(B)), B)):
// logical_product((2,2):(4,1), 6:1) -> ((2,2),(2,3)):((4,1),(2,8)).
#pragma once

#include "divide.hpp"

namespace tessel {

template <class S, class D, class Tiler>
TESSEL_HOST_DEVICE constexpr auto logical_product(Layout<S, D> const& a, Tiler const& tiler) {
  if constexpr (is_tuple_v<Tiler>) {
    return detail::by_mode(a, tiler, [](auto const& m, auto const& t) { return logical_product(m, t); });
  } else {
    auto b = detail::as_tile_layout(tiler);
    return make_layout(a, composition(complement(a, size(a) * cosize(b)), b));
  }
}

// ((block modes), (tiler modes)).
template <class S, class D, class Tiler>
TESSEL_HOST_DEVICE constexpr auto zipped_product(Layout<S, D> const& a, Tiler const& tiler) {
  if constexpr (is_tuple_v<Tiler>) {
    return detail::zip_tiles(logical_product(a, tiler), tiler);
  } else {
    return logical_product(a, tiler);
  }
}

// ((block modes), tiler0, tiler1, ...).
template <class S, class D, class Tiler>
TESSEL_HOST_DEVICE constexpr auto tiled_product(Layout<S, D> const& a, Tiler const& tiler) {
  return detail::unpack_second(zipped_product(a, tiler));
}

// (block0, block1, ..., tiler0, tiler1, ...).
template <class S, class D, class Tiler>
TESSEL_HOST_DEVICE constexpr auto flat_product(Layout<S, D> const& a, Tiler const& tiler) {
  return detail::unpack_both(zipped_product(a, tiler));
}

namespace detail {
// Both layouts padded to the same rank with 1:0 modes, then their logical product zipped
// mode by mode: mode i = (block_i, tiler-part_i) or, raked, (tiler-part_i, block_i); each
// mode is then coalesced on its own (as current CuTe does).
template <bool Raked, class SA, class DA, class SB, class DB>
TESSEL_HOST_DEVICE constexpr auto rank_product(Layout<SA, DA> const& block,
                                               Layout<SB, DB> const& tiler) {
  constexpr std::size_t R = rank_t<SA>::value > rank_t<SB>::value ? rank_t<SA>::value
                                                                  : rank_t<SB>::value;
  auto pad = [&](auto const& l) {  // [&]: clang 14 will not use R uncaptured
    auto modes = [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return make_tuple(get<Is>(l)...);
    }(std::make_index_sequence<rank_t<decltype(l.shape())>::value>{});
    return layout_of_modes(append_to_rank<R>(modes, make_layout(C<1>{}, C<0>{})));
  };
  auto p = logical_product(pad(block), pad(tiler));
  auto zipped = [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    if constexpr (Raked) {
      return make_tuple(make_layout(get<1, Is>(p), get<0, Is>(p))...);
    } else {
      return make_tuple(make_layout(get<0, Is>(p), get<1, Is>(p))...);
    }
  }(std::make_index_sequence<R>{});
  return coalesce(layout_of_modes(zipped), repeat<R>(C<1>{}));
}

}  // namespace detail

// Each element of the tiler becomes a copy of the block, blocks contiguous per mode:
// blocked_product((2,5):(5,1), (3,4):(1,3)) -> (6,(5,4)):(5,(1,30)) (mode 0 = (2,3):(5,10)
// merged).
template <class SA, class DA, class SB, class DB>
TESSEL_HOST_DEVICE constexpr auto blocked_product(Layout<SA, DA> const& block,
                                                  Layout<SB, DB> const& tiler) {
  return detail::rank_product<false>(block, tiler);
}

// Like blocked_product, but the blocks' elements are interleaved (raked) across the tiler:
// raked_product((2,5):(5,1), (3,4):(1,3)) -> ((3,2),(4,5)):((10,5),(30,1)).
template <class SA, class DA, class SB, class DB>
TESSEL_HOST_DEVICE constexpr auto raked_product(Layout<SA, DA> const& block,
                                                Layout<SB, DB> const& tiler) {
  return detail::rank_product<true>(block, tiler);
}

// Repeats the block (blocked, in column-major order of the repetitions) until it covers the
// target shape, whose every mode must be a multiple of the block's:
// tile_to_shape((2,2):(1,2), (4,6)) -> ((2,2),(2,3)):((1,4),(2,8)).
template <class SA, class DA, class TargetShape>
TESSEL_HOST_DEVICE constexpr auto tile_to_shape(Layout<SA, DA> const& block,
                                                TargetShape const& target) {
  constexpr std::size_t R = rank_t<TargetShape>::value;
  static_assert(rank_t<SA>::value <= R, "tile_to_shape: the block has more modes than the target");
  auto block_sizes = append_to_rank<R>(product_each(block.shape()), C<1>{});
  auto target_sizes = product_each(target);
  auto reps = transform(target_sizes, block_sizes, [](auto t, auto b) {
    if constexpr (is_static_v<decltype(t)> && is_static_v<decltype(b)>) {
      static_assert(decltype(t)::value % decltype(b)::value == 0,
                    "tile_to_shape: a mode of the target is not a multiple of the block's");
    } else {
      if (t % b != 0) {
        layout_error("tile_to_shape: a mode of the target is not a multiple of the block's "
                     "(target, block)",
                     t, b);
      }
    }
    return t / b;
  });
  return coalesce(blocked_product(block, make_layout(reps)), target_sizes);
}

}  // namespace tessel
